"""LU factorisation bodies of the linear-algebra kernels, shared by kernels/cpu/linalg.py (njit)
and kernels/cuda/linalg.py (device functions, one thread per matrix), written once like the
bodies in lines.py so CPU and GPU pivot and round alike.

A matrix is n x n, row-major in the flat buffer a[0:n*n] (a[i*n + j] is row i, column j): the
CPU kernel passes a scratch array, the CUDA kernel a local-memory one. Plain Python that calls
no other function of ours: numba compiles each for either target as it is.

Which matrix is factored matters only for rounding and for singular inputs, and follows
MindSpore 2.7.2's CPU kernels:
- the determinant (MatrixDeterminant, LogMatrixDeterminant) is by LU with partial pivoting of
  A itself (LAPACK getrf's choice of pivot): MindSpore's det of [[1, 2, 3], [4, 5, 6],
  [7, 8, 9]] in float64 is this factorisation's 6.66e-16, not 0;
- the inverse (MatrixInverse) is Eigen's FullPivLU(A^T).inverse() transposed back (MindSpore
  hands the row-major data to Eigen as a column-major matrix, i.e. A^T): complete pivoting,
  Eigen's numerical rank (pivots <= n * eps * max pivot count as zero) and its solve, which
  sets the unknowns of zero pivots to 0. So a singular matrix gets MindSpore's finite
  "inverse" (e.g. [[1, 2], [2, 4]] -> [[0, 0], [0, 0.25]]) rather than inf/nan.
"""
import math


def load_transposed(x, z, a, n):
    """a (flat, row-major) = x[z]^T."""
    for i in range(n):
        for j in range(n):
            a[i * n + j] = x[z, j, i]


def load(x, z, a, n):
    """a (flat, row-major) = x[z]."""
    for i in range(n):
        for j in range(n):
            a[i * n + j] = x[z, i, j]


def lu_partial(a, n):
    """LU with partial (row) pivoting of a in place: L (unit diagonal) below, U on and above
    the diagonal; returns the row permutation's sign (+1 / -1). The pivot is the first
    largest |a[i, k]| for i >= k (LAPACK's idamax). A column already zero on and below the
    diagonal is left as it is (U gets a 0 pivot, the determinant is 0), as getrf does."""
    sign = 1
    for k in range(n):
        p = k
        big = abs(a[k * n + k])
        for i in range(k + 1, n):
            v = abs(a[i * n + k])
            if v > big:
                big = v
                p = i
        if p != k:
            for j in range(n):
                t = a[k * n + j]
                a[k * n + j] = a[p * n + j]
                a[p * n + j] = t
            sign = -sign
        piv = a[k * n + k]
        if piv != 0:
            for i in range(k + 1, n):
                f = a[i * n + k] / piv
                a[i * n + k] = f
                for j in range(k + 1, n):
                    a[i * n + j] -= f * a[k * n + j]
    return sign


def det_of_lu(a, n, sign):
    """The determinant from lu_partial's factors: sign * prod(diag(U)), in a's dtype."""
    d = a[0]
    for i in range(1, n):
        d *= a[i * n + i]
    return -d if sign < 0 else d


def slogdet_of_lu(a, n, sign):
    """(the sign of the determinant: -1, 0 or 1; log|det|, -inf when it is 0) from
    lu_partial's factors: the log sums log|U_ii|, so it neither overflows nor underflows
    where the product would. The sum starts from a[0] - a[0], a zero of a's dtype."""
    acc = a[0] - a[0]
    singular = False
    for i in range(n):
        d = a[i * n + i]
        if d == 0:
            singular = True
        else:
            if d < 0:
                sign = -sign
            acc += math.log(abs(d))
    if singular:
        return 0, -math.inf
    return sign, acc


def lu_full(a, n, rowt, colt):
    """Eigen's FullPivLU of a in place: at step k the pivot is the largest |a[i, j]| over
    i, j >= k, the first in column-major order (Eigen's maxCoeff visits column by column);
    rows k and rowt[k], then columns k and colt[k], are swapped. Stops at the first step whose
    remaining corner is all zero. Returns (the number of nonzero pivots, the largest |pivot|);
    rowt, colt are the row and column transpositions (identity from the stop on)."""
    nonzero = n
    # Step 0's pivot is the largest of all, so this start (typed like a) is replaced at once
    # unless a is all zero, when it is the right 0.
    maxpivot = abs(a[0])
    for k in range(n):
        pr = k
        pc = k
        big = abs(a[k * n + k])
        for j in range(k, n):
            for i in range(k, n):
                v = abs(a[i * n + j])
                if v > big:
                    big = v
                    pr = i
                    pc = j
        if big == 0:
            nonzero = k
            for i in range(k, n):
                rowt[i] = i
                colt[i] = i
            break
        if big > maxpivot:
            maxpivot = big
        rowt[k] = pr
        colt[k] = pc
        if pr != k:
            for j in range(n):
                t = a[k * n + j]
                a[k * n + j] = a[pr * n + j]
                a[pr * n + j] = t
        if pc != k:
            for i in range(n):
                t = a[i * n + k]
                a[i * n + k] = a[i * n + pc]
                a[i * n + pc] = t
        piv = a[k * n + k]
        for i in range(k + 1, n):
            a[i * n + k] /= piv
        for i in range(k + 1, n):
            f = a[i * n + k]
            for j in range(k + 1, n):
                a[i * n + j] -= f * a[k * n + j]
    return nonzero, maxpivot


