"""CUDA adaptive optimizer updates (kernels/cuda/optim_adaptive.py) against the CPU kernels of
the same name, over several steps from the same start."""
import numpy as np
import pytest

from minispore.kernels.cpu import optim_adaptive as cpu
from minispore.kernels.cuda import optim_adaptive as gpu

from .conftest import DTYPES, dev, host, same_kernels, tol

N = 300   # more than the simulator's grid: every thread takes several grid-stride steps


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert set(same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))) == {
        "apply_adagrad", "apply_rms_prop", "apply_centered_rms_prop", "apply_ada_max",
        "apply_adadelta", "apply_ftrl", "apply_proximal_adagrad", "asgd", "rprop"}


def _run(name, states, scalars, dtype, rng, steps=3):
    """`steps` updates on the CPU and the GPU from the same start (`states`: the start values
    of the state buffers); param and state compared after every step."""
    param = rng.standard_normal(N).astype(dtype)
    state = [s.astype(dtype) for s in states]
    scalars = [s if isinstance(s, bool) else dtype(s) for s in scalars]
    d_param, d_state = dev(param), [dev(s) for s in state]
    for _ in range(steps):
        g = rng.standard_normal(N).astype(dtype)
        getattr(cpu, name)(param, *state, g, *scalars)
        getattr(gpu, name)(d_param, *d_state, dev(g), *scalars)
        np.testing.assert_allclose(host(d_param), param, **tol(dtype))
        for d, s in zip(d_state, state):
            np.testing.assert_allclose(host(d), s, **tol(dtype))
    return param


def _positive(rng):
    return np.abs(rng.standard_normal(N)) + 0.1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("update_slots", [True, False])
def test_apply_adagrad(update_slots, dtype, rng):
    _run("apply_adagrad", [_positive(rng)], [0.1, 0.01, 0.5, update_slots], dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_rms_prop(dtype, rng):
    _run("apply_rms_prop", [np.ones(N), np.zeros(N)], [0.1, 0.9, 0.5, 1e-6, 0.01, 0.5], dtype,
         rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_centered_rms_prop(dtype, rng):
    _run("apply_centered_rms_prop", [np.zeros(N), np.ones(N), np.zeros(N)],
         [0.1, 0.9, 0.5, 1e-6, 0.01, 0.5], dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_ada_max(dtype, rng):
    _run("apply_ada_max", [np.zeros(N), np.zeros(N)], [0.5, 0.9, 0.999, 1e-8, 0.01, 0.5],
         dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_adadelta(dtype, rng):
    _run("apply_adadelta", [np.zeros(N), np.zeros(N)], [1.0, 0.9, 1e-6, 0.01, 0.5], dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lr_power", [-0.5, -0.3])
def test_apply_ftrl(lr_power, dtype, rng):
    param = _run("apply_ftrl", [np.full(N, 0.1), np.zeros(N)],
                 [0.1, 0.05, 0.02, lr_power, 0.01, 0.5], dtype, rng)
    assert (param == 0).any() and (param != 0).any()    # both sides of the l1 threshold ran


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("l1", [0.0, 0.05])
def test_apply_proximal_adagrad(l1, dtype, rng):
    _run("apply_proximal_adagrad", [np.full(N, 0.1)], [0.1, l1, 0.02, 0.01, 0.5], dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rprop(dtype, rng):
    param = rng.standard_normal(N).astype(dtype)
    prev, size = np.zeros(N, dtype), np.zeros(N, dtype)
    d_param, d_prev, d_size = dev(param), dev(prev), dev(size)
    for step in (1, 2, 3):
        g = rng.standard_normal(N).astype(dtype)
        scalars = [dtype(s) for s in (0.1, 0.5, 1.2, 1e-3, 0.11, 0.01, 0.5)] + [step == 1]
        cpu.rprop(param, prev, size, g, *scalars)
        gpu.rprop(d_param, d_prev, d_size, dev(g), *scalars)
        for d, h in ((d_param, param), (d_prev, prev), (d_size, size)):
            np.testing.assert_allclose(host(d), h, **tol(dtype))
    assert (prev == 0).any()     # a sign flip zeroed some gradients


@pytest.mark.parametrize("dtype", DTYPES)
def test_asgd_schedules_eta_and_mu(dtype, rng):
    param, ax = rng.standard_normal(N).astype(dtype), np.zeros(N, dtype)
    eta, mu = np.zeros(1, np.float32), np.ones(1, np.float32)
    d = dev(param, ax, eta, mu)
    for step in (1, 2, 3):
        g = rng.standard_normal(N).astype(dtype)
        scalars = [dtype(s) for s in (0.1, 1e-2, 0.75, 1.0, step, 0.01, 0.5)]
        cpu.asgd(param, ax, eta, mu, g, *scalars)
        gpu.asgd(*d, dev(g), *scalars)
        for dd, h in zip(d, (param, ax, eta, mu)):
            np.testing.assert_allclose(host(dd), h, **tol(dtype))
    assert mu[0] == 0.5      # 1 / max(1, 3 - t0)
