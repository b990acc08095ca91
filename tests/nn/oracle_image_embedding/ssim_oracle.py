"""Oracle values for tests/nn/test_image_embedding_cells.py (SSIM / MSSSIM)."""
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor
ms.set_context(mode=ms.GRAPH_MODE)
np.set_printoptions(precision=8, floatmode="unique")
rng = np.random.default_rng(0)
a = rng.random((2, 3, 16, 16)).astype(np.float32)
b = np.clip(a + 0.1 * rng.standard_normal(a.shape), 0, 1).astype(np.float32)
print("ssim default", nn.SSIM()(Tensor(a), Tensor(b)))
print("ssim custom", nn.SSIM(max_val=2, filter_size=4, filter_sigma=0.8, k1=0.02, k2=0.05)(Tensor(a), Tensor(b)))
out = nn.SSIM()(Tensor(a.astype(np.float16)), Tensor(b.astype(np.float16)))
print("ssim f16", out.dtype, out)
c = rng.random((1, 3, 192, 192)).astype(np.float32)
d = np.clip(c + 0.2 * rng.standard_normal(c.shape), 0, 1).astype(np.float32)
try:
    print("msssim", nn.MSSSIM()(Tensor(c), Tensor(d)))
except Exception as e:
    print("msssim err", type(e).__name__, e)
