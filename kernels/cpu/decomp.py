"""Matrix-decomposition CPU kernels over batches of matrices: singular values and vectors,
Householder QR (Q and R, LAPACK geqrf's packed form, and Q from it), Cholesky factors and the
inverse and solves from them, general solves, least squares, and unpacking an LU
factorisation.

Every kernel takes a C-contiguous (B, m, n) stack and loops over its B matrices, each worked in
flat scratch buffers by the shared bodies of kernels/householder.py and kernels/jacobi.py (which
say which algorithm each is and why: MindSpore's, so signs come out as MindSpore's). The CUDA
twins in kernels/cuda/decomp.py run the same bodies with one thread per matrix.
"""
import math

import numpy as np
from numba import njit

from .. import householder as hh
from .. import jacobi, lu

_reflect_column = njit(cache=True)(hh.reflect_column)
_apply_reflector = njit(cache=True)(hh.apply_reflector)
_form_q = njit(cache=True)(hh.form_q)
_init_column_norms = njit(cache=True)(hh.init_column_norms)
_pivot_column = njit(cache=True)(hh.pivot_column)
_downdate_norms = njit(cache=True)(hh.downdate_norms)
_jacobi_sweeps = njit(cache=True)(jacobi.jacobi_sweeps)
_finish_svd = njit(cache=True)(jacobi.finish_svd)
_apply_reflector_to = njit(cache=True)(hh.apply_reflector_to)
_solve_r = njit(cache=True, error_model="numpy")(hh.solve_r)
_llt_in_place = njit(cache=True)(lu.llt_in_place)
# A singular system divides by a zero pivot: inf/NaN as Eigen's, not ZeroDivisionError.
_gauss_solve = njit(cache=True, error_model="numpy")(lu.gauss_solve)
_cholesky_solve_in_place = njit(cache=True, error_model="numpy")(lu.cholesky_solve_in_place)


@njit(cache=True)
def svd(x, s, u, v, compute_uv, eps, tiny):
    """s[z], u[z], v[z] = the SVD x[z] = u diag(s) v^T, s descending (Eigen's JacobiSVD, see
    kernels/jacobi.py); u, v hold the first u.shape[2], v.shape[2] singular vectors (thin:
    min(m, n); full: m, n) and are not touched unless compute_uv. A matrix with a non-finite
    entry gets NaN everywhere (Eigen reports it invalid and returns nothing).

    Loop nest: for z: scale by max|x[z]|; m > n: column-pivoted QR of x[z] (m x n), work on R,
    U starts as Q, V as the pivot permutation; m < n: the same on x[z]^T with U and V's roles
    swapped; m = n: work on x[z], U = V = I. Then the Jacobi sweeps (O(d^3) per sweep) and the
    sign fix and sort. Serial over z. Preconditions: x C-contiguous (B, m, n); s (B, d); u
    (B, m, m or d), v (B, n, n or d); all of x's float dtype; eps, tiny the dtype's epsilon and
    smallest normal number.
    """
    B, m, n = x.shape
    d = min(m, n)
    big = max(m, n)
    a = np.empty(big * d, x.dtype)
    w = np.empty(d * d, x.dtype)
    uu = np.empty(m * m, x.dtype)
    vv = np.empty(n * n, x.dtype)
    sv = np.empty(d, x.dtype)
    tau = np.empty(d, x.dtype)
    upd = np.empty(d, x.dtype)
    direct = np.empty(d, x.dtype)
    perm = np.empty(d, np.int64)
    for z in range(B):
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
            s[z, :] = np.nan
            if compute_uv:
                u[z, :, :] = np.nan
                v[z, :, :] = np.nan
            continue
        if scale == 0:
            scale = 1
        if m == n:
            for i in range(d):
                for j in range(d):
                    w[i * d + j] = x[z, i, j] / scale
                    uu[i * d + j] = 1 if i == j else 0
                    vv[i * d + j] = 1 if i == j else 0
        else:
            # QR of the tall one of x[z], x[z]^T (big x d).
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
                    r = a[i * d + j] if j >= i else a[0] - a[0]
                    if m > n:
                        w[i * d + j] = r
                    else:
                        w[j * d + i] = r
            if m > n:
                _form_q(a, big, d, tau, d, uu, m)
                vv[:] = 0
                for j in range(d):
                    vv[perm[j] * n + j] = 1
            else:
                _form_q(a, big, d, tau, d, vv, n)
                uu[:] = 0
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


