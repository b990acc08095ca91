"""CUDA linear-algebra kernels (det, slogdet, inverse) on (B, n, n) stacks against the CPU
kernels of the same name: the same LU bodies, so equal up to rounding, singular inputs
included."""
import numpy as np
import pytest

from minispore.kernels.cpu import linalg as cpu
from minispore.kernels.cuda import linalg as gpu

from .conftest import DTYPES, dev, empty, host, same_kernels, tol

# More matrices than the simulator's grid (2 blocks of 32 threads): the grid-stride loop runs
# twice; and one 5 x 5 case (longer pivot searches) with a small batch.
SHAPES = [(67, 2, 2), (3, 5, 5)]


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert set(same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))) == {
        "det", "slogdet", "inverse"}


def _stack(shape, dtype, rng):
    x = rng.standard_normal(shape)
    x[0] = 0.0                                  # all-zero: every pivot search finds 0
    x[1, :, 0] = 2 * x[1, :, 1]                 # singular: two dependent columns
    x[2] = np.eye(shape[1])[::-1]               # a permutation: det +-1, pivots swapped
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_det_and_slogdet_match_cpu(shape, dtype, rng):
    x = _stack(shape, dtype, rng)
    B = shape[0]
    want = np.empty(B, dtype)
    cpu.det(x, want)
    got = empty((B,), dtype)
    gpu.det(dev(x), got)
    np.testing.assert_allclose(host(got), want, **tol(dtype))
    ws, wl = np.empty(B, dtype), np.empty(B, dtype)
    cpu.slogdet(x, ws, wl)
    gs, gl = empty((B,), dtype), empty((B,), dtype)
    gpu.slogdet(dev(x), gs, gl)
    np.testing.assert_array_equal(host(gs), ws)
    np.testing.assert_allclose(host(gl), wl, **tol(dtype))
    assert ws[0] == 0 and wl[0] == -np.inf


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("adjoint", [False, True])
def test_inverse_matches_cpu_singular_included(shape, dtype, adjoint, rng):
    x = _stack(shape, dtype, rng)
    eps = np.dtype(dtype).type(np.finfo(dtype).eps)
    want = np.empty_like(x)
    cpu.inverse(x, want, adjoint, eps)
    got = empty(shape, dtype)
    gpu.inverse(dev(x), got, adjoint, eps)
    np.testing.assert_allclose(host(got), want, rtol=1e-4 if dtype == np.float32 else 1e-11,
                               atol=1e-5 if dtype == np.float32 else 1e-12)
    assert np.isfinite(host(got)).all()     # MindSpore's FullPivLU: no inf for singular ones


def test_empty_batch_launches_nothing():
    x = np.empty((0, 3, 3), np.float32)
    got = empty((0,), np.float32)
    gpu.det(dev(x), got)
    assert host(got).shape == (0,)


def test_matrix_over_the_local_memory_limit_is_refused():
    n = gpu.MAX_N + 1
    with pytest.raises(NotImplementedError, match=f"at most {gpu.MAX_N} x {gpu.MAX_N}"):
        gpu.inverse(dev(np.eye(n, dtype=np.float64)[None]), empty((1, n, n), np.float64), False,
                    np.float64(np.finfo(np.float64).eps))
