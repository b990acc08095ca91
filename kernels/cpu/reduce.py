"""Reduction CPU kernels (sum, mean, max, min, argmax, extremum grad) on (outer, reduced, inner)."""
import numpy as np
from numba import njit


@njit(cache=True)
def sum_middle(x, out):
    """out[a, b] = sum_r x[a, r, b].

    Loop nest: for a: for r: for b (b innermost, contiguous, vectorised). Accumulates in a
    float64 row buffer so float32 sums match a float64 reference to ~1e-7 relative.
    Preconditions: x C-contiguous (A, R, B); out (A, B) of x's dtype.
    """
    A, R, B = x.shape
    acc = np.empty(B, dtype=np.float64)
    for a in range(A):
        acc[:] = 0.0
        for r in range(R):
            for b in range(B):
                acc[b] += x[a, r, b]
        for b in range(B):
            out[a, b] = acc[b]


@njit(cache=True)
def max_middle(x, out):
    """out[a, b] = max_r x[a, r, b] (a NaN wins, like numpy); same loop nest and preconditions
    as sum_middle (R >= 1)."""
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            out[a, b] = x[a, 0, b]
        for r in range(1, R):
            for b in range(B):
                v = x[a, r, b]
                if v > out[a, b] or v != v:
                    out[a, b] = v


@njit(cache=True)
def min_middle(x, out):
    """out[a, b] = min_r x[a, r, b] (a NaN wins, like numpy); same loop nest and preconditions
    as sum_middle (R >= 1)."""
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            out[a, b] = x[a, 0, b]
        for r in range(1, R):
            for b in range(B):
                v = x[a, r, b]
                if v < out[a, b] or v != v:
                    out[a, b] = v


@njit(cache=True)
def mean_middle(x, out):
    """out[a, b] = (sum_r x[a, r, b]) / R, sum and scale in one pass (NaN when R == 0).

    Same loop nest, float64 accumulation and preconditions as sum_middle.
    """
    A, R, B = x.shape
    scale = 1.0 / R if R > 0 else np.nan
    acc = np.empty(B, dtype=np.float64)
    for a in range(A):
        acc[:] = 0.0
        for r in range(R):
            for b in range(B):
                acc[b] += x[a, r, b]
        for b in range(B):
            out[a, b] = acc[b] * scale


@njit(cache=True)
def argmax_middle(x, out):
    """out[a, b] = the first r maximising x[a, r, b] (the first NaN, if any, like numpy).

    Loop nest: for a: for r: for b (b innermost, contiguous). Preconditions: x C-contiguous
    (A, R, B) with R >= 1; out (A, B) of an integer dtype.
    """
    A, R, B = x.shape
    best = np.empty(B, dtype=x.dtype)
    for a in range(A):
        for b in range(B):
            best[b] = x[a, 0, b]
            out[a, b] = 0
        for r in range(1, R):
            for b in range(B):
                v = x[a, r, b]
                m = best[b]
                if (v > m or v != v) and m == m:
                    best[b] = v
                    out[a, b] = r


@njit(cache=True)
def minmax_grad_middle(x, y, dout, dx):
    """Gradient of a max (or min) reduction: dx[a, r, b] = dout[a, b] / n[a, b] where
    x[a, r, b] == y[a, b], else 0; n[a, b] counts the tied extrema, so ties share the gradient.

    Loop nest: for a: (count: for r: for b), (write: for r: for b). Preconditions: x, dx
    C-contiguous (A, R, B); y, dout (A, B); all of one float dtype.
    """
    A, R, B = x.shape
    count = np.empty(B, dtype=np.int64)
    zero = dx.dtype.type(0)
    for a in range(A):
        count[:] = 0
        for r in range(R):
            for b in range(B):
                if x[a, r, b] == y[a, b]:
                    count[b] += 1
        for r in range(R):
            for b in range(B):
                if x[a, r, b] == y[a, b]:
                    dx[a, r, b] = dout[a, b] / count[b]
                else:
                    dx[a, r, b] = zero
