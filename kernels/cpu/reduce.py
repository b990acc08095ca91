"""Reduction CPU kernels over a (outer, reduced, inner) view, accumulating in float64."""
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
    """out[a, b] = max_r x[a, r, b]; same loop nest and preconditions as sum_middle (R >= 1)."""
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            out[a, b] = x[a, 0, b]
        for r in range(1, R):
            for b in range(B):
                v = x[a, r, b]
                if v > out[a, b]:
                    out[a, b] = v


@njit(cache=True)
def min_middle(x, out):
    """out[a, b] = min_r x[a, r, b]; same loop nest and preconditions as sum_middle (R >= 1)."""
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            out[a, b] = x[a, 0, b]
        for r in range(1, R):
            for b in range(B):
                v = x[a, r, b]
                if v < out[a, b]:
                    out[a, b] = v
