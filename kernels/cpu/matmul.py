"""GEMM kernels: BLAS sgemm/dgemm called from Numba (np.dot inside @njit), transposes folded in.

Measured (shared/reference/numba_performance.md): np.dot inside @njit reaches 0.8-1.2x numpy's
BLAS; a hand-written Numba GEMM reaches ~85 % only with fragile settings, so BLAS it is.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def matmul(a, b, transpose_a, transpose_b):
    """out[m, n] = sum_k A[m, k] * B[k, n] with A = a.T if transpose_a, B = b.T if transpose_b.

    Runs in BLAS (its own threads); transposed operands are passed as views, so no copy.
    Preconditions: 2-D, same float dtype, contracted dims equal (checked by MatMul.infer).
    """
    # Separate branches keep each view's layout (C or F) exact: a unified 'A' type loses BLAS.
    if transpose_a:
        if transpose_b:
            return np.dot(a.T, b.T)
        return np.dot(a.T, b)
    if transpose_b:
        return np.dot(a, b.T)
    return np.dot(a, b)


@njit(cache=True)
def batch_matmul(a, b, transpose_a, transpose_b, out):
    """out[i] = op(a[i]) @ op(b[i]) over the flattened leading (batch) dim of equal size.

    a: (B, M, K) or (B, K, M); b: (B, K, N) or (B, N, K), C-contiguous; out: (B, M, N)
    C-contiguous, written in place (BLAS writes each product straight into out[i], no copy).
    Loops over B serially, each product in BLAS (its own threads).
    """
    for i in range(a.shape[0]):
        # One branch per flag pair keeps each view's exact layout (C or F) for BLAS.
        if transpose_a:
            if transpose_b:
                np.dot(a[i].T, b[i].T, out[i])
            else:
                np.dot(a[i].T, b[i], out[i])
        elif transpose_b:
            np.dot(a[i], b[i].T, out[i])
        else:
            np.dot(a[i], b[i], out[i])
