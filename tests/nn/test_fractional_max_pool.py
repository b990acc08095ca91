"""nn.FractionalMaxPool2d / 3d and ops.fractional_max_pool2d / 3d: MindSpore 2.7.2's outputs and
indices (printed by tests/nn/oracle_fractional_max_pool.py), a float64 NumPy reference of the
window rule, gradients to each window's maximum (finite differences), errors."""
import numpy as np
import pytest

from minispore import Tensor, nn, ops
from minispore.common import dtype as mstype
from tests.ops.harness import check_forward, check_grad

X = Tensor(np.arange(2 * 2 * 7 * 8, dtype=np.float32).reshape(2, 2, 7, 8) % 13)
S = Tensor(np.array([[[0.3, 0.7], [0.1, 0.9]], [[0.5, 0.5], [0.95, 0.05]]], np.float32))


def test_outputs_and_indices_are_mindspores():
    y, i = nn.FractionalMaxPool2d(2, output_size=(3, 4), return_indices=True,
                                  _random_samples=S)(X)
    assert y.shape == (2, 2, 3, 4) and i.dtype == mstype.int64
    np.testing.assert_array_equal(y.asnumpy()[0, 1], [[12, 7, 9, 11], [8, 10, 12, 9],
                                                      [6, 8, 10, 12]])
    np.testing.assert_array_equal(i.asnumpy()[0, 1], [[8, 3, 5, 7], [17, 19, 21, 31],
                                                      [41, 43, 45, 47]])
    y = nn.FractionalMaxPool2d((3, 2), output_ratio=(0.5, 0.5), _random_samples=S)(X)
    np.testing.assert_array_equal(y.asnumpy()[1, 0], [[12, 11, 12, 10], [12, 9, 11, 12],
                                                      [10, 12, 9, 11]])
    y = nn.FractionalMaxPool2d(2, output_size=3, _random_samples=S[:1])(X[0])
    np.testing.assert_array_equal(y.asnumpy()[1], [[12, 8, 11], [8, 11, 9], [6, 9, 12]])
    assert nn.FractionalMaxPool2d(2, output_size=3)(X).shape == (2, 2, 3, 3)


def _reference(x, u, k, out):
    """Graham's windows in float64: window i along a dim starts at int((i + u) * alpha) -
    int(u * alpha), alpha = (size - k) / (out - 1), the last at size - k."""
    n, c, h, w = x.shape

    def starts(v, size, o, kk):
        if o == 1:
            return [size - kk]
        alpha = np.float32(size - kk) / np.float32(o - 1)
        first = [int(np.float32(i + v) * alpha) - int(np.float32(v) * alpha)
                 for i in range(o - 1)]
        return first + [size - kk]
    y = np.empty((n, c) + out)
    for a in range(n):
        for b in range(c):
            rows = starts(u[a, b, 1], h, out[0], k[0])
            cols = starts(u[a, b, 0], w, out[1], k[1])
            for p, r in enumerate(rows):
                for q, s in enumerate(cols):
                    y[a, b, p, q] = x[a, b, r:r + k[0], s:s + k[1]].max()
    return y


@pytest.mark.parametrize("k,out", [((2, 2), (3, 4)), ((3, 2), (4, 5)), ((1, 3), (6, 1))])
def test_the_windows_follow_the_rule(k, out):
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 10)).astype(np.float32)
    u = np.random.default_rng(1).uniform(0, 1, (2, 3, 2)).astype(np.float32)
    check_forward(lambda t: ops.fractional_max_pool2d(t, k, out, _random_samples=Tensor(u)),
                  lambda a: _reference(a, u, k, out), [x])


def test_gradients_reach_each_windows_maximum():
    u = Tensor(np.random.default_rng(1).uniform(0, 1, (1, 2, 2)))
    check_grad(lambda t: ops.fractional_max_pool2d(t, 2, (3, 3), _random_samples=u),
               [np.random.default_rng(0).standard_normal((1, 2, 6, 6))])


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="'output_size' and 'output_ratio' can not be None"):
        nn.FractionalMaxPool2d(2)(X)
    with pytest.raises(ValueError, match=r"'output_ratio\[0\]' must be in range of \(0.0, 1.0\)"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)(X)
    with pytest.raises(ValueError, match=r"needs input of at least \(9, 4\)"):
        nn.FractionalMaxPool2d(3, output_size=(7, 2), _random_samples=S)(X)
    with pytest.raises(ValueError, match=r"'_random_samples' must be of shape \(2, 2, 2\)"):
        nn.FractionalMaxPool2d(2, output_size=3, _random_samples=S[:1])(X)
    with pytest.raises(TypeError, match="'kernel_size' must be an int or a tuple of two"):
        nn.FractionalMaxPool2d(2.0, output_size=3)(X)


