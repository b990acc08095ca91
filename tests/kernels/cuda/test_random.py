"""CUDA dropout under the simulator vs the CPU kernel: same host-drawn uniforms, same mask."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import random as cpu
from minispore.kernels.cuda import random as gpu
from tests.kernels.cuda.conftest import same_kernels


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dropout_matches_cpu_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 7, 5)).astype(dtype)
    u = rng.random(x.shape).astype(dtype)
    keep = dtype(0.7)
    want_out, want_mask = np.empty_like(x), np.empty_like(x)
    cpu.dropout(x, u, keep, want_out, want_mask)
    out, mask = cuda.device_array(x.shape, dtype), cuda.device_array(x.shape, dtype)
    gpu.dropout(cuda.to_device(x), cuda.to_device(u), keep, out, mask)
    np.testing.assert_array_equal(mask.copy_to_host(), want_mask)
    np.testing.assert_array_equal(out.copy_to_host(), want_out)
    assert 0 < want_mask.sum() < x.size


def test_same_names_and_signatures_as_cpu():
    same_kernels(cpu, gpu, lambda o: hasattr(o, "py_func"))
