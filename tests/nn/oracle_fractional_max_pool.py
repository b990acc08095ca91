"""Run under real MindSpore 2.7.2 (the oracle venv, from /tmp) to print the values that
tests/nn/test_fractional_max_pool.py records (its backward fails on CPU: no float kernel)."""
import numpy as np, mindspore as ms
from mindspore import nn, Tensor, ops
x = Tensor(np.arange(2*2*7*8, dtype=np.float32).reshape(2, 2, 7, 8) % 13)
s = Tensor(np.array([[[0.3, 0.7], [0.1, 0.9]], [[0.5, 0.5], [0.95, 0.05]]], np.float32))
net = nn.FractionalMaxPool2d(kernel_size=2, output_size=(3, 4), return_indices=True, _random_samples=s)
y, i = net(x); print(y.shape, y.dtype, i.dtype); print(y.asnumpy()[0, 1]); print(i.asnumpy()[0, 1])
net = nn.FractionalMaxPool2d(kernel_size=(3, 2), output_ratio=(0.5, 0.5), _random_samples=s)
y = net(x); print(y.shape); print(y.asnumpy()[1, 0])
y = nn.FractionalMaxPool2d(kernel_size=2, output_size=3, _random_samples=s[:1])(x[0]); print(y.shape, y.asnumpy()[1])
print(nn.FractionalMaxPool2d(kernel_size=2, output_size=3)(x).shape)
for bad in (dict(kernel_size=2), dict(kernel_size=2, output_size=3, output_ratio=0.5), dict(kernel_size=2, output_ratio=1.5)):
    try: nn.FractionalMaxPool2d(**bad)(x); print("ok", bad)
    except Exception as e: print(type(e).__name__, str(e)[:120])
# 3-D (tests/nn/test_fractional_max_pool.py's X3 and S3): each pooled dim's sample component
x3 = Tensor((np.arange(240) * 37 % 241).astype(np.float32).reshape(2, 1, 4, 5, 6))
s3 = Tensor(np.array([[[0.2, 0.6, 0.9]], [[0.7, 0.1, 0.4]]], np.float32))
y, i = nn.FractionalMaxPool3d(2, output_size=(2, 3, 4), return_indices=True, _random_samples=s3)(x3)
print(y.shape, i.dtype); print(y.asnumpy()[1, 0].tolist()); print(i.asnumpy()[1, 0].tolist())
y = ops.fractional_max_pool3d(x3[0], (1, 3, 2), output_ratio=0.5, _random_samples=s3[:1])
print(y.shape, y.asnumpy().tolist())
for bad in (dict(output_size=3, _random_samples=s3.astype(ms.float64)), dict(output_size=4)):
    try: ops.fractional_max_pool3d(x3, 2, **bad); print("ok", bad)
    except Exception as e: print(type(e).__name__, str(e)[:160])
