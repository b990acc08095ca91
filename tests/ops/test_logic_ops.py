"""Logical operators, floating-point class tests, Atan2 and Hypot: values against numpy (as
MindSpore 2.7.2 printed them for the same lines), gradients against finite differences, and
the bool tensor operators (the integer ones: tests/ops/test_bitwise_ops.py)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.5], np.float32)


@pytest.mark.parametrize("name,ref", [("logical_and", np.logical_and),
                                      ("logical_or", np.logical_or),
                                      ("logical_xor", np.logical_xor)])
def test_logical_binary_treat_nonzero_as_true(name, ref):
    x = np.array([[0.0, 1.0, -2.0], [np.nan, 0.0, 3.0]], np.float32)
    y = np.array([1.0, 0.0, 0.0], np.float32)
    check_forward(getattr(ops, name), ref, [x, y])
    ints = Tensor(np.array([1, 0, 2], np.int32))
    bools = Tensor(np.array([True, True, False]))
    got = getattr(ops, name)(ints, bools)
    assert got.dtype == ms.bool_
    np.testing.assert_array_equal(got.asnumpy(), ref([1, 0, 2], [True, True, False]))


@pytest.mark.parametrize("name,ref", [("logical_not", np.logical_not), ("isnan", np.isnan),
                                      ("isinf", np.isinf), ("isfinite", np.isfinite)])
def test_predicates(name, ref):
    check_forward(getattr(ops, name), ref, [SPECIAL.reshape(2, 3)])
    ints = np.array([1, 0, 2], np.int32)
    got = getattr(ops, name)(Tensor(ints))
    assert got.dtype == ms.bool_
    np.testing.assert_array_equal(got.asnumpy(), ref(ints))


def test_bool_tensor_operators_are_the_logical_ones():
    a, b = Tensor(np.array([True, False, True])), Tensor(np.array([True, True, False]))
    np.testing.assert_array_equal((a & b).asnumpy(), [True, False, False])
    np.testing.assert_array_equal((a | b).asnumpy(), [True, True, True])
    np.testing.assert_array_equal((a ^ b).asnumpy(), [False, True, True])
    np.testing.assert_array_equal((~a).asnumpy(), [False, True, False])


@pytest.mark.parametrize("sx,sy", [((3, 4), (3, 4)), ((2, 1, 4), (3, 1))])
def test_atan2_and_hypot_forward_and_grad(sx, sy):
    y = rand(*sx, seed=3, low=-2.0, high=2.0)
    x = rand(*sy, seed=4, low=0.5, high=2.0)
    check_forward(ops.atan2, np.arctan2, [y, x])
    check_grad(ops.atan2, [y, x])
    check_forward(ops.hypot, np.hypot, [y, x])
    check_grad(ops.hypot, [y, x])


def test_atan2_refuses_integers_naming_the_dtype():
    xi = Tensor(np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match=r"For 'Atan2'.*Int32"):
        ops.atan2(xi, xi)
