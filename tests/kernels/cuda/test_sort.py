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
        "cumsum_middle", "sort_middle", "topk_middle", "scatter_middle", "cumextreme_middle",
        "searchsorted_rows"}


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


_CUM_DTYPES = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
               np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", _CUM_DTYPES, ids=[np.dtype(d).name for d in _CUM_DTYPES])
def test_cumextreme_matches_cpu_on_ties_and_nan(shape, dtype, rng):
    """Running max/min and positions equal the CPU kernel's: the last of equal values, a NaN
    winning and staying (few distinct values make ties common). Cummax launches with Int64
    positions, Cummin with Int32."""
    x = rng.integers(0, 4, shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[x == 3] = np.nan
    for index, largest in ((np.int64, True), (np.int32, False)):
        want_v, want_i = np.empty_like(x), np.empty(shape, index)
        cpu.cumextreme_middle(x, want_v, want_i, largest)
        got_v, got_i = empty(shape, dtype), empty(shape, index)
        gpu.cumextreme_middle(dev(x), got_v, got_i, largest)
        np.testing.assert_array_equal(host(got_v), want_v)
        np.testing.assert_array_equal(host(got_i), want_i)


_SEARCH_CASES = [(np.float32, np.int64), (np.float64, np.int32), (np.int8, np.int64),
                 (np.int16, np.int32), (np.int32, np.int64), (np.int64, np.int32),
                 (np.float32, np.int32), (np.float64, np.int64), (np.int8, np.int32),
                 (np.int16, np.int64), (np.int32, np.int32), (np.int64, np.int64)]


@pytest.mark.parametrize("rows", [1, 3], ids=["shared-row", "row-per-row"])
@pytest.mark.parametrize("dtype,index", _SEARCH_CASES,
                         ids=[f"{np.dtype(d).name}-{np.dtype(i).name}" for d, i in _SEARCH_CASES])
def test_searchsorted_matches_cpu_and_numpy(rows, dtype, index, rng):
    """Insertion points equal numpy's on sorted rows, left and right, one shared row or one row
    per row of values (more values than the simulator's grid: the grid-stride loop runs
    twice)."""
    seq = np.sort(rng.integers(-9, 9, (rows, 10)), axis=1).astype(dtype)
    values = rng.integers(-11, 11, (3, 25)).astype(dtype)
    for right in (False, True):
        want = np.empty(values.shape, index)
        cpu.searchsorted_rows(seq, values, want, right)
        side = "right" if right else "left"
        np.testing.assert_array_equal(
            want, [np.searchsorted(seq[a if rows > 1 else 0], values[a], side=side)
                   for a in range(3)])
        got = empty(values.shape, index)
        gpu.searchsorted_rows(dev(seq), dev(values), got, right)
        np.testing.assert_array_equal(host(got), want)
