"""Activation CPU kernels (ReLU, GeLU, Sigmoid, Tanh and their gradients) and bias add (+ReLU).

Every kernel walks flat C-contiguous arrays and writes into the `out` buffer the caller passes.
Constants are built with `x.dtype.type(...)` so float32 math stays float32 (a Python float
literal would promote it to float64); numba's math.exp/tanh/erf keep float32 for float32.
"""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def relu(x, out):
    """out[i] = max(x[i], 0) (NaN propagates). x, out: C-contiguous, same shape and dtype."""
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    zero = x.dtype.type(0)
    for i in range(xf.size):
        v = xf[i]
        of[i] = zero if v < zero else v


@njit(cache=True)
def relu_grad(dy, y, dx):
    """dx[i] = dy[i] if y[i] > 0 else 0, where y = relu(x). All C-contiguous, same shape."""
    df = dy.reshape(dy.size)
    yf = y.reshape(y.size)
    of = dx.reshape(dx.size)
    zero = dy.dtype.type(0)
    for i in range(df.size):
        of[i] = df[i] if yf[i] > zero else zero


@njit(cache=True)
def sigmoid(x, out):
    """out[i] = 1 / (1 + exp(-x[i])), evaluated through exp(-|x|) so it never overflows."""
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    one = x.dtype.type(1)
    for i in range(xf.size):
        v = xf[i]
        if v >= 0:
            of[i] = one / (one + math.exp(-v))
        else:
            e = math.exp(v)
            of[i] = e / (one + e)


@njit(cache=True)
def sigmoid_grad(y, dy, dx):
    """dx[i] = dy[i] * y[i] * (1 - y[i]), where y = sigmoid(x)."""
    yf = y.reshape(y.size)
    df = dy.reshape(dy.size)
    of = dx.reshape(dx.size)
    one = y.dtype.type(1)
    for i in range(yf.size):
        v = yf[i]
        of[i] = df[i] * v * (one - v)


@njit(cache=True)
def tanh(x, out):
    """out[i] = tanh(x[i])."""
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    for i in range(xf.size):
        of[i] = math.tanh(xf[i])


@njit(cache=True)
def tanh_grad(y, dy, dx):
    """dx[i] = dy[i] * (1 - y[i]^2), where y = tanh(x)."""
    yf = y.reshape(y.size)
    df = dy.reshape(dy.size)
    of = dx.reshape(dx.size)
    one = y.dtype.type(1)
    for i in range(yf.size):
        v = yf[i]
        of[i] = df[i] * (one - v * v)


@njit(cache=True)
def gelu_tanh(x, out):
    """out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (MindSpore's GeLU primitive)."""
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    t = x.dtype.type
    half, one, c, a = t(0.5), t(1), t(math.sqrt(2.0 / math.pi)), t(0.044715)
    for i in range(xf.size):
        v = xf[i]
        of[i] = half * v * (one + math.tanh(c * (v + a * v * v * v)))


@njit(cache=True)
def gelu_tanh_grad(dy, x, dx):
    """dx = dy * d/dx gelu_tanh(x) = dy * (0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3a x^2)),
    t = tanh(c (x + a x^3))."""
    xf = x.reshape(x.size)
    df = dy.reshape(dy.size)
    of = dx.reshape(dx.size)
    t = x.dtype.type
    half, one, c, a = t(0.5), t(1), t(math.sqrt(2.0 / math.pi)), t(0.044715)
    a3 = t(3) * a
    for i in range(xf.size):
        v = xf[i]
        th = math.tanh(c * (v + a * v * v * v))
        d = half * (one + th) + half * v * (one - th * th) * c * (one + a3 * v * v)
        of[i] = df[i] * d


@njit(cache=True)
def gelu_erf(x, out):
    """out = 0.5 x (1 + erf(x / sqrt(2))) (the exact GeLU, ops.gelu's default)."""
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    t = x.dtype.type
    half, one, r = t(0.5), t(1), t(1.0 / math.sqrt(2.0))
    for i in range(xf.size):
        v = xf[i]
        of[i] = half * v * (one + math.erf(v * r))


@njit(cache=True)
def gelu_erf_grad(dy, x, dx):
    """dx = dy * (0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi))."""
    xf = x.reshape(x.size)
    df = dy.reshape(dy.size)
    of = dx.reshape(dx.size)
    t = x.dtype.type
    half, one, r, p = t(0.5), t(1), t(1.0 / math.sqrt(2.0)), t(1.0 / math.sqrt(2.0 * math.pi))
    for i in range(xf.size):
        v = xf[i]
        d = half * (one + math.erf(v * r)) + v * math.exp(-half * v * v) * p
        of[i] = df[i] * d


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
