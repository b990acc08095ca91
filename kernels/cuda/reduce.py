"""Reduction CUDA kernels (sum, mean, max, min, argmax, extremum grad) on (outer, reduced, inner).

Device twins of kernels/cpu/reduce.py. x is a C-contiguous (A, R, B) device array; each output
(a, b) is a row x[a, :, b] reduced by one block (launch.rows): its threads stride over r,
keep a private partial, and a shared-memory tree (launch.tree_*) combines the partials. Sums
accumulate in float64, as on the CPU. Max/min partials are held in float64 too (exact for
float32/float64 and for integers up to 2**53).
"""
import math

from numba import cuda, float64, int64

from . import launch

# A plain global, not `launch.REDUCE_THREADS` in the kernels: numba-cuda types a module
# attribute as a run-time int64, and shared arrays need a compile-time size.
_THREADS = launch.REDUCE_THREADS


@cuda.jit
def _sum_rows(x, out, R, B, scale):
    """for row q = (a, b) (block-stride): out[q] = scale * sum_r x[a, r, b]."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for q in range(cuda.blockIdx.x, out.size, cuda.gridDim.x):
        base = (q // B) * R * B + q % B
        acc = 0.0
        for r in range(tid, R, cuda.blockDim.x):
            acc += x[base + r * B]
        buf[tid] = acc
        launch.tree_sum(buf, tid)
        if tid == 0:
            out[q] = buf[0] * scale
        cuda.syncthreads()  # buf[0] is read before the next row overwrites buf


def _extremum_rows(tree, better):
    @cuda.jit
    def kernel(x, out, R, B):
        """for row q = (a, b) (block-stride): out[q] = the extremum of x[a, :, b], NaN winning."""
        buf = cuda.shared.array(_THREADS, float64)
        tid = cuda.threadIdx.x
        for q in range(cuda.blockIdx.x, out.size, cuda.gridDim.x):
            base = (q // B) * R * B + q % B
            # x[a, 0, b] is neutral for max and min: threads with no r of their own hold it.
            acc = float64(x[base])
            for r in range(tid, R, cuda.blockDim.x):
                v = float64(x[base + r * B])
                if better(v, acc):
                    acc = v
            buf[tid] = acc
            tree(buf, tid)
            if tid == 0:
                out[q] = buf[0]
            cuda.syncthreads()  # buf[0] is read before the next row overwrites buf
    return kernel


@cuda.jit(device=True)
def _greater_or_nan(v, m):
    return v > m or v != v


@cuda.jit(device=True)
def _less_or_nan(v, m):
    return v < m or v != v


_max_rows = _extremum_rows(launch.tree_max, _greater_or_nan)
_min_rows = _extremum_rows(launch.tree_min, _less_or_nan)


@cuda.jit
def _argmax_rows(x, out, R, B):
    """for row q (block-stride): out[q] = the first r maximising x[a, r, b] (the first NaN if
    any). Threads keep (value, index) partials; the tree keeps the better pair, ties going to
    the smaller index, so the result does not depend on the block size."""
    vals = cuda.shared.array(_THREADS, float64)
    idxs = cuda.shared.array(_THREADS, int64)
    tid = cuda.threadIdx.x
    for q in range(cuda.blockIdx.x, out.size, cuda.gridDim.x):
        base = (q // B) * R * B + q % B
        best = float64(x[base])
        bi = 0
        for r in range(tid, R, cuda.blockDim.x):
            v = float64(x[base + r * B])
            # r grows, so on a tie the earlier index already held stays.
            if (v > best or v != v) and best == best:
                best = v
                bi = r
        vals[tid] = best
        idxs[tid] = bi
        cuda.syncthreads()  # every pair is stored before the first level reads it
        s = _THREADS // 2
        while s > 0:
            if tid < s:
                v = vals[tid + s]
                m = vals[tid]
                j = idxs[tid + s]
                if m == m and (v > m or v != v or (v == m and j < idxs[tid])):
                    vals[tid] = v
                    idxs[tid] = j
                elif m != m and v != v and j < idxs[tid]:
                    idxs[tid] = j
            cuda.syncthreads()  # this level's pairs are final before the next level reads them
            s //= 2
        if tid == 0:
            out[q] = idxs[0]
        cuda.syncthreads()  # idxs[0] is read before the next row overwrites the buffers


@cuda.jit
def _minmax_grad_rows(x, y, dout, dx, R, B):
    """for row q (block-stride): n = #{r : x[a, r, b] == y[q]} (a shared tree sum), then
    dx[a, r, b] = dout[q] / n where x[a, r, b] == y[q], else 0."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for q in range(cuda.blockIdx.x, y.size, cuda.gridDim.x):
        base = (q // B) * R * B + q % B
        target = y[q]
        count = 0.0
        for r in range(tid, R, cuda.blockDim.x):
            if x[base + r * B] == target:
                count += 1.0
        buf[tid] = count
        launch.tree_sum(buf, tid)
        n = buf[0]
        d = dout[q]
        for r in range(tid, R, cuda.blockDim.x):
            i = base + r * B
            dx[i] = d / type(d)(n) if x[i] == target else type(d)(0)
        cuda.syncthreads()  # every thread has read buf[0] before the next row overwrites buf


def _rows(kernel, x, out, *args):
    A, R, B = x.shape
    if A * B:
        blocks, threads = launch.rows(A * B)
        kernel[blocks, threads](launch.flat(x), launch.flat(out), *args)


def sum_middle(x, out):
    """out[a, b] = sum_r x[a, r, b], accumulated in float64.

    Block per (a, b) (block-stride over A*B rows), threads striding over r, shared tree sum.
    Preconditions: x C-contiguous (A, R, B); out (A, B) of x's dtype.
    """
    _rows(_sum_rows, x, out, x.shape[1], x.shape[2], 1.0)


def max_middle(x, out):
    """out[a, b] = max_r x[a, r, b] (a NaN wins, like numpy); as sum_middle (R >= 1)."""
    _rows(_max_rows, x, out, x.shape[1], x.shape[2])


def min_middle(x, out):
    """out[a, b] = min_r x[a, r, b] (a NaN wins, like numpy); as sum_middle (R >= 1)."""
    _rows(_min_rows, x, out, x.shape[1], x.shape[2])


def mean_middle(x, out):
    """out[a, b] = (sum_r x[a, r, b]) / R, sum and scale in one pass (NaN when R == 0)."""
    R = x.shape[1]
    _rows(_sum_rows, x, out, R, x.shape[2], 1.0 / R if R > 0 else math.nan)


def argmax_middle(x, out):
    """out[a, b] = the first r maximising x[a, r, b] (the first NaN, if any, like numpy).

    Preconditions: x C-contiguous (A, R, B) with R >= 1; out (A, B) of an integer dtype.
    """
    _rows(_argmax_rows, x, out, x.shape[1], x.shape[2])


def minmax_grad_middle(x, y, dout, dx):
    """Gradient of a max (or min) reduction: dx[a, r, b] = dout[a, b] / n[a, b] where
    x[a, r, b] == y[a, b], else 0; n[a, b] counts the tied extrema, so ties share the gradient.

    Block per (a, b): a tree-summed tie count, then the write. Preconditions: x, dx
    C-contiguous (A, R, B); y, dout (A, B); all of one float dtype.
    """
    A, R, B = x.shape
    if A * B:
        blocks, threads = launch.rows(A * B)
        _minmax_grad_rows[blocks, threads](launch.flat(x), launch.flat(y), launch.flat(dout),
                                           launch.flat(dx), R, B)
