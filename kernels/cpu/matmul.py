"""GEMM kernels: BLAS sgemm/dgemm called from Numba (np.dot inside @njit), transposes folded in.

Measured (shared/reference/numba_performance.md): np.dot inside @njit reaches 0.8-1.2x numpy's
BLAS; a hand-written Numba GEMM reaches ~85 % only with fragile settings, so BLAS it is.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def matmul(a, b, transpose_a, transpose_b):
    """out[m, n] = sum_k A[m, k] * B[k, n] with A = a.T if transpose_a, B = b.T if transpose_b,
    a new (M, N) array (see matmul_into).
    Preconditions: 2-D, same float dtype, contracted dims equal (checked by MatMul.infer).
    """
    m = a.shape[1] if transpose_a else a.shape[0]
    n = b.shape[0] if transpose_b else b.shape[1]
    return matmul_into(a, b, transpose_a, transpose_b, np.empty((m, n), a.dtype))


@njit(cache=True)
def matmul_into(a, b, transpose_a, transpose_b, out):
    """`matmul` written into out (M, N), C-contiguous, which BLAS fills in place.

    Runs in BLAS (its own threads); transposed operands are passed as views, so no copy.
    """
    # Separate branches keep each view's layout (C or F) exact: a unified 'A' type loses BLAS.
    if transpose_a:
        if transpose_b:
            np.dot(a.T, b.T, out)
        else:
            np.dot(a.T, b, out)
    elif transpose_b:
        np.dot(a, b.T, out)
    else:
        np.dot(a, b, out)
    return out


@njit(cache=True)
def batch_matmul(a, b, transpose_a, transpose_b, out):
    """out[z] = op(a[z % Ba]) @ op(b[z % Bb]) for z in range(out.shape[0]).

    a: (Ba, M, K) or (Ba, K, M); b: (Bb, K, N) or (Bb, N, K), C-contiguous; out: (B, M, N)
    C-contiguous, written in place (BLAS writes each product straight into out[z], no copy).
    B is a multiple of Ba and Bb: equal batches, or an operand repeated over the leading
    batch dims (BatchMatMul's broadcasting), as the CUDA twin's gemm3 reads them.
    Loops over B serially, each product in BLAS (its own threads).
    """
    ba = a.shape[0]
    bb = b.shape[0]
    for z in range(out.shape[0]):
        i = z % ba
        j = z % bb
        # One branch per flag pair keeps each view's exact layout (C or F) for BLAS.
        if transpose_a:
            if transpose_b:
                np.dot(a[i].T, b[j].T, out[z])
            else:
                np.dot(a[i].T, b[j], out[z])
        elif transpose_b:
            np.dot(a[i], b[j].T, out[z])
        else:
            np.dot(a[i], b[j], out[z])
