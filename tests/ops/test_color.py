"""ops.RGBToHSV / ops.HSVToRGB: MindSpore 2.7.2's recorded outputs and gradient, a round trip,
finite-difference gradients in float64, and MindSpore's input checks."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

X = np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32)


def test_rgb_to_hsv_equals_mindspore():
    got = ops.RGBToHSV()(Tensor(X)).asnumpy()
    np.testing.assert_allclose(got, [[0.75, 0.75, 0.8], [0.291667, 0.888889, 0.9]], rtol=1e-5)
    grays = np.array([[0.5, 0.5, 0.5], [0, 0, 0], [1, 0, 0], [0, 0, 1]], np.float32)
    np.testing.assert_allclose(ops.RGBToHSV()(Tensor(grays)).asnumpy(),
                               [[0, 0, 0.5], [0, 0, 0], [0, 1, 1], [0.666667, 1, 1]], rtol=1e-5)
    grad = ms.grad(lambda a: ops.RGBToHSV()(a).sum())(Tensor(X)).asnumpy()
    np.testing.assert_allclose(grad, [[0.277778, -1.388889, 1.173611],
                                      [-0.208333, 1.17554, -0.954861]], rtol=1e-5)


def test_hsv_to_rgb_equals_mindspore_and_inverts_rgb_to_hsv():
    hsv = np.array([[0.0, 0.0, 0.5], [0.99, 1.0, 1.0], [1.0, 0.5, 0.2], [0.5, 0.3, 0.0],
                    [0.75, 0.75, 0.8], [0.2916667, 0.888889, 0.9]]).reshape(1, 2, 3, 3)
    got = ops.HSVToRGB()(Tensor(hsv)).asnumpy().reshape(-1, 3)
    np.testing.assert_allclose(got, [[0.5, 0.5, 0.5], [1.0, 0.0, 0.06], [0.2, 0.1, 0.1],
                                     [0, 0, 0], [0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], atol=1e-6)
    rgb = np.random.default_rng(0).random((2, 3, 4, 3))
    back = ops.HSVToRGB()(ops.RGBToHSV()(Tensor(rgb))).asnumpy()
    np.testing.assert_allclose(back, rgb, atol=1e-12)


def test_rgb_to_hsv_gradient_by_finite_differences():
    rgb = np.random.default_rng(1).random((4, 3))
    w = np.random.default_rng(2).standard_normal((4, 3))
    f = lambda a: float((ops.RGBToHSV()(Tensor(a)).asnumpy() * w).sum())  # noqa: E731
    grad = ms.grad(lambda a: (ops.RGBToHSV()(a) * Tensor(w)).sum())(Tensor(rgb)).asnumpy()
    eps, fd = 1e-7, np.zeros_like(rgb)
    for i in np.ndindex(rgb.shape):
        e = np.zeros_like(rgb)
        e[i] = eps
        fd[i] = (f(rgb + e) - f(rgb - e)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("make,err,words", [
    (lambda: ops.RGBToHSV()(Tensor(np.ones((2, 4), np.float32))), ValueError, "must be 3"),
    (lambda: ops.RGBToHSV()(Tensor(np.ones((2, 3), np.int32))), TypeError, "Float16, Float32"),
    (lambda: ops.HSVToRGB()(Tensor(X)), ValueError, "4-D"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
