"""ops.div with rounding_mode, as MindSpore 2.7.2 prints it (recorded): true division gives
float32 for integers, 'floor' and 'trunc' keep the dtype; x / 0 is inf in every mode; the
rounded modes have a zero gradient (no NaN where the divisor is 0)."""
import warnings

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

A = Tensor(np.array([7, -7, 7, -7], np.int32))
B = Tensor(np.array([2, 2, -2, -2], np.int32))
AF = Tensor(np.array([7.5, -7.5, 1.0], np.float32))
BF = Tensor(np.array([2.0, 2.0, 0.0], np.float32))


@pytest.mark.parametrize("mode, ints, floats", [
    (None, (ms.float32, [3.5, -3.5, -3.5, 3.5]), [3.75, -3.75, np.inf]),
    ("floor", (ms.int32, [3, -4, -4, 3]), [3.0, -4.0, np.inf]),
    ("trunc", (ms.int32, [3, -3, -3, 3]), [3.0, -3.0, np.inf]),
])
def test_div_rounding_modes_equal_mindspore(mode, ints, floats):
    out = ops.div(A, B, rounding_mode=mode)
    assert (out.dtype, out.asnumpy().tolist()) == ints
    assert A.div(B, rounding_mode=mode).asnumpy().tolist() == ints[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # the division by zero, as numpy warns
        assert ops.div(AF, BF, rounding_mode=mode).asnumpy().tolist() == floats
        if mode is not None:
            grad = ms.grad(lambda x: ops.div(x, BF, rounding_mode=mode).sum())(AF)
            assert grad.asnumpy().tolist() == [0.0, 0.0, 0.0]


def test_a_python_divisor_and_a_bad_mode():
    assert ops.div(A, 2, rounding_mode="floor").asnumpy().tolist() == [3, -4, 3, -4]
    with pytest.raises(ValueError, match="For 'div', 'rounding_mode' must be None, 'floor' or"):
        ops.div(A, B, rounding_mode="round")