def full_rank(a, n, nonzero, maxpivot, eps):
    """Eigen's FullPivLU::rank(): the pivots among the first `nonzero` with |pivot| above
    n * eps * maxpivot (eps the dtype's machine epsilon)."""
    threshold = maxpivot * (eps * n)
    rank = 0
    for i in range(nonzero):
        if abs(a[i * n + i]) > threshold:
            rank += 1
    return rank


def solve_unit_column(a, n, rowt, q, rank, col, c):
    """c = the solution of M x = e_col from lu_full's factors of M (Eigen's FullPivLU solve):
    row transpositions on e_col, forward substitution with L (all n rows), back substitution
    with the leading rank x rank block of U, then unknown q[i] takes c[i] (0 for i >= rank).
    `q` is the column permutation (q[i] = the original column now at i); c, q have n slots.
    The result is left in c[0:n] indexed by the original unknowns: c is used as scratch
    in the permuted order first, then rewritten."""
    for i in range(n):
        c[i] = 0
    c[col] = 1
    for k in range(n):
        r = rowt[k]
        if r != k:
            t = c[k]
            c[k] = c[r]
            c[r] = t
    for i in range(1, n):
        s = c[i]
        for j in range(i):
            s -= a[i * n + j] * c[j]
        c[i] = s
    for ii in range(rank):
        i = rank - 1 - ii
        s = c[i]
        for j in range(i + 1, rank):
            s -= a[i * n + j] * c[j]
        c[i] = s / a[i * n + i]
    for i in range(rank, n):
        c[i] = 0
    # Unpermute in place: follow each cycle of q (q[i] = destination of c[i]); q is marked
    # visited by adding n and restored after.
    for i in range(n):
        if q[i] < n:
            v = c[i]
            dst = q[i]
            q[i] += n
            while dst != i:
                w = c[dst]
                c[dst] = v
                v = w
                nxt = q[dst]
                q[dst] += n
                dst = nxt
            c[i] = v
    for i in range(n):
        q[i] -= n


def column_permutation(colt, q, n):
    """q[i] = the original column at position i after lu_full's column transpositions."""
    for i in range(n):
        q[i] = i
    for k in range(n):
        j = colt[k]
        t = q[k]
        q[k] = q[j]
        q[j] = t


def llt_in_place(a, n):
    """Eigen's LLT (lower) of a in place: column by column, L_kk = sqrt(a_kk - |L[k, :k]|^2),
    then L[k+1:, k] = (a[k+1:, k] - L[k+1:, :k] L[k, :k]) / L_kk; reads only the lower
    triangle. Returns False at the first pivot <= 0 (or NaN: not positive definite)."""
    for k in range(n):
        x = a[k * n + k]
        for j in range(k):
            x -= a[k * n + j] * a[k * n + j]
        if not x > 0:
            return False
        x = math.sqrt(x)
        a[k * n + k] = x
        for i in range(k + 1, n):
            s = a[i * n + k]
            for j in range(k):
                s -= a[i * n + j] * a[k * n + j]
            a[i * n + k] = s / x
    return True


def gauss_solve(a, n, b, bc):
    """b (n x bc) = a^-1 b by LU with partial pivoting (the pivot of lu_partial), the row swaps
    and eliminations applied to b as they happen, then back substitution: Eigen's
    PartialPivLU solve up to rounding. A zero pivot divides by zero (inf/NaN, as Eigen's):
    a is left holding U."""
    for k in range(n):
        p = k
        big = abs(a[k * n + k])
        for i in range(k + 1, n):
            v = abs(a[i * n + k])
            if v > big:
                big = v
                p = i
        if p != k:
            for j in range(n):
                t = a[k * n + j]
                a[k * n + j] = a[p * n + j]
                a[p * n + j] = t
            for j in range(bc):
                t = b[k * bc + j]
                b[k * bc + j] = b[p * bc + j]
                b[p * bc + j] = t
        piv = a[k * n + k]
        if piv != 0:
            for i in range(k + 1, n):
                f = a[i * n + k] / piv
                a[i * n + k] = f
                for j in range(k + 1, n):
                    a[i * n + j] -= f * a[k * n + j]
                for j in range(bc):
                    b[i * bc + j] -= f * b[k * bc + j]
    for ii in range(n):
        i = n - 1 - ii
        for j in range(bc):
            s = b[i * bc + j]
            for t in range(i + 1, n):
                s -= a[i * n + t] * b[t * bc + j]
            b[i * bc + j] = s / a[i * n + i]


def cholesky_solve_in_place(a, n, b, bc, upper):
    """b (n x bc) = (L L^T)^-1 b with L = the lower triangle of a (upper: (U^T U)^-1 b with U
    = a's upper triangle; the other triangle is not read): forward substitution with L, back
    substitution with L^T. A zero diagonal divides by zero (inf/NaN, as MindSpore's)."""
    for i in range(n):
        for j in range(bc):
            s = b[i * bc + j]
            for t in range(i):
                s -= (a[t * n + i] if upper else a[i * n + t]) * b[t * bc + j]
            b[i * bc + j] = s / a[i * n + i]
    for ii in range(n):
        i = n - 1 - ii
        for j in range(bc):
            s = b[i * bc + j]
            for t in range(i + 1, n):
                s -= (a[i * n + t] if upper else a[t * n + i]) * b[t * bc + j]
            b[i * bc + j] = s / a[i * n + i]
