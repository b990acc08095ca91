"""1-D and adaptive pooling, LP pooling, reflection / replication padding, nearest upsampling,
LRN and group_norm composed of existing primitives (ops/function/pool_compose_func.py,
nn/layer/pooling_compose.py): float64 references and finite-difference gradients."""
import numpy as np
import pytest

from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad

X3 = np.random.default_rng(1).standard_normal((2, 3, 6))
IMG = np.random.default_rng(0).standard_normal((1, 4, 4, 5))


def _lrn_ref(x, r, bias, alpha, beta):
    sq = np.pad(x ** 2, ((0, 0), (r, r), (0, 0), (0, 0)))
    total = sum(sq[:, k:k + x.shape[1]] for k in range(2 * r + 1))
    return x / (bias + alpha * total) ** beta


@pytest.mark.parametrize("op,ref,x", [
    (nn.AvgPool1d(2, 2), lambda a: a.reshape(2, 3, 3, 2).mean(-1), X3),
    (nn.MaxPool1d(3, 3), lambda a: a.reshape(2, 3, 2, 3).max(-1), X3),
    (nn.AdaptiveAvgPool1d(3), lambda a: a.reshape(2, 3, 3, 2).mean(-1), X3),
    (nn.AdaptiveMaxPool1d(2), lambda a: a.reshape(2, 3, 2, 3).max(-1), X3),
    (nn.AdaptiveMaxPool2d((2, 1)), lambda a: a.reshape(1, 4, 2, 2, 5).max((3, 4))[..., None], IMG),
    (nn.LPPool1d(2, 3), lambda a: np.sqrt((a.reshape(2, 3, 2, 3) ** 2).sum(-1)), X3),
    (nn.ReflectionPad2d((1, 2, 2, 0)), lambda a: np.pad(a, ((0, 0), (0, 0), (2, 0), (1, 2)),
                                                         mode="reflect"), IMG),
    (nn.ReplicationPad1d((2, 1)), lambda a: np.pad(a, ((0, 0), (0, 0), (2, 1)), mode="edge"), X3),
    (nn.Upsample(size=(2, 10)), lambda a: a[:, :, [0, 2]][..., np.arange(10) // 2], IMG),
    (nn.LRN(1, 1.5, 0.3, 0.75), lambda a: _lrn_ref(a, 1, 1.5, 0.3, 0.75), IMG),
    (lambda a: ops.group_norm(a, 2), lambda a: ((a.reshape(1, 2, -1) - a.reshape(1, 2, -1).mean(
        -1, keepdims=True)) / np.sqrt(a.reshape(1, 2, -1).var(-1, keepdims=True) + 1e-5)
    ).reshape(a.shape), IMG),
])
def test_forward_and_grad(op, ref, x):
    check_forward(op, ref, [x], rtol=1e-6, atol=1e-9)
    check_grad(op, [x], rtol=1e-4, atol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="divisible by output size"):
        nn.AdaptiveMaxPool1d(4)(Tensor(X3))
    with pytest.raises(ValueError, match="must be smaller than the padded dim"):
        nn.ReflectionPad1d(6)(Tensor(X3))
    with pytest.raises(NotImplementedError, match="only 'nearest'"):
        ops.interpolate(Tensor(IMG), size=2, mode="bilinear")


def _max_pool3d_ref(a, k, s):
    n, c, d, h, w = a.shape
    od, oh, ow = ((d - k) // s + 1, (h - k) // s + 1, (w - k) // s + 1)
    out = np.empty((n, c, od, oh, ow))
    for i in range(od):
        for j in range(oh):
            for m in range(ow):
                out[..., i, j, m] = a[..., i * s:i * s + k, j * s:j * s + k,
                                      m * s:m * s + k].max((-3, -2, -1))
    return out


def test_pool3d():
    vol = np.random.default_rng(2).standard_normal((1, 2, 4, 5, 6))
    check_forward(nn.MaxPool3d(2, 2), lambda a: _max_pool3d_ref(a, 2, 2), [vol])
    check_forward(lambda a: ops.adaptive_avg_pool3d(a, (2, 1, 3)),
                  lambda a: a.reshape(1, 2, 2, 2, 1, 5, 3, 2).mean((3, 5, 7)), [vol])
    check_grad(nn.AvgPool3d(2, 2), [vol])
