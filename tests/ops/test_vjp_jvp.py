"""ops.vjp and ops.jvp: MindSpore 2.7.2's recorded outputs, products against float64 Jacobians,
a vjp function called twice, aux outputs, and errors."""
import numpy as np
import pytest

from minispore import Tensor, ops

X = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
Y = Tensor(np.array([[0.4, 0.7, 0.6], [0.9, 0.1, 0.3]], np.float32))


def _two(a, b):
    return a * b, a + b


def test_vjp_equals_mindspore_and_can_be_called_twice():
    out, fn = ops.vjp(lambda a: a * a, X)
    np.testing.assert_allclose(out.asnumpy(), (X * X).asnumpy())
    (g,) = fn(ops.ones_like(X))
    np.testing.assert_allclose(g.asnumpy(), [[1.0, 0.4, 1.6], [0.6, 1.8, 0.2]], rtol=1e-6)
    (g2,) = fn(ops.ones_like(X) * 2)
    np.testing.assert_allclose(g2.asnumpy(), 2 * g.asnumpy(), rtol=1e-6)
    _, fn = ops.vjp(_two, X, Y)
    gx, gy = fn((ops.ones_like(X), ops.ones_like(X)))
    np.testing.assert_allclose(gx.asnumpy(), (Y + 1).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), (X + 1).asnumpy(), rtol=1e-6)
    _, _, aux = ops.vjp(lambda a: (a * a, a + 1), X, has_aux=True)
    np.testing.assert_allclose(aux.asnumpy(), (X + 1).asnumpy())


def test_jvp_equals_the_jacobian_times_the_tangent():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    ta, tb = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    (prod, total), (dprod, dtotal) = ops.jvp(_two, (Tensor(a), Tensor(b)),
                                             (Tensor(ta), Tensor(tb)))
    np.testing.assert_allclose(prod.asnumpy(), a * b)
    np.testing.assert_allclose(dprod.asnumpy(), ta * b + a * tb, rtol=1e-12)
    np.testing.assert_allclose(dtotal.asnumpy(), ta + tb, rtol=1e-12)
    _, d = ops.jvp(lambda u: ops.sin(u).sum(axis=1), Tensor(a), Tensor(ta))
    np.testing.assert_allclose(d.asnumpy(), (np.cos(a) * ta).sum(axis=1), rtol=1e-12)


def test_jvp_with_aux_equals_mindspore():
    out, d, aux = ops.jvp(lambda a: (a * a, a + 1), X, ops.ones_like(X), has_aux=True)
    np.testing.assert_allclose(d.asnumpy(), [[1.0, 0.4, 1.6], [0.6, 1.8, 0.2]], rtol=1e-6)
    np.testing.assert_allclose(aux.asnumpy(), (X + 1).asnumpy())


@pytest.mark.parametrize("make,err,words", [
    (lambda: ops.vjp(lambda a: a * a, X)[1](ops.ones_like(Y[0])), ValueError, "cotangent"),
    (lambda: ops.vjp(lambda a: a, 1.0), TypeError, "must be a Tensor"),
    (lambda: ops.jvp(lambda a: a, X, (X, X)), ValueError, "2 tangents for 1"),
    (lambda: ops.vjp(lambda a: a, X, has_aux=True), ValueError, "more than one"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
