import numpy as np
import mindspore as ms
from mindspore import nn, Tensor
ms.set_context(mode=ms.GRAPH_MODE)
print([p.name for p in nn.SSIM().get_parameters()], [p.name for p in nn.MSSSIM(power_factors=(0.5, 0.5)).get_parameters()], len(nn.SSIM().trainable_params()))
f = lambda *s: Tensor(np.full(s, 0.5, np.float32))
def t(name, fn):
    try:
        r = fn(); print(name, "OK", r)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:250])
t("ssim maxval", lambda: nn.SSIM(max_val=0))
t("ssim maxval str", lambda: nn.SSIM(max_val="1"))
t("ssim fs", lambda: nn.SSIM(filter_size=0))
t("ssim fs float", lambda: nn.SSIM(filter_size=3.0))
t("ssim sigma", lambda: nn.SSIM(filter_sigma=0.0))
t("ssim sigma int", lambda: nn.SSIM(filter_sigma=1))
t("ssim k1 int", lambda: nn.SSIM(k1=1))
t("ssim 3d", lambda: nn.SSIM()(f(3, 16, 16), f(3, 16, 16)))
t("ssim small", lambda: nn.SSIM()(f(1, 1, 8, 16), f(1, 1, 8, 16)))
t("ssim f64", lambda: nn.SSIM()(Tensor(np.ones((1, 1, 16, 16))), Tensor(np.ones((1, 1, 16, 16)))))
t("ssim shape", lambda: nn.SSIM()(f(1, 1, 16, 16), f(1, 2, 16, 16)))
t("ssim dtype", lambda: nn.SSIM()(f(1, 1, 16, 16), Tensor(np.ones((1, 1, 16, 16), np.float16))))
t("ms pf", lambda: nn.MSSSIM(power_factors=0.5))
t("ms 3d", lambda: nn.MSSSIM()(f(3, 16, 16), f(3, 16, 16)))
t("ms small", lambda: nn.MSSSIM()(f(1, 1, 100, 100), f(1, 1, 100, 100)))
t("ms int32", lambda: nn.MSSSIM()(Tensor(np.ones((1, 1, 192, 192), np.int32)), Tensor(np.ones((1, 1, 192, 192), np.int32))))
t("ms shape", lambda: nn.MSSSIM()(f(1, 1, 192, 192), f(1, 1, 192, 180)))
rng = np.random.default_rng(1)
u1 = rng.integers(0, 256, (2, 2, 48, 48)).astype(np.uint8)
u2 = np.clip(u1.astype(int) + rng.integers(-40, 40, u1.shape), 0, 255).astype(np.uint8)
t("ms uint8", lambda: nn.MSSSIM(max_val=255, power_factors=(0.3, 0.7), filter_size=7, filter_sigma=1.0)(Tensor(u1), Tensor(u2)))
t("ms f64", lambda: nn.MSSSIM(power_factors=(0.3, 0.7), filter_size=7, filter_sigma=1.0)(Tensor(u1 / 255.0), Tensor(u2 / 255.0)))
t("ms f16 dtype", lambda: nn.MSSSIM(power_factors=(0.3, 0.7), filter_size=7)(Tensor((u1 / 255.0).astype(np.float16)), Tensor((u2 / 255.0).astype(np.float16))).dtype)
