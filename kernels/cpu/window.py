"""Shift and Rolling (MindSpore's pandas-style CPU kernels), CPU kernels.

Both work on x viewed as (outer, n, inner) with n the extent of the operator's axis.
"""
import math

from numba import njit

from ..window_codes import MAX, MIN, STD, SUM, VAR


@njit(cache=True)
def shift(x, periods, fill, out):
    """out[o, i, k] = x[o, i - periods, k] where that index is in [0, n), else fill."""
    outer, n, inner = x.shape
    for o in range(outer):
        for i in range(n):
            j = i - periods
            if 0 <= j < n:
                for k in range(inner):
                    out[o, i, k] = x[o, j, k]
            else:
                for k in range(inner):
                    out[o, i, k] = fill


@njit(cache=True)
def window_bounds(i, n, window, center, closed_left, closed_right):
    """pandas' fixed-window bounds [start, end) of position i: the window ends at i (or is
    centred on it); closed_left widens it by one on the left, an open right end drops i."""
    offset = (window - 1) // 2 if center else 0
    end = i + offset + 1
    start = end - window
    if closed_left:
        start -= 1
    if not closed_right:
        end -= 1
    return min(max(start, 0), n), min(max(end, 0), n)


@njit(cache=True)
def rolling(x, window, min_periods, center, closed_left, closed_right, method, empty, out):
    """out[o, i, k] = method over x[o, start:end, k] (window_bounds), computed in float64 in
    numpy's order (mean = sum / count; var = sum((x - mean)^2) / (count - 1)); `empty` where the
    window holds fewer than min_periods values."""
    outer, n, inner = x.shape
    for o in range(outer):
        for i in range(n):
            start, end = window_bounds(i, n, window, center, closed_left, closed_right)
            count = end - start
            for k in range(inner):
                if count < min_periods or count <= 0:
                    out[o, i, k] = empty
                    continue
                acc = float(x[o, start, k])
                if method == MAX:     # the comparisons of the CUDA twin, NaNs alike
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
