"""Bitwise logic, shifts, population count, gcd and lcm against numpy, with MindSpore 2.7.2's
dtype rules, promotion, scalar handling and shift-count semantics (values printed by it for the
same inputs), in PYNATIVE and under ms.jit."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _ints(dtype, shape, seed):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def _check(out, want):
    assert out.dtype == ms.common.dtype.to_type(want.dtype), (out.dtype, want.dtype)
    assert tuple(out.shape) == want.shape
    np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("dtype", INTS + [np.bool_])
@pytest.mark.parametrize("name,prim,ref", [("bitwise_and", ops.BitwiseAnd, np.bitwise_and),
                                           ("bitwise_or", ops.BitwiseOr, np.bitwise_or),
                                           ("bitwise_xor", ops.BitwiseXor, np.bitwise_xor)])
def test_bitwise_logic_every_dtype_with_broadcasting(name, prim, ref, dtype):
    if dtype == np.bool_:
        x, y = _ints(np.uint8, (3, 4), 0) > 127, _ints(np.uint8, (4,), 1) > 127
    else:
        x, y = _ints(dtype, (3, 4), 0), _ints(dtype, (4,), 1)
    _check(getattr(ops, name)(Tensor(x), Tensor(y)), ref(x, y))
    _check(prim()(Tensor(x), Tensor(y)), ref(x, y))
    _check(getattr(Tensor(x), name)(Tensor(y)), ref(x, y))
    symbol = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}[name]
    _check(eval(f"a {symbol} b", {"a": Tensor(x), "b": Tensor(y)}), ref(x, y))


def test_bitwise_logic_promotes_mixed_dtypes_and_takes_scalars():
    """MindSpore 2.7.2: int8 & uint8 is Int16, bool & int32 is Int32, a Python int takes the
    tensor's dtype and True keeps a bool tensor bool."""
    i8 = np.array([-1, 2, 3], np.int8)
    u8 = np.array([255, 6, 1], np.uint8)
    _check(ops.bitwise_and(Tensor(i8), Tensor(u8)), np.bitwise_and(i8.astype(np.int16),
                                                                    u8.astype(np.int16)))
    b = np.array([True, False, True])
    i32 = np.array([1, 2, 3], np.int32)
    _check(ops.bitwise_or(Tensor(b), Tensor(i32)), np.array([1, 2, 3], np.int32))
    _check(ops.bitwise_xor(Tensor(i32), 3), np.array([2, 1, 0], np.int32))
    _check(Tensor(i32) & 2, np.array([0, 2, 2], np.int32))
    _check(Tensor(b) & True, b)
    _check(ops.bitwise_and(Tensor(b), 3), np.array([1, 0, 1], np.int64))


def test_bitwise_logic_refuses_floats_naming_the_dtype():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    with pytest.raises(TypeError, match=r"For 'BitwiseAnd'.*Bool.*Float32"):
        ops.bitwise_and(x, x)
    with pytest.raises(TypeError, match=r"For 'BitwiseOr'.*Float32"):
        x | x
    with pytest.raises(TypeError, match=r"For 'BitwiseXor'.*Float32"):
        ops.bitwise_xor(Tensor(np.array([1, 2], np.int32)), 1.5)


def test_tilde_is_logical_not_on_every_dtype():
    """MindSpore 2.7.2's `~tensor` is logical_not, also on integers and floats (ops.invert is
    the bitwise one)."""
    xi = np.array([[1, 4, 2], [3, 0, 5]], np.int32)
    _check(~Tensor(xi), xi == 0)
    _check(~Tensor(np.array([1.5, 0.0], np.float32)), np.array([False, True]))
    _check(~Tensor(np.array([True, False])), np.array([False, True]))


@pytest.mark.parametrize("dtype", INTS)
def test_invert_and_population_count(dtype):
    x = _ints(dtype, (2, 5), 2)
    _check(ops.invert(Tensor(x)), np.invert(x))
    _check(ops.Invert()(Tensor(x)), np.invert(x))
    _check(Tensor(x).invert(), np.invert(x))
    # Bits of the two's complement in the dtype's own width: -1 of int8 has 8.
    bits = np.unpackbits(x.view(np.uint8).reshape(x.size, -1), axis=1).sum(1)
    want = bits.reshape(x.shape).astype(np.uint8)
    _check(ops.population_count(Tensor(x)), want)
    _check(ops.PopulationCount()(Tensor(x)), want)


