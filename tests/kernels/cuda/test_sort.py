"""CUDA sort and scan kernels on (A, R, B) against the CPU kernels of the same name."""
import numpy as np
import pytest

from minispore.kernels.cpu import sort as cpu
from minispore.kernels.cuda import sort as gpu

from .conftest import dev, empty, host, same_kernels, tol

# More lines than the simulator's grid (2 blocks of 32 threads): the grid-stride loop runs
# twice; and a last-axis case (B == 1) with an odd line length (uneven merge runs).
SHAPES = [(35, 3, 2), (3, 11, 1)]


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert set(same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))) == {
        "cumsum_middle", "sort_middle", "topk_middle", "scatter_middle"}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, True)])
def test_cumsum(shape, exclusive, reverse, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    want = np.empty_like(x)
    cpu.cumsum_middle(x, want, np.float64(0), exclusive, reverse)
    got = empty(shape, np.float32)
    gpu.cumsum_middle(dev(x), got, np.float64(0), exclusive, reverse)
    np.testing.assert_allclose(host(got), want, **tol(np.float32))


def test_cumsum_integers(rng):
    x = rng.integers(-50, 50, (4, 6, 3)).astype(np.int32)
    got = empty(x.shape, np.int32)
    gpu.cumsum_middle(dev(x), got, np.int64(0), False, False)
    np.testing.assert_array_equal(host(got), np.cumsum(x, 1))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_cpu_on_ties_and_nan(shape, descending, rng):
    x = rng.integers(0, 3, shape).astype(np.float64)
    x[1, 0, 0] = np.nan
    want_v, want_i = np.empty_like(x), np.empty(shape, np.int32)
    cpu.sort_middle(x, want_v, want_i, np.empty(shape, np.int32), descending)
    got_v, got_i = empty(shape, np.float64), empty(shape, np.int32)
    gpu.sort_middle(dev(x), got_v, got_i, empty(shape, np.int32), descending)
    np.testing.assert_array_equal(host(got_i), want_i)
    np.testing.assert_array_equal(host(got_v), want_v)


@pytest.mark.parametrize("shape,k", [((35, 3, 1), 2), ((3, 11, 1), 11)])
def test_topk_and_scatter(shape, k, rng):
    x = rng.integers(0, 4, shape).astype(np.float32)
    out_shape = (shape[0], k, shape[2])
    want_v, want_i = np.empty(out_shape, np.float32), np.empty(out_shape, np.int32)
    cpu.topk_middle(x, want_v, want_i, np.empty(shape, np.int32), np.empty(shape, np.int32))
    got_v, got_i = empty(out_shape, np.float32), empty(out_shape, np.int32)
    gpu.topk_middle(dev(x), got_v, got_i, empty(shape, np.int32), empty(shape, np.int32))
    np.testing.assert_array_equal(host(got_i), want_i)
    np.testing.assert_array_equal(host(got_v), want_v)
    dout = rng.standard_normal(out_shape).astype(np.float32)
    want = np.empty(shape, np.float32)
    cpu.scatter_middle(dout, want_i, want)
    got = empty(shape, np.float32)
    gpu.scatter_middle(dev(dout), dev(want_i), got)
    np.testing.assert_array_equal(host(got), want)
