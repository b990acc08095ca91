"""Matrix-decomposition CUDA kernels over batches of matrices: singular values and vectors,
Householder QR (Q and R, geqrf's packed form, and Q from it), Cholesky factors and the inverse
and solves from them, general solves, least squares, and unpacking an LU factorisation.

Device twins of kernels/cpu/decomp.py on the same C-contiguous (B, m, n) stacks, running the
same bodies (kernels/householder.py, kernels/jacobi.py, kernels/lu.py: the same reflectors,
rotations and operation order) with one thread per matrix in a grid-stride loop over B
(launch.elementwise). A thread works its matrix in local-memory arrays of MAX_N * MAX_N
elements sized at compile time, so every matrix dim is limited to MAX_N (a larger one raises
NotImplementedError naming the limit): beyond it one thread's O(n^3) work and its local memory
stop paying, and a blocked factorisation across a thread block (or cuSOLVER) would be the
design. No shared memory and no syncthreads(): matrices are independent. The local arrays'
dtype is a compile-time constant, so each kernel is built per dtype by an lru_cache factory.
"""
import functools
import math

import numpy as np
from numba import cuda, from_dtype, int64

from .. import householder as hh
from .. import jacobi, lu
from . import launch

# The largest matrix dim a thread works in local memory: four 32 x 32 float64 buffers (the
# SVD's) are 32 KiB per thread.
MAX_N = 32
_NN = MAX_N * MAX_N

_reflect_column = cuda.jit(device=True)(hh.reflect_column)
_apply_reflector = cuda.jit(device=True)(hh.apply_reflector)
_form_q = cuda.jit(device=True)(hh.form_q)
_init_column_norms = cuda.jit(device=True)(hh.init_column_norms)
_pivot_column = cuda.jit(device=True)(hh.pivot_column)
_downdate_norms = cuda.jit(device=True)(hh.downdate_norms)
_apply_reflector_to = cuda.jit(device=True)(hh.apply_reflector_to)
_solve_r = cuda.jit(device=True)(hh.solve_r)
_jacobi_sweeps = cuda.jit(device=True)(jacobi.jacobi_sweeps)
_finish_svd = cuda.jit(device=True)(jacobi.finish_svd)
_llt_in_place = cuda.jit(device=True)(lu.llt_in_place)
_gauss_solve = cuda.jit(device=True)(lu.gauss_solve)
_cholesky_solve_in_place = cuda.jit(device=True)(lu.cholesky_solve_in_place)


