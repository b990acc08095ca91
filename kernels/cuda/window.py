"""Shift and Rolling, CUDA kernels: one thread per output element. Same contracts as the CPU
kernels (kernels/cpu/window.py); the window arithmetic is repeated here because device code
cannot call the CPU body."""
import math

from numba import cuda

from ..window_codes import MAX, MIN, STD, SUM, VAR

_THREADS = 256


@cuda.jit
def _shift_kernel(x, periods, fill, out):
    t = cuda.grid(1)
    outer, n, inner = x.shape
    if t >= outer * n * inner:
        return
    k = t % inner
    i = (t // inner) % n
    o = t // (inner * n)
    j = i - periods
    if 0 <= j < n:
        out[o, i, k] = x[o, j, k]
    else:
        out[o, i, k] = fill


@cuda.jit
def _rolling_kernel(x, window, min_periods, center, closed_left, closed_right, method, empty,
                    out):
    t = cuda.grid(1)
    outer, n, inner = x.shape
    if t >= outer * n * inner:
        return
    k = t % inner
    i = (t // inner) % n
    o = t // (inner * n)
    offset = (window - 1) // 2 if center else 0
    end = i + offset + 1
    start = end - window
    if closed_left:
        start -= 1
    if not closed_right:
        end -= 1
    # (explicit clamps and comparisons: numba's built-in CUDA target refuses two-argument
    # min/max, numba issue #10753, and both targets must compile these kernels)
    start = 0 if start < 0 else (n if start > n else start)
    end = 0 if end < 0 else (n if end > n else end)
    count = end - start
    if count < min_periods or count <= 0:
        out[o, i, k] = empty
        return
    acc = float(x[o, start, k])
    if method == MAX:
        for j in range(start + 1, end):
            v = float(x[o, j, k])
            if v > acc:
                acc = v
    elif method == MIN:
        for j in range(start + 1, end):
            v = float(x[o, j, k])
            if v < acc:
                acc = v
    else:
        for j in range(start + 1, end):
            acc += float(x[o, j, k])
        if method != SUM:
            mean = acc / count
            acc = mean
            if method == STD or method == VAR:
                sq = 0.0
                for j in range(start, end):
                    d = float(x[o, j, k]) - mean
                    sq += d * d
                acc = sq / (count - 1) if count > 1 else math.nan
                if method == STD:
                    acc = math.sqrt(acc)
    out[o, i, k] = acc


def _blocks(size):
    return max((size + _THREADS - 1) // _THREADS, 1)


def shift(x, periods, fill, out):
    _shift_kernel[_blocks(x.size), _THREADS](x, periods, fill, out)


def rolling(x, window, min_periods, center, closed_left, closed_right, method, empty, out):
    _rolling_kernel[_blocks(x.size), _THREADS](x, window, min_periods, center, closed_left,
                                               closed_right, method, empty, out)
