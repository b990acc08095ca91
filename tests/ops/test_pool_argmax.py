"""MaxPoolWithArgmax, MaxPoolWithArgmaxV2 and ops.max_pool2d(return_indices=True): a float64
brute-force reference, MindSpore 2.7.2's recorded outputs, finite-difference gradients."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad

X = np.random.RandomState(0).randn(2, 2, 5, 6)


def _reference(x, k, s, p, d, oh, ow, plane_offsets):
    """Brute-force max and first-argmax over the in-bounds cells of each dilated window."""
    n, c, h, w = x.shape
    out = np.empty((n, c, oh, ow))
    arg = np.empty((n, c, oh, ow), np.int64)
    for a, b, y, z in np.ndindex(n, c, oh, ow):
        cells = [(r, q) for r in (y * s[0] - p[0] + i * d[0] for i in range(k[0]))
                 for q in (z * s[1] - p[1] + j * d[1] for j in range(k[1]))
                 if 0 <= r < h and 0 <= q < w]
        r, q = max(cells, key=lambda rq: (x[a, b, rq[0], rq[1]], -cells.index(rq)))
        out[a, b, y, z] = x[a, b, r, q]
        arg[a, b, y, z] = r * w + q + (b * h * w if plane_offsets else 0)
    return out, arg


@pytest.mark.parametrize("k,s,p,d,ceil,shape", [
    ((3, 3), (2, 2), (1, 1), (1, 1), True, (3, 4)),
    ((2, 2), (1, 1), (0, 0), (2, 2), False, (3, 4)),
    ((2, 3), (1, 2), (1, 1), (1, 1), False, (6, 3)),
    ((3, 2), (2, 2), (1, 0), (1, 2), True, (3, 3)),
])
def test_v2_equals_the_reference(k, s, p, d, ceil, shape):
    prim = ops.MaxPoolWithArgmaxV2(k, s, p, d, ceil)
    out, arg = prim(Tensor(X))
    want, want_arg = _reference(X, k, s, p, d, *shape, plane_offsets=False)
    assert arg.dtype == ms.int64 and out.dtype == ms.float64
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(arg.asnumpy(), want_arg)


def test_v2_gradient_is_dout_at_the_argmax_by_finite_differences():
    prim = ops.MaxPoolWithArgmaxV2(3, 2, 1, ceil_mode=True)
    weights = Tensor(np.random.RandomState(1).randn(2, 2, 3, 4))
    grad = ms.grad(lambda t: (prim(t)[0] * weights).sum())(Tensor(X)).asnumpy()
    eps, fd = 1e-6, np.zeros_like(X)
    f = lambda a: float((prim(Tensor(a))[0].asnumpy() * weights.asnumpy()).sum())  # noqa: E731
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = eps
        fd[i] = (f(X + e) - f(X - e)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, atol=1e-8)


@pytest.mark.parametrize("prim,ref", [
    (ops.MaxPoolWithArgmaxV2(3, 2, 1, (1, 2), True),
     lambda a: _reference(a, (3, 3), (2, 2), (1, 1), (1, 2), 3, 3, plane_offsets=False)),
    (ops.MaxPoolWithArgmax(2, 2),
     lambda a: _reference(a, (2, 2), (2, 2), (0, 0), (1, 1), 2, 3, plane_offsets=True)),
])
def test_argmax_pools_forward_and_gradient(prim, ref):
    check_forward(prim, ref, [X])
    check_grad(prim, [X], out_index=0)


def test_v1_same_pads_max_k_minus_s_over_two_on_top_as_mindspore():
    # MindSpore 2.7.2, MaxPoolWithArgmax(k, s, 'same') on -arange(H*W): the argmax is each
    # window's first in-bounds cell, so these tables show where the windows start.
    recorded = {(5, 3, 2): [[0, 2, 4], [10, 12, 14], [20, 22, 24]],
                (5, 4, 2): [[0, 1, 3], [5, 6, 8], [15, 16, 18]],
                (7, 5, 3): [[0, 2, 5], [14, 16, 19], [35, 37, 40]]}
    for (h, k, s), want in recorded.items():
        x = -np.arange(h * h, dtype=np.float32).reshape(1, 1, h, h)
        _, arg = ops.MaxPoolWithArgmax(k, s, "same")(Tensor(x))
        assert arg.dtype == ms.int32
        assert arg.asnumpy()[0, 0].tolist() == want


def test_v1_indexes_the_sample_and_its_gradient_lands_there():
    prim = ops.MaxPoolWithArgmax(kernel_size=2, strides=2)
    x = Tensor(X.astype(np.float32))
    out, arg = prim(x)
    want, want_arg = _reference(X, (2, 2), (2, 2), (0, 0), (1, 1), 2, 3, plane_offsets=True)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(arg.asnumpy(), want_arg)
    # MindSpore 2.7.2: argmax[1] for this input.
    assert arg.asnumpy()[1].tolist() == [[[7, 9, 10], [12, 21, 22]], [[37, 33, 40], [48, 45, 53]]]
    dout = np.arange(24, dtype=np.float32).reshape(out.shape)
    grad = ms.grad(lambda t: (prim(t)[0] * Tensor(dout)).sum())(x).asnumpy()
    flat = np.zeros((2, 60), np.float32)
    for a in range(2):
        np.add.at(flat[a], want_arg[a].ravel(), dout[a].ravel())
    np.testing.assert_array_equal(grad, flat.reshape(X.shape))


def test_max_pool2d_return_indices_equals_mindspore():
    out, arg = ops.max_pool2d(Tensor(X.astype(np.float32)), 3, 2, 1, return_indices=True,
                              ceil_mode=True)
    assert out.shape == (2, 2, 3, 4) and arg.dtype == ms.int64
    assert arg.asnumpy()[1, 0].ravel().tolist() == [7, 7, 10, 11, 12, 21, 21, 11, 25, 25, 29, 29]
    assert ops.max_pool2d(Tensor(X), 3, 2, 1, ceil_mode=True, dilation=2).shape == (2, 2, 2, 3)


def test_float16_and_compiled_graphs():
    x16 = Tensor(np.arange(16, dtype=np.float16).reshape(1, 1, 4, 4))
    out, arg = ops.MaxPoolWithArgmaxV2(2, 2)(x16)
    assert out.dtype == ms.float16 and out.asnumpy().ravel().tolist() == [5, 7, 13, 15]
    assert arg.asnumpy().ravel().tolist() == [5, 7, 13, 15]
    prim = ops.MaxPoolWithArgmaxV2(3, 2, 1, ceil_mode=True)
    step = ms.jit(lambda t: ms.grad(lambda u: prim(u)[0].sum())(t))
    eager = ms.grad(lambda u: prim(u)[0].sum())(Tensor(X))
    np.testing.assert_array_equal(step(Tensor(X)).asnumpy(), eager.asnumpy())


@pytest.mark.parametrize("make,err,words", [
    (lambda: ops.MaxPoolWithArgmaxV2(3, 2, 2)(Tensor(X)), ValueError, "no more than half"),
    (lambda: ops.MaxPoolWithArgmaxV2(3, 2, 1, argmax_type=ms.float32), TypeError,
     "'argmax_type' must be"),
    (lambda: ops.MaxPoolWithArgmax(2, 2, "pad"), ValueError, "'pad_mode' must be 'valid' or"),
    (lambda: ops.MaxPoolWithArgmaxV2(2)(Tensor(np.ones((2, 3, 4), np.float32))), ValueError,
     "4-D"),
    (lambda: ops.MaxPoolWithArgmaxV2(7)(Tensor(X)), ValueError, "too small"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
