"""Two-sided Jacobi SVD bodies shared by kernels/cpu/decomp.py (njit) and kernels/cuda/decomp.py
(device functions, one thread per matrix), written once like kernels/lu.py.

MindSpore 2.7.2's Svd CPU kernel is Eigen's BDCSVD, which hands matrices of fewer than 16
columns to Eigen's JacobiSVD; these bodies are that JacobiSVD (real case), so U's and V's signs
and the order of equal singular values come out as MindSpore's: a rectangular matrix is first
reduced to the square R of a column-pivoted Householder QR (kernels/householder.py), then
2 x 2 SVDs sweep the d x d work matrix until every off-diagonal pair is below 2 eps times the
largest diagonal entry, then negative diagonal entries flip U's column and the values are
sorted (descending, a stable selection). For 16 columns or more BDCSVD's divide and conquer may
pick other signs (any sign pattern is a valid SVD).

Matrices are flat row-major buffers: w (d x d), u (ur x uc), v (vr x vc); rotations act on
columns p, q < d of u and v. Plain Python that calls no other function of ours.
"""
import math


def jacobi_sweeps(w, d, u, ur, uc, v, vr, vc, eps, tiny):
    """Diagonalises w by plane rotations, applied on the left (and to u's columns) and on the
    right (and to v's columns): Eigen's real_2x2_jacobi_svd per pair (p, q), q < p, in its
    sweep order. eps: the dtype's machine epsilon; tiny: its smallest normal number."""
    precision = 2 * eps
    maxdiag = abs(w[0])
    for i in range(1, d):
        if abs(w[i * d + i]) > maxdiag:
            maxdiag = abs(w[i * d + i])
    finished = False
    while not finished:
        finished = True
        for p in range(1, d):
            for q in range(p):
                threshold = precision * maxdiag
                if threshold < tiny:
                    threshold = tiny
                if abs(w[p * d + q]) > threshold or abs(w[q * d + p]) > threshold:
                    finished = False
                    m00 = w[p * d + p]
                    m01 = w[p * d + q]
                    m10 = w[q * d + p]
                    m11 = w[q * d + q]
                    # rot1 symmetrises the 2 x 2 block, then (cr, sr) diagonalises it.
                    t = m00 + m11
                    dd = m10 - m01
                    if abs(dd) < tiny:
                        c1 = t - t + 1
                        s1 = t - t
                    else:
                        uu = t / dd
                        tmp = math.sqrt(1 + uu * uu)
                        s1 = 1 / tmp
                        c1 = uu / tmp
                    n00 = c1 * m00 + s1 * m10
                    n01 = c1 * m01 + s1 * m11
                    n11 = -s1 * m01 + c1 * m11
                    deno = 2 * abs(n01)
                    if deno < tiny:
                        cr = t - t + 1
                        sr = t - t
                    else:
                        tau = (n00 - n11) / deno
                        ww = math.sqrt(tau * tau + 1)
                        if tau > 0:
                            tt = 1 / (tau + ww)
                        else:
                            tt = 1 / (tau - ww)
                        sign_t = 1 if tt > 0 else -1
                        nn = 1 / math.sqrt(tt * tt + 1)
                        sr = -sign_t * (n01 / abs(n01)) * abs(tt) * nn
                        cr = nn
                    # j_left = rot1 * j_right^T (Eigen's JacobiRotation product).
                    cl = c1 * cr + s1 * sr
                    sl = s1 * cr - c1 * sr
                    for j in range(d):
                        x = w[p * d + j]
                        y = w[q * d + j]
                        w[p * d + j] = cl * x + sl * y
                        w[q * d + j] = -sl * x + cl * y
                    for i in range(ur):
                        x = u[i * uc + p]
                        y = u[i * uc + q]
                        u[i * uc + p] = cl * x + sl * y
                        u[i * uc + q] = -sl * x + cl * y
                    for i in range(d):
                        x = w[i * d + p]
                        y = w[i * d + q]
                        w[i * d + p] = cr * x - sr * y
                        w[i * d + q] = sr * x + cr * y
                    for i in range(vr):
                        x = v[i * vc + p]
                        y = v[i * vc + q]
                        v[i * vc + p] = cr * x - sr * y
                        v[i * vc + q] = sr * x + cr * y
                    big = abs(w[p * d + p])
                    if abs(w[q * d + q]) > big:
                        big = abs(w[q * d + q])
                    if big > maxdiag:
                        maxdiag = big


def finish_svd(w, d, s, scale, u, ur, uc, v, vr, vc):
    """s = |diag(w)| * scale, u's column i negated where w_ii < 0, then the values sorted in
    descending order by selection (the first of equal maxima; stops at the first all-zero
    tail), u's and v's columns swapped alike."""
    for i in range(d):
        a = w[i * d + i]
        s[i] = abs(a)
        if a < 0:
            for r in range(ur):
                u[r * uc + i] = -u[r * uc + i]
    for i in range(d):
        s[i] *= scale
    for i in range(d):
        pos = i
        for j in range(i + 1, d):
            if s[j] > s[pos]:
                pos = j
        if s[pos] == 0:
            break
        if pos != i:
            t = s[i]
            s[i] = s[pos]
            s[pos] = t
            for r in range(ur):
                t = u[r * uc + i]
                u[r * uc + i] = u[r * uc + pos]
                u[r * uc + pos] = t
            for r in range(vr):
                t = v[r * vc + i]
                v[r * vc + i] = v[r * vc + pos]
                v[r * vc + pos] = t
