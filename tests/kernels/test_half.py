"""float16 conversion kernels: bit-exact against numpy's astype, and Cast through them."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.kernels.cpu.half import float_to_half, half_to_float


def test_half_to_float_matches_numpy_on_every_bit_pattern():
    bits = np.arange(65536, dtype=np.uint16)
    got = np.empty(bits.size, np.float32)
    half_to_float(bits, got)
    np.testing.assert_array_equal(got, bits.view(np.float16).astype(np.float32))


@pytest.mark.parametrize("src", [np.float32, np.float64])
def test_float_to_half_rounds_like_numpy(src):
    rng = np.random.default_rng(0)
    every_half = np.arange(65536, dtype=np.uint16).view(np.float16).astype(src)
    finite = every_half[np.isfinite(every_half)]
    # Values on, beside and exactly between representable halves (ties go to even),
    # across the subnormal, normal and overflow ranges.
    # Midpoints need 12 mantissa bits: exact in float32 and float64 alike.
    wide = finite.astype(np.float64)
    between = (wide[:-1] + np.diff(wide) / 2).astype(src)
    x = np.concatenate([
        finite, between,
        (rng.standard_normal(20000) * 10.0 ** rng.uniform(-9, 5.5, 20000)).astype(src),
        np.array([np.inf, -np.inf, 0.0, -0.0, 65504, 65519.99, 65520, 1e6, 2.98e-8, 2.99e-8],
                 src)])
    got = np.empty(x.size, np.uint16)
    float_to_half(x, got)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(got, want)


def test_float_to_half_keeps_nan():
    got = np.empty(1, np.uint16)
    float_to_half(np.array([np.nan], np.float32), got)
    assert np.isnan(got.view(np.float16)[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
def test_cast_to_float16_and_back(dtype):
    x = np.array([0, 1, 3, 2048, 65504], dtype=dtype) if dtype != np.bool_ else \
        np.array([True, False])
    h = ops.cast(Tensor(x), ms.float16)
    assert h.dtype == ms.float16 and h.asnumpy().dtype == np.float16
    np.testing.assert_array_equal(h.asnumpy(), x.astype(np.float16))
    back = ops.cast(h, ms.dtype.to_type(x.dtype))
    np.testing.assert_array_equal(back.asnumpy(), x)


def test_cast_through_float16_gradient_is_identity():
    x = Tensor(np.array([0.5, -2.0, 3.0], np.float32))
    g = ms.grad(lambda t: (ops.cast(ops.cast(t, ms.float16), ms.float32) * 2.0).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [2.0, 2.0, 2.0])


def test_identity_and_assign_move_float16():
    h = ops.cast(Tensor(np.array([1.5, -0.25], np.float32)), ms.float16)
    np.testing.assert_array_equal(ops.identity(h).asnumpy(), h.asnumpy())
    p = ms.Parameter(Tensor(np.zeros(2, np.float16)), name="p")
    ops.assign(p, Tensor(np.array([7.0, 8.0], np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), np.array([7.0, 8.0], np.float16))
