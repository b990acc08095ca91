"""Linear-algebra CUDA kernels over batches of square matrices: determinant, sign and log of
|determinant|, inverse.

Device twins of kernels/cpu/linalg.py on the same C-contiguous (B, n, n) stacks, running the
same bodies (kernels/lu.py: the same pivots, the same operation order) with one thread per
matrix in a grid-stride loop over B (launch.elementwise). Each thread factors its matrix in a
local-memory array of MAX_N * MAX_N elements, sized at compile time, so n is limited to MAX_N
(a larger matrix raises NotImplementedError naming the limit): beyond it one thread's O(n^3)
factorisation and its local memory stop paying, and a blocked LU across a thread block (or
cuSOLVER's getrf) would be the design. No shared memory and no syncthreads(): matrices are
independent. The local arrays' dtype is a compile-time constant, so each kernel is built per
dtype by an lru_cache factory.
"""
import functools

import numpy as np
from numba import cuda, from_dtype, int64

from .. import lu
from . import launch

# The largest n a thread factors in local memory: 32 x 32 float64 is 8 KiB per thread.
MAX_N = 32
_NN = MAX_N * MAX_N

_load_transposed = cuda.jit(device=True)(lu.load_transposed)
_load = cuda.jit(device=True)(lu.load)
_lu_partial = cuda.jit(device=True)(lu.lu_partial)
_det_of_lu = cuda.jit(device=True)(lu.det_of_lu)
_slogdet_of_lu = cuda.jit(device=True)(lu.slogdet_of_lu)
_lu_full = cuda.jit(device=True)(lu.lu_full)
_full_rank = cuda.jit(device=True)(lu.full_rank)
_solve_unit_column = cuda.jit(device=True)(lu.solve_unit_column)
_column_permutation = cuda.jit(device=True)(lu.column_permutation)


@functools.lru_cache(maxsize=None)
def _det_kernel(np_dtype):
    """det for one dtype: for matrix z (grid-stride) the LU of `det` in local memory."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def det_matrices(x, out):
        B, n, _ = x.shape
        a = cuda.local.array(_NN, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            _load(x, z, a, n)
            out[z] = _det_of_lu(a, n, _lu_partial(a, n))

    return det_matrices


@functools.lru_cache(maxsize=None)
def _slogdet_kernel(np_dtype):
    """slogdet for one dtype: the CPU kernel's loop body per matrix z (grid-stride)."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def slogdet_matrices(x, sign, logabs):
        B, n, _ = x.shape
        a = cuda.local.array(_NN, dt)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
            _load(x, z, a, n)
            sign[z], logabs[z] = _slogdet_of_lu(a, n, _lu_partial(a, n))

    return slogdet_matrices


@functools.lru_cache(maxsize=None)
def _inverse_kernel(np_dtype):
    """inverse for one dtype: FullPivLU in local memory per matrix z (grid-stride), then one
    solve per identity column, written straight to row `col` of out[z]."""
    dt = from_dtype(np_dtype)

    @cuda.jit
    def inverse_matrices(x, out, adjoint, eps):
        B, n, _ = x.shape
        a = cuda.local.array(_NN, dt)
        c = cuda.local.array(MAX_N, dt)
        rowt = cuda.local.array(MAX_N, int64)
        colt = cuda.local.array(MAX_N, int64)
        q = cuda.local.array(MAX_N, int64)
        for z in range(cuda.grid(1), B, cuda.gridsize(1)):
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

    return inverse_matrices


def _check_size(name, x):
    n = x.shape[-1]
    if n > MAX_N:
        raise NotImplementedError(
            f"The CUDA kernel '{name}' (kernels/cuda/linalg.py) factors matrices of at most "
            f"{MAX_N} x {MAX_N} (one thread each, in local memory), but got {n} x {n}; run "
            f"this operator on the CPU (device_target='CPU') for larger ones.")


def _launch(kern, B, *args):
    if B:
        blocks, threads = launch.elementwise(B)
        kern[blocks, threads](*args)


def det(x, out):
    """out[z] = det(x[z]), one thread per matrix (see the CPU kernel). Preconditions: x
    C-contiguous (B, n, n) device array, n <= MAX_N; out (B,) of x's float dtype."""
    _check_size("det", x)
    _launch(_det_kernel(np.dtype(x.dtype)), x.shape[0], x, out)


def slogdet(x, sign, logabs):
    """sign[z], logabs[z] = the sign of det(x[z]) and log|det(x[z])| (-inf when 0), one
    thread per matrix. Preconditions: x C-contiguous (B, n, n), n <= MAX_N; sign, logabs (B,)
    of x's float dtype."""
    _check_size("slogdet", x)
    _launch(_slogdet_kernel(np.dtype(x.dtype)), x.shape[0], x, sign, logabs)


def inverse(x, out, adjoint, eps):
    """out[z] = inv(x[z]) (inv(x[z]^T) when adjoint) by Eigen's FullPivLU, one thread per
    matrix (see the CPU kernel). Preconditions: x C-contiguous (B, n, n), n <= MAX_N; out
    (B, n, n) of x's float dtype; eps the dtype's machine epsilon, of that dtype."""
    _check_size("inverse", x)
    _launch(_inverse_kernel(np.dtype(x.dtype)), x.shape[0], x, out, adjoint, eps)
