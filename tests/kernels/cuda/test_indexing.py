"""CUDA indexing kernels under the simulator vs the CPU kernels and numpy."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import indexing as cpu
from minispore.kernels.cuda import indexing as gpu
from tests.kernels.cuda.conftest import same_kernels

DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather_matches_cpu_and_numpy(dtype, itype):
    rng = np.random.default_rng(0)
    params = rng.standard_normal((3, 7, 5)).astype(dtype)
    idx = np.array([6, 0, 3, 3, 1], itype)
    want = np.empty((3, 5, 5), dtype)
    assert cpu.gather(params, idx, want, False) == -1
    out = cuda.device_array((3, 5, 5), dtype)
    assert gpu.gather(cuda.to_device(params), cuda.to_device(idx), out, False) == -1
    np.testing.assert_array_equal(out.copy_to_host(), want)
    np.testing.assert_array_equal(out.copy_to_host(), np.take(params, idx, axis=1))


def test_gather_out_of_range_reports_first_position_or_zeroes_rows():
    params = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    idx = np.array([1, 4, 0, -1], np.int64)
    stale = np.full((2, 4, 3), 9, np.float32)
    out = cuda.to_device(stale)
    assert gpu.gather(cuda.to_device(params), cuda.to_device(idx), out, False) == 1
    np.testing.assert_array_equal(out.copy_to_host(), stale)    # nothing written
    want = np.empty_like(stale)
    cpu.gather(params, idx, want, True)
    assert gpu.gather(cuda.to_device(params), cuda.to_device(idx), out, True) == -1
    np.testing.assert_array_equal(out.copy_to_host(), want)
    assert not out.copy_to_host()[:, 1].any() and not out.copy_to_host()[:, 3].any()


@pytest.mark.parametrize("dtype", DTYPES)
def test_unsorted_segment_sum_matches_cpu_with_repeats_and_drops(dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 9, 3)).astype(dtype)
    ids = np.array([2, 0, 2, 5, -1, 2, 0, 1, 9], np.int32)   # 5 and 9 >= 4, -1: dropped
    want = np.empty((2, 4, 3), dtype)
    cpu.unsorted_segment_sum(x, ids, want)
    out = cuda.to_device(np.full((2, 4, 3), 7, dtype))        # zeroed by the kernel
    gpu.unsorted_segment_sum(cuda.to_device(x), cuda.to_device(ids), out)
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=tol, atol=tol)
    ref = np.zeros((2, 4, 3))
    np.add.at(ref, (slice(None), ids[ids < 4][ids[ids < 4] >= 0]),
              x[:, (ids >= 0) & (ids < 4)])
    np.testing.assert_allclose(out.copy_to_host(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_deterministic_segment_sum_is_the_cpu_sum_bit_for_bit(dtype):
    """deterministic="ON"'s kernel adds each segment's rows in increasing n, the CPU loop's
    order: equal bit for bit (the atomic kernel only to rounding), ids out of range dropped,
    an id no row has gives a zero row."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((2, 40, 3)) * 10 ** rng.uniform(-4, 4, (2, 40, 3))).astype(dtype)
    ids = rng.integers(-1, 7, 40).astype(np.int32)        # -1 and 6 (>= 6 segments): dropped
    ids[ids == 5] = 9                                     # segment 5 empty, 9 dropped
    want = np.empty((2, 6, 3), dtype)
    cpu.unsorted_segment_sum_deterministic(x, ids, want)
    out = cuda.to_device(np.full((2, 6, 3), 7, dtype))
    gpu.unsorted_segment_sum_deterministic(cuda.to_device(x), cuda.to_device(ids), out)
    np.testing.assert_array_equal(out.copy_to_host(), want)
    assert not want[:, 5].any() and want[:, 0].any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_one_hot_matches_cpu(dtype):
    idx = np.array([[0, 3, -1], [2, 4, 1]], np.int64)          # 4 and -1: all-off rows
    on, off = dtype(5), dtype(-2)
    want = np.empty((2, 4, 3), dtype)
    cpu.one_hot(idx, on, off, want)
    out = cuda.device_array((2, 4, 3), dtype)
    gpu.one_hot(cuda.to_device(idx), on, off, out)
    np.testing.assert_array_equal(out.copy_to_host(), want)
    assert (out.copy_to_host()[0, :, 2] == off).all()


@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("labels, ignore, first", [
    ([0, 9, 3, 1], 0, -1),            # all in [0, 10)
    ([0, 9, 10, -1], 0, 2),           # the first of two bad labels
    ([-1, 5, 12], 0, 0),
    ([-100, 5, -100, 10], -100, 3),   # ignore_index passes, the other one does not
    ([], 0, -1),
])
def test_first_label_out_of_range_matches_cpu(itype, labels, ignore, first):
    arr = np.array(labels, itype)
    assert cpu.first_label_out_of_range(arr, 10, ignore) == first
    assert gpu.first_label_out_of_range(cuda.to_device(arr), 10, ignore) == first


@pytest.mark.parametrize("ftype", [np.float32, np.float64])
@pytest.mark.parametrize("values, first", [
    ([0.0, -2.5, 1e30], -1),
    ([1.0, np.inf, np.nan], 1),
    ([np.nan, 2.0, -np.inf], 0),
    ([1.0, 2.0, 3.0, -np.inf], 3),
])
def test_first_nonfinite_matches_cpu(ftype, values, first):
    arr = np.array(values, ftype)
    assert cpu.first_nonfinite(arr) == first
    assert gpu.first_nonfinite(cuda.to_device(arr)) == first


def test_same_names_and_signatures_as_cpu():
    same_kernels(cpu, gpu, lambda o: hasattr(o, "py_func"))


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("size", [0, 5, 29])   # 29: several chunks, more than the grid holds
def test_masked_select_matches_cpu_and_numpy(dtype, size):
    rng = np.random.default_rng(size)
    x = (rng.standard_normal(size) * 10).astype(dtype)
    mask = rng.random(size) < 0.4
    offsets, total = cpu.masked_offsets(mask)
    want = np.empty(total, dtype)
    cpu.masked_select(x, mask, offsets, want)
    np.testing.assert_array_equal(want, x[mask])
    d_offsets, d_total = gpu.masked_offsets(cuda.to_device(mask))
    assert d_total == total
    out = cuda.device_array(max(total, 1), dtype)[:total]
    gpu.masked_select(cuda.to_device(x), cuda.to_device(mask), d_offsets, out)
    np.testing.assert_array_equal(out.copy_to_host(), x[mask])
