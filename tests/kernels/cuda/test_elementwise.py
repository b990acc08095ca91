"""CUDA elementwise kernels against the CPU ufunc of the same name: values, dtypes, broadcasting."""
import numpy as np
import pytest

from minispore.kernels import scalar_bits
from minispore.kernels.cpu import elementwise as cpu
from minispore.kernels.cpu.elementwise import ExactUfunc
from minispore.kernels.cuda import elementwise as gpu

from .conftest import DTYPES, dev, empty, host, same_kernels, tol

# Ops whose inputs must be positive (log, sqrt, pow with float exponents).
POSITIVE = {"log", "sqrt", "rsqrt", "pow", "pow_grad_x", "pow_grad_y", "sqrt_grad", "rsqrt_grad",
            "log1p"}
# Ops defined on (-1, 1) only: the simulator's Python math raises outside it (CUDA gives NaN).
UNIT = {"asin", "acos"}
ALL_NAMES = same_kernels(cpu, gpu, lambda obj: isinstance(obj, ExactUfunc))
# The integer bodies (kernels/scalar_bits.py) are tested on integer operands below.
INTEGER = set(scalar_bits.ELEMENTWISE)
NAMES = [n for n in ALL_NAMES if n not in INTEGER]
# (operand shapes, dtype): same shape in both dtypes; numpy broadcasting across dims; a row and
# a scalar (a few simulated threads each: the simulator pays per thread).
CASES = [(((3, 4, 5),), np.float32), (((3, 4, 5),), np.float64),
         (((3, 1, 5), (4, 5), (1, 4, 1)), np.float64), (((2, 7), (7,), ()), np.float32)]


def _inputs(name, nin, shapes, dtype, rng):
    arrays = []
    for k in range(nin):
        shape = shapes[k % len(shapes)] if len(shapes) > 1 else shapes[0]
        a = rng.standard_normal(shape)
        if name in POSITIVE:
            a = np.abs(a) + 0.5
        elif name in UNIT:
            a = np.tanh(a)
        elif name == "select" and k == 0:
            a = a > 0
        a = np.asarray(a).astype(a.dtype if a.dtype == np.bool_ else dtype)
        # Ties exercise the tie-breaking paths of maximum/minimum and their gradients.
        if k == 1 and name.startswith(("maximum", "minimum")) and a.shape == arrays[0].shape:
            a.flat[::3] = arrays[0].flat[::3]
        arrays.append(a)
    return arrays


def _device_args(arrays):
    return [a[()] if a.ndim == 0 else dev(a) for a in arrays]


@pytest.mark.parametrize("layout,dtype", CASES, ids=["same-f32", "same-f64", "nd-broadcast-f64",
                                                     "row+scalar-f32"])
