"""renorm, matrix_band_part, matrix_diag_part, tril_indices, triu_indices and the primitives
Renorm, TrilIndices, TriuIndices, Fmin, Randperm; Tensor.fmin, renorm, bitwise_not: float64
numpy references, finite-difference gradients, values recorded from MindSpore 2.7.2 and its
errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

X3 = rand(2, 3, 4, dtype=np.float64, seed=1)
ARANGE = np.arange(24).reshape(2, 3, 4).astype(np.float32)


def _renorm_ref(x, p, axis, maxnorm):
    axes = tuple(d for d in range(x.ndim) if d != axis)
    norm = (np.abs(x) ** p).sum(axes, keepdims=True) ** (1.0 / p)
    return x * np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def _band_ref(x, lower, upper):
    i, j = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, 0.0)


@pytest.mark.parametrize("op,ref", [
    (lambda a: ops.renorm(a, 2, 0, 1.0), lambda a: _renorm_ref(a, 2, 0, 1.0)),
    (lambda a: ops.Renorm(3, -1, 0.6)(a), lambda a: _renorm_ref(a, 3, 2, 0.6)),
    (lambda a: a.renorm(1, 1, 1.5), lambda a: _renorm_ref(a, 1, 1, 1.5)),
    (lambda a: ops.matrix_band_part(a, 1, 0), lambda a: _band_ref(a, 1, 0)),
    (lambda a: ops.matrix_band_part(a, Tensor(0), Tensor(-1)), lambda a: _band_ref(a, 0, -1)),
    (lambda a: ops.matrix_diag_part(a, Tensor(np.int32(1)), Tensor(7.0, ms.float64)),
     lambda a: np.diagonal(a, 1, 1, 2)),
])
def test_forward_and_grad(op, ref):
    check_forward(op, ref, [X3], rtol=1e-12, atol=1e-12)
    check_grad(op, [X3])


def test_mindspore_values():
    x = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
    np.testing.assert_allclose(x.renorm(1, 1, 0.5).asnumpy(),
                               [[0.3125, 0.09091, 0.44444], [0.1875, 0.40909, 0.05556]],
                               rtol=1e-4)
    k = Tensor(np.array([-1, 1], np.int32))
    out = ops.matrix_diag_part(Tensor(ARANGE), k, Tensor(9.0))
    assert out.asnumpy()[0].tolist() == [[1, 6, 11], [0, 5, 10], [4, 9, 9]]
    out = ops.matrix_diag_part(Tensor(ARANGE), k, Tensor(9.0), "LEFT_RIGHT")
    assert out.asnumpy()[1].tolist() == [[13, 18, 23], [12, 17, 22], [9, 16, 21]]
    out = ops.matrix_diag_part(Tensor(ARANGE), Tensor(np.array([-2, 2], np.int32)),
                               Tensor(9.0), "RIGHT_RIGHT")
    assert out.shape == (2, 5, 3)
    assert out.asnumpy()[0].tolist() == [[9, 2, 7], [1, 6, 11], [0, 5, 10], [9, 4, 9],
                                         [9, 9, 8]]
    band = ops.matrix_band_part(Tensor(-ARANGE - 1), 1, 0).asnumpy()
    assert not np.signbit(band[band == 0]).any()        # 0.0 outside the band, not -0.0
    out = ops.tril_indices(3, 4, 1)
    assert out.dtype == ms.int64
    assert out.asnumpy().tolist() == [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 1, 0, 1, 2, 0, 1, 2, 3]]
    out = ops.triu_indices(3, 4, -1, dtype=ms.int32)
    assert out.dtype == ms.int32 and out.shape == (2, 11)
    assert ops.TrilIndices(3, 3)().asnumpy().tolist() == [[0, 1, 1, 2, 2, 2],
                                                          [0, 0, 1, 0, 1, 2]]
    assert ops.TriuIndices(3, 2, 1, ms.int64)().asnumpy().tolist() == [[0], [1]]
    assert ops.tril_indices(0, 3).shape == (2, 0)


def test_fmin_randperm_bitwise_not():
    x = np.array([[0.5, np.nan, 0.8], [np.nan, 0.9, -1.0]], np.float32)
    y = np.array([[np.nan, np.nan, 0.1], [0.3, 2.0, 0.0]], np.float32)
    np.testing.assert_array_equal(Tensor(x).fmin(Tensor(y)).asnumpy(), np.fmin(x, y))
    np.testing.assert_array_equal(ops.Fmin()(Tensor(x), Tensor(y)).asnumpy(), np.fmin(x, y))
    np.testing.assert_array_equal(ops.fmax(Tensor(x), Tensor(y)).asnumpy(), np.fmax(x, y))
    ms.set_seed(3)
    out = ops.Randperm(max_length=6, pad=-1)(Tensor(np.array([4], np.int32)))
    assert out.dtype == ms.int32 and out.shape == (6,)
    values = out.asnumpy()
    assert sorted(values[:4]) == [0, 1, 2, 3] and values[4:].tolist() == [-1, -1]
    assert ops.Randperm(3, dtype=ms.int64)(Tensor(np.array([3]))).dtype == ms.int64
    assert Tensor(np.array([1, -2], np.int32)).bitwise_not().asnumpy().tolist() == [-2, 1]
    assert Tensor(np.array([True, False])).bitwise_not().asnumpy().tolist() == [False, True]


@pytest.mark.parametrize("call,error,match", [
    (lambda x: ops.renorm(x, 2.5, 0, 1.0), TypeError, "'p' should be 'int'"),
    (lambda x: ops.renorm(x, 0, 0, 1.0), ValueError, "non-positive-norm"),
    (lambda x: ops.renorm(x, 2, 0, -1.0), RuntimeError, "non-negative"),
    (lambda x: ops.renorm(x, 2, 3, 1.0), RuntimeError, "must be in range"),
    (lambda x: ops.matrix_band_part(x[0, 0], 0, 0), ValueError, "greater than or equal to 2"),
    (lambda x: ops.matrix_diag_part(x, Tensor(0), Tensor(0.0)), TypeError, "Int32"),
    (lambda x: ops.matrix_diag_part(x, Tensor(np.array([1, -1], np.int32)), Tensor(0.0)),
     ValueError, "can not be greater"),
    (lambda x: ops.matrix_diag_part(x, Tensor(np.int32(0)), Tensor(0.0), "UP"), ValueError,
     "align"),
    (lambda x: ops.tril_indices(-1, 3), ValueError, "'row' must be int"),
    (lambda x: ops.tril_indices(3, 3, dtype=ms.float32), TypeError, "'dtype'"),
    (lambda x: ops.Randperm(4)(Tensor(np.int32(4))), ValueError, "rank of input tensor"),
    (lambda x: ops.Randperm(2)(Tensor(np.array([3], np.int32))), ValueError, "max_length"),
    (lambda x: x.bitwise_not(), TypeError, "integer or bool"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(Tensor(X3.astype(np.float32)))


def test_fmax_tie_gradient_goes_to_the_first_input():
    """MindSpore 2.7.2: grad of fmax with x1 = [[1, 2, 3, 4], [5, 6, 7, 8]], x2 = [4] is
    [[0, 0, 0, 1], [1, 1, 1, 1]] for x1 and [3] for x2 (ops.maximum splits the tie: 0.5)."""
    x1 = Tensor(np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.float32))
    x2 = Tensor(np.array([4], np.float32))
    g1, g2 = ms.grad(ops.fmax, (0, 1))(x1, x2)
    np.testing.assert_array_equal(g1.asnumpy(), [[0, 0, 0, 1], [1, 1, 1, 1]])
    np.testing.assert_array_equal(g2.asnumpy(), [3])
