"""Bias add (+ReLU) CUDA kernels and the bias gradient: device twins of
kernels/cpu/activation.py (same names and signatures, device arrays in, results written into
the caller's `out`). The elementwise activations are bodies of kernels/scalar.py, compiled by
kernels/cuda/elementwise.py.
"""
import functools

import numpy as np
from numba import cuda, float64, from_dtype

from . import launch

# A plain global, not `launch.REDUCE_THREADS` in the kernels: numba-cuda types a module
# attribute as a run-time int64, and shared arrays need a compile-time size.
_THREADS = launch.REDUCE_THREADS

@cuda.jit
def _bias_add(x, b, out, C, K, relu_after):
    """for i (grid-stride over N*C*K): out[i] = x[i] + b[(i // K) % C], then max(., 0) when
    relu_after."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i] + b[(i // K) % C]
        if relu_after and v < 0:
            v = type(v)(0)
        out[i] = v


def bias_add(x, b, out):
    """out[n, c, k] = x[n, c, k] + b[c]. x, out: C-contiguous (N, C, K) views; b: (C,).

    One thread per element (grid-stride); the channel is (flat index // K) % C.
    """
    _, C, K = x.shape
    if x.size:
        blocks, threads = launch.elementwise(x.size)
        _bias_add[blocks, threads](launch.flat(x), b, launch.flat(out), C, K, False)


def bias_add_relu(x, b, out):
    """out[n, c, k] = max(x[n, c, k] + b[c], 0): bias and ReLU in one pass; as bias_add."""
    _, C, K = x.shape
    if x.size:
        blocks, threads = launch.elementwise(x.size)
        _bias_add[blocks, threads](launch.flat(x), b, launch.flat(out), C, K, True)


@cuda.jit
def _bias_add_grad(dy, db, N, C, K):
    """Block per channel c (grid-stride over c); its threads stride over the N*K elements
    j -> dy[j // K, c, j % K], accumulate in float64 and combine with a shared tree."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for c in range(cuda.blockIdx.x, C, cuda.gridDim.x):
        acc = 0.0
        for j in range(tid, N * K, cuda.blockDim.x):
            acc += dy[(j // K) * C * K + c * K + j % K]
        buf[tid] = acc
        launch.tree_sum(buf, tid)
        if tid == 0:
            db[c] = buf[0]
        cuda.syncthreads()  # buf[0] is read before the next channel overwrites buf


def bias_add_grad(dy, db):
    """db[c] = sum over n, k of dy[n, c, k], accumulated in float64.

    dy: C-contiguous (N, C, K); db: (C,) of dy's dtype. One block per channel.
    """
    N, C, K = dy.shape
    if C:
        blocks, threads = launch.rows(C)
        _bias_add_grad[blocks, threads](launch.flat(dy), db, N, C, K)


@functools.lru_cache(maxsize=None)
def _int_bias_add_grad_kernel(np_dtype):
    """`_bias_add_grad` for one integer dtype, its partial sums kept in that dtype (numba
    widens each addition; the store back truncates): the sum wraps as MindSpore's does."""
    elem = from_dtype(np_dtype)
    zero = np_dtype.type(0)

    @cuda.jit
    def kernel(dy, db, N, C, K):
        buf = cuda.shared.array(_THREADS, elem)
        tid = cuda.threadIdx.x
        for c in range(cuda.blockIdx.x, C, cuda.gridDim.x):
            acc = zero
            for j in range(tid, N * K, cuda.blockDim.x):
                acc += dy[(j // K) * C * K + c * K + j % K]
            buf[tid] = acc
            launch.tree_sum(buf, tid)
            if tid == 0:
                db[c] = buf[0]
            cuda.syncthreads()  # buf[0] is read before the next channel overwrites buf
    return kernel


def int_bias_add_grad(dy, db):
    """`bias_add_grad` for integer dtypes (wrapping in their type); one block per channel."""
    N, C, K = dy.shape
    if C:
        blocks, threads = launch.rows(C)
        _int_bias_add_grad_kernel(np.dtype(dy.dtype))[blocks, threads](launch.flat(dy), db, N,
                                                                        C, K)
