"""Math kernels at the array level: exact dtypes whatever loop compiled first, 0-d, out= buffers."""
import numpy as np
import pytest

from minispore.kernels.cpu import elementwise as E
from minispore.kernels.cpu import matmul as MM
from minispore.kernels.cpu import reduce as R

SAME_DTYPE = ["add", "sub", "mul", "maximum", "minimum", "pow", "sqrt_grad", "square_grad",
              "abs_grad", "exp", "log", "sqrt", "rsqrt", "square", "abs", "neg"]
PREDICATES = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


def _args(fn, dtype, shape=(4,)):
    return [np.full(shape, 1.5, dtype) for _ in range(fn.dufunc.nin)]


@pytest.mark.parametrize("name", SAME_DTYPE)
def test_float_dtype_is_kept_in_any_compile_order(name):
    fn = getattr(E, name)
    for dtype in (np.float64, np.float32, np.float16, np.float64):
        out = fn(*_args(fn, dtype))
        assert out.dtype == dtype, f"{name}: {dtype.__name__} in, {out.dtype} out"


@pytest.mark.parametrize("name", ["add", "mul", "maximum", "square", "abs", "neg"])
def test_integer_dtype_is_kept(name):
    fn = getattr(E, name)
    for dtype in (np.int64, np.int32, np.int8):
        out = fn(*[np.full(3, 3, dtype) for _ in range(fn.dufunc.nin)])
        assert out.dtype == dtype
    # int32 arithmetic wraps like numpy's instead of widening to int64.
    big = np.array([2 ** 31 - 1], np.int32)
    np.testing.assert_array_equal(E.add(big, np.array([1], np.int32)), big + np.int32(1))


@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_return_bool(name):
    fn = getattr(E, name)
    for dtype in (np.float64, np.float32, np.int32, np.bool_):
        x = np.array([0, 1, 1], dtype)
        out = fn(x, x[::-1])
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, getattr(np, name)(x, x[::-1]))


def test_zero_dim_inputs_and_out_buffers():
    x = np.array(2.0, np.float32)
    assert E.exp(x).dtype == np.float32 and E.exp(x).shape == ()
    out = np.empty((2, 3), np.float32)
    res = E.select(np.array([True, False, True]), np.ones((2, 3), np.float32),
                   np.zeros((), np.float32), out=out)
    assert res is out
    np.testing.assert_array_equal(out, [[1, 0, 1], [1, 0, 1]])


def test_float32_math_matches_float32_reference():
    # float32 results as accurate as numpy's float32 ufuncs (within 1-2 ulp).
    x = np.random.default_rng(0).uniform(0.1, 3.0, 1000).astype(np.float32)
    np.testing.assert_array_max_ulp(E.sqrt(x), np.sqrt(x), maxulp=1)
    np.testing.assert_array_max_ulp(E.exp(x), np.exp(x), maxulp=2)


def test_mean_and_argmax_middle():
    x = np.random.default_rng(1).standard_normal((3, 5, 4)).astype(np.float32)
    out = np.empty((3, 4), np.float32)
    R.mean_middle(x, out)
    np.testing.assert_allclose(out, x.astype(np.float64).mean(axis=1), rtol=1e-6)
    idx = np.empty((3, 4), np.int32)
    R.argmax_middle(x, idx)
    np.testing.assert_array_equal(idx, x.argmax(axis=1))
    empty = np.empty((2, 1), np.float64)
    R.mean_middle(np.zeros((2, 0, 1)), empty)
    assert np.isnan(empty).all()


def test_minmax_grad_middle_splits_ties():
    x = np.array([[[1.0], [4.0], [4.0]]])
    y = np.array([[4.0]])
    dx = np.empty_like(x)
    R.minmax_grad_middle(x, y, np.array([[6.0]]), dx)
    np.testing.assert_array_equal(dx.ravel(), [0.0, 3.0, 3.0])


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_matmul_writes_out(ta, tb):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 4, 2) if ta else (3, 2, 4)).astype(np.float32)
    b = rng.standard_normal((3, 5, 4) if tb else (3, 4, 5)).astype(np.float32)
    out = np.empty((3, 2, 5), np.float32)
    MM.batch_matmul(a, b, ta, tb, out)
    ref = np.matmul(a.transpose(0, 2, 1) if ta else a, b.transpose(0, 2, 1) if tb else b)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_batch_matmul_reads_broadcast_operands_modulo_their_batch():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4))      # out[z] uses a[z % 2] and b[z % 3]
    b = rng.standard_normal((3, 4, 5))
    out = np.empty((6, 3, 5))
    MM.batch_matmul(a, b, False, False, out)
    np.testing.assert_allclose(out, np.stack([a[z % 2] @ b[z % 3] for z in range(6)]),
                               rtol=1e-12)