@pytest.mark.parametrize("name", NAMES)
def test_matches_cpu_kernel(name, layout, dtype, rng):
    nin = getattr(gpu, name).nin
    arrays = _inputs(name, nin, layout, dtype, rng)
    want = getattr(cpu, name)(*arrays)
    got = getattr(gpu, name)(*_device_args(arrays))
    assert got.dtype == want.dtype and tuple(got.shape) == want.shape
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(host(got), want)
    else:
        np.testing.assert_allclose(host(got), want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_and_scalar_operands(dtype, rng):
    x = rng.standard_normal((0, 3)).astype(dtype)
    got = gpu.add(dev(x), dtype(1))
    assert got.shape == (0, 3) and got.dtype == dtype
    got = gpu.mul(dtype(2), dtype(3))
    assert got.shape == () and host(got) == 6 and got.dtype == dtype


def test_float32_stays_float32_with_float64_scalar_free_math(rng):
    x = rng.standard_normal(50).astype(np.float32)
    for name in ("exp", "rsqrt", "sqrt_grad", "maximum_grad"):
        fn = getattr(gpu, name)
        args = [np.abs(x) + 1] * fn.nin
        assert fn(*dev(*args) if fn.nin > 1 else [dev(args[0])]).dtype == np.float32


def test_nan_wins_in_maximum_and_minimum():
    x = np.array([np.nan, 1.0, 2.0, np.nan], np.float32)
    y = np.array([1.0, np.nan, 1.0, np.nan], np.float32)
    for name in ("maximum", "minimum"):
        np.testing.assert_array_equal(host(getattr(gpu, name)(dev(x), dev(y))),
                                      getattr(np, name)(x, y))


def test_out_buffer_is_written_and_returned(rng):
    x, y = rng.standard_normal((2, 3, 4))
    out = empty((3, 4), np.float64)
    assert gpu.mul(dev(x), dev(y), out=out) is out
    np.testing.assert_allclose(host(out), x * y)


def test_incompatible_shapes_raise_like_the_cpu_ufunc(rng):
    x, y = rng.standard_normal((2, 3)), rng.standard_normal(4)
    with pytest.raises(ValueError, match="broadcast"):
        cpu.add(x, y)
    with pytest.raises(ValueError, match="broadcast"):
        gpu.add(dev(x), dev(y))


def test_wrong_out_shape_and_host_arrays_are_rejected(rng):
    x = rng.standard_normal((2, 3))
    with pytest.raises(ValueError, match=r"out has shape \(3, 2\).*\(2, 3\)"):
        gpu.neg(dev(x), out=empty((3, 2), np.float64))
    with pytest.raises(TypeError, match="device arrays or numpy scalars, got ndarray"):
        gpu.neg(x)
    with pytest.raises(TypeError, match="add takes 2 arrays, got 1"):
        gpu.add(dev(x))


def test_broadcast_strides_merge_contiguous_dims():
    dims, strides = gpu.broadcast_strides((3, 4, 5), [(3, 4, 5), ()])
    assert dims == [60] and strides == [[1], [0]]
    dims, strides = gpu.broadcast_strides((3, 4, 5), [(3, 1, 5), (4, 5)])
    assert dims == [3, 4, 5] and strides == [[5, 0, 1], [0, 5, 1]]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", ["floordiv", "floormod", "pow"])
def test_integer_kernels_keep_python_semantics(name, dtype):
    """Integer floor division and remainder round toward -inf (-3 // 2 is -2, -3 % 2 is 1) and
    an integer power of an integer stays an integer, on the device as on the CPU."""
    x = np.array([-7, -3, -1, 0, 1, 3, 7], dtype)
    y = np.array([2, -2, 3, 5, -4, 2, 3], dtype) if name != "pow" else \
        np.array([3, 2, 5, 0, 4, 2, 1], dtype)
    want = {"floordiv": np.floor_divide, "floormod": np.mod, "pow": np.power}[name](x, y)
    np.testing.assert_array_equal(getattr(cpu, name)(x, y), want)
    got = getattr(gpu, name)(dev(x), dev(y))
    assert got.dtype == dtype
    np.testing.assert_array_equal(host(got), want)


# dtypes each integer body is launched with (population_count sees the unsigned view of its
# operand; the shifts of 64-bit dtypes are the *64 bodies).
_NARROW = [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32]
_WIDE = [np.int64, np.uint64]
INTEGER_CASES = (
    [(n, d) for n in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert")
     for d in _NARROW + _WIDE + [np.bool_] if not (n == "invert" and d == np.bool_)]
    + [(n, d) for n in ("left_shift", "right_shift") for d in _NARROW]
    + [(n, d) for n in ("left_shift64", "right_shift64") for d in _WIDE]
    + [("population_count", d) for d in (np.uint8, np.uint16, np.uint32, np.uint64)]
    + [(n, d) for n in ("gcd", "lcm") for d in (np.int16, np.int32, np.int64)
       if not (n == "lcm" and d == np.int16)])


def _int_operand(name, dtype, shape, k, rng):
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if "shift" in name and k == 1:      # counts beyond the width, and negative ones
        return rng.integers(0 if np.dtype(dtype).kind == "u" else -3, 70, shape).astype(dtype)
    if name in ("gcd", "lcm"):          # lcm of larger values would overflow int16
        return rng.integers(-40, 40, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("name,dtype", INTEGER_CASES,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in INTEGER_CASES])
def test_integer_kernels_match_cpu(name, dtype, rng):
    """Bitwise logic, shifts, population count, gcd and lcm on the device equal the CPU ufunc,
    with broadcasting; the output dtype is the operand's (uint8 for population_count)."""
    nin = getattr(gpu, name).nin
    shapes = [(3, 4), (4,)]
    arrays = [_int_operand(name, dtype, shapes[k], k, rng) for k in range(nin)]
    want = getattr(cpu, name)(*arrays)
    got = getattr(gpu, name)(*dev(*arrays)) if nin > 1 else getattr(gpu, name)(dev(arrays[0]))
    assert got.dtype == want.dtype and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(host(got), want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sign_on_integers(dtype):
    """ops.Sign takes Int32 and Int64 (MindSpore does): its CUDA kernel too."""
    x = np.array([-7, 0, 3, -1, 12], dtype)
    got = gpu.sign(dev(x))
    assert got.dtype == dtype
    np.testing.assert_array_equal(host(got), np.sign(x))