def test_population_count_of_extremes():
    x = np.array([-1, -128, 127, 0], np.int8)
    _check(ops.population_count(Tensor(x)), np.array([8, 1, 7, 0], np.uint8))
    x = np.array([-1, 2 ** 40, np.iinfo(np.int64).min], np.int64)
    _check(ops.population_count(Tensor(x)), np.array([64, 1, 1], np.uint8))


@pytest.mark.parametrize("name", ["invert", "population_count"])
def test_unary_integer_ops_refuse_bool_and_float(name):
    op = getattr(ops, name)
    prim = {"invert": "Invert", "population_count": "PopulationCount"}[name]
    with pytest.raises(TypeError, match=rf"For '{prim}'.*Int8.*but got Bool"):
        op(Tensor(np.array([True, False])))
    with pytest.raises(TypeError, match=rf"For '{prim}'.*but got Float32"):
        op(Tensor(np.array([1.0], np.float32)))
    with pytest.raises(TypeError, match=rf"For '{prim}'.*must be a Tensor"):
        op(5)


def _shift_ref(x, y, left):
    """C++ on x86, as MindSpore's CPU kernel: operands below 32 bits are promoted to int, the
    count is masked to 31 (63 for the 64-bit dtypes), the result is truncated back."""
    wide = x.dtype.itemsize == 8
    work = x.dtype if wide else np.int64
    count = (y.astype(np.int64) & (63 if wide else 31)).astype(work)
    xs = x.astype(work)
    with np.errstate(over="ignore"):
        out = np.left_shift(xs, count) if left else np.right_shift(xs, count)
    return out.astype(x.dtype)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("left", [True, False], ids=["left", "right"])
def test_shifts_every_dtype_counts_beyond_the_width(dtype, left):
    x = _ints(dtype, (4, 6), 3)
    bits = np.iinfo(dtype).bits
    y = np.array([0, 1, bits - 1, bits, bits + 1, 40], dtype)   # the last: 40 % 32 = 8
    want = _shift_ref(x, y, left)
    fn = ops.bitwise_left_shift if left else ops.bitwise_right_shift
    prim = ops.LeftShift if left else ops.RightShift
    method = "bitwise_left_shift" if left else "bitwise_right_shift"
    _check(fn(Tensor(x), Tensor(y)), want)
    _check(prim()(Tensor(x), Tensor(y)), want)
    _check(getattr(Tensor(x), method)(Tensor(y)), want)


def test_shifts_match_mindspore_on_its_printed_cases():
    """Values MindSpore 2.7.2 printed for these inputs."""
    i32 = np.int32
    _check(ops.bitwise_left_shift(Tensor(np.array([1, 1, 1, 1, -1, -8], i32)),
                                  Tensor(np.array([31, 32, 33, -1, 1, 1], i32))),
           np.array([-2147483648, 1, 2, -2147483648, -2, -16], i32))
    _check(ops.bitwise_right_shift(Tensor(np.array([-8, 8, -1, 8, -8], i32)),
                                   Tensor(np.array([1, 32, 40, -1, 100], i32))),
           np.array([-4, 8, -1, 0, -1], i32))
    _check(ops.bitwise_left_shift(Tensor(np.array([255, 1, 1], np.uint8)),
                                  Tensor(np.array([1, 8, 9], np.uint8))),
           np.array([254, 0, 0], np.uint8))
    _check(ops.bitwise_left_shift(Tensor(np.array([1, 1], np.int8)),
                                  Tensor(np.array([33, 8], np.int8))), np.array([2, 0], np.int8))


