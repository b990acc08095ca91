"""Activation CUDA kernels (ReLU, GeLU, Sigmoid, Tanh and their gradients) and bias add (+ReLU).

Device twins of kernels/cpu/activation.py: same names and signatures, device arrays in, results
written into the caller's `out`. Elementwise kernels run a grid-stride loop over the flat
C-contiguous arrays (launch.elementwise); constants are built with type(v)(c) so float32 math
stays float32.
"""
import math

import numpy as np
from numba import cuda, float64

from . import launch

# A plain global, not `launch.REDUCE_THREADS` in the kernels: numba-cuda types a module
# attribute as a run-time int64, and shared arrays need a compile-time size.
_THREADS = launch.REDUCE_THREADS

_C_TANH = math.sqrt(2.0 / math.pi)
_R_SQRT2 = 1.0 / math.sqrt(2.0)
_R_SQRT2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _launch(kernel, *arrays):
    """Run an elementwise kernel over flat views of `arrays` (the last one is the output)."""
    n = arrays[-1].size
    if n:
        blocks, threads = launch.elementwise(n)
        kernel[blocks, threads](*(launch.flat(a) for a in arrays))


@cuda.jit
def _relu(x, out):
    """for i (grid-stride): out[i] = max(x[i], 0), NaN propagating."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        out[i] = type(v)(0) if v < 0 else v


@cuda.jit
def _relu_grad(dy, y, dx):
    """for i (grid-stride): dx[i] = dy[i] if y[i] > 0 else 0."""
    for i in range(cuda.grid(1), dy.size, cuda.gridsize(1)):
        d = dy[i]
        dx[i] = d if y[i] > 0 else type(d)(0)


@cuda.jit
def _sigmoid(x, out):
    """for i (grid-stride): out[i] = 1 / (1 + exp(-x[i])) through exp(-|x|) (no overflow)."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        one = type(v)(1)
        if v >= 0:
            out[i] = one / (one + math.exp(-v))
        else:
            e = math.exp(v)
            out[i] = e / (one + e)


@cuda.jit
def _sigmoid_grad(y, dy, dx):
    """for i (grid-stride): dx[i] = dy[i] * y[i] * (1 - y[i])."""
    for i in range(cuda.grid(1), y.size, cuda.gridsize(1)):
        v = y[i]
        dx[i] = dy[i] * v * (type(v)(1) - v)


@cuda.jit
def _tanh(x, out):
    """for i (grid-stride): out[i] = tanh(x[i])."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = math.tanh(x[i])


@cuda.jit
def _tanh_grad(y, dy, dx):
    """for i (grid-stride): dx[i] = dy[i] * (1 - y[i]^2)."""
    for i in range(cuda.grid(1), y.size, cuda.gridsize(1)):
        v = y[i]
        dx[i] = dy[i] * (type(v)(1) - v * v)


@cuda.jit
def _gelu_tanh(x, out):
    """for i (grid-stride): out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        t = type(v)
        out[i] = t(0.5) * v * (t(1) + math.tanh(t(_C_TANH) * (v + t(0.044715) * v * v * v)))


@cuda.jit
def _gelu_tanh_grad(dy, x, dx):
    """for i (grid-stride): dx = dy * (0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3a x^2)),
    t = tanh(c (x + a x^3))."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        t = type(v)
        half, one, c, a = t(0.5), t(1), t(_C_TANH), t(0.044715)
        th = math.tanh(c * (v + a * v * v * v))
        d = half * (one + th) + half * v * (one - th * th) * c * (one + t(3) * a * v * v)
        dx[i] = dy[i] * d


@cuda.jit
def _gelu_erf(x, out):
    """for i (grid-stride): out = 0.5 x (1 + erf(x / sqrt(2)))."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        t = type(v)
        out[i] = t(0.5) * v * (t(1) + math.erf(v * t(_R_SQRT2)))


