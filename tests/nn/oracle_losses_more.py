"""Oracle literals for tests/nn/test_losses_more.py (run under MindSpore 2.7.2, CPU)."""
import numpy as np, mindspore as ms
from mindspore import Tensor, ops, nn
np.set_printoptions(precision=8, suppress=True, floatmode="unique")
lpn = np.log(np.array([[[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], [[0.3, 0.3, 0.4], [0.1, 0.7, 0.2]],
                       [[0.5, 0.25, 0.25], [0.4, 0.4, 0.2]], [[0.1, 0.6, 0.3], [0.3, 0.3, 0.4]]],
                      np.float32))
lp = Tensor(lpn)
tg = Tensor(np.array([[1, 1], [2, 0]], np.int32))
il = Tensor(np.array([4, 3], np.int32)); tl = Tensor(np.array([2, 1], np.int32))
for red in ("none", "sum", "mean"):
    print(red, ops.ctc_loss(lp, tg, il, tl, reduction=red)[0].asnumpy())
print("log_alpha", repr(ops.ctc_loss(lp, tg, il, tl)[1].asnumpy()))
print("grad", repr(ms.grad(lambda a: ops.ctc_loss(a, tg, il, tl, reduction="sum")[0])(lp).asnumpy()))
w = Tensor(np.arange(21, dtype=np.float32).reshape(7, 3) / 10 - 1)
b = Tensor(np.linspace(-0.3, 0.3, 7).astype(np.float32))
lab = Tensor(np.array([[0], [5], [2]], np.int32))
lg = Tensor(np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.6], [-0.4, 0.2, 0.9]], np.float32))
sv = (Tensor(np.array([1, 4, 5], np.int32)), Tensor(np.array([[0.4], [0.3], [0.2]], np.float32)),
      Tensor(np.array([0.4, 0.5, 0.6], np.float32)))
print("sampled", nn.SampledSoftmaxLoss(3, 7, sampled_values=sv)(w, b, lab, lg).asnumpy())
print("sampled mean", nn.SampledSoftmaxLoss(3, 7, sampled_values=sv, reduction="mean")(w, b, lab, lg).asnumpy())
