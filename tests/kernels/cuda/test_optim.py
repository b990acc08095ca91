"""CUDA fused optimizer updates against the CPU kernels of the same name, over several steps."""
import numpy as np
import pytest

from minispore.kernels.cpu import optim as cpu
from minispore.kernels.cuda import optim as gpu

from .conftest import DTYPES, dev, host, same_kernels, tol

N = 300   # more than the simulator's grid: every thread takes several grid-stride steps


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert set(same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))) == {
        "apply_momentum", "sgd", "adam", "adam_weight_decay"}


def _run(name, n_state, scalars, dtype, rng, steps=3, stat=False):
    """`steps` updates on the CPU and the GPU from the same start; param and state compared.
    `stat`: the kernel takes sgd's 1-element first-step flag after its state."""
    param = rng.standard_normal(N).astype(dtype)
    state = [np.zeros(N, dtype) for _ in range(n_state)] + ([np.ones(1, dtype)] if stat else [])
    grads = [rng.standard_normal(N).astype(dtype) for _ in range(steps)]
    scalars = [s if isinstance(s, bool) else dtype(s) for s in scalars]
    d_param, d_state = dev(param), [dev(s) for s in state]
    for g in grads:
        getattr(cpu, name)(param, *state, g, *scalars)
        getattr(gpu, name)(d_param, *d_state, dev(g), *scalars)
    np.testing.assert_allclose(host(d_param), param, **tol(dtype))
    for d, s in zip(d_state, state):
        np.testing.assert_allclose(host(d), s, **tol(dtype))
    return d_param, d_state


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_momentum(nesterov, dtype, rng):
    d_param, _ = _run("apply_momentum", 1, [0.1, 0.9, 0.01, 0.5, nesterov], dtype, rng)
    assert d_param.dtype == dtype


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("momentum,nesterov", [(0.9, False), (0.9, True), (0.0, False)])
def test_sgd_first_step_flag(momentum, nesterov, dtype, rng):
    _, d_state = _run("sgd", 1, [0.1, momentum, 0.2, 0.01, 1.0, nesterov], dtype, rng, stat=True)
    assert host(d_state[-1])[0] == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_adam(nesterov, dtype, rng):
    _run("adam", 2, [0.01, 0.9, 0.999, 1e-8, 0.01, 0.5, nesterov], dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_adam_weight_decay(dtype, rng):
    _run("adam_weight_decay", 2, [0.01, 0.9, 0.999, 1e-6, 0.05], dtype, rng)
