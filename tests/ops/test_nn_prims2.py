"""Dropout3D, MaxPool3D, AvgPool3D, RandomCategorical, Uniform, TruncatedNormal,
ApplyGradientDescent and ApplyProximalGradientDescent (minispore/ops/function/nn_prims2.py):
float64 loop references, finite-difference gradients, distribution checks, in-place updates
and MindSpore 2.7.2's values and errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def _np_pool3d(x, k, s, pads, reduce, fill):
    """Loop reference: pad the last three dims with `fill`, reduce every window."""
    x = np.pad(x, [(0, 0), (0, 0)] + list(pads), constant_values=fill)
    out_shape = [(x.shape[2 + i] - k[i]) // s[i] + 1 for i in range(3)]
    out = np.empty(x.shape[:2] + tuple(out_shape))
    for d in range(out_shape[0]):
        for h in range(out_shape[1]):
            for w in range(out_shape[2]):
                win = x[:, :, d * s[0]:d * s[0] + k[0], h * s[1]:h * s[1] + k[1],
                        w * s[2]:w * s[2] + k[2]]
                out[:, :, d, h, w] = reduce(win, axis=(2, 3, 4))
    return out


def _same_pads(shape, k, s):
    pads = []
    for n, kk, ss in zip(shape, k, s):
        total = max((-(-n // ss) - 1) * ss + kk - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def test_max_pool3d_modes():
    x = rand(2, 2, 3, 4, 5, seed=1)
    k, s = (2, 2, 3), (1, 2, 1)
    for mode, pads in (("VALID", [(0, 0)] * 3), ("SAME", _same_pads(x.shape[2:], k, s)),
                       ("PAD", [(1, 0), (0, 1), (1, 1)])):
        pad_list = (1, 0, 0, 1, 1, 1) if mode == "PAD" else 0
        op = ops.MaxPool3D(kernel_size=k, strides=s, pad_mode=mode, pad_list=pad_list)
        check_forward(op, lambda a, pads=pads: _np_pool3d(a, k, s, pads, np.max, -np.inf), [x])
        check_grad(op, [x])
    half = ops.MaxPool3D(kernel_size=2)(Tensor(x.astype(np.float16)))
    assert half.dtype == ms.float16


def test_avg_pool3d_divisors():
    x = rand(1, 2, 3, 3, 4, seed=2)
    k, s = (2, 2, 3), (1, 1, 1)
    same = _same_pads(x.shape[2:], k, s)
    ones = np.ones_like(x)
    for include in (True, False):
        op = ops.AvgPool3D(kernel_size=k, strides=s, pad_mode="SAME", count_include_pad=include)
        if include:
            def ref(a):
                return _np_pool3d(a, k, s, same, np.sum, 0) / np.prod(k)
        else:
            def ref(a):
                return (_np_pool3d(a, k, s, same, np.sum, 0)
                        / _np_pool3d(ones, k, s, same, np.sum, 0))
        check_forward(op, ref, [x])
        check_grad(op, [x])
    op = ops.AvgPool3D(kernel_size=2, strides=2, pad_mode="PAD", pad=1, divisor_override=3)
    check_forward(op, lambda a: _np_pool3d(a, (2,) * 3, (2,) * 3, [(1, 1)] * 3, np.sum, 0) / 3,
                  [x])
    # MindSpore 2.7.2: count_include_pad under SAME (x = arange(72) of (1, 3, 2, 3, 4))
    xa = Tensor(np.arange(72, dtype=np.float32).reshape(1, 3, 2, 3, 4))
    got = ops.AvgPool3D(kernel_size=k, strides=1, pad_mode="SAME", count_include_pad=False)(xa)
    np.testing.assert_allclose(got.asnumpy()[0, 0, 0, 0], [8.5, 9, 10, 10.5])


def test_pool3d_errors():
    with pytest.raises(ValueError, match="'pad_mode' must be str and must be in"):
        ops.MaxPool3D(kernel_size=2, pad_mode="BAD")
    with pytest.raises(ValueError, match="x_rank must be equal to 5, but got 4"):
        ops.MaxPool3D(kernel_size=2)(Tensor(rand(2, 2, 2, 2)))
    with pytest.raises(NotImplementedError, match="ceil_mode=True"):
        ops.AvgPool3D(ceil_mode=True)
    with pytest.raises(ValueError, match="pads must be zero when pad_mode is not 'PAD'"):
        ops.AvgPool3D(pad=1)


def test_dropout3d_drops_whole_channels():
    ms.set_seed(5)
    x = np.ones((4, 8, 2, 2, 2), np.float32)
    out, mask = ops.Dropout3D(0.5)(Tensor(x))
    o, m = out.asnumpy(), mask.asnumpy()
    assert mask.dtype == ms.bool_ and set(np.unique(o)) <= {0.0, 2.0}
    assert (m == (o != 0)).all()
    per_channel = m.reshape(4, 8, -1)
    assert (per_channel.all(-1) | ~per_channel.any(-1)).all()   # all or nothing per channel
    out_i, _ = ops.Dropout3D(0.5)(Tensor(x.astype(np.int32)))
    assert out_i.dtype == ms.int32
    with pytest.raises(ValueError, match=r"'keep_prob' must be in range of \[0.0, 1.0\]"):
        ops.Dropout3D(1.5)
    with pytest.raises(ValueError, match="rank of input  must be equal to 5 , but got 4"):
        ops.Dropout3D()(Tensor(rand(2, 2, 2, 2)))


def test_random_ops():
    ms.set_seed(3)
    logits = Tensor(np.array([[0.0, 50.0, 0.0], [50.0, 0.0, 0.0]], np.float32))
    idx = ops.RandomCategorical(ms.int32)(logits, 6, 1)
    assert idx.dtype == ms.int32 and idx.asnumpy().tolist() == [[1] * 6, [0] * 6]
    assert ops.RandomCategorical()(logits, 2).dtype == ms.int64
    with pytest.raises(TypeError, match="'dtype' should be one of"):
        ops.RandomCategorical(ms.float32)

    u = ops.Uniform(1.0, 2.0)(Tensor(np.zeros((200, 50))))
    assert u.dtype == ms.float64 and u.shape == (200, 50)
    a = u.asnumpy()
    assert 1.0 <= a.min() and a.max() < 2.0 and abs(a.mean() - 1.5) < 0.01
    with pytest.raises(ValueError, match="'minval' should be <= maxval: 1.0, but got 2.0"):
        ops.Uniform(2.0, 1.0)
    with pytest.raises(TypeError, match="'minval' must be float, but got 'int'"):
        ops.Uniform(1, 2)

    t = ops.TruncatedNormal()(Tensor(np.array([400, 50], np.int32))).asnumpy()
    assert t.dtype == np.float32 and -2 < t.min() and t.max() < 2
    # The standard normal cut at +-2 has standard deviation 0.8796
    assert abs(t.std() - 0.8796) < 0.02 and abs(t.mean()) < 0.02
    assert ops.TruncatedNormal(dtype=ms.float16)(Tensor(np.array([3], np.int64))).dtype == \
        ms.float16
    with pytest.raises(TypeError, match=r"type of input argument\[shape\] must be Tensor"):
        ops.TruncatedNormal()((2, 3))
    with pytest.raises(TypeError, match="'dtype' should be one of .*'mindspore.int32'"):
        ops.TruncatedNormal(dtype=ms.int32)


def test_apply_gradient_descent_updates_in_place():
    v0, d = rand(3, 4, seed=6), rand(3, 4, seed=7)
    var = Parameter(Tensor(v0), name="var")
    out = ops.ApplyGradientDescent()(var, Tensor(np.float32(0.1)), Tensor(d))
    np.testing.assert_allclose(var.asnumpy(), v0 - 0.1 * d, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), var.asnumpy())
    ops.ApplyGradientDescent()(var, 0.5, Tensor(d))      # a Python number alpha
    np.testing.assert_allclose(var.asnumpy(), v0 - 0.6 * d, rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="'delta' must have the same shape as 'var'"):
        ops.ApplyGradientDescent()(var, 0.1, Tensor(rand(2, 2)))
    with pytest.raises(TypeError, match="'alpha' must have the dtype of 'var'"):
        ops.ApplyGradientDescent()(var, Tensor(np.float64(0.1)), Tensor(d))


def test_apply_proximal_gradient_descent():
    v0 = np.array([[1.0, -1.0], [0.05, 3.0]], np.float32)
    var = Parameter(Tensor(v0), name="pvar")
    args = [Tensor(np.float32(v)) for v in (0.1, 0.5, 0.2)]
    ops.ApplyProximalGradientDescent()(var, *args, Tensor(np.full((2, 2), 0.3, np.float32)))
    prox = v0.astype(np.float64) - 0.1 * 0.3
    want = np.sign(prox) * np.maximum(np.abs(prox) - 0.1 * 0.5, 0) / (1 + 0.1 * 0.2)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-6)
    # MindSpore 2.7.2's values for the same step
    np.testing.assert_allclose(var.asnumpy(), [[0.90196073, -0.9607843], [0.0, 2.8627453]],
                               rtol=1e-6)

    def step(v):
        p = Parameter(v, name="gv")
        return ms.jit(lambda: ops.ApplyProximalGradientDescent()(
            p, *args, Tensor(np.full((2, 2), 0.3, np.float32))))(), p
    _, p = step(Tensor(v0))
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("mode", ["align_corners", "half_pixel"])
def test_resize_linear_1d(mode):
    x = rand(2, 3, 5, seed=9)
    for out in (1, 3, 5, 8):
        j = np.arange(out)
        if out == 1:
            src = np.zeros(1)
        elif mode == "align_corners":
            src = j * 4 / (out - 1)
        else:
            src = np.maximum((j + 0.5) * 5 / out - 0.5, 0)
        op = ops.ResizeLinear1D(mode)
        check_forward(lambda t, out=out: op(t, Tensor(np.array([out], np.int64))),
                      lambda a, src=src: np.apply_along_axis(
                          lambda r: np.interp(src, np.arange(5), r), -1, a), [x])
        check_grad(lambda t, out=out: op(t, (out,)), [x])
    # MindSpore's st values: [1, 2, 3] to 6 points
    x0 = Tensor(np.array([[[1, 2, 3]]], np.float16))
    got = ops.ResizeLinear1D("half_pixel")(x0, Tensor(np.array([6], np.int64)))
    np.testing.assert_allclose(got.asnumpy()[0, 0], [1, 1.25, 1.75, 2.25, 2.75, 3], rtol=1e-3)


def test_resize_linear_1d_errors():
    x = Tensor(rand(1, 2, 4))
    with pytest.raises(RuntimeError, match="coordinate_transformation_mode not support now"):
        ops.ResizeLinear1D("asymmetric")(x, (3,))
    with pytest.raises(ValueError, match="image rank must be equal to 3, but got 2"):
        ops.ResizeLinear1D()(Tensor(rand(2, 4)), (3,))
    with pytest.raises(ValueError, match="size value must be greater than 0, but got 0"):
        ops.ResizeLinear1D()(x, (0,))
    with pytest.raises(TypeError, match="must be a Float16, Float32 or Float64 Tensor"):
        ops.ResizeLinear1D()(Tensor(np.ones((1, 2, 3), np.int32)), (3,))
