"""Householder QR bodies shared by kernels/cpu/decomp.py (njit) and kernels/cuda/decomp.py (device
functions, one thread per matrix), written once like kernels/lu.py so CPU and GPU reflect and
round alike.

A matrix is r x c, row-major in a flat buffer (a[i*c + j] is row i, column j). Plain Python that
calls no other function of ours: numba compiles each for either target as it is, and the
kernels compose them (a QR is, for k = 0, 1, ...: reflect_column, then apply_reflector).

The reflectors follow Eigen's (MindSpore 2.7.2's CPU kernels are Eigen's HouseholderQR for Qr,
and its ColPivHouseholderQR inside JacobiSVD for Svd), which are LAPACK's: for the column
x = (x0, tail), beta = -sign(x0) |x| (+|x| only for x0 < 0), the essential part v = tail /
(x0 - beta) stored below the diagonal, tau = (beta - x0) / beta, and H = I - tau [1 v][1 v]^T.
A tail whose squared norm is at most the smallest normal number is left alone (tau = 0, R_kk =
x0 with its sign): so a zero column keeps Q's column e_k, and R's last row of a wide matrix is
not normalised (MindSpore's qr of [[0, 0], [0, 0]] is Q = I, R = 0).
"""
import math


def reflect_column(a, r, c, k, col, tiny):
    """Turns column `col` of a, rows k..r-1, into a reflector in place: a[k, col] = beta,
    a[k+1:, col] = v. Returns tau. `tiny` is the dtype's smallest normal number."""
    tail = a[k * c + col] - a[k * c + col]
    for i in range(k + 1, r):
        tail += a[i * c + col] * a[i * c + col]
    x0 = a[k * c + col]
    if tail <= tiny:
        for i in range(k + 1, r):
            a[i * c + col] = 0
        return tail - tail
    beta = math.sqrt(x0 * x0 + tail)
    if x0 >= 0:
        beta = -beta
    inv = 1 / (x0 - beta)
    for i in range(k + 1, r):
        a[i * c + col] *= inv
    a[k * c + col] = beta
    return (beta - x0) / beta


def apply_reflector(a, r, c, k, col, tau, first):
    """Applies H = I - tau [1 v][1 v]^T (v = a[k+1:, col]) from the left to rows k..r-1 of a's
    columns first..c-1: per column, t = row k + v . rest; row k -= tau t; rest -= tau v t."""
    if tau == 0:
        return
    for j in range(first, c):
        t = a[k * c + j]
        for i in range(k + 1, r):
            t += a[i * c + col] * a[i * c + j]
        t *= tau
        a[k * c + j] -= t
        for i in range(k + 1, r):
            a[i * c + j] -= a[i * c + col] * t


def form_q(a, r, c, tau, kk, q, qc):
    """q (r x qc, row-major, qc <= r) = the first qc columns of H_0 H_1 ... H_{kk-1} from
    the reflectors reflect_column left in a (r x c): the identity's columns, reflected from the last
    reflector to the first (Eigen's HouseholderSequence::evalTo order)."""
    for i in range(r):
        for j in range(qc):
            q[i * qc + j] = 1 if i == j else 0
    for kb in range(kk):
        k = kk - 1 - kb
        t0 = tau[k]
        if t0 != 0:
            for j in range(qc):
                t = q[k * qc + j]
                for i in range(k + 1, r):
                    t += a[i * c + k] * q[i * qc + j]
                t *= t0
                q[k * qc + j] -= t
                for i in range(k + 1, r):
                    q[i * qc + j] -= a[i * c + k] * t


def init_column_norms(a, r, c, perm, upd, direct):
    """direct[j] = upd[j] = |a[:, j]|, perm = identity: ColPivHouseholderQR's start."""
    for j in range(c):
        s = a[0] - a[0]
        for i in range(r):
            s += a[i * c + j] * a[i * c + j]
        direct[j] = math.sqrt(s)
        upd[j] = direct[j]
        perm[j] = j


def pivot_column(a, r, c, k, perm, upd, direct):
    """Eigen's ColPivHouseholderQR step k, before the reflection: the column of largest
    remaining norm (the first of equals) among k..c-1 is swapped with column k (in a, the
    norms and perm: perm[i] = the original column now at i)."""
    best = k
    for j in range(k + 1, c):
        if upd[j] > upd[best]:
            best = j
    if best != k:
        for i in range(r):
            t = a[i * c + k]
            a[i * c + k] = a[i * c + best]
            a[i * c + best] = t
        t = upd[k]
        upd[k] = upd[best]
        upd[best] = t
        t = direct[k]
        direct[k] = direct[best]
        direct[best] = t
        p = perm[k]
        perm[k] = perm[best]
        perm[best] = p


def downdate_norms(a, r, c, k, upd, direct, eps):
    """After reflection k: the remaining norms of columns k+1.. lose row k's share, downdated
    as LAPACK's xGEQPF does and recomputed from rows k+1.. where the downdate lost too many
    digits (the relative update at most sqrt(eps))."""
    threshold = math.sqrt(eps)
    for j in range(k + 1, c):
        if upd[j] != 0:
            t = abs(a[k * c + j]) / upd[j]
            t = (1 + t) * (1 - t)
            if t < 0:
                t = t - t
            ratio = upd[j] / direct[j]
            if t * ratio * ratio <= threshold:
                s = a[0] - a[0]
                for i in range(k + 1, r):
                    s += a[i * c + j] * a[i * c + j]
                direct[j] = math.sqrt(s)
                upd[j] = direct[j]
            else:
                upd[j] *= math.sqrt(t)


def apply_reflector_to(a, r, c, k, tau, b, bc):
    """Applies reflector k of a (r x c; v = a[k+1:, k]) from the left to rows k..r-1 of b
    (r x bc): Q^T b is this for k = 0, 1, ... (each H_k is its own transpose)."""
    if tau == 0:
        return
    for j in range(bc):
        t = b[k * bc + j]
        for i in range(k + 1, r):
            t += a[i * c + k] * b[i * bc + j]
        t *= tau
        b[k * bc + j] -= t
        for i in range(k + 1, r):
            b[i * bc + j] -= a[i * c + k] * t


def solve_r(a, c, nz, b, bc):
    """b[0:nz] (nz x bc) = R^-1 b[0:nz] by back substitution with R = the leading nz x nz upper
    triangle of a (row stride c)."""
    for ii in range(nz):
        i = nz - 1 - ii
        for j in range(bc):
            s = b[i * bc + j]
            for t in range(i + 1, nz):
                s -= a[i * c + t] * b[t * bc + j]
            b[i * bc + j] = s / a[i * c + i]