@functools.lru_cache(maxsize=None)
def _svd_kernel(np_dtype):
    """svd for one dtype: the CPU kernel's loop body per matrix z (grid-stride)."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def svd_matrices(x, s, u, v, compute_uv, eps, tiny):
        B, m, n = x.shape
        # Not min()/max(): numba's own CUDA target refuses their two-argument forms.
        d = m if m < n else n
        big = n if m < n else m
        a = cuda.local.array(_NN, dt)
        w = cuda.local.array(_NN, dt)
        uu = cuda.local.array(_NN, dt)
        vv = cuda.local.array(_NN, dt)
        sv = cuda.local.array(MAX_N, dt)
        tau = cuda.local.array(MAX_N, dt)
        upd = cuda.local.array(MAX_N, dt)
        direct = cuda.local.array(MAX_N, dt)
        perm = cuda.local.array(MAX_N, int64)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            scale = abs(x[z, 0, 0])
            finite = True
            for i in range(m):
                for j in range(n):
                    e = abs(x[z, i, j])
                    if not math.isfinite(e):
                        finite = False
                    elif e > scale:
                        scale = e
            if not finite:
                for i in range(d):
                    s[z, i] = math.nan
                if compute_uv:
                    for i in range(m):
                        for j in range(u.shape[2]):
                            u[z, i, j] = math.nan
                    for i in range(n):
                        for j in range(v.shape[2]):
                            v[z, i, j] = math.nan
                continue
            if scale == 0:
                scale = dt(1)
            if m == n:
                for i in range(d):
                    for j in range(d):
                        w[i * d + j] = x[z, i, j] / scale
                        uu[i * d + j] = 1 if i == j else 0
                        vv[i * d + j] = 1 if i == j else 0
            else:
                for i in range(big):
                    for j in range(d):
                        a[i * d + j] = (x[z, i, j] if m > n else x[z, j, i]) / scale
                _init_column_norms(a, big, d, perm, upd, direct)
                for k in range(d):
                    _pivot_column(a, big, d, k, perm, upd, direct)
                    tau[k] = _reflect_column(a, big, d, k, k, tiny)
                    _apply_reflector(a, big, d, k, k, tau[k], k + 1)
                    _downdate_norms(a, big, d, k, upd, direct, eps)
                for i in range(d):
                    for j in range(d):
                        r = a[i * d + j] if j >= i else dt(0)
                        if m > n:
                            w[i * d + j] = r
                        else:
                            w[j * d + i] = r
                if m > n:
                    _form_q(a, big, d, tau, d, uu, m)
                    for i in range(n * n):
                        vv[i] = 0
                    for j in range(d):
                        vv[perm[j] * n + j] = 1
                else:
                    _form_q(a, big, d, tau, d, vv, n)
                    for i in range(m * m):
                        uu[i] = 0
                    for j in range(d):
                        uu[perm[j] * m + j] = 1
            _jacobi_sweeps(w, d, uu, m, m, vv, n, n, eps, tiny)
            _finish_svd(w, d, sv, scale, uu, m, m, vv, n, n)
            for i in range(d):
                s[z, i] = sv[i]
            if compute_uv:
                for i in range(m):
                    for j in range(u.shape[2]):
                        u[z, i, j] = uu[i * m + j]
                for i in range(n):
                    for j in range(v.shape[2]):
                        v[z, i, j] = vv[i * n + j]

    return svd_matrices


@functools.lru_cache(maxsize=None)
def _geqrf_kernel(np_dtype):
    """geqrf for one dtype: per matrix z (grid-stride) the reflections in local memory."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def geqrf_matrices(x, y, tau, tiny):
        B, m, n = x.shape
        a = cuda.local.array(_NN, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            for i in range(m):
                for j in range(n):
                    a[i * n + j] = x[z, i, j]
            for k in range(m if m < n else n):
                tau[z, k] = _reflect_column(a, m, n, k, k, tiny)
                _apply_reflector(a, m, n, k, k, tau[z, k], k + 1)
            for i in range(m):
                for j in range(n):
                    y[z, i, j] = a[i * n + j]

    return geqrf_matrices


@functools.lru_cache(maxsize=None)
def _qr_kernel(np_dtype):
    """qr for one dtype: geqrf's reflections, then Q reflected back, per matrix z."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def qr_matrices(x, q, r, tiny):
        B, m, n = x.shape
        kk = m if m < n else n
        qc = q.shape[2]
        a = cuda.local.array(_NN, dt)
        qq = cuda.local.array(_NN, dt)
        t = cuda.local.array(MAX_N, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            for i in range(m):
                for j in range(n):
                    a[i * n + j] = x[z, i, j]
            for k in range(kk):
                t[k] = _reflect_column(a, m, n, k, k, tiny)
                _apply_reflector(a, m, n, k, k, t[k], k + 1)
            _form_q(a, m, n, t, kk, qq, qc)
            for i in range(m):
                for j in range(qc):
                    q[z, i, j] = qq[i * qc + j]
            for i in range(r.shape[1]):
                for j in range(n):
                    r[z, i, j] = a[i * n + j] if j >= i else dt(0)

    return qr_matrices


@functools.lru_cache(maxsize=None)
def _cholesky_kernel(np_dtype):
    """cholesky for one dtype: the symmetry test and LLT per matrix z (grid-stride)."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def cholesky_matrices(x, out, upper, prec, info):
        B, n, _ = x.shape
        a = cuda.local.array(_NN, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            diff = dt(0)
            norm = dt(0)
            for i in range(n):
                for j in range(n):
                    e = x[z, i, j] - x[z, j, i]
                    diff += e * e
                    norm += x[z, i, j] * x[z, i, j]
                    a[i * n + j] = x[z, i, j]
            if not diff <= prec * prec * norm or not _llt_in_place(a, n):
                info[z] = 1
                continue
            info[z] = 0
            for i in range(n):
                for j in range(n):
                    e = a[i * n + j] if j <= i else dt(0)
                    if upper:
                        out[z, j, i] = e
                    else:
                        out[z, i, j] = e

    return cholesky_matrices


@functools.lru_cache(maxsize=None)
def _cholesky_inverse_kernel(np_dtype):
    """cholesky_inverse for one dtype: the product, then the elimination carrying the
    identity, per matrix z (grid-stride)."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def cholesky_inverse_matrices(x, out, upper):
        B, n, _ = x.shape
        a = cuda.local.array(_NN, dt)
        b = cuda.local.array(_NN, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            for i in range(n):
                for j in range(n):
                    s = dt(0)
                    for t in range(n):
                        if upper:
                            s += x[z, t, i] * x[z, t, j]
                        else:
                            s += x[z, i, t] * x[z, j, t]
                    a[i * n + j] = s
                    b[i * n + j] = 1 if i == j else 0
            _gauss_solve(a, n, b, n)
            for i in range(n):
                for j in range(n):
                    out[z, i, j] = b[i * n + j]

    return cholesky_inverse_matrices


@functools.lru_cache(maxsize=None)
def _lstsq_kernel(np_dtype):
    """lstsq for one dtype: the CPU kernel's body on one thread (one system)."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def lstsq_system(x, rhs, out, eps, tiny):
        if cuda.grid(1) != 0:
            return
        m, n = x.shape
        k = rhs.shape[1]
        a = cuda.local.array(_NN, dt)
        b = cuda.local.array(_NN, dt)
        c = cuda.local.array(_NN, dt)
        tau = cuda.local.array(MAX_N, dt)
        upd = cuda.local.array(MAX_N, dt)
        direct = cuda.local.array(MAX_N, dt)
        perm = cuda.local.array(MAX_N, int64)
        if m >= n:
            for i in range(m):
                for j in range(n):
                    a[i * n + j] = x[i, j]
                for j in range(k):
                    b[i * k + j] = rhs[i, j]
            _init_column_norms(a, m, n, perm, upd, direct)
            biggest = dt(0)
            for j in range(n):
                if direct[j] > biggest:
                    biggest = direct[j]
            helper = (biggest * eps) * (biggest * eps) / m
            nz = n
            for kk in range(n):
                _pivot_column(a, m, n, kk, perm, upd, direct)
                if nz == n and upd[kk] * upd[kk] < helper * (m - kk):
                    nz = kk
                tau[kk] = _reflect_column(a, m, n, kk, kk, tiny)
                _apply_reflector(a, m, n, kk, kk, tau[kk], kk + 1)
                _downdate_norms(a, m, n, kk, upd, direct, eps)
            for kk in range(nz):
                _apply_reflector_to(a, m, n, kk, tau[kk], b, k)
            _solve_r(a, n, nz, b, k)
            for i in range(n):
                for j in range(k):
                    out[perm[i], j] = b[i * k + j] if i < nz else dt(0)
            return
        # a = x x^T, c = its inverse, b = x^T c (n x m), out = b rhs.
        for i in range(m):
            for j in range(m):
                s = dt(0)
                for t in range(n):
                    s += x[i, t] * x[j, t]
                a[i * m + j] = s
                c[i * m + j] = 1 if i == j else 0
        _gauss_solve(a, m, c, m)
        for i in range(n):
            for j in range(m):
                s = dt(0)
                for t in range(m):
                    s += x[t, i] * c[t * m + j]
                b[i * m + j] = s
        for i in range(n):
            for j in range(k):
                s = dt(0)
                for t in range(m):
                    s += b[i * m + t] * rhs[t, j]
                out[i, j] = s

    return lstsq_system


@functools.lru_cache(maxsize=None)
def _matrix_solve_kernel(np_dtype):
    """matrix_solve for one dtype: the elimination carrying rhs per matrix z (grid-stride)."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def matrix_solve_matrices(a, rhs, out, adjoint, info):
        B, n, _ = a.shape
        k = rhs.shape[2]
        m = cuda.local.array(_NN, dt)
        b = cuda.local.array(_NN, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            for i in range(n):
                for j in range(n):
                    m[i * n + j] = a[z, j, i] if adjoint else a[z, i, j]
                for j in range(k):
                    b[i * k + j] = rhs[z, i, j]
            _gauss_solve(m, n, b, k)
            info[z] = 0
            for i in range(n):
                if m[i * n + i] == 0:
                    info[z] = 1
            for i in range(n):
                for j in range(k):
                    out[z, i, j] = b[i * k + j]

    return matrix_solve_matrices


@functools.lru_cache(maxsize=None)
def _cholesky_solve_kernel(np_dtype):
    """cholesky_solve for one dtype: the two substitutions per matrix z (grid-stride)."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def cholesky_solve_matrices(rhs, factor, out, upper):
        B, n, k = rhs.shape
        a = cuda.local.array(_NN, dt)
        b = cuda.local.array(_NN, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            for i in range(n):
                for j in range(n):
                    a[i * n + j] = factor[z, i, j]
                for j in range(k):
                    b[i * k + j] = rhs[z, i, j]
            _cholesky_solve_in_place(a, n, b, k, upper)
            for i in range(n):
                for j in range(k):
                    out[z, i, j] = b[i * k + j]

    return cholesky_solve_matrices


@functools.lru_cache(maxsize=None)
def _orgqr_kernel(np_dtype):
    """orgqr for one dtype: Q reflected back from the packed reflectors per matrix z."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def orgqr_matrices(x, tau, out):
        B, m, n = x.shape
        t = tau.shape[1]
        a = cuda.local.array(_NN, dt)
        q = cuda.local.array(_NN, dt)
        c = cuda.local.array(MAX_N, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            for i in range(m):
                for j in range(n):
                    a[i * n + j] = x[z, i, j]
            for i in range(t):
                c[i] = tau[z, i]
            _form_q(a, m, n, c, t, q, n)
            for i in range(m):
                for j in range(n):
                    out[z, i, j] = q[i * n + j]

    return orgqr_matrices


@cuda.jit
def _lu_unpack_matrices(lu_data, pivots, p, l, u, info):
    """Per matrix z (grid-stride): p = I with columns i and pivots[i] - 1 swapped in turn
    (the CPU kernel's permutation: swapping perm[i], perm[j] swaps p's columns i, j), then
    the triangles. No local arrays, so any dtype and size."""
    B, m, n = lu_data.shape
    k = pivots.shape[1]
    for z in range(cuda.grid(1), B, cuda.gridsize(1)):
        for i in range(m):
            for j in range(m):
                p[z, i, j] = 1 if i == j else 0
        info[z] = 0
        for i in range(k):
            j = pivots[z, i] - 1
            if j < 0 or j >= m:
                info[z] = 1
                break
            if j != i:
                for r in range(m):
                    t = p[z, r, i]
                    p[z, r, i] = p[z, r, j]
                    p[z, r, j] = t
        for i in range(m):
            for j in range(k):
                if j < i:
                    l[z, i, j] = lu_data[z, i, j]
                else:
                    l[z, i, j] = 1 if j == i else 0
        for i in range(k):
            for j in range(n):
                u[z, i, j] = lu_data[z, i, j] if j >= i else 0


@cuda.jit
def _lu_unpack_grad_matrices(dl, du, out):
    """Per matrix z (grid-stride): out = dl's strict lower triangle + du's upper one."""
    B, m, k = dl.shape
    n = du.shape[2]
    for z in range(cuda.grid(1), B, cuda.gridsize(1)):
        for i in range(m):
            for j in range(n):
                # The two triangles are disjoint: each element has one source or none.
                if j < i and j < k:
                    out[z, i, j] = dl[z, i, j]
                elif i <= j and i < k:
                    out[z, i, j] = du[z, i, j]
                else:
                    out[z, i, j] = 0


def _check_size(name, *dims):
    big = max(dims) if dims else 0
    if big > MAX_N:
        raise NotImplementedError(
            f"The CUDA kernel '{name}' (kernels/cuda/decomp.py) works matrices of at most "
            f"{MAX_N} rows and columns (one thread each, in local memory), but got a dim of "
            f"{big}; run this operator on the CPU (device_target='CPU') for larger ones.")


def _launch(kern, B, *args):
    if B:
        blocks, threads = launch.elementwise(B)
        kern[blocks, threads](*args)


def svd(x, s, u, v, compute_uv, eps, tiny):
    """s, u, v = the SVD of each x[z] (see the CPU kernel), one thread per matrix.
    Preconditions: x C-contiguous (B, m, n), m, n <= MAX_N; s (B, d); u (B, m, m or d), v
    (B, n, n or d) when compute_uv; eps, tiny of x's dtype."""
    _check_size("svd", *x.shape[1:])
    _launch(_svd_kernel(np.dtype(x.dtype)), x.shape[0], x, s, u, v, compute_uv, eps, tiny)


def geqrf(x, y, tau, tiny):
    """y, tau = geqrf's packed QR of each x[z], one thread per matrix. Preconditions: x
    C-contiguous (B, m, n), m, n <= MAX_N; y (B, m, n), tau (B, min(m, n))."""
    _check_size("geqrf", *x.shape[1:])
    _launch(_geqrf_kernel(np.dtype(x.dtype)), x.shape[0], x, y, tau, tiny)


def qr(x, q, r, tiny):
    """q, r = the Householder QR of each x[z], one thread per matrix. Preconditions: x
    C-contiguous (B, m, n), m, n <= MAX_N; q (B, m, k), r (B, k, n), k = min(m, n) or m."""
    _check_size("qr", *x.shape[1:])
    _launch(_qr_kernel(np.dtype(x.dtype)), x.shape[0], x, q, r, tiny)


def cholesky(x, out, upper, prec, info):
    """out = each x[z]'s Cholesky factor, info[z] = 1 where x[z] is not symmetric positive
    definite; one thread per matrix. Preconditions: x C-contiguous (B, n, n), n <= MAX_N;
    out (B, n, n); info (B,) int32; prec of x's dtype."""
    _check_size("cholesky", *x.shape[1:])
    _launch(_cholesky_kernel(np.dtype(x.dtype)), x.shape[0], x, out, upper, prec, info)


def cholesky_inverse(x, out, upper):
    """out = inv(x[z] x[z]^T) (upper: inv(x[z]^T x[z])), one thread per matrix.
    Preconditions: x C-contiguous (B, n, n), n <= MAX_N; out (B, n, n)."""
    _check_size("cholesky_inverse", *x.shape[1:])
    _launch(_cholesky_inverse_kernel(np.dtype(x.dtype)), x.shape[0], x, out, upper)


def lstsq(x, rhs, out, eps, tiny):
    """out = the least-squares solution of x out = rhs (see the CPU kernel), on one thread.
    Preconditions: x C-contiguous (m, n), rhs (m, k), m, n, k <= MAX_N; out (n, k)."""
    _check_size("lstsq", *x.shape, rhs.shape[1])
    _launch(_lstsq_kernel(np.dtype(x.dtype)), 1, x, rhs, out, eps, tiny)


def lu_unpack(lu_data, pivots, p, l, u, info):
    """p, l, u of each packed LU lu_data[z] with pivots[z], info[z] = 1 for a pivot outside
    [1, m]; one thread per matrix. Preconditions: lu_data C-contiguous (B, m, n); pivots
    (B, k) integer; p (B, m, m), l (B, m, k), u (B, k, n); info (B,) int32."""
    _launch(_lu_unpack_matrices, lu_data.shape[0], lu_data, pivots, p, l, u, info)


def lu_unpack_grad(dl, du, out):
    """out[z] = tril(dl[z], -1) + triu(du[z]) on (B, m, n), one thread per matrix."""
    _launch(_lu_unpack_grad_matrices, dl.shape[0], dl, du, out)


def matrix_solve(a, rhs, out, adjoint, info):
    """out[z] = a[z]^-1 rhs[z] (a[z]^T when adjoint), info[z] = 1 for a zero pivot; one thread
    per matrix. Preconditions: a C-contiguous (B, n, n), rhs (B, n, k), n, k <= MAX_N; out
    (B, n, k); info (B,) int32."""
    _check_size("matrix_solve", *a.shape[1:], rhs.shape[2])
    _launch(_matrix_solve_kernel(np.dtype(a.dtype)), a.shape[0], a, rhs, out, adjoint, info)


def cholesky_solve(rhs, factor, out, upper):
    """out[z] = (L L^T)^-1 rhs[z] from factor[z]'s triangle, one thread per matrix.
    Preconditions: rhs C-contiguous (B, n, k), factor (B, n, n), n, k <= MAX_N; out (B, n, k)."""
    _check_size("cholesky_solve", *rhs.shape[1:])
    _launch(_cholesky_solve_kernel(np.dtype(rhs.dtype)), rhs.shape[0], rhs, factor, out, upper)


def orgqr(x, tau, out):
    """out[z] = the first n columns of Q from geqrf's x[z] and tau[z], one thread per matrix.
    Preconditions: x C-contiguous (B, m, n), m >= n, m <= MAX_N; tau (B, t), t <= n; out
    (B, m, n)."""
    _check_size("orgqr", *x.shape[1:])
    _launch(_orgqr_kernel(np.dtype(x.dtype)), x.shape[0], x, tau, out)
