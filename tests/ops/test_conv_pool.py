"""Conv2D and pooling: forward vs float64 numpy loops, backward vs finite differences, bad input."""
import math

import numpy as np
import pytest

from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def _same_pads(size, k, s, d):
    out = -(-size // s)
    total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
    return total // 2, total - total // 2


def _conv_ref(x, w, stride, dilation, pads, group):
    """Direct NCHW cross-correlation in float64 with explicit (top, bottom, left, right) pads."""
    pt, pb, pl, pr = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    n, c, h, wd = xp.shape
    cout, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    oh = (h - (kh - 1) * dh - 1) // sh + 1
    ow = (wd - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, cout, oh, ow))
    og = cout // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                           j * dw:j * dw + (ow - 1) * sw + 1:sw]
                out[:, g * og:(g + 1) * og] += np.einsum("ncyx,oc->noyx", patch,
                                                         w[g * og:(g + 1) * og, :, i, j])
    return out


# (pad_mode, pad, stride, dilation, group)
CONV_CASES = [
    ("valid", 0, 1, 1, 1),
    ("valid", 0, 2, 1, 1),
    ("same", 0, 1, 1, 1),
    ("same", 0, 2, 1, 2),
    ("pad", 1, 1, 1, 1),
    ("pad", (0, 2, 1, 0), (2, 1), 1, 1),
    ("valid", 0, 1, 2, 1),
    ("same", 0, (1, 2), (2, 1), 2),
]


def _pads_for(pad_mode, pad, x_shape, k, stride, dilation):
    stride = (stride, stride) if isinstance(stride, int) else stride
    dilation = (dilation, dilation) if isinstance(dilation, int) else dilation
    if pad_mode == "valid":
        return (0, 0, 0, 0), stride, dilation
    if pad_mode == "same":
        return (_same_pads(x_shape[2], k, stride[0], dilation[0])
                + _same_pads(x_shape[3], k, stride[1], dilation[1])), stride, dilation
    return ((pad,) * 4 if isinstance(pad, int) else pad), stride, dilation


