"""Bias add (+ReLU) CPU kernels and the bias gradient. The elementwise activations (ReLU,
GeLU, Sigmoid, Tanh and their gradients) are bodies of kernels/scalar.py, compiled by
kernels/cpu/elementwise.py.

Every kernel walks flat C-contiguous arrays and writes into the `out` buffer the caller passes.
Constants are built with `x.dtype.type(...)` so float32 math stays float32.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def bias_add(x, b, out):
    """out[n, c, k] = x[n, c, k] + b[c].

    Loop nest: for n: for c: for k (k innermost, contiguous); when K == 1 (channel-last, e.g.
    Dense) for n: for c (c innermost). x, out: C-contiguous (N, C, K) views; b: (C,).
    """
    N, C, K = x.shape
    if K == 1:
        # Channel-last (Dense): make c the innermost, contiguous loop so it vectorises.
        x2 = x.reshape(N, C)
        o2 = out.reshape(N, C)
        for n in range(N):
            for c in range(C):
                o2[n, c] = x2[n, c] + b[c]
        return
    for n in range(N):
        for c in range(C):
            bc = b[c]
            for k in range(K):
                out[n, c, k] = x[n, c, k] + bc


@njit(cache=True)
def bias_add_relu(x, b, out):
    """out[n, c, k] = max(x[n, c, k] + b[c], 0): Dense/Conv bias and ReLU in one pass.

    Same loop nests and preconditions as bias_add.
    """
    N, C, K = x.shape
    zero = x.dtype.type(0)
    if K == 1:
        # Channel-last (Dense): c innermost and contiguous, as in bias_add.
        x2 = x.reshape(N, C)
        o2 = out.reshape(N, C)
        for n in range(N):
            for c in range(C):
                v = x2[n, c] + b[c]
                o2[n, c] = zero if v < zero else v
        return
    for n in range(N):
        for c in range(C):
            bc = b[c]
            for k in range(K):
                v = x[n, c, k] + bc
                out[n, c, k] = zero if v < zero else v


@njit(cache=True)
def bias_add_grad(dy, db):
    """db[c] = sum over n, k of dy[n, c, k], accumulated in float64.

    dy: C-contiguous (N, C, K); db: (C,) of dy's dtype.
    """
    N, C, K = dy.shape
    acc = np.zeros(C, dtype=np.float64)
    if K == 1:
        # Channel-last (Dense): accumulate whole rows, c innermost and contiguous.
        d2 = dy.reshape(N, C)
        for n in range(N):
            for c in range(C):
                acc[c] += d2[n, c]
        for c in range(C):
            db[c] = acc[c]
        return
    for n in range(N):
        for c in range(C):
            s = 0.0
            for k in range(K):
                s += dy[n, c, k]
            acc[c] += s
    for c in range(C):
        db[c] = acc[c]


@njit(cache=True)
def int_bias_add_grad(dy, db):
    """`bias_add_grad` for integer dtypes: each channel's sum in the element type, wrapping
    as it overflows, as MindSpore's does (600 threes of int8 give 88). db[c] takes every
    partial sum back into its own type, which keeps it modulo 2**bits."""
    N, C, K = dy.shape
    for c in range(C):
        db[c] = 0
    for n in range(N):
        for c in range(C):
            for k in range(K):
                db[c] += dy[n, c, k]
