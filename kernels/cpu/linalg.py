"""Linear-algebra CPU kernels over batches of square matrices: determinant, sign and log of
|determinant|, inverse.

Every kernel takes a C-contiguous (B, n, n) stack and loops over its B matrices, each factored
in an n*n scratch buffer by the shared bodies of kernels/lu.py (which say which factorisation
each uses and why: MindSpore's pivoting, so singular inputs come out as MindSpore's do). The
CUDA twins in kernels/cuda/linalg.py run the same bodies with one thread per matrix.
"""
import numpy as np
from numba import njit

from .. import lu

_load_transposed = njit(cache=True)(lu.load_transposed)
_load = njit(cache=True)(lu.load)
_lu_partial = njit(cache=True)(lu.lu_partial)
_det_of_lu = njit(cache=True)(lu.det_of_lu)
_slogdet_of_lu = njit(cache=True)(lu.slogdet_of_lu)
_lu_full = njit(cache=True)(lu.lu_full)
_full_rank = njit(cache=True)(lu.full_rank)
_solve_unit_column = njit(cache=True)(lu.solve_unit_column)
_column_permutation = njit(cache=True)(lu.column_permutation)


@njit(cache=True)
def det(x, out):
    """out[z] = det(x[z]).

    Loop nest: for z: copy x[z] into the scratch, LU with partial pivoting (O(n^3)), the
    signed product of U's diagonal. Serial over z. Preconditions: x C-contiguous (B, n, n),
    out (B,) of x's float dtype.
    """
    B, n, _ = x.shape
    a = np.empty(n * n, x.dtype)
    for z in range(B):
        _load(x, z, a, n)
        out[z] = _det_of_lu(a, n, _lu_partial(a, n))


@njit(cache=True)
def slogdet(x, sign, logabs):
    """sign[z], logabs[z] = the sign of det(x[z]) (-1, 0 or 1) and log|det(x[z])| (-inf when
    it is 0), from the LU of `det`: the log sums log|U_ii|, so it neither overflows nor
    underflows where the product would.

    Loop nest: for z: load, LU, one pass over U's diagonal. Preconditions: x C-contiguous
    (B, n, n); sign, logabs (B,) of x's float dtype.
    """
    B, n, _ = x.shape
    a = np.empty(n * n, x.dtype)
    for z in range(B):
        _load(x, z, a, n)
        sign[z], logabs[z] = _slogdet_of_lu(a, n, _lu_partial(a, n))


@njit(cache=True)
def inverse(x, out, adjoint, eps):
    """out[z] = inv(x[z]) (inv(x[z]^T) when adjoint): Eigen's FullPivLU inverse, so a singular
    matrix gives MindSpore's finite result (see kernels/lu.py). `eps` is the dtype's machine
    epsilon (its numerical-rank threshold).

    Loop nest: for z: load the matrix Eigen factors (x[z]^T, or x[z] when adjoint), LU with
    complete pivoting, then for each column c of the identity one solve whose solution is row
    c of out[z] (the transpose back). Preconditions: x C-contiguous (B, n, n); out (B, n, n)
    of x's float dtype; eps of that dtype.
    """
    B, n, _ = x.shape
    a = np.empty(n * n, x.dtype)
    c = np.empty(n, x.dtype)
    rowt = np.empty(n, np.int64)
    colt = np.empty(n, np.int64)
    q = np.empty(n, np.int64)
    for z in range(B):
        if adjoint:
            _load(x, z, a, n)
        else:
            _load_transposed(x, z, a, n)
        nonzero, maxpivot = _lu_full(a, n, rowt, colt)
        rank = _full_rank(a, n, nonzero, maxpivot, eps)
        _column_permutation(colt, q, n)
        for col in range(n):
            _solve_unit_column(a, n, rowt, q, rank, col, c)
            for j in range(n):
                out[z, col, j] = c[j]
