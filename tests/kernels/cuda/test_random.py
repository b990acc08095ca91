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


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_uniform_int_matches_cpu(dtype):
    u = np.random.default_rng(3).random((4, 25))
    want = np.empty((4, 25), dtype)
    cpu.uniform_int(u, np.int64(-3), np.int64(11), want)
    got = cuda.device_array((4, 25), dtype)
    gpu.uniform_int(cuda.to_device(u), np.int64(-3), np.int64(11), got)
    np.testing.assert_array_equal(got.copy_to_host(), want)
    assert want.min() >= -3 and want.max() < 8


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_poisson_matches_cpu(dtype):
    rng = np.random.default_rng(4)
    rate = np.repeat(np.array([0.0, 0.4, 3.0, 60.0, 2500.0]), 8).reshape(5, 8)
    u = rng.random((5, 8))
    want = np.empty((5, 8), dtype)
    cpu.poisson(rate, u, want)
    got = cuda.device_array((5, 8), dtype)
    gpu.poisson(cuda.to_device(rate), cuda.to_device(u), got)
    np.testing.assert_array_equal(got.copy_to_host(), want)
    assert (want[0] == 0).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gamma_round_matches_cpu(dtype):
    rng = np.random.default_rng(5)
    alpha = np.repeat(np.array([0.0, 0.3, 1.0, 4.5, 80.0, -1.0]), 6)
    u = rng.random((4, alpha.size))
    want, want_done = np.zeros(alpha.size, dtype), np.zeros(alpha.size, np.uint8)
    cpu.gamma_round(alpha, u, want, want_done)
    got, done = cuda.to_device(np.zeros(alpha.size, dtype)), cuda.to_device(
        np.zeros(alpha.size, np.uint8))
    gpu.gamma_round(cuda.to_device(alpha), cuda.to_device(u), got, done)
    np.testing.assert_array_equal(done.copy_to_host(), want_done)
    np.testing.assert_allclose(got.copy_to_host(), want, rtol=1e-12)
    assert want_done.sum() > alpha.size * 3 // 4
