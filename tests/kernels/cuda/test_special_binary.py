"""The CUDA twins of the two-operand special functions (kernels/scalar_gamma_inc.py) against
their CPU ufuncs on inputs inside their domains (test_elementwise's normal draws mostly land
on the NaN edges), Polygamma's integer order beside a float input, and nextafter bit for bit."""
import numpy as np
import pytest

from minispore.kernels.cpu import elementwise as cpu
from minispore.kernels.cuda import elementwise as gpu

from .conftest import DTYPES, dev, host, tol


def _draw(name, dtype, rng):
    """(first operand, second operand) of `name`, 12 elements inside its domain."""
    if name in ("igamma", "igammac", "igamma_grad_a"):
        # Both branches: x < a (series) and x > a, x > 1 (continued fraction).
        return rng.uniform(0.1, 8.0, 12).astype(dtype), rng.uniform(0.0, 12.0, 12).astype(dtype)
    if name == "zeta":
        return rng.uniform(1.1, 6.0, 12).astype(dtype), rng.uniform(0.2, 12.0, 12).astype(dtype)
    return (rng.standard_normal(12) * 10.0 ** rng.uniform(-30, 30, 12)).astype(dtype), \
        rng.standard_normal(12).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["igamma", "igammac", "igamma_grad_a", "zeta", "nextafter"])
def test_matches_cpu_kernel_inside_the_domain(name, dtype, rng):
    x, y = _draw(name, dtype, rng)
    want = getattr(cpu, name)(x, y)
    got = host(getattr(gpu, name)(dev(x), dev(y)))
    assert got.dtype == want.dtype
    if name == "nextafter":
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, np.nextafter(x, y))
    else:
        np.testing.assert_allclose(got, want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_nextafter_edges(dtype):
    fi = np.finfo(dtype)
    x = np.array([0.0, -0.0, fi.max, fi.smallest_subnormal, np.inf, 1.0, np.nan, 0.5],
                 dtype)
    y = np.array([-0.0, 1.0, np.inf, 0.0, 0.0, 1.0, 1.0, 0.0], dtype)
    with np.errstate(over="ignore"):
        want = np.nextafter(x, y)
    got = host(gpu.nextafter(dev(x), dev(y)))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("order_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", DTYPES)
def test_polygamma_integer_order_and_float_input(order_dtype, dtype, rng):
    """Polygamma's order is a 0-d int32/int64 tensor broadcast against the float input."""
    x = rng.uniform(-3.0, 6.0, 10).astype(dtype)
    for n in (0, 1, 3):
        order = np.array(n, order_dtype)
        want = cpu.polygamma(order, x)
        got = gpu.polygamma(dev(order), dev(x))
        assert got.dtype == dtype
        np.testing.assert_allclose(host(got), want, rtol=2e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_betainc_matches_cpu_kernel(dtype, rng):
    """Both sides of the symmetry (x below and above (a + 1) / (a + b + 2)) and the edges."""
    a = np.concatenate([rng.uniform(0.1, 20.0, 12), [0.5, -1.0, 2.0]]).astype(dtype)
    b = np.concatenate([rng.uniform(0.1, 20.0, 12), [0.5, 1.0, 2.0]]).astype(dtype)
    x = np.concatenate([rng.uniform(0.0, 1.0, 12), [0.0, 0.5, 1.0]]).astype(dtype)
    want = cpu.betainc(a, b, x)
    got = host(gpu.betainc(dev(a), dev(b), dev(x)))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **tol(dtype))