@njit(cache=True)
def geqrf(x, y, tau, tiny):
    """y[z], tau[z] = LAPACK geqrf's packed QR of x[z]: R on and above the diagonal, the
    reflectors' essential parts below it, their coefficients in tau (kernels/householder.py).

    Loop nest: for z: copy x[z], for k < min(m, n): one reflection of column k, applied to the
    columns right of it. Serial over z. Preconditions: x C-contiguous (B, m, n); y (B, m, n),
    tau (B, min(m, n)) of x's float dtype; tiny its smallest normal number.
    """
    B, m, n = x.shape
    a = np.empty(m * n, x.dtype)
    for z in range(B):
        for i in range(m):
            for j in range(n):
                a[i * n + j] = x[z, i, j]
        for k in range(min(m, n)):
            tau[z, k] = _reflect_column(a, m, n, k, k, tiny)
            _apply_reflector(a, m, n, k, k, tau[z, k], k + 1)
        for i in range(m):
            for j in range(n):
                y[z, i, j] = a[i * n + j]


@njit(cache=True)
def qr(x, q, r, tiny):
    """q[z] r[z] = x[z] by Householder QR (Eigen's HouseholderQR, as MindSpore's Qr): q holds
    the first q.shape[2] columns of Q (reduced: min(m, n); complete: m), r the first
    r.shape[1] rows of R.

    Loop nest: for z: the reflections of `geqrf`, then Q from the identity's columns reflected
    back (O(m^2 n)). Serial over z. Preconditions: x C-contiguous (B, m, n); q (B, m, k),
    r (B, k, n) with k = min(m, n) or m; all of x's float dtype; tiny its smallest normal.
    """
    B, m, n = x.shape
    kk = min(m, n)
    qc = q.shape[2]
    a = np.empty(m * n, x.dtype)
    qq = np.empty(m * qc, x.dtype)
    t = np.empty(kk, x.dtype)
    for z in range(B):
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
                r[z, i, j] = a[i * n + j] if j >= i else 0


@njit(cache=True)
def cholesky(x, out, upper, prec, info):
    """out[z] = L (upper: L^T) with L L^T = x[z], by Eigen's LLT of the lower triangle (see
    kernels/lu.py), as MindSpore's Cholesky; info[z] = 1 where x[z] is not symmetric within
    Eigen's isApprox (|x - x^T|_F <= prec |x|_F) or not positive definite, else 0 (out[z] is
    then undefined).

    Loop nest: for z: the symmetry test, copy, LLT (O(n^3 / 3)), write the triangle. Serial
    over z. Preconditions: x C-contiguous (B, n, n); out (B, n, n) of x's float dtype; info
    (B,) int32; prec of x's dtype.
    """
    B, n, _ = x.shape
    a = np.empty(n * n, x.dtype)
    for z in range(B):
        diff = prec - prec
        norm = prec - prec
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
                e = a[i * n + j] if j <= i else a[0] - a[0]
                if upper:
                    out[z, j, i] = e
                else:
                    out[z, i, j] = e


@njit(cache=True)
def cholesky_inverse(x, out, upper):
    """out[z] = inv(x[z] x[z]^T) (upper: inv(x[z]^T x[z])), the whole of x[z] taken as the
    factor, as MindSpore's CholeskyInverse; the product's inverse by LU with partial pivoting
    (Eigen's PartialPivLU, so a singular factor gives inf/NaN as MindSpore's).

    Loop nest: for z: the product (O(n^3)), then one elimination carrying the identity.
    Serial over z. Preconditions: x C-contiguous (B, n, n); out (B, n, n) of x's float dtype.
    """
    B, n, _ = x.shape
    a = np.empty(n * n, x.dtype)
    b = np.empty(n * n, x.dtype)
    zero = np.zeros(1, x.dtype)[0]
    for z in range(B):
        for i in range(n):
            for j in range(n):
                s = zero
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


