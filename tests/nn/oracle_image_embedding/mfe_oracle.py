"""Oracle values for tests/nn/test_image_embedding_cells.py (MultiFieldEmbeddingLookup)."""
import sys
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor
if len(sys.argv) > 1:
    ms.set_context(mode=ms.GRAPH_MODE)
np.set_printoptions(precision=8, floatmode="unique")
table = Tensor(np.linspace(-1, 1, 40).reshape(10, 4).astype(np.float32))
idx = Tensor(np.array([[2, 4, 6, 0, 0], [1, 3, 5, 9, 0]], np.int32))
val = Tensor(np.array([[1, 0.5, -2, 0, 0], [1, 3, -1, 0.25, 0]], np.float32))
fid = Tensor(np.array([[0, 1, 1, 0, 0], [0, 0, 2, 2, 0]], np.int32))
for op in ("SUM", "MAX", "MEAN"):
    for target in ("CPU", "DEVICE"):
        try:
            net = nn.MultiFieldEmbeddingLookup(10, 4, 3, param_init=table, operator=op, target=target)
            out = net(idx, val, fid)
            print(op, target, out.dtype, out.shape, out.asnumpy().tolist())
        except Exception as e:
            print(op, target, "err", type(e).__name__, str(e)[:200])
try:
    net = nn.MultiFieldEmbeddingLookup(10, 4, 3, param_init=table, max_norm=0.5)
    print("maxnorm", net(idx, val, fid).asnumpy().tolist())
except Exception as e:
    print("maxnorm err", type(e).__name__, str(e)[:200])