@cuda.jit
def _gelu_erf_grad(dy, x, dx):
    """for i (grid-stride): dx = dy * (0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi))."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i]
        t = type(v)
        half = t(0.5)
        d = half * (t(1) + math.erf(v * t(_R_SQRT2))) + v * math.exp(-half * v * v) * t(_R_SQRT2PI)
        dx[i] = dy[i] * d


def relu(x, out):
    """out[i] = max(x[i], 0) (NaN propagates). x, out: C-contiguous, same shape and dtype."""
    _launch(_relu, x, out)


def relu_grad(dy, y, dx):
    """dx[i] = dy[i] if y[i] > 0 else 0, where y = relu(x). All C-contiguous, same shape."""
    _launch(_relu_grad, dy, y, dx)


def sigmoid(x, out):
    """out[i] = 1 / (1 + exp(-x[i])), evaluated through exp(-|x|) so it never overflows."""
    _launch(_sigmoid, x, out)


def sigmoid_grad(y, dy, dx):
    """dx[i] = dy[i] * y[i] * (1 - y[i]), where y = sigmoid(x)."""
    _launch(_sigmoid_grad, y, dy, dx)


def tanh(x, out):
    """out[i] = tanh(x[i])."""
    _launch(_tanh, x, out)


def tanh_grad(y, dy, dx):
    """dx[i] = dy[i] * (1 - y[i]^2), where y = tanh(x)."""
    _launch(_tanh_grad, y, dy, dx)


def gelu_tanh(x, out):
    """out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (MindSpore's GeLU primitive)."""
    _launch(_gelu_tanh, x, out)


def gelu_tanh_grad(dy, x, dx):
    """dx = dy * d/dx gelu_tanh(x)."""
    _launch(_gelu_tanh_grad, dy, x, dx)


def gelu_erf(x, out):
    """out = 0.5 x (1 + erf(x / sqrt(2))) (the exact GeLU, ops.gelu's default)."""
    _launch(_gelu_erf, x, out)


def gelu_erf_grad(dy, x, dx):
    """dx = dy * (0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi))."""
    _launch(_gelu_erf_grad, dy, x, dx)


@cuda.jit
def _bias_add(x, b, out, C, K, relu_after):
    """for i (grid-stride over N*C*K): out[i] = x[i] + b[(i // K) % C], then max(., 0) when
    relu_after."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[i] + b[(i // K) % C]
        if relu_after and v < 0:
            v = type(v)(0)
        out[i] = v


def bias_add(x, b, out):
    """out[n, c, k] = x[n, c, k] + b[c]. x, out: C-contiguous (N, C, K) views; b: (C,).

    One thread per element (grid-stride); the channel is (flat index // K) % C.
    """
    _, C, K = x.shape
    if x.size:
        blocks, threads = launch.elementwise(x.size)
        _bias_add[blocks, threads](launch.flat(x), b, launch.flat(out), C, K, False)


def bias_add_relu(x, b, out):
    """out[n, c, k] = max(x[n, c, k] + b[c], 0): bias and ReLU in one pass; as bias_add."""
    _, C, K = x.shape
    if x.size:
        blocks, threads = launch.elementwise(x.size)
        _bias_add[blocks, threads](launch.flat(x), b, launch.flat(out), C, K, True)


@cuda.jit
def _bias_add_grad(dy, db, N, C, K):
    """Block per channel c (grid-stride over c); its threads stride over the N*K elements
    j -> dy[j // K, c, j % K], accumulate in float64 and combine with a shared tree."""
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for c in range(cuda.blockIdx.x, C, cuda.gridDim.x):
        acc = 0.0
        for j in range(tid, N * K, cuda.blockDim.x):
            acc += dy[(j // K) * C * K + c * K + j % K]
        buf[tid] = acc
        launch.tree_sum(buf, tid)
        if tid == 0:
            db[c] = buf[0]
        cuda.syncthreads()  # buf[0] is read before the next channel overwrites buf


def bias_add_grad(dy, db):
    """db[c] = sum over n, k of dy[n, c, k], accumulated in float64.

    dy: C-contiguous (N, C, K); db: (C,) of dy's dtype. One block per channel.
    """
    N, C, K = dy.shape
    if C:
        blocks, threads = launch.rows(C)
        _bias_add_grad[blocks, threads](launch.flat(dy), db, N, C, K)