@njit(cache=True)
def lstsq(x, rhs, out, eps, tiny):
    """out = argmin |x out - rhs| as MindSpore's Lstsq: m >= n, Eigen's ColPivHouseholderQR
    solve (Q^T rhs over the nonzero pivots, back substitution, the unknowns of the other
    pivots 0: the basic solution of a rank-deficient x); m < n, x^T inv(x x^T) rhs (the
    minimum-norm solution; the inverse by partial-pivot LU).

    Loop nest: one system (MindSpore's Lstsq takes one 2-D x). Preconditions: x C-contiguous
    (m, n); rhs (m, k); out (n, k); all of x's float dtype; eps, tiny the dtype's epsilon and
    smallest normal number.
    """
    m, n = x.shape
    k = rhs.shape[1]
    if m >= n:
        a = np.empty(m * n, x.dtype)
        b = np.empty(m * k, x.dtype)
        tau = np.empty(n, x.dtype)
        upd = np.empty(n, x.dtype)
        direct = np.empty(n, x.dtype)
        perm = np.empty(n, np.int64)
        for i in range(m):
            for j in range(n):
                a[i * n + j] = x[i, j]
            for j in range(k):
                b[i * k + j] = rhs[i, j]
        _init_column_norms(a, m, n, perm, upd, direct)
        biggest = direct[0] if n > 0 else eps - eps
        for j in range(n):
            if direct[j] > biggest:
                biggest = direct[j]
        # Eigen counts pivots as nonzero until the first column norm below this.
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
                out[perm[i], j] = b[i * k + j] if i < nz else 0
        return
    g = np.empty(m * m, x.dtype)
    inv = np.empty(m * m, x.dtype)
    for i in range(m):
        for j in range(m):
            s = eps - eps
            for t in range(n):
                s += x[i, t] * x[j, t]
            g[i * m + j] = s
            inv[i * m + j] = 1 if i == j else 0
    _gauss_solve(g, m, inv, m)
    xt = np.empty(n * m, x.dtype)
    for i in range(n):
        for j in range(m):
            s = eps - eps
            for t in range(m):
                s += x[t, i] * inv[t * m + j]
            xt[i * m + j] = s
    for i in range(n):
        for j in range(k):
            s = eps - eps
            for t in range(m):
                s += xt[i * m + t] * rhs[t, j]
            out[i, j] = s


@njit(cache=True)
def lu_unpack(lu_data, pivots, p, l, u, info):
    """p[z] l[z] u[z] = the matrix LU-factored into lu_data[z] with row swaps `pivots[z]`
    (1-based, LAPACK getrf's): l = the unit lower triangle (m x k), u = the upper triangle
    (k x n), p the permutation with row i of p l u = row i of the original, i.e.
    p[perm[i], i] = 1 where perm is the identity after swapping i and pivots[i] - 1 in turn.
    info[z] = 1 where a pivot is outside [1, m] (p[z] then undefined), else 0.

    Loop nest: for z: the swaps (k), p (m^2), l and u (m n). Serial over z. Preconditions:
    lu_data C-contiguous (B, m, n); pivots (B, k) integer, k = min(m, n); p (B, m, m), l
    (B, m, k), u (B, k, n) of lu_data's dtype; info (B,) int32.
    """
    B, m, n = lu_data.shape
    k = pivots.shape[1]
    perm = np.empty(m, np.int64)
    for z in range(B):
        for i in range(m):
            perm[i] = i
        info[z] = 0
        for i in range(k):
            j = pivots[z, i] - 1
            if j < 0 or j >= m:
                info[z] = 1
                break
            t = perm[i]
            perm[i] = perm[j]
            perm[j] = t
        for i in range(m):
            for j in range(m):
                p[z, i, j] = 0
        for i in range(m):
            p[z, perm[i], i] = 1
        for i in range(m):
            for j in range(k):
                l[z, i, j] = lu_data[z, i, j] if j < i else (1 if j == i else 0)
        for i in range(k):
            for j in range(n):
                u[z, i, j] = lu_data[z, i, j] if j >= i else 0


