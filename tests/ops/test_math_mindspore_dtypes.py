"""Elementwise math where MindSpore 2.7.2's answers were recorded: gradients at NaN inputs,
the integer and unsigned dtypes its CPU kernels take, and integer square roots."""
import numpy as np

import minispore as ms
from minispore import Tensor, ops


def test_maximum_minimum_gradients_where_an_input_is_nan():
    """MindSpore 2.7.2: where either input is NaN both inputs get dout (recorded values for
    x = [1.7, 9.6, 5.8, nan], y = [nan, nan, 1, 2])."""
    x = Tensor(np.array([1.7, 9.6, 5.8, np.nan], np.float32))
    y = Tensor(np.array([np.nan, np.nan, 1.0, 2.0], np.float32))
    dx, dy = ms.grad(ops.minimum, (0, 1))(x, y)
    np.testing.assert_array_equal(dx.asnumpy(), [1, 1, 0, 1])
    np.testing.assert_array_equal(dy.asnumpy(), [1, 1, 1, 1])
    dx, dy = ms.grad(ops.maximum, (0, 1))(x, y)
    np.testing.assert_array_equal(dx.asnumpy(), [1, 1, 1, 1])
    np.testing.assert_array_equal(dy.asnumpy(), [1, 1, 0, 1])


def test_integer_and_unsigned_dtypes_mindspore_accepts():
    """MindSpore 2.7.2 (recorded): Reciprocal of int32 is float32; Inv of int32 stays int32
    (the float reciprocal truncated, 1/0 the dtype's minimum); Add and the comparisons take
    uint16/32/64, unsigned sums wrapping."""
    from minispore.ops import operations as P
    xi = Tensor(np.array([2, 1, -1, 4, 0], np.int32))
    r = P.Reciprocal()(xi[:4])
    assert r.dtype == ms.float32
    np.testing.assert_array_equal(r.asnumpy(), [0.5, 1, -1, 0.25])
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = P.Inv()(xi)
    assert inv.dtype == ms.int32
    np.testing.assert_array_equal(inv.asnumpy(), [0, 1, -1, 0, np.iinfo(np.int32).min])
    for dt in (np.uint16, np.uint32, np.uint64):
        a, b = Tensor(np.array([2, 1], dt)), Tensor(np.array([1, 1], dt))
        np.testing.assert_array_equal(P.Greater()(a, b).asnumpy(), [True, False])
        np.testing.assert_array_equal(P.GreaterEqual()(a, b).asnumpy(), [True, True])
    s = P.Add()(Tensor(np.array([2, 1], np.uint16)), Tensor(np.array([65535, 1], np.uint16)))
    assert s.dtype == ms.uint16
    np.testing.assert_array_equal(s.asnumpy(), [1, 2])


def test_sqrt_of_integers_and_bools_is_float32():
    """MindSpore 2.7.2: ops.sqrt of int32/int64/int8/uint8/bool input returns Float32."""
    for dt in (np.int32, np.int64, np.int8, np.uint8):
        r = ops.sqrt(Tensor(np.array([4, 2], dt)))
        assert r.dtype == ms.float32
        np.testing.assert_allclose(r.asnumpy(), [2.0, np.sqrt(2.0)], rtol=1e-7)
    assert ops.sqrt(Tensor(np.array([True, False]))).asnumpy().tolist() == [1.0, 0.0]
