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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_laplace_and_bernoulli_match_cpu(dtype):
    rng = np.random.default_rng(1)
    u1, u2, p = rng.random((3, 50)), rng.random((3, 50)), rng.random((3, 50))
    for name, args in (("normal", (u1, u2)), ("laplace", (u1,)), ("bernoulli", (u1, p))):
        want = np.empty((3, 50), dtype)
        getattr(cpu, name)(*args, want)
        got = cuda.device_array((3, 50), dtype)
        getattr(gpu, name)(*[cuda.to_device(a) for a in args], got)
        np.testing.assert_allclose(got.copy_to_host(), want, rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_multinomial_matches_cpu(dtype):
    rng = np.random.default_rng(2)
    weights = rng.random((4, 6))
    weights[1, :3] = 0.0        # zero-weight categories are never drawn
    u = rng.random((4, 9))
    want = np.empty((4, 9), dtype)
    cpu.multinomial(weights, u, want)
    got = cuda.device_array((4, 9), dtype)
    gpu.multinomial(cuda.to_device(weights), cuda.to_device(u), got)
    np.testing.assert_array_equal(got.copy_to_host(), want)
    assert (want[1] >= 3).all()