def test_shift_operands_one_dtype_and_scalars_only_in_the_functional_form():
    x = Tensor(np.array([[1, 4, 2], [3, 0, 5]], np.int32))
    _check(ops.bitwise_left_shift(x, 1), np.array([[2, 8, 4], [6, 0, 10]], np.int32))
    _check(ops.bitwise_left_shift(1, x), np.array([[2, 16, 4], [8, 1, 32]], np.int32))
    _check(x.bitwise_right_shift(1), np.array([[0, 2, 1], [1, 0, 2]], np.int32))
    with pytest.raises(TypeError, match=r"For 'LeftShift'.*same dtype.*Int32.*Int64"):
        ops.bitwise_left_shift(x, Tensor(np.array([1], np.int64)))
    with pytest.raises(TypeError, match=r"For 'LeftShift', the input 'y' must be a Tensor"):
        ops.LeftShift()(x, 1)
    with pytest.raises(TypeError, match=r"For 'RightShift'.*but got Bool"):
        ops.bitwise_right_shift(Tensor(np.array([True])), Tensor(np.array([True])))
    with pytest.raises(ValueError, match=r"For 'LeftShift'.*broadcast"):
        ops.bitwise_left_shift(x, Tensor(np.array([1, 2], np.int32)))


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64])
def test_gcd_and_lcm_against_numpy(dtype):
    rng = np.random.default_rng(4)
    x = rng.integers(-60, 60, (3, 5)).astype(dtype)
    y = rng.integers(-60, 60, (5,)).astype(dtype)
    x[0, :2] = 0
    y[1] = 0
    _check(ops.gcd(Tensor(x), Tensor(y)), np.gcd(x, y))
    _check(ops.Gcd()(Tensor(x), Tensor(y)), np.gcd(x, y))
    _check(Tensor(x).gcd(Tensor(y)), np.gcd(x, y))
    if dtype != np.int16:
        _check(ops.lcm(Tensor(x), Tensor(y)), np.lcm(x, y))
        _check(ops.Lcm()(Tensor(x), Tensor(y)), np.lcm(x, y))
        _check(Tensor(x).lcm(Tensor(y)), np.lcm(x, y))


def test_gcd_lcm_promotion_overflow_and_errors():
    """MindSpore 2.7.2: Int16 with Int32 is Int32, bool promotes, lcm wraps on overflow,
    gcd(INT_MIN, 0) is INT_MIN; Gcd takes Int16-64, Lcm Int32/64, no Python scalar."""
    _check(ops.gcd(Tensor(np.array([4], np.int16)), Tensor(np.array([6], np.int32))),
           np.array([2], np.int32))
    _check(ops.gcd(Tensor(np.array([True])), Tensor(np.array([1], np.int32))),
           np.array([1], np.int32))
    _check(ops.lcm(Tensor(np.array([4], np.int32)), Tensor(np.array([6], np.int64))),
           np.array([12], np.int64))
    _check(ops.lcm(Tensor(np.array([2 ** 30 + 1], np.int32)),
                   Tensor(np.array([2 ** 30 - 1], np.int32))), np.array([-1], np.int32))
    _check(ops.gcd(Tensor(np.array([-2 ** 31], np.int32)), Tensor(np.array([0], np.int32))),
           np.array([-2 ** 31], np.int32))
    xi = Tensor(np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match=r"For 'Gcd'.*Int16.*but got Int8"):
        ops.gcd(Tensor(np.array([1], np.int8)), Tensor(np.array([1], np.int8)))
    with pytest.raises(TypeError, match=r"For 'Lcm'.*but got Int16"):
        ops.lcm(Tensor(np.array([1], np.int16)), Tensor(np.array([1], np.int16)))
    with pytest.raises(TypeError, match=r"For 'Gcd'.*Float32"):
        ops.gcd(Tensor(np.array([1.0], np.float32)), Tensor(np.array([1.0], np.float32)))
    with pytest.raises(TypeError, match=r"For 'Gcd', the input 'x2' must be a Tensor"):
        ops.gcd(xi, 2)


def test_integer_ops_are_not_differentiable():
    x = Tensor(np.array([1, 2], np.int32))
    for prim in (ops.BitwiseAnd(), ops.LeftShift(), ops.Gcd(), ops.Lcm()):
        assert prim.differentiable is False
    assert ops.Invert().differentiable is False and ops.PopulationCount().differentiable is False
    assert ops.bitwise_and(x, x).dtype == ms.int32


def test_graph_mode_matches_pynative():
    x = np.array([[12, -7, 5], [0, 9, 30]], np.int32)
    y = np.array([[18, 3, 4], [5, 6, 2]], np.int32)

    @ms.jit
    def f(a, b):
        return (ops.bitwise_xor(a, b), a & b, ops.invert(a), ops.population_count(a),
                ops.bitwise_left_shift(a, b), ops.bitwise_right_shift(a, b),
                ops.gcd(a, b), ops.lcm(a, b))

    got = f(Tensor(x), Tensor(y))
    want = (x ^ y, x & y, ~x, ops.population_count(Tensor(x)).asnumpy(), _shift_ref(x, y, True),
            _shift_ref(x, y, False), np.gcd(x, y), np.lcm(x, y))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w)
    assert got[3].dtype == ms.uint8
