"""Row scatters with a reduction on the GPU (MindSpore's Scatter*, ScatterNd*, TensorScatter*,
UnsortedSegmentMax/Min/Prod, IndexAdd, Inplace*): one thread per output column (o, c) folds
the updates of every index in order, so repeated rows give the CPU's result exactly (no
atomics, no races) at the cost of a serial loop over the index per column."""
import numpy as np
from numba import cuda

from . import launch


@cuda.jit(device=True)
def _combine(a, b, mode):
    # The same table as kernels/cpu/scatter_reduce.combine.
    if mode == 1:
        return a + b
    if mode == 2:
        return a - b
    if mode == 3:
        return a * b
    if mode == 4:
        return a / b
    if mode == 5:
        return a if a >= b else b
    if mode == 6:
        return a if a <= b else b
    return b


@cuda.jit
def _first_bad_kernel(index, rows, first):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for j in range(start, index.size, stride):
        if index[j] < 0 or index[j] >= rows:
            cuda.atomic.min(first, 0, j)


@cuda.jit
def _scatter_rows_kernel(out, index, updates, mode):
    cols = out.shape[2]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for t in range(start, out.shape[0] * cols, stride):
        o = t // cols
        c = t - o * cols
        for j in range(index.size):
            r = index[j]
            out[o, r, c] = _combine(out[o, r, c], updates[o, j, c], mode)


def scatter_rows(out, index, updates, mode):
    """out[o, index[j], c] = combine(out[o, index[j], c], updates[o, j, c]) for j in
    increasing order: one thread per column (o, c) in a grid-stride loop.

    out: (O, R, C) C-contiguous device array holding the input; index: (n,) int32/int64;
    updates: (O, n, C), out's dtype. Returns the position of the first index outside [0, R)
    (an atomic min read back on the host) with nothing written, else -1.
    """
    if index.size == 0:
        return -1
    first = cuda.to_device(np.array([index.size], dtype=np.int64))
    blocks, threads = launch.elementwise(index.size)
    _first_bad_kernel[blocks, threads](index, np.int64(out.shape[1]), first)
    bad = int(first.copy_to_host()[0])
    if bad < index.size:
        return bad
    total = out.shape[0] * out.shape[2]
    if total:
        blocks, threads = launch.elementwise(total)
        _scatter_rows_kernel[blocks, threads](out, index, updates, np.int64(mode))
    return -1
