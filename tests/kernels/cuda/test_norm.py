"""CUDA layer-norm kernels under the simulator vs the CPU kernels and numpy."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import norm as cpu
from minispore.kernels.cuda import norm as gpu
from tests.kernels.cuda.conftest import same_kernels

TOL = {np.float32: 2e-5, np.float64: 1e-12}


def _inputs(dtype, m=5, k=150):
    # k = 150 > the 128-thread block: some threads hold two partials, some one. m = 5 rows on
    # a grid capped at 2 blocks in the simulator: each block strides over several rows.
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((m, k)) * 3 + 1).astype(dtype)
    gamma = rng.standard_normal(k).astype(dtype)
    beta = rng.standard_normal(k).astype(dtype)
    return x, gamma, beta


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_forward_matches_cpu_and_numpy(dtype):
    x, gamma, beta = _inputs(dtype)
    m, k = x.shape
    want = [np.empty((m, k), dtype), np.empty(m, dtype), np.empty(m, dtype)]
    cpu.layer_norm(x, gamma, beta, 1e-5, *want)
    got = [cuda.device_array((m, k), dtype), cuda.device_array(m, dtype),
           cuda.device_array(m, dtype)]
    gpu.layer_norm(cuda.to_device(x), cuda.to_device(gamma), cuda.to_device(beta), 1e-5, *got)
    got = [g.copy_to_host() for g in got]
    for g, w in zip(got, want):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, w, rtol=TOL[dtype], atol=TOL[dtype])
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got[0], ref * gamma + beta, rtol=10 * TOL[dtype],
                               atol=10 * TOL[dtype])
    np.testing.assert_allclose(got[2], x64.var(1), rtol=TOL[dtype])     # the biased variance


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_grad_matches_cpu(dtype):
    x, gamma, beta = _inputs(dtype)
    m, k = x.shape
    y, mean, var = np.empty((m, k), dtype), np.empty(m, dtype), np.empty(m, dtype)
    cpu.layer_norm(x, gamma, beta, 1e-5, y, mean, var)
    dy = np.random.default_rng(1).standard_normal((m, k)).astype(dtype)
    want = [np.empty((m, k), dtype), np.empty(k, dtype), np.empty(k, dtype)]
    cpu.layer_norm_grad(x, dy, gamma, mean, var, 1e-5, *want)
    got = [cuda.device_array((m, k), dtype), cuda.device_array(k, dtype),
           cuda.device_array(k, dtype)]
    gpu.layer_norm_grad(*(cuda.to_device(a) for a in (x, dy, gamma, mean, var)), 1e-5, *got)
    for g, w in zip(got, want):
        g = g.copy_to_host()
        assert g.dtype == dtype
        np.testing.assert_allclose(g, w, rtol=10 * TOL[dtype], atol=10 * TOL[dtype])
    np.testing.assert_allclose(want[2], dy.sum(0), rtol=1e-4)


def test_layer_norm_grad_matches_central_differences():
    rng = np.random.default_rng(2)
    x, gamma, beta = _inputs(np.float64, m=2, k=7)
    dy = rng.standard_normal(x.shape)

    def loss(xv):
        y = cuda.device_array(x.shape)
        gpu.layer_norm(cuda.to_device(xv), cuda.to_device(gamma), cuda.to_device(beta), 1e-5,
                       y, cuda.device_array(2), cuda.device_array(2))
        return float((y.copy_to_host() * dy).sum())

    y, mean, var = cuda.device_array(x.shape), cuda.device_array(2), cuda.device_array(2)
    gpu.layer_norm(cuda.to_device(x), cuda.to_device(gamma), cuda.to_device(beta), 1e-5,
                   y, mean, var)
    dx = cuda.device_array(x.shape)
    gpu.layer_norm_grad(cuda.to_device(x), cuda.to_device(dy), cuda.to_device(gamma), mean,
                        var, 1e-5, dx, cuda.device_array(7), cuda.device_array(7))
    h = 1e-6
    for i, j in [(0, 0), (1, 3), (1, 6)]:
        xp, xm = x.copy(), x.copy()
        xp[i, j] += h
        xm[i, j] -= h
        np.testing.assert_allclose(dx.copy_to_host()[i, j], (loss(xp) - loss(xm)) / (2 * h),
                                   rtol=1e-5, atol=1e-7)


def test_same_names_and_signatures_as_cpu():
    same_kernels(cpu, gpu, lambda o: hasattr(o, "py_func"))


def _bn_inputs(dtype, n=3, c=3, s=5):
    # n*s = 15 > the 8-thread simulator block; c = 3 channels on a grid of 2 blocks: a block
    # strides over two channels.
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((n, c, s)) * 2 + 1).astype(dtype)
    return x, rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_train_matches_cpu(dtype):
    x, gamma, beta = _bn_inputs(dtype)
    c = x.shape[1]
    want = [np.empty_like(x)] + [np.empty(c, dtype) for _ in range(3)]
    cpu.batch_norm_train(x, gamma, beta, 1e-5, *want)
    got = [cuda.device_array(x.shape, dtype)] + [cuda.device_array(c, dtype) for _ in range(3)]
    gpu.batch_norm_train(cuda.to_device(x), cuda.to_device(gamma), cuda.to_device(beta), 1e-5,
                         *got)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.copy_to_host(), w, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_allclose(want[2], x.astype(np.float64).var((0, 2)), rtol=10 * TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_infer_matches_cpu(dtype):
    x, gamma, beta = _bn_inputs(dtype)
    c = x.shape[1]
    mean, var = gamma * 0.5, np.abs(beta) + 0.5
    want = [np.empty_like(x), np.empty(c, dtype)]
    cpu.batch_norm_infer(x, gamma, beta, mean, var, 1e-5, *want)
    got = [cuda.device_array(x.shape, dtype), cuda.device_array(c, dtype)]
    gpu.batch_norm_infer(*(cuda.to_device(a) for a in (x, gamma, beta, mean, var)), 1e-5, *got)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.copy_to_host(), w, rtol=10 * TOL[dtype],
                                   atol=10 * TOL[dtype])


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_grad_matches_cpu(training):
    dtype = np.float64
    x, gamma, beta = _bn_inputs(dtype)
    c = x.shape[1]
    y, mean, var, rstd = np.empty_like(x), np.empty(c), np.empty(c), np.empty(c)
    cpu.batch_norm_train(x, gamma, beta, 1e-5, y, mean, var, rstd)
    dy = np.random.default_rng(3).standard_normal(x.shape)
    want = [np.empty_like(x), np.empty(c), np.empty(c)]
    cpu.batch_norm_grad(dy, x, gamma, mean, rstd, training, *want)
    got = [cuda.device_array(x.shape, dtype), cuda.device_array(c, dtype),
           cuda.device_array(c, dtype)]
    gpu.batch_norm_grad(*(cuda.to_device(a) for a in (dy, x, gamma, mean, rstd)), training,
                        *got)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.copy_to_host(), w, rtol=1e-10, atol=1e-10)
