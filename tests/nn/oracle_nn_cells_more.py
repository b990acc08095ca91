"""Run under MindSpore 2.7.2 (CPU) to print the values test_nn_cells_more.py holds as literals:
the sparse cells' outputs and gradients (InstanceNorm and Unfold do not run on MindSpore's CPU
build, so their tests use float64 numpy references instead)."""
import numpy as np

import mindspore as ms
from mindspore import COOTensor, Tensor, nn

IDX = np.array([[0, 1], [1, 2], [0, 1], [2, 0]], np.int64)
VAL = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
DENSE = {(False, False): np.arange(8, dtype=np.float32).reshape(4, 2) / 4,
         (True, False): np.arange(6, dtype=np.float32).reshape(3, 2) / 4,
         (False, True): np.arange(8, dtype=np.float32).reshape(2, 4) / 4,
         (True, True): np.arange(6, dtype=np.float32).reshape(2, 3) / 4}

print("to_dense", nn.SparseToDense()(COOTensor(Tensor(IDX), Tensor(VAL), (3, 4))).asnumpy().tolist())
print("to_dense_int32", nn.SparseToDense()(COOTensor(
    Tensor(IDX[::-1].copy()), Tensor(np.array([5, 6, 7, 8], np.int32)), (3, 4))).asnumpy().tolist())
for (st, dt), dense in DENSE.items():
    net = nn.SparseTensorDenseMatmul(st, dt)
    out = net(Tensor(IDX), Tensor(VAL), (3, 4), Tensor(dense))
    print("spmm", st, dt, out.asnumpy().tolist())
    grad = ms.grad(lambda v, d: (net(Tensor(IDX), v, (3, 4), d) * Tensor(
        np.arange(out.size, dtype=np.float32).reshape(out.shape))).sum(), grad_position=(0, 1))
    gv, gd = grad(Tensor(VAL), Tensor(dense))
    print("spmm_grad", st, dt, gv.asnumpy().tolist(), gd.asnumpy().tolist())
