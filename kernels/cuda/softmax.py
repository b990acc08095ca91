"""Softmax-family CUDA kernels: softmax, log-softmax, their gradients, and the fused softmax
cross-entropy kernels that produce the loss and dlogits in one pass.

Device twins of kernels/cpu/softmax.py. Softmax kernels take C-contiguous (A, R, B) device
arrays (softmax over R); one block per row (a, b) (launch.rows), threads striding over r,
shared-memory trees (launch.tree_*) for the row max and the float64 sums. Each thread reads
back only the elements it wrote itself, so passes over a row need no barrier between writes
and reads of the outputs.
"""
import math

import numpy as np
from numba import cuda, float64

from . import launch

# A plain global, not `launch.REDUCE_THREADS` in the kernels: numba-cuda types a module
# attribute as a run-time int64, and shared arrays need a compile-time size.
_THREADS = launch.REDUCE_THREADS


@cuda.jit(device=True)
def _row_max(x, base, R, B, buf, tid):
    """max_r x[base + r*B] over the block (a NaN wins), as a float64 every thread gets."""
    m = float64(x[base])
    for r in range(tid, R, cuda.blockDim.x):
        v = float64(x[base + r * B])
        if v > m or v != v:
            m = v
    buf[tid] = m
    launch.tree_max(buf, tid)
    m = buf[0]
    cuda.syncthreads()  # every thread has read buf[0] before buf is reused
    return m


@cuda.jit(device=True)
def _block_sum(value, buf, tid):
    """The sum over the block of every thread's `value` (float64), returned to every thread."""
    buf[tid] = value
    launch.tree_sum(buf, tid)
    s = buf[0]
    cuda.syncthreads()  # every thread has read buf[0] before buf is reused
    return s


