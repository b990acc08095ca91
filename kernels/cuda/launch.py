"""Launch geometry for every CUDA kernel: block sizes, grids, index metadata, block-wide trees.

Kernels follow two shapes:
- elementwise: `for i in range(cuda.grid(1), n, cuda.gridsize(1))` (a grid-stride loop), so any
  grid covers any n; `elementwise(n)` picks the grid.
- one block per row: block `b` handles rows b, b + gridDim.x, ... with REDUCE_THREADS threads
  striding over the row and a shared-memory tree (tree_sum / tree_max / tree_min, written for
  REDUCE_THREADS) combining their partials; `rows(n)` picks the grid.

Under NUMBA_ENABLE_CUDASIM=1 every simulated thread costs ~150 us whatever it does (and every
syncthreads() a barrier over Python threads), so blocks are one warp (elementwise) or 8 threads
(row kernels: a 3-level tree) and the grid stops at two blocks there; the grid-stride loops make
the kernels correct for any grid, so the simulator still runs every code path (several blocks,
several iterations per thread) that a real GPU runs.
"""
import numpy as np
from numba import cuda
from numba.core import config

SIMULATOR = bool(config.ENABLE_CUDASIM)
# Elementwise block size: a multiple of the warp size with enough warps per SM to hide latency
# (the simulator pays per thread, so it gets smaller blocks).
THREADS = 32 if SIMULATOR else 256
# Row kernels' block size; a power of two, which the shared-memory trees rely on.
REDUCE_THREADS = 8 if SIMULATOR else 128
# Beyond this many blocks the grid-stride loop reuses threads (a GPU has ~100 SMs x a few
# resident blocks); the simulator stops at two blocks, its cost is per thread.
MAX_BLOCKS = 2 if SIMULATOR else 65535


def elementwise(n):
    """(blocks, threads) for a grid-stride elementwise kernel over n items (n may be 0)."""
    blocks = min(max((n + THREADS - 1) // THREADS, 1), MAX_BLOCKS)
    return blocks, THREADS


def rows(n):
    """(blocks, threads) for a one-block-per-row kernel over n rows (blocks stride over rows)."""
    return min(max(n, 1), MAX_BLOCKS), REDUCE_THREADS


_meta_cache = {}


def device_ints(values):
    """A read-only int64 device array of `values` (shapes, strides), cached: kernels get their
    index metadata without a host-to-device copy per launch."""
    key = tuple(int(v) for v in values)
    arr = _meta_cache.get(key)
    if arr is None:
        # A 0-length device array is not launchable everywhere: keep one dummy element.
        arr = cuda.to_device(np.array(key if key else (0,), dtype=np.int64))
        _meta_cache[key] = arr
    return arr


def flat(a):
    """The 1-d view of a C-contiguous device array (kernels index flat buffers)."""
    return a.reshape(a.size)


def is_device_array(a):
    """Whether `a` is a numba device array (real or simulated; the simulator has no
    cuda.is_cuda_array)."""
    return bool(getattr(a, "__cuda_ndarray__", False))


@cuda.jit(device=True)
def tree_sum(buf, tid):
    """Sum of buf[0:REDUCE_THREADS] into buf[0], all threads of the block taking part.

    Precondition: every thread stored its partial in buf[tid]. Callers read buf[0], then
    syncthreads() before writing buf again.
    """
    cuda.syncthreads()  # every partial is stored before the first level reads it
    s = REDUCE_THREADS // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()  # this level's sums are complete before the next level reads them
        s //= 2


@cuda.jit(device=True)
def tree_max(buf, tid):
    """Max of buf[0:REDUCE_THREADS] into buf[0], a NaN winning (numpy's max); same protocol
    as tree_sum."""
    cuda.syncthreads()  # every partial is stored before the first level reads it
    s = REDUCE_THREADS // 2
    while s > 0:
        if tid < s:
            v = buf[tid + s]
            if v > buf[tid] or v != v:
                buf[tid] = v
        cuda.syncthreads()  # this level's maxima are complete before the next level reads them
        s //= 2


@cuda.jit(device=True)
def tree_min(buf, tid):
    """Min of buf[0:REDUCE_THREADS] into buf[0], a NaN winning; same protocol as tree_sum."""
    cuda.syncthreads()  # every partial is stored before the first level reads it
    s = REDUCE_THREADS // 2
    while s > 0:
        if tid < s:
            v = buf[tid + s]
            if v < buf[tid] or v != v:
                buf[tid] = v
        cuda.syncthreads()  # this level's minima are complete before the next level reads them
        s //= 2
