"""CUDA decomposition kernels (svd, geqrf, qr, orgqr, cholesky, cholesky_inverse,
cholesky_solve, matrix_solve, lstsq, lu_unpack, lu_unpack_grad) against the CPU kernels of the
same name: the same bodies, so equal up to rounding, signs and degenerate inputs included."""
import numpy as np
import pytest

from minispore.kernels.cpu import decomp as cpu
from minispore.kernels.cuda import decomp as gpu

from .conftest import DTYPES, dev, empty, host, same_kernels

# Tall, wide and square; 67 matrices run the simulator's grid-stride loop twice.
SHAPES = [(67, 2, 2), (3, 5, 3), (3, 3, 5), (2, 4, 4)]


def _tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-12)


def _consts(dtype):
    info = np.finfo(dtype)
    return np.dtype(dtype).type(info.eps), np.dtype(dtype).type(info.tiny)


def _stack(shape, dtype, rng):
    x = rng.standard_normal(shape)
    x[0] = 0.0                                  # all zero: no reflection, no rotation
    x[1, :, 0] = 2 * x[1, :, 1]                 # rank deficient
    return x.astype(dtype)


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert set(same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))) == {
        "svd", "geqrf", "qr", "cholesky", "cholesky_inverse", "lstsq", "lu_unpack",
        "lu_unpack_grad", "matrix_solve", "cholesky_solve", "orgqr"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("full", [False, True])
def test_svd_matches_cpu(shape, dtype, full, rng):
    x = _stack(shape, dtype, rng)
    B, m, n = shape
    d = min(m, n)
    eps, tiny = _consts(dtype)
    outs = [((B, d)), (B, m, m if full else d), (B, n, n if full else d)]
    want = [np.empty(s, dtype) for s in outs]
    cpu.svd(x, *want, True, eps, tiny)
    got = [empty(s, dtype) for s in outs]
    gpu.svd(dev(x), *got, True, eps, tiny)
    for g, w in zip(got, want):
        np.testing.assert_allclose(host(g), w, **_tol(dtype))


def test_svd_of_a_non_finite_matrix_is_nan():
    x = np.ones((1, 3, 2))
    x[0, 1, 1] = np.inf
    s, u, v = empty((1, 2), np.float64), empty((1, 3, 2), np.float64), empty((1, 2, 2),
                                                                           np.float64)
    gpu.svd(dev(x), s, u, v, True, *_consts(np.float64))
    assert np.isnan(host(s)).all() and np.isnan(host(u)).all() and np.isnan(host(v)).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_geqrf_and_qr_match_cpu(shape, dtype, rng):
    # Full rank but for the zero matrix: beyond the rank a reflector is made of rounding noise,
    # which float32 CPU (numba widens mixed int/float32 arithmetic) and GPU round apart.
    x = rng.standard_normal(shape).astype(dtype)
    x[0] = 0.0
    B, m, n = shape
    k = min(m, n)
    tiny = _consts(dtype)[1]
    wy, wt = np.empty(shape, dtype), np.empty((B, k), dtype)
    cpu.geqrf(x, wy, wt, tiny)
    gy, gt = empty(shape, dtype), empty((B, k), dtype)
    gpu.geqrf(dev(x), gy, gt, tiny)
    np.testing.assert_allclose(host(gy), wy, **_tol(dtype))
    np.testing.assert_allclose(host(gt), wt, **_tol(dtype))
    for qc in (k, m):
        wq, wr = np.empty((B, m, qc), dtype), np.empty((B, qc, n), dtype)
        cpu.qr(x, wq, wr, tiny)
        gq, gr = empty((B, m, qc), dtype), empty((B, qc, n), dtype)
        gpu.qr(dev(x), gq, gr, tiny)
        np.testing.assert_allclose(host(gq), wq, **_tol(dtype))
        np.testing.assert_allclose(host(gr), wr, **_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_and_cholesky_inverse_match_cpu(dtype, upper, rng):
    a = rng.standard_normal((67, 4, 4))
    x = (a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)).astype(dtype)
    x[1, 0, 1] += 1.0                           # not symmetric
    x[2] = -np.eye(4)                           # not positive definite
    prec = np.dtype(dtype).type(1e-5 if dtype == np.float32 else 1e-12)
    want, winfo = np.zeros_like(x), np.empty(67, np.int32)
    cpu.cholesky(x, want, upper, prec, winfo)
    got, ginfo = empty(x.shape, dtype), empty((67,), np.int32)
    gpu.cholesky(dev(x), got, upper, prec, ginfo)
    np.testing.assert_array_equal(host(ginfo), winfo)
    assert winfo[1] == 1 and winfo[2] == 1 and winfo.sum() == 2
    ok = winfo == 0
    np.testing.assert_allclose(host(got)[ok], want[ok], **_tol(dtype))
    want = np.empty_like(x)
    cpu.cholesky_inverse(x, want, upper)
    got = empty(x.shape, dtype)
    gpu.cholesky_inverse(dev(x), got, upper)
    np.testing.assert_allclose(host(got), want, rtol=1e-4 if dtype == np.float32 else 1e-10,
                               atol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,n", [(5, 3), (3, 5), (4, 4)])
def test_lstsq_matches_cpu(m, n, dtype, rng):
    x = rng.standard_normal((m, n)).astype(dtype)
    rhs = rng.standard_normal((m, 2)).astype(dtype)
    eps, tiny = _consts(dtype)
    want = np.empty((n, 2), dtype)
    cpu.lstsq(x, rhs, want, eps, tiny)
    got = empty((n, 2), dtype)
    gpu.lstsq(dev(x), dev(rhs), got, eps, tiny)
    np.testing.assert_allclose(host(got), want, rtol=1e-4 if dtype == np.float32 else 1e-10,
                               atol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_lu_unpack_and_its_grad_match_cpu(dtype, rng):
    B, m, n = 67, 4, 3
    data = (rng.standard_normal((B, m, n)) * 10).astype(dtype)
    piv = rng.integers(1, m + 1, (B, n)).astype(np.int32)
    for i in range(n):
        piv[:, i] = np.maximum(piv[:, i], i + 1)   # getrf swaps row i with a row >= i
    piv[5, 1] = 0                                   # out of range: flagged
    want = [np.empty(s, dtype) for s in ((B, m, m), (B, m, n), (B, n, n))]
    winfo = np.empty(B, np.int32)
    cpu.lu_unpack(data, piv, *want, winfo)
    got = [empty(s, dtype) for s in ((B, m, m), (B, m, n), (B, n, n))]
    ginfo = empty((B,), np.int32)
    gpu.lu_unpack(dev(data), dev(piv), *got, ginfo)
    np.testing.assert_array_equal(host(ginfo), winfo)
    assert winfo[5] == 1 and winfo.sum() == 1
    ok = winfo == 0
    for g, w in zip(got, want):
        np.testing.assert_array_equal(host(g)[ok], w[ok])
    dl, du = data.astype(np.float32), np.ones((B, n, n), np.float32)
    want = np.empty((B, m, n), np.float32)
    cpu.lu_unpack_grad(dl, du, want)
    got = empty((B, m, n), np.float32)
    gpu.lu_unpack_grad(dev(dl), dev(du), got)
    np.testing.assert_array_equal(host(got), want)


def test_empty_batch_launches_nothing():
    x = np.empty((0, 3, 3), np.float32)
    got = empty((0, 3), np.float32)
    gpu.svd(dev(x), got, empty((0, 3, 3), np.float32), empty((0, 3, 3), np.float32), True,
            *_consts(np.float32))
    assert host(got).shape == (0, 3)


def test_matrix_over_the_local_memory_limit_is_refused():
    n = gpu.MAX_N + 1
    with pytest.raises(NotImplementedError, match=f"at most {gpu.MAX_N} rows and columns"):
        gpu.qr(dev(np.eye(n)[None]), empty((1, n, n), np.float64), empty((1, n, n), np.float64),
               _consts(np.float64)[1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("flag", [False, True])
def test_solves_and_orgqr_match_cpu(dtype, flag, rng):
    B, n, k = 67, 4, 2
    a = (rng.standard_normal((B, n, n)) + 3 * np.eye(n)).astype(dtype)
    a[3] = 0.0                                   # singular: flagged by matrix_solve
    b = rng.standard_normal((B, n, k)).astype(dtype)
    want, winfo = np.empty_like(b), np.empty(B, np.int32)
    cpu.matrix_solve(a, b, want, flag, winfo)
    got, ginfo = empty(b.shape, dtype), empty((B,), np.int32)
    gpu.matrix_solve(dev(a), dev(b), got, flag, ginfo)
    np.testing.assert_array_equal(host(ginfo), winfo)
    assert winfo[3] == 1 and winfo.sum() == 1
    ok = winfo == 0
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(host(got)[ok], want[ok], **tol)
    want = np.empty_like(b)
    cpu.cholesky_solve(b, a, want, flag)
    got = empty(b.shape, dtype)
    gpu.cholesky_solve(dev(b), dev(a), got, flag)
    np.testing.assert_allclose(host(got)[ok], want[ok], **tol)
    x = rng.standard_normal((B, 5, 3)).astype(dtype)
    y, tau = np.empty_like(x), np.empty((B, 3), dtype)
    cpu.geqrf(x, y, tau, _consts(dtype)[1])
    tau = tau[:, :2] if flag else tau                 # fewer reflectors than columns
    want = np.empty_like(x)
    cpu.orgqr(y, np.ascontiguousarray(tau), want)
    got = empty(x.shape, dtype)
    gpu.orgqr(dev(y), dev(tau), got)
    np.testing.assert_allclose(host(got), want, **_tol(dtype))