@njit(cache=True)
def lu_unpack_grad(dl, du, out):
    """out[z] = the gradient of lu_unpack's l and u w.r.t. lu_data: dl's strict lower triangle
    plus du's upper triangle (the unit diagonal and the zeros get nothing).

    Loop nest: for z, i, j. Preconditions: dl (B, m, k), du (B, k, n); out (B, m, n), k =
    min(m, n), all of one dtype.
    """
    B, m, k = dl.shape
    n = du.shape[2]
    for z in range(B):
        for i in range(m):
            for j in range(n):
                # The two triangles are disjoint: each element has one source or none.
                if j < i and j < k:
                    out[z, i, j] = dl[z, i, j]
                elif i <= j and i < k:
                    out[z, i, j] = du[z, i, j]
                else:
                    out[z, i, j] = 0


@njit(cache=True)
def matrix_solve(a, rhs, out, adjoint, info):
    """out[z] = a[z]^-1 rhs[z] (a[z]^T when adjoint) by LU with partial pivoting, as
    MindSpore's MatrixSolve (Eigen's PartialPivLU); info[z] = 1 where a pivot is exactly 0
    (MindSpore's "not invertible"; out[z] then undefined), else 0.

    Loop nest: for z: copy, one elimination carrying rhs, back substitution. Serial over z.
    Preconditions: a C-contiguous (B, n, n); rhs (B, n, k); out (B, n, k), all of one float
    dtype; info (B,) int32.
    """
    B, n, _ = a.shape
    k = rhs.shape[2]
    m = np.empty(n * n, a.dtype)
    b = np.empty(n * k, a.dtype)
    for z in range(B):
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


@njit(cache=True)
def cholesky_solve(rhs, factor, out, upper):
    """out[z] = (L L^T)^-1 rhs[z] with L = factor[z]'s lower triangle (upper: (U^T U)^-1 rhs[z],
    U its upper triangle), as MindSpore's CholeskySolve: two triangular substitutions.

    Loop nest: for z: copy rhs, forward then back substitution (O(n^2 k)). Serial over z.
    Preconditions: rhs C-contiguous (B, n, k); factor (B, n, n); out (B, n, k); one float dtype.
    """
    B, n, k = rhs.shape
    a = np.empty(n * n, rhs.dtype)
    b = np.empty(n * k, rhs.dtype)
    for z in range(B):
        for i in range(n):
            for j in range(n):
                a[i * n + j] = factor[z, i, j]
            for j in range(k):
                b[i * k + j] = rhs[z, i, j]
        _cholesky_solve_in_place(a, n, b, k, upper)
        for i in range(n):
            for j in range(k):
                out[z, i, j] = b[i * k + j]


@njit(cache=True)
def orgqr(x, tau, out):
    """out[z] = the first n columns of H_0 ... H_{t-1} from geqrf's packed reflectors in x[z]
    (m x n, m >= n) and their coefficients tau[z] (t <= n), as LAPACK's orgqr.

    Loop nest: for z: copy, Q from the identity's columns reflected back (O(m n t)). Serial
    over z. Preconditions: x C-contiguous (B, m, n); tau (B, t); out (B, m, n); one dtype.
    """
    B, m, n = x.shape
    t = tau.shape[1]
    a = np.empty(m * n, x.dtype)
    q = np.empty(m * n, x.dtype)
    c = np.empty(t, x.dtype)
    for z in range(B):
        for i in range(m):
            for j in range(n):
                a[i * n + j] = x[z, i, j]
        for i in range(t):
            c[i] = tau[z, i]
        _form_q(a, m, n, c, t, q, n)
        for i in range(m):
            for j in range(n):
                out[z, i, j] = q[i * n + j]