# 3-D: distinct values, so each window's maximum (and its index) is unique
X3 = Tensor((np.arange(240) * 37 % 241).astype(np.float32).reshape(2, 1, 4, 5, 6))
S3 = Tensor(np.array([[[0.2, 0.6, 0.9]], [[0.7, 0.1, 0.4]]], np.float32))


def test_3d_outputs_and_indices_are_mindspores():
    y, i = nn.FractionalMaxPool3d(2, output_size=(2, 3, 4), return_indices=True,
                                  _random_samples=S3)(X3)
    assert y.shape == (2, 1, 2, 3, 4) and i.dtype == mstype.int64
    np.testing.assert_array_equal(y.asnumpy()[1, 0], [
        [[229, 176, 231, 231], [229, 157, 231, 231], [228, 228, 193, 230]],
        [[190, 227, 206, 224], [171, 208, 226, 224], [223, 170, 225, 225]]])
    np.testing.assert_array_equal(i.asnumpy()[1, 0], [
        [[36, 2, 10, 10], [36, 8, 10, 10], [49, 49, 22, 23]],
        [[61, 62, 94, 101], [67, 68, 75, 101], [114, 80, 88, 88]]])
    y = ops.fractional_max_pool3d(X3[0], (1, 3, 2), output_ratio=0.5, _random_samples=S3[:1])
    np.testing.assert_array_equal(y.asnumpy(), [[[[240, 111, 185], [240, 239, 147]],
                                                 [[234, 233, 141], [196, 233, 103]]]])


def _reference_3d(x, u, k, out):
    """Graham's windows in float64 along depth (u[..., 0]), rows (u[..., 1]) and columns
    (u[..., 2])."""
    def starts(v, size, o, kk):
        if o == 1:
            return [size - kk]
        alpha = np.float32(size - kk) / np.float32(o - 1)
        return [int(np.float32(i + v) * alpha) - int(np.float32(v) * alpha)
                for i in range(o - 1)] + [size - kk]
    n, c = x.shape[:2]
    y = np.empty((n, c) + out)
    for a in range(n):
        for b in range(c):
            ds, hs, ws = (starts(u[a, b, d], x.shape[2 + d], out[d], k[d]) for d in range(3))
            for p, r in enumerate(ds):
                for q, s in enumerate(hs):
                    for t, v in enumerate(ws):
                        y[a, b, p, q, t] = x[a, b, r:r + k[0], s:s + k[1], v:v + k[2]].max()
    return y


@pytest.mark.parametrize("k,out", [((2, 2, 2), (3, 4, 2)), ((1, 3, 2), (5, 2, 4)),
                                   ((3, 1, 1), (1, 6, 5))])
def test_3d_windows_follow_the_rule(k, out):
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 7, 5)).astype(np.float32)
    u = np.random.default_rng(1).uniform(0, 1, (2, 3, 3)).astype(np.float32)
    check_forward(lambda t: ops.fractional_max_pool3d(t, k, out, _random_samples=Tensor(u)),
                  lambda a: _reference_3d(a, u, k, out), [x])


def test_3d_gradients_reach_each_windows_maximum():
    u = Tensor(np.random.default_rng(1).uniform(0, 1, (1, 2, 3)))
    check_grad(lambda t: ops.fractional_max_pool3d(t, 2, (2, 3, 2), _random_samples=u),
               [np.random.default_rng(0).standard_normal((1, 2, 4, 5, 4))])


def test_3d_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="must be same dtype, but got Tensor.Float32. and "
                                        "Tensor.Float64."):
        ops.fractional_max_pool3d(X3, 2, 3, _random_samples=S3.astype(mstype.float64))
    with pytest.raises(ValueError, match=r"needs input of at least \(5, 5, 5\)"):
        ops.fractional_max_pool3d(X3, 2, 4, _random_samples=S3)
    with pytest.raises(ValueError, match=r"'_random_samples' must be of shape \(2, 1, 3\)"):
        nn.FractionalMaxPool3d(2, output_size=2, _random_samples=S3[:, :, :2])(X3)
    with pytest.raises(TypeError, match="'output_size' must be an int or a tuple of three"):
        nn.FractionalMaxPool3d(2, output_size=(2, 2))(X3)
