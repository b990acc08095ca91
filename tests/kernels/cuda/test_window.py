"""The Shift and Rolling CUDA kernels under the simulator vs the CPU kernels."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import window as cpu
from minispore.kernels.cuda import window as gpu


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("periods", [2, -3, 9])
def test_shift_matches_cpu(dtype, periods):
    x = (np.random.default_rng(0).random((2, 6, 3)) * 10).astype(dtype)
    fill = x.dtype.type(1)
    want = np.empty_like(x)
    cpu.shift(x, np.int64(periods), fill, want)
    out = cuda.device_array(x.shape, dtype)
    gpu.shift(cuda.to_device(x), np.int64(periods), fill, out)
    np.testing.assert_array_equal(out.copy_to_host(), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("method", range(6))
def test_rolling_matches_cpu(dtype, method):
    x = (np.random.default_rng(1).random((2, 7, 2)) * 50).astype(dtype)
    empty = x.dtype.type(0) if x.dtype.kind == "i" else x.dtype.type(np.nan)
    for center, left, right in ((False, False, True), (True, True, True), (True, True, False)):
        args = (np.int64(3), np.int64(2), center, left, right, np.int64(method), empty)
        want = np.empty_like(x)
        cpu.rolling(x, *args, want)
        out = cuda.device_array(x.shape, dtype)
        gpu.rolling(cuda.to_device(x), *args, out)
        np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-6, equal_nan=True)
