"""CUDA reductions on (A, R, B) against the CPU kernels of the same name and numpy."""
import numpy as np
import pytest

from minispore.kernels.cpu import reduce as cpu
from minispore.kernels.cuda import reduce as gpu

from .conftest import DTYPES, dev, empty, host, same_kernels, tol

# R larger than a block (the threads' own strided loop) and small R with many rows (the
# blocks' row loop); B == 1 is the last-axis case.
SHAPES = [(2, 70, 3), (9, 5, 1)]


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert set(same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))) == {
        "sum_middle", "max_middle", "min_middle", "mean_middle", "argmax_middle",
        "minmax_grad_middle"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name,ref", [("sum_middle", np.sum), ("mean_middle", np.mean),
                                      ("max_middle", np.max), ("min_middle", np.min)])
def test_reductions(name, ref, shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    want = np.empty((shape[0], shape[2]), dtype)
    getattr(cpu, name)(x, want)
    got = empty(want.shape, dtype)
    getattr(gpu, name)(dev(x), got)
    np.testing.assert_allclose(host(got), want, **tol(dtype))
    np.testing.assert_allclose(host(got), ref(x.astype(np.float64), axis=1), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_wins_and_argmax_takes_the_first(dtype, rng):
    x = rng.integers(0, 4, (2, 50, 3)).astype(dtype)   # many ties
    x[1, 7, 2] = x[1, 30, 2] = np.nan
    for name in ("max_middle", "min_middle"):
        got = empty((2, 3), dtype)
        getattr(gpu, name)(dev(x), got)
        np.testing.assert_array_equal(host(got), getattr(np, name[:3])(x, axis=1))
    got = empty((2, 3), np.int64)
    gpu.argmax_middle(dev(x), got)
    want = np.empty((2, 3), np.int64)
    cpu.argmax_middle(x, want)
    np.testing.assert_array_equal(host(got), want)
    np.testing.assert_array_equal(host(got), np.argmax(x, axis=1))


def test_mean_of_nothing_is_nan():
    got = empty((2, 3), np.float32)
    gpu.mean_middle(dev(np.zeros((2, 0, 3), np.float32)), got)
    assert np.isnan(host(got)).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_minmax_grad_shares_ties(dtype, rng):
    x = rng.integers(0, 3, (2, 40, 3)).astype(dtype)
    y = x.max(axis=1)
    dout = rng.standard_normal(y.shape).astype(dtype)
    want = np.empty_like(x)
    cpu.minmax_grad_middle(x, y, dout, want)
    got = empty(x.shape, dtype)
    gpu.minmax_grad_middle(*dev(x, y, dout), got)
    np.testing.assert_allclose(host(got), want, **tol(dtype))
    np.testing.assert_allclose(host(got).sum(axis=1), dout, **tol(dtype))
