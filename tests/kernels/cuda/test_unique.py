"""The UniqueWithPad CUDA kernel under the simulator vs the CPU kernel, NaNs included."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import unique as cpu
from minispore.kernels.cuda import unique as gpu


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_unique_with_pad_matches_cpu(dtype):
    x = np.random.default_rng(0).integers(0, 6, 40).astype(dtype)
    if x.dtype.kind == "f":
        x[[3, 9]] = np.nan
    idx_type = np.int64 if dtype == np.int64 else np.int32
    want_y, want_idx = np.empty_like(x), np.empty(x.shape, idx_type)
    cpu.unique_with_pad(x, x.dtype.type(-1), want_y, want_idx)
    y, idx = cuda.device_array(x.shape, dtype), cuda.device_array(x.shape, idx_type)
    gpu.unique_with_pad(cuda.to_device(x), x.dtype.type(-1), y, idx)
    np.testing.assert_array_equal(y.copy_to_host(), want_y)
    np.testing.assert_array_equal(idx.copy_to_host(), want_idx)
