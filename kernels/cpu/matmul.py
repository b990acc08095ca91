"""GEMM kernels: BLAS sgemm/dgemm called from Numba, transposes and strided rows folded in.

Measured (shared/reference/numba_performance.md): a hand-written Numba GEMM reaches ~85 % of
BLAS only with fragile settings, so BLAS it is: numpy's own OpenBLAS, called by address
(kernels/cpu/blas.py says why not Numba's np.dot). Every function here takes that address
tuple first; the module exports them with it bound (functools.partial, the names the kernel
registry looks up).
"""
import functools

import numpy as np
from numba import njit

from . import blas


@njit(cache=True)
def _matmul_into(gemm, a, b, transpose_a, transpose_b, out):
    """out (M, N), C-contiguous = op(a) @ op(b), op transposing where the flag says.
    Preconditions: 2-D, same float dtype, contracted dims equal (checked by MatMul.infer).
    Transposed operands go to BLAS as views: no copy."""
    return blas.gemm_into(gemm, a.T if transpose_a else a, b.T if transpose_b else b, out)


@njit(cache=True)
def _matmul(gemm, a, b, transpose_a, transpose_b):
    """`matmul_into` into a new (M, N) array."""
    m = a.shape[1] if transpose_a else a.shape[0]
    n = b.shape[0] if transpose_b else b.shape[1]
    return _matmul_into(gemm, a, b, transpose_a, transpose_b, np.empty((m, n), a.dtype))


@njit(cache=True)
def _batch_matmul(gemm, a, b, transpose_a, transpose_b, out):
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
        blas.gemm_into(gemm, a[i].T if transpose_a else a[i],
                       b[j].T if transpose_b else b[j], out[z])
    return out


matmul_into = functools.partial(_matmul_into, blas.GEMM)
matmul = functools.partial(_matmul, blas.GEMM)
batch_matmul = functools.partial(_batch_matmul, blas.GEMM)


@njit(cache=True)
def int_batch_matmul(a, b, transpose_a, transpose_b, out):
    """`batch_matmul` for integer dtypes, which BLAS lacks: each product sums in the element
    type and wraps as it overflows, as MindSpore's integer MatMul does (numpy's matmul too).
    The sum runs in Numba's widened integer and is stored into `out`'s dtype, which keeps it
    modulo 2**bits: the same value as wrapping every step."""
    ba = a.shape[0]
    bb = b.shape[0]
    m, n = out.shape[1], out.shape[2]
    k_dim = a.shape[1] if transpose_a else a.shape[2]
    for z in range(out.shape[0]):
        x = a[z % ba].T if transpose_a else a[z % ba]
        y = b[z % bb].T if transpose_b else b[z % bb]
        for i in range(m):
            for j in range(n):
                acc = out[z, i, j] * 0
                for k in range(k_dim):
                    acc += x[i, k] * y[k, j]
                out[z, i, j] = acc
    return out


def int_matmul_into(a, b, transpose_a, transpose_b, out):
    """`matmul_into` for integer dtypes (see int_batch_matmul)."""
    int_batch_matmul(a.reshape((1,) + a.shape), b.reshape((1,) + b.shape),
                     transpose_a, transpose_b, out.reshape((1,) + out.shape))
    return out
