"""quantile, nanquantile (+ Tensor methods) and Tensor.kthvalue: float64 numpy references
(np.quantile / np.nanquantile, linear interpolation), finite-difference gradients, NaN rules
and MindSpore 2.7.2's errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

X = rand(3, 5, dtype=np.float64, seed=2)


@pytest.mark.parametrize("op,ref", [
    (lambda a: ops.quantile(a, 0.3), lambda a: np.quantile(a, 0.3)),
    (lambda a: ops.quantile(a, 0.7, 1, True), lambda a: np.quantile(a, 0.7, 1, keepdims=True)),
    (lambda a: a.quantile(Tensor([0.0, 0.25, 1.0], ms.float64), 0),
     lambda a: np.quantile(a, [0.0, 0.25, 1.0], 0)),
    (lambda a: ops.nanquantile(a, 0.5, -1), lambda a: np.nanquantile(a, 0.5, -1)),
    (lambda a: a.kthvalue(2)[0], lambda a: np.sort(a, -1)[:, 1]),
    (lambda a: a.kthvalue(3, 0, True)[0], lambda a: np.sort(a, 0)[2:3]),
])
def test_forward_and_grad(op, ref):
    check_forward(op, ref, [X], rtol=1e-12, atol=1e-12)
    check_grad(op, [X])


def test_nan_rules_and_indices():
    a = np.array([[np.nan, 1.0, 3.0, 2.0], [np.nan] * 4, [4.0, 5.0, 6.0, 7.0]], np.float32)
    out = ops.nanquantile(Tensor(a), 0.4, 1).asnumpy()
    np.testing.assert_allclose(out[[0, 2]], [1.8, 5.2], rtol=1e-6)
    assert np.isnan(out[1])
    out = ops.quantile(Tensor(a), 0.4, 1).asnumpy()
    assert np.isnan(out[:2]).all() and out[2] == pytest.approx(5.2)
    values, indices = Tensor(np.array([[2.0, 1.0, 2.0, 1.0]], np.float32)).kthvalue(2)
    assert values.asnumpy().tolist() == [1.0] and indices.dtype == ms.int64
    assert indices.asnumpy().tolist() == [3]      # a stable sort: the second 1.0


@pytest.mark.parametrize("call,error,match", [
    (lambda x: ops.quantile(x, 1.5), ValueError, r"range \[0, 1\]"),
    (lambda x: ops.quantile(Tensor([1, 2, 3]), 0.5), TypeError, "Float32"),
    (lambda x: ops.quantile(x, Tensor([[0.5]])), ValueError, "scalar or 1D"),
    (lambda x: ops.quantile(x, Tensor([0.5], ms.float64)), TypeError, "must be same"),
    (lambda x: x.kthvalue(6), ValueError, "'k'"),
    (lambda x: x.kthvalue(1, 2), ValueError, "'dim'"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(Tensor(X.astype(np.float32)))
