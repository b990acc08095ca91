"""CUDA row scatters with a reduction (kernels/cuda/scatter_reduce.py) under the simulator vs
the CPU kernel and a float64 numpy loop: repeated rows fold in index order on both."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import scatter_reduce as cpu
from minispore.kernels.cuda import scatter_reduce as gpu


def _reference(x, index, updates, mode):
    out = x.astype(np.float64)
    divide = (lambda a, b: np.trunc(a / b)) if x.dtype.kind == "i" else np.divide
    fold = [lambda a, b: b, np.add, np.subtract, np.multiply, divide, np.maximum,
            np.minimum][mode]
    for j, r in enumerate(index):
        out[:, r, :] = fold(out[:, r, :], updates[:, j, :].astype(np.float64))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("mode", range(7))
def test_scatter_rows_matches_cpu_and_numpy(dtype, itype, mode):
    rng = np.random.default_rng(mode)
    x = rng.integers(1, 9, (2, 4, 3)).astype(dtype)
    index = np.array([1, 3, 1, 0, 1], itype)             # row 1 three times
    updates = rng.integers(1, 5, (2, 5, 3)).astype(dtype)
    want = x.copy()
    assert cpu.scatter_rows(want, index, updates, mode) == -1
    out = cuda.to_device(x)
    assert gpu.scatter_rows(out, cuda.to_device(index), cuda.to_device(updates), mode) == -1
    np.testing.assert_array_equal(out.copy_to_host(), want)
    ref = _reference(x, index, updates, mode)     # an int quotient truncates at each step
    np.testing.assert_allclose(want, ref.astype(dtype), rtol=1e-6)


def test_scatter_rows_reports_the_first_bad_index_and_writes_nothing():
    x = np.ones((1, 3, 2), np.float32)
    index = np.array([0, 3, -1], np.int64)
    updates = np.full((1, 3, 2), 5, np.float32)
    out = cuda.to_device(x)
    assert gpu.scatter_rows(out, cuda.to_device(index), cuda.to_device(updates), 1) == 1
    np.testing.assert_array_equal(out.copy_to_host(), x)
    stale = x.copy()
    assert cpu.scatter_rows(stale, index, updates, 1) == 1
    np.testing.assert_array_equal(stale, x)