@pytest.mark.parametrize("pad_mode,pad,stride,dilation,group", CONV_CASES)
def test_conv2d_forward_and_grad(pad_mode, pad, stride, dilation, group):
    x = rand(2, 4, 7, 6, seed=1)
    w = rand(6, 4 // group, 3, 3, seed=2)
    pads, st, dil = _pads_for(pad_mode, pad, x.shape, 3, stride, dilation)
    op = ops.Conv2D(6, 3, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                    group=group)
    check_forward(op, lambda a, b: _conv_ref(a, b, st, dil, pads, group), [x, w],
                  rtol=1e-5, atol=1e-5)
    check_grad(op, [x, w], rtol=1e-5, atol=1e-6)


def test_conv2d_same_keeps_spatial_size_and_lenet_shapes():
    x = Tensor(rand(2, 1, 32, 32, seed=3))
    w = Tensor(rand(6, 1, 5, 5, seed=4))
    assert ops.conv2d(x, w, pad_mode="same").shape == (2, 6, 32, 32)
    assert ops.conv2d(x, w).shape == (2, 6, 28, 28)
    assert ops.max_pool2d(ops.conv2d(x, w), 2).shape == (2, 6, 14, 14)


def test_conv2d_functional_bias():
    x = rand(1, 2, 5, 5, seed=5)
    w = rand(3, 2, 3, 3, seed=6)
    b = rand(3, seed=7)
    got = ops.conv2d(Tensor(x), Tensor(w), Tensor(b), padding=1, pad_mode="pad").asnumpy()
    want = _conv_ref(x.astype(np.float64), w.astype(np.float64), (1, 1), (1, 1), (1,) * 4, 1)
    np.testing.assert_allclose(got, want + b.reshape(1, 3, 1, 1), rtol=1e-5, atol=1e-5)


def test_conv2d_backprop_primitives_are_differentiable():
    x = rand(2, 2, 5, 5, seed=8)
    w = rand(3, 2, 3, 3, seed=9)
    dout = rand(2, 3, 3, 3, seed=10)
    bi = ops.Conv2DBackpropInput(3, 3, pad_mode="pad", pad=1, stride=2)
    bf = ops.Conv2DBackpropFilter(3, 3, pad_mode="pad", pad=1, stride=2)
    check_grad(lambda d, k: bi(d, k, x.shape), [dout, w])
    check_grad(lambda d, a: bf(d, a, w.shape), [dout, x])


def test_conv2d_bad_inputs():
    x = Tensor(rand(1, 3, 8, 8))
    with pytest.raises(ValueError, match=r"For 'Conv2D'.*input channels 3.*weight.shape\[1\]"):
        ops.Conv2D(4, 3)(x, Tensor(rand(4, 2, 3, 3)))
    with pytest.raises(ValueError, match=r"'weight' shape \(4, 3, 5, 5\).*out_channel=4.*3, 3"):
        ops.Conv2D(4, 3)(x, Tensor(rand(4, 3, 5, 5)))
    with pytest.raises(ValueError, match=r"'pad' must be zero when 'pad_mode' is not 'pad'"):
        ops.Conv2D(4, 3, pad_mode="same", pad=1)
    with pytest.raises(ValueError, match=r"'pad_mode' must be one of"):
        ops.Conv2D(4, 3, pad_mode="full")
    with pytest.raises(ValueError, match=r"too small.*output would be \(-\d+, -\d+\)|too small"):
        ops.Conv2D(4, 9)(x, Tensor(rand(4, 3, 9, 9)))
    with pytest.raises(ValueError, match=r"'x' must be 4-D"):
        ops.Conv2D(4, 3)(Tensor(rand(3, 8, 8)), Tensor(rand(4, 3, 3, 3)))


def _pool_ref(x, k, s, pads, reduce, include_pad=False):
    """Windows clipped to the input (padding never wins a max nor counts unless include_pad)."""
    pt, pb, pl, pr = pads
    n, c, h, w = x.shape
    oh = (h + pt + pb - k[0]) // s[0] + 1
    ow = (w + pl + pr - k[1]) // s[1] + 1
    out = np.zeros((n, c, oh, ow))
    for y in range(oh):
        for xo in range(ow):
            h0, w0 = y * s[0] - pt, xo * s[1] - pl
            win = x[:, :, max(h0, 0):min(h0 + k[0], h), max(w0, 0):min(w0 + k[1], w)]
            if reduce == "max":
                out[:, :, y, xo] = win.max(axis=(2, 3))
            else:
                cnt = k[0] * k[1] if include_pad else win.shape[2] * win.shape[3]
                out[:, :, y, xo] = win.sum(axis=(2, 3)) / cnt
    return out


def _pool_pads(pad_mode, x_shape, k, s):
    if pad_mode == "valid":
        return (0, 0, 0, 0)
    return _same_pads(x_shape[2], k[0], s[0], 1) + _same_pads(x_shape[3], k[1], s[1], 1)


POOL_CASES = [("valid", 2, 2), ("valid", 3, 1), ("same", 3, 2), ("same", (2, 3), (1, 2)),
              ("VALID", (3, 2), (2, 1))]


@pytest.mark.parametrize("cls,reduce", [(ops.MaxPool, "max"), (ops.AvgPool, "avg")])
@pytest.mark.parametrize("pad_mode,k,s", POOL_CASES)
def test_pool_forward_and_grad(cls, reduce, pad_mode, k, s):
    x = rand(2, 3, 7, 6, seed=11)
    kk = (k, k) if isinstance(k, int) else k
    ss = (s, s) if isinstance(s, int) else s
    pads = _pool_pads(pad_mode.lower(), x.shape, kk, ss)
    op = cls(kernel_size=k, strides=s, pad_mode=pad_mode)
    check_forward(op, lambda a: _pool_ref(a, kk, ss, pads, reduce), [x])
    check_grad(op, [x])


@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool2d_functional_padding(include_pad):
    x = rand(1, 2, 5, 6, seed=12)

    def op(t):
        return ops.avg_pool2d(t, 3, 2, padding=1, count_include_pad=include_pad)

    check_forward(op, lambda a: _pool_ref(a, (3, 3), (2, 2), (1,) * 4, "avg", include_pad), [x])
    check_grad(op, [x])


def test_max_pool2d_functional_padding_and_default_stride():
    x = rand(1, 2, 6, 6, seed=13, low=-2, high=-1)   # negative: padding must not win the max
    check_forward(lambda t: ops.max_pool2d(t, 2, padding=1),
                  lambda a: _pool_ref(a, (2, 2), (2, 2), (1,) * 4, "max"), [x])
    check_forward(lambda t: ops.max_pool2d(t, 3),
                  lambda a: _pool_ref(a, (3, 3), (3, 3), (0,) * 4, "max"), [x])


def test_max_pool_grad_goes_to_window_max_only():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    from minispore import grad
    g = grad(lambda t: ops.MaxPool(2, 2)(t).sum())(Tensor(x)).asnumpy()
    want = np.zeros((4, 4), np.float32)
    want[1::2, 1::2] = 1
    np.testing.assert_array_equal(g[0, 0], want)


def test_pool_bad_inputs():
    with pytest.raises(ValueError, match=r"For 'MaxPool', 'pad_mode' must be one of"):
        ops.MaxPool(2, 2, pad_mode="full")
    with pytest.raises(ValueError, match=r"For 'AvgPool', 'kernel_size' must be positive"):
        ops.AvgPool(0, 1)
    with pytest.raises(ValueError, match=r"For 'MaxPool'.*'x' must be 4-D.*\(3, 4, 4\)"):
        ops.MaxPool(2, 2)(Tensor(rand(3, 4, 4)))
    with pytest.raises(ValueError, match=r"too small"):
        ops.MaxPool(5, 1)(Tensor(rand(1, 1, 3, 3)))
    # ceil_mode runs through MaxPoolWithArgmaxV2 (tests/ops/test_pool_argmax.py).
    assert ops.max_pool2d(Tensor(rand(1, 1, 5, 5)), 2, ceil_mode=True).shape == (1, 1, 3, 3)


def test_same_padding_puts_extra_row_at_bottom():
    assert _same_pads(7, 4, 1, 1) == (1, 2)
    x = Tensor(rand(1, 1, 7, 7, seed=14))
    assert ops.MaxPool(4, 1, "same")(x).shape == (1, 1, 7, 7)
    assert math.ceil(7 / 2) == ops.AvgPool(3, 2, "same")(x).shape[2]


def test_float32_stays_float32():
    x = Tensor(rand(2, 3, 6, 6, seed=15))
    w = Tensor(rand(4, 3, 3, 3, seed=16))
    outs = [ops.conv2d(x, w), ops.MaxPool(2, 2)(x), ops.AvgPool(2, 2)(x),
            *ops.LayerNorm()(x, Tensor(rand(3, 6, 6)), Tensor(rand(3, 6, 6))),
            *ops.Dropout()(x), ops.bias_add_relu(x, Tensor(rand(3)))]
    assert all(o.dtype.name == "Float32" and o.asnumpy().dtype == np.float32 for o in outs)
