"""Softmax-family CPU kernels: softmax, log-softmax, their gradients, and the fused
(max-subtracted) softmax cross-entropy kernels that produce the loss and dlogits together.

Softmax kernels work on a C-contiguous (A, R, B) view: the softmax axis is R, A the dims
before it, B the dims after it (B = 1 for the last axis). Sums accumulate in float64.
"""
import math

from numba import njit


@njit(cache=True)
def softmax(x, out):
    """out[a, :, b] = exp(x[a, :, b] - m) / sum_r exp(x[a, r, b] - m), m = max_r x[a, r, b].

    Loop nest: for a: for b: three passes over r (max, exp and sum, scale).
    Preconditions: x, out C-contiguous (A, R, B), R >= 1.
    """
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            m = x[a, 0, b]
            for r in range(1, R):
                if x[a, r, b] > m:
                    m = x[a, r, b]
            s = 0.0
            for r in range(R):
                e = math.exp(x[a, r, b] - m)
                out[a, r, b] = e
                s += e
            inv = x.dtype.type(1.0 / s)
            for r in range(R):
                out[a, r, b] *= inv


@njit(cache=True)
def log_softmax(x, out):
    """out[a, r, b] = x[a, r, b] - m - log(sum_r exp(x[a, r, b] - m)), m the max over r.

    Same loop nest and preconditions as softmax.
    """
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            m = x[a, 0, b]
            for r in range(1, R):
                if x[a, r, b] > m:
                    m = x[a, r, b]
            s = 0.0
            for r in range(R):
                s += math.exp(x[a, r, b] - m)
            shift = m + x.dtype.type(math.log(s))
            for r in range(R):
                out[a, r, b] = x[a, r, b] - shift


@njit(cache=True)
def softmax_grad(y, dy, dx):
    """dx = y * (dy - sum_r(dy * y)) with y = softmax(x) over r; all (A, R, B) C-contiguous."""
    A, R, B = y.shape
    for a in range(A):
        for b in range(B):
            s = 0.0
            for r in range(R):
                s += dy[a, r, b] * y[a, r, b]
            sc = y.dtype.type(s)
            for r in range(R):
                dx[a, r, b] = y[a, r, b] * (dy[a, r, b] - sc)


@njit(cache=True)
def log_softmax_grad(y, dy, dx):
    """dx = dy - exp(y) * sum_r dy with y = log_softmax(x) over r; all (A, R, B) C-contiguous."""
    A, R, B = y.shape
    for a in range(A):
        for b in range(B):
            s = 0.0
            for r in range(R):
                s += dy[a, r, b]
            sc = y.dtype.type(s)
            for r in range(R):
                dx[a, r, b] = dy[a, r, b] - math.exp(y[a, r, b]) * sc


@njit(cache=True)
def softmax_cross_entropy(logits, labels, loss, dlogits):
    """Dense-label cross-entropy, loss and gradient in one pass per row:

        lse = m + log(sum_c exp(x[n, c] - m)),  m = max_c x[n, c]
        loss[n] = sum_c labels[n, c] * (lse - x[n, c])
        dlogits[n, c] = softmax(x)[n, c] - labels[n, c]   (MindSpore's `backprop` output)

    (the loss's gradient for labels that sum to 1 per row; the primitive's bprop corrects
    it for others).
    Preconditions: logits, labels, dlogits C-contiguous (N, C) of one dtype; loss (N,).
    """
    N, C = logits.shape
    for n in range(N):
        m = logits[n, 0]
        for c in range(1, C):
            if logits[n, c] > m:
                m = logits[n, c]
        s = 0.0
        for c in range(C):
            e = math.exp(logits[n, c] - m)
            dlogits[n, c] = e
            s += e
        lse = m + math.log(s)
        total = 0.0
        for c in range(C):
            lab = labels[n, c]
            total += lab * (lse - logits[n, c])
        loss[n] = total
        scale = logits.dtype.type(1.0 / s)
        for c in range(C):
            dlogits[n, c] = dlogits[n, c] * scale - labels[n, c]


@njit(cache=True)
def sparse_softmax_cross_entropy(logits, labels, loss, dlogits, grad_scale):
    """Integer-label cross-entropy, loss and scaled gradient in one pass per row:

        loss[n] = lse(x[n]) - x[n, labels[n]]
        dlogits[n, c] = grad_scale * (softmax(x)[n, c] - [c == labels[n]])

    Returns -1 when every label is in [0, C), else the first offending row (so the caller
    can raise with the value). Preconditions: logits, dlogits C-contiguous (N, C); labels (N,)
    int32/int64; loss (N,); grad_scale of the logits' dtype (1/N for the mean loss).
    """
    N, C = logits.shape
    for n in range(N):
        lab = labels[n]
        if lab < 0 or lab >= C:
            return n
        m = logits[n, 0]
        for c in range(1, C):
            if logits[n, c] > m:
                m = logits[n, c]
        s = 0.0
        for c in range(C):
            e = math.exp(logits[n, c] - m)
            dlogits[n, c] = e
            s += e
        loss[n] = m + math.log(s) - logits[n, lab]
        scale = logits.dtype.type(1.0 / s) * grad_scale
        for c in range(C):
            dlogits[n, c] *= scale
        dlogits[n, lab] -= grad_scale
    return -1


@njit(cache=True)
def mean(x):
    """sum(x) / x.size accumulated in float64 (the reduction of the sparse loss)."""
    s = 0.0
    for i in range(x.size):
        s += x[i]
    return s / max(x.size, 1)