@cuda.jit
def _softmax(x, out, R, B, log):
    """for row (a, b) (block-stride): m = max, s = sum exp(x - m) (float64), then
    out = exp(x - m) / s, or x - m - log(s) for log-softmax."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for q in range(cuda.blockIdx.x, x.size // R, cuda.gridDim.x):
        base = (q // B) * R * B + q % B
        t = type(x[base])
        m = t(_row_max(x, base, R, B, buf, tid))
        s = 0.0
        for r in range(tid, R, cuda.blockDim.x):
            e = math.exp(x[base + r * B] - m)
            if not log:
                out[base + r * B] = e
            s += e
        s = _block_sum(s, buf, tid)
        if log:
            shift = m + t(math.log(s))
            for r in range(tid, R, cuda.blockDim.x):
                out[base + r * B] = x[base + r * B] - shift
        else:
            inv = t(1.0 / s)
            for r in range(tid, R, cuda.blockDim.x):
                out[base + r * B] *= inv


def softmax(x, out):
    """out[a, :, b] = exp(x[a, :, b] - m) / sum_r exp(x[a, r, b] - m), m = max_r x[a, r, b].

    Block per (a, b): tree max, tree sum, scale. Preconditions: x, out C-contiguous
    (A, R, B), R >= 1.
    """
    A, R, B = x.shape
    if A * B:
        blocks, threads = launch.rows(A * B)
        _softmax[blocks, threads](launch.flat(x), launch.flat(out), R, B, False)


def log_softmax(x, out):
    """out[a, r, b] = x[a, r, b] - m - log(sum_r exp(x[a, r, b] - m)), m the max over r.

    Same blocks and preconditions as softmax.
    """
    A, R, B = x.shape
    if A * B:
        blocks, threads = launch.rows(A * B)
        _softmax[blocks, threads](launch.flat(x), launch.flat(out), R, B, True)


@cuda.jit
def _softmax_grad(y, dy, dx, R, B, log):
    """for row (a, b) (block-stride): s = sum_r dy*y (softmax) or sum_r dy (log-softmax),
    then dx = y * (dy - s) or dy - exp(y) * s."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for q in range(cuda.blockIdx.x, y.size // R, cuda.gridDim.x):
        base = (q // B) * R * B + q % B
        s = 0.0
        for r in range(tid, R, cuda.blockDim.x):
            i = base + r * B
            s += dy[i] if log else dy[i] * y[i]
        sc = type(y[base])(_block_sum(s, buf, tid))
        for r in range(tid, R, cuda.blockDim.x):
            i = base + r * B
            if log:
                dx[i] = dy[i] - math.exp(y[i]) * sc
            else:
                dx[i] = y[i] * (dy[i] - sc)


def softmax_grad(y, dy, dx):
    """dx = y * (dy - sum_r(dy * y)) with y = softmax(x) over r; all (A, R, B) C-contiguous."""
    A, R, B = y.shape
    if A * B:
        blocks, threads = launch.rows(A * B)
        _softmax_grad[blocks, threads](launch.flat(y), launch.flat(dy), launch.flat(dx), R, B,
                                       False)


def log_softmax_grad(y, dy, dx):
    """dx = dy - exp(y) * sum_r dy with y = log_softmax(x) over r; all (A, R, B) C-contiguous."""
    A, R, B = y.shape
    if A * B:
        blocks, threads = launch.rows(A * B)
        _softmax_grad[blocks, threads](launch.flat(y), launch.flat(dy), launch.flat(dx), R, B,
                                       True)


@cuda.jit
def _softmax_cross_entropy(logits, labels, loss, dlogits, C):
    """for row n (block-stride): m, e = exp(x - m) into dlogits, s = sum e, lse = m + log s,
    loss = sum lab * (lse - x), then dlogits = e / s - lab."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for n in range(cuda.blockIdx.x, loss.size, cuda.gridDim.x):
        base = n * C
        t = type(logits[base])
        m = t(_row_max(logits, base, C, 1, buf, tid))
        s = 0.0
        for c in range(tid, C, cuda.blockDim.x):
            e = math.exp(logits[base + c] - m)
            dlogits[base + c] = e
            s += e
        s = _block_sum(s, buf, tid)
        lse = m + math.log(s)
        total = 0.0
        for c in range(tid, C, cuda.blockDim.x):
            lab = labels[base + c]
            total += lab * (lse - logits[base + c])
        total = _block_sum(total, buf, tid)
        if tid == 0:
            loss[n] = total
        scale = t(1.0 / s)
        for c in range(tid, C, cuda.blockDim.x):
            dlogits[base + c] = dlogits[base + c] * scale - labels[base + c]


def softmax_cross_entropy(logits, labels, loss, dlogits):
    """Dense-label cross-entropy, loss and gradient in one pass per row:

        lse = m + log(sum_c exp(x[n, c] - m)),  m = max_c x[n, c]
        loss[n] = sum_c labels[n, c] * (lse - x[n, c])
        dlogits[n, c] = softmax(x)[n, c] - labels[n, c]   (MindSpore's `backprop` output)

    Block per row. Preconditions: logits, labels, dlogits C-contiguous (N, C) of one dtype;
    loss (N,).
    """
    N, C = logits.shape
    if N:
        blocks, threads = launch.rows(N)
        _softmax_cross_entropy[blocks, threads](launch.flat(logits), launch.flat(labels), loss,
                                                launch.flat(dlogits), C)


@cuda.jit
def _sparse_softmax_cross_entropy(logits, labels, loss, dlogits, grad_scale, C, bad):
    """for row n (block-stride): a label outside [0, C) puts min(bad[0], n) and skips the row;
    else loss = lse - x[lab], dlogits = grad_scale * (softmax - onehot(lab))."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for n in range(cuda.blockIdx.x, loss.size, cuda.gridDim.x):
        lab = labels[n]
        if lab < 0 or lab >= C:
            if tid == 0:
                cuda.atomic.min(bad, 0, n)
            continue  # uniform across the block: no thread reaches the row's barriers
        base = n * C
        t = type(logits[base])
        m = t(_row_max(logits, base, C, 1, buf, tid))
        s = 0.0
        for c in range(tid, C, cuda.blockDim.x):
            e = math.exp(logits[base + c] - m)
            dlogits[base + c] = e
            s += e
        s = _block_sum(s, buf, tid)
        if tid == 0:
            loss[n] = m + math.log(s) - logits[base + lab]
        scale = t(1.0 / s) * grad_scale
        for c in range(tid, C, cuda.blockDim.x):
            g = dlogits[base + c] * scale
            if c == lab:
                g -= grad_scale
            dlogits[base + c] = g


def sparse_softmax_cross_entropy(logits, labels, loss, dlogits, grad_scale):
    """Integer-label cross-entropy, loss and scaled gradient in one pass per row:

        loss[n] = lse(x[n]) - x[n, labels[n]]
        dlogits[n, c] = grad_scale * (softmax(x)[n, c] - [c == labels[n]])

    Returns -1 when every label is in [0, C), else the first offending row (so the caller
    can raise with the value; reading it back synchronises with the device). Preconditions:
    logits, dlogits C-contiguous (N, C); labels (N,) int32/int64; loss (N,); grad_scale of the
    logits' dtype (1/N for the mean loss).
    """
    N, C = logits.shape
    if not N:
        return -1
    bad = cuda.to_device(np.array([N], dtype=np.int64))
    blocks, threads = launch.rows(N)
    _sparse_softmax_cross_entropy[blocks, threads](launch.flat(logits), labels, loss,
                                                   launch.flat(dlogits), grad_scale, C, bad)
    first = int(bad.copy_to_host()[0])
    return -1 if first == N else first


@cuda.jit
def _mean(x, out):
    """One block: threads stride over x, float64 partials, tree sum; out[0] = sum / size."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    acc = 0.0
    for i in range(tid, x.size, cuda.blockDim.x):
        acc += x[i]
    s = _block_sum(acc, buf, tid)
    if tid == 0:
        n = x.size
        out[0] = s / (n if n > 0 else 1)   # not max(): see kernels/cuda/pool.py


def mean(x):
    """sum(x) / x.size accumulated in float64 (the reduction of the sparse loss), returned to
    the host as a float (one block; the loss vector has one entry per sample)."""
    out = cuda.device_array(1, dtype=np.float64)
    _mean[1, _THREADS](launch.flat(x), out)
    return out.copy_to_host()[0]
