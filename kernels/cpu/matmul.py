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
def batch_matmul(a, b, transpose_a, transpose_b):
    """out[i] = op(a[i]) @ op(b[i]) over the flattened leading (batch) dims of equal size.

    a: (B, M, K) or (B, K, M); b: (B, K, N) or (B, N, K), contiguous batches; loop over B
    serially, each product in BLAS.
    """
    m = a.shape[2] if transpose_a else a.shape[1]
    n = b.shape[1] if transpose_b else b.shape[2]
    out = np.empty((a.shape[0], m, n), dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = matmul(a[i], b[i], transpose_a, transpose_b)
    return out
