"""mm, mv, dot, tensor_dot, addmm, addmv, addr, addbmm, baddbmm, Ger and their Tensor
methods: float64 numpy references, finite-difference gradients, integer products, values
recorded from MindSpore 2.7.2 and its errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

A23, B34 = rand(2, 3, seed=1), rand(3, 4, seed=2)
V3, V2 = rand(3, seed=3), rand(2, seed=4)
C24 = rand(2, 4, seed=5)
B1, B2 = rand(5, 2, 3, seed=6), rand(5, 3, 4, seed=7)


@pytest.mark.parametrize("op,ref,arrays", [
    (ops.mm, np.matmul, [A23, B34]),
    (lambda a, b: a.mm(b), np.matmul, [A23, B34]),
    (ops.mv, np.matmul, [A23, V3]),
    (lambda a, b: ops.tensor_dot(a, b, 1), lambda a, b: np.tensordot(a, b, 1), [A23, B34]),
    (lambda a, b: ops.tensor_dot(a, b, ((0, 1), (1, 2))),
     lambda a, b: np.tensordot(a, b, ((0, 1), (1, 2))), [A23, rand(4, 2, 3, seed=8)]),
    (lambda a, b: ops.tensor_dot(a, b, 0), lambda a, b: np.tensordot(a, b, 0), [V3, V2]),
    (lambda c, a, b: ops.addmm(c, a, b, beta=0.5, alpha=-2.0),
     lambda c, a, b: 0.5 * c + -2.0 * a @ b, [C24, A23, B34]),
    (lambda c, a, b: c.addmm(a, b), lambda c, a, b: c + a @ b, [C24[:1], A23, B34]),
    (lambda c, a, b: ops.addmv(c, a, b, beta=2, alpha=0.25),
     lambda c, a, b: 2 * c + 0.25 * a @ b, [V2, A23, V3]),
    (lambda c, a, b: ops.addr(c, a, b, beta=3.0, alpha=0.5),
     lambda c, a, b: 3 * c + 0.5 * np.outer(a, b), [A23, V2, V3]),
    (lambda c, a, b: c.addr(a, b), lambda c, a, b: c + np.outer(a, b), [V3, V2, V3]),
    (lambda c, a, b: ops.addbmm(c, a, b, beta=0.5, alpha=2),
     lambda c, a, b: 0.5 * c + 2 * np.matmul(a, b).sum(0), [rand(2, 4, seed=9), B1, B2]),
    (lambda c, a, b: ops.baddbmm(c, a, b, 1.5, -1),
     lambda c, a, b: 1.5 * c + -1 * np.matmul(a, b), [rand(2, 4, seed=9), B1, B2]),
    (lambda c, a, b: c.baddbmm(a, b, alpha=3),
     lambda c, a, b: c + 3 * np.matmul(a, b), [rand(5, 2, 4, seed=9), B1, B2]),
    (lambda a, b: ops.Ger()(a, b), np.outer, [V2, V3]),
])
def test_products_forward_and_grad(op, ref, arrays):
    arrays = [np.asarray(a, np.float64) for a in arrays]
    check_forward(op, ref, arrays, rtol=1e-12, atol=1e-12)
    check_grad(op, arrays, rtol=1e-5, atol=1e-7)


def test_dot_is_numpy_dot_in_float32():
    a, b = rand(2, 3, seed=1), rand(4, 3, 5, seed=2)
    out = ops.dot(Tensor(a), Tensor(b))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), np.dot(a.astype(np.float64), b), rtol=1e-5)
    w = rand(2, 4, 5, seed=3)
    ga, gb = ms.grad(lambda x, y: (ops.dot(x, y) * Tensor(w)).sum(), (0, 1))(Tensor(a),
                                                                           Tensor(b))
    w64, a64, b64 = (t.astype(np.float64) for t in (w, a, b))
    np.testing.assert_allclose(ga.asnumpy(), np.einsum("ijl,jkl->ik", w64, b64), rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), np.einsum("ijl,ik->jkl", w64, a64), rtol=1e-5)
    v = Tensor(np.array([0.5, 0.2, 0.8], np.float32))
    assert float(v.dot(v).asnumpy()) == pytest.approx(0.93, rel=1e-6)   # Tensor.dot's 1-D form


def test_integer_products_and_mindspore_values():
    xi = Tensor(np.array([[1, 4, 2], [3, 0, 5]], np.int32))
    ones = Tensor(np.ones((3, 3), np.int32))
    out = ops.mm(xi, xi.T)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[21, 13], [13, 34]]
    assert ops.mv(xi, Tensor(np.array([1, 2, 3], np.int32))).asnumpy().tolist() == [15, 18]
    # MindSpore 2.7.2: addmm promotes with a float beta; addr casts beta to x's dtype
    out = ops.addmm(xi, xi, ones, beta=0.5)
    assert out.dtype == ms.float32
    assert out.asnumpy().tolist() == [[7.5, 9.0, 8.0], [9.5, 8.0, 10.5]]
    out = ops.addmm(xi, xi, ones, beta=2, alpha=3)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[23, 29, 25], [30, 24, 34]]
    v1, v2 = Tensor(np.array([1, 2], np.int32)), Tensor(np.array([1, 2, 3], np.int32))
    out = ops.addr(xi, v1, v2, beta=0.5)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[1, 2, 3], [2, 4, 6]]
    assert ops.addr(xi, v1, v2, beta=2, alpha=3).asnumpy().tolist() == [[5, 14, 13],
                                                                        [12, 12, 28]]
    assert ops.tensor_dot(xi, ones, 1).asnumpy().tolist() == [[7, 7, 7], [8, 8, 8]]
    nan = Tensor(np.array([[np.nan, 0.2], [0.3, 0.9]], np.float32))
    assert np.isnan(ops.addmm(nan, nan, nan * 0 + 1, beta=0).asnumpy()[0, 0])


def test_addmm_in_place():
    c = Tensor(np.zeros((2, 4), np.float32))
    got = c.addmm_(Tensor(A23), Tensor(B34), alpha=2)
    assert got is c
    np.testing.assert_allclose(c.asnumpy(), 2 * A23.astype(np.float64) @ B34, rtol=1e-5)


X = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
SQ = Tensor(np.eye(3, dtype=np.float32))


@pytest.mark.parametrize("call,error,match", [
    (lambda: ops.mm(X, X), ValueError, "x1_col"),
    (lambda: ops.mm(X[0], SQ), ValueError, "equal to 2"),
    (lambda: ops.mm(X, ops.cast(SQ, ms.float64)), TypeError, "same as 'x1'"),
    (lambda: ops.mv(X, X[0, :2]), ValueError, "x1_col"),
    (lambda: ops.dot(X[0], X[0]), ValueError, "dimension >= 2"),
    (lambda: ops.dot(ops.cast(X, ms.int32), SQ), TypeError, "doesn't support"),
    (lambda: ops.tensor_dot(X, SQ, ((1,), (0, 1))), ValueError, "same size/length"),
    (lambda: ops.tensor_dot(X, SQ, 3), ValueError, "cannot be greater"),
    (lambda: ops.tensor_dot(X, SQ, ((0,), (0,))), ValueError, "contracted dims differ"),
    (lambda: ops.addr(X, ops.cast(X[:, 0], ms.int32), X[0]), TypeError, "same dtype"),
    (lambda: ops.baddbmm(ops.cast(X, ms.int32), Tensor(B1), Tensor(B2)), TypeError,
     "Baddbmm"),
    (lambda: ops.addbmm(X, Tensor(B1), Tensor(B2[0])), ValueError, "cannot be broadcast"),
    (lambda: ops.Ger()(X[0], X), ValueError, "rank must be equal to 1"),
    (lambda: ops.Ger()(ops.cast(X[0], ms.int32), X[0]), TypeError, "Float16"),
])
def test_product_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
