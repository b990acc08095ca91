"""CUDA element-wise gather kernels (kernels/cuda/scatter.py) under the simulator vs the CPU
kernels and numpy."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import scatter as cpu
from minispore.kernels.cuda import scatter as gpu


def _strides(shape):
    return np.array([int(np.prod(shape[k + 1:])) for k in range(len(shape))], np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int8, np.uint8,
                                   np.bool_, np.uint16])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather_d_matches_cpu_and_numpy(dtype, itype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4, 5)) * 10).astype(dtype)
    index = rng.integers(-4, 4, (2, 6, 3)).astype(itype)      # dim 1: longer than x's 4
    args = (_strides(x.shape), index.reshape(-1), np.array(index.shape, np.int64), 1, 4)
    want = np.empty(index.size, dtype)
    assert cpu.gather_d(x.reshape(-1), *args, want) == -1
    out = cuda.device_array(index.size, dtype)
    assert gpu.gather_d(cuda.to_device(x.reshape(-1)), args[0], cuda.to_device(args[1]),
                        *args[2:], out) == -1
    np.testing.assert_array_equal(out.copy_to_host(), want)
    ref = np.take_along_axis(x[:2, :, :3], np.where(index < 0, index + 4, index), 1)
    np.testing.assert_array_equal(want.reshape(index.shape), ref)


def test_gather_d_reports_the_first_out_of_range_position_and_writes_nothing():
    x = np.arange(12, dtype=np.float32)
    index = np.array([1, 12, -13, -12], np.int64)
    stale = np.full(4, 9, np.float32)
    out = cuda.to_device(stale)
    assert gpu.gather_d(cuda.to_device(x), np.ones(1, np.int64), cuda.to_device(index),
                        np.array([4], np.int64), 0, 12, out) == 1
    np.testing.assert_array_equal(out.copy_to_host(), stale)
    assert cpu.gather_d(x, np.ones(1, np.int64), index, np.array([4], np.int64), 0, 12,
                        stale) == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8,
                                   np.uint16, np.bool_])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("accumulate", [False, True])
def test_scatter_elements_matches_cpu(dtype, itype, accumulate):
    if accumulate and dtype not in gpu._ATOMIC_ADD:
        return      # checked below: refused on the GPU
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((3, 4, 5)) * 10).astype(dtype)
    # A permutation along dim 1 per line: no repeated positions, so "none" is defined too.
    index = np.argsort(rng.random((2, 4, 3)), axis=1).astype(itype) - 2
    updates = (rng.standard_normal(index.shape) * 10).astype(dtype)
    args = (_strides(x.shape), index.reshape(-1), np.array(index.shape, np.int64))
    want = x.reshape(-1).copy()
    assert cpu.scatter_elements(want, *args, updates.reshape(-1), 1, 4, accumulate) == -1
    out = cuda.to_device(x.reshape(-1))
    assert gpu.scatter_elements(out, args[0], cuda.to_device(args[1]), args[2],
                                cuda.to_device(updates.reshape(-1)), 1, 4, accumulate) == -1
    np.testing.assert_array_equal(out.copy_to_host(), want)


def test_scatter_elements_adds_repeats_and_refuses_what_it_cannot():
    x = np.zeros(4, np.float64)
    index = np.array([1, 1, -1, 1], np.int64)
    upd = np.array([1., 2., 3., 4.])
    out = cuda.to_device(x)
    assert gpu.scatter_elements(out, np.ones(1, np.int64), cuda.to_device(index),
                                np.array([4], np.int64), cuda.to_device(upd), 0, 4, True) == -1
    np.testing.assert_array_equal(out.copy_to_host(), [0, 7, 0, 3])
    bad = cuda.to_device(np.array([0, 4], np.int32))
    assert gpu.scatter_elements(out, np.ones(1, np.int64), bad, np.array([2], np.int64),
                                cuda.to_device(upd[:2]), 0, 4, True) == 1
    np.testing.assert_array_equal(out.copy_to_host(), [0, 7, 0, 3])
    with pytest.raises(NotImplementedError, match="uint8"):
        gpu.scatter_elements(cuda.to_device(np.zeros(2, np.uint8)), np.ones(1, np.int64), bad,
                             np.array([2], np.int64), cuda.to_device(np.ones(2, np.uint8)), 0,
                             4, True)
