"""2-D pooling CUDA kernels (NCHW): max and average pooling forward and backward.

Same window rules as kernels/cpu/pool.py: windows are clipped to the input (padding never
wins a max nor, with include_pad=False, counts in an average) and the max-pool backward
recomputes each window's argmax (the first maximum in row-major order) from the input.
Every kernel runs one thread per output element (forward) or per input element (backward) in
a grid-stride loop, x fastest, so a warp reads and writes consecutive addresses. The
backward kernels gather: the thread of input (i, j) visits the windows that contain it, so
overlapping windows need no atomics and the summation order is fixed (deterministic). They
sum from a zero of dx's dtype (passed in as `zero`) and write every element of dx, so dx
needs no zero-filling first, as on the CPU.

Clipping is written as conditional expressions, not the builtins min and max: numba 0.66 to
0.68's own CUDA target refuses two-argument min/max ("Signature mismatch: 2 argument types
given, but function takes 1 arguments", numba issue #10753), which is how every pooling and
sorting kernel failed on the H200 run; tests/cuda_ptx keeps them out of device code.
"""
from numba import cuda

from .launch import elementwise


@cuda.jit(device=True)
def _span(o, s, p, k, size):
    """[start, end) of output o's window along one axis, clipped to [0, size)."""
    lo = o * s - p
    hi = lo + k
    return (lo if lo > 0 else 0), (hi if hi < size else size)


@cuda.jit(device=True)
def _covering(i, s, p, k, osize):
    """[first, last] output positions whose window along one axis contains input i."""
    num = i + p - k + 1
    first = 0 if num <= 0 else (num + s - 1) // s
    last = (i + p) // s
    return first, (last if last < osize else osize - 1)


@cuda.jit
def _max_pool_kernel(x, kh, kw, sh, sw, pt, pl, out):
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, out.size, stride):
        xo = e % OW
        y = (e // OW) % OH
        c = (e // (OW * OH)) % C
        n = e // (OW * OH * C)
        hs, he = _span(y, sh, pt, kh, H)
        ws, we = _span(xo, sw, pl, kw, W)
        m = x[n, c, hs, ws]
        for i in range(hs, he):
            for j in range(ws, we):
                if x[n, c, i, j] > m:
                    m = x[n, c, i, j]
        out[n, c, y, xo] = m


@cuda.jit
def _max_pool_grad_kernel(x, dy, kh, kw, sh, sw, pt, pl, zero, dx):
    N, C, H, W = x.shape
    OH, OW = dy.shape[2], dy.shape[3]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, dx.size, stride):
        j0 = e % W
        i0 = (e // W) % H
        c = (e // (W * H)) % C
        n = e // (W * H * C)
        y0, y1 = _covering(i0, sh, pt, kh, OH)
        x0, x1 = _covering(j0, sw, pl, kw, OW)
        s = zero
        for y in range(y0, y1 + 1):
            hs, he = _span(y, sh, pt, kh, H)
            for xo in range(x0, x1 + 1):
                ws, we = _span(xo, sw, pl, kw, W)
                m = x[n, c, hs, ws]
                mi, mj = hs, ws
                for i in range(hs, he):
                    for j in range(ws, we):
                        if x[n, c, i, j] > m:
                            m = x[n, c, i, j]
                            mi, mj = i, j
                if mi == i0 and mj == j0:
                    s += dy[n, c, y, xo]
        dx[n, c, i0, j0] = s


@cuda.jit
def _avg_pool_kernel(x, kh, kw, sh, sw, pt, pl, include_pad, out):
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, out.size, stride):
        xo = e % OW
        y = (e // OW) % OH
        c = (e // (OW * OH)) % C
        n = e // (OW * OH * C)
        hs, he = _span(y, sh, pt, kh, H)
        ws, we = _span(xo, sw, pl, kw, W)
        s = 0.0     # float64 accumulator, as on the CPU
        for i in range(hs, he):
            for j in range(ws, we):
                s += x[n, c, i, j]
        cnt = kh * kw if include_pad else (he - hs) * (we - ws)
        out[n, c, y, xo] = s / cnt


@cuda.jit
def _avg_pool_grad_kernel(dy, kh, kw, sh, sw, pt, pl, include_pad, zero, dx):
    N, C, H, W = dx.shape
    OH, OW = dy.shape[2], dy.shape[3]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, dx.size, stride):
        j0 = e % W
        i0 = (e // W) % H
        c = (e // (W * H)) % C
        n = e // (W * H * C)
        y0, y1 = _covering(i0, sh, pt, kh, OH)
        x0, x1 = _covering(j0, sw, pl, kw, OW)
        s = zero
        for y in range(y0, y1 + 1):
            hs, he = _span(y, sh, pt, kh, H)
            for xo in range(x0, x1 + 1):
                ws, we = _span(xo, sw, pl, kw, W)
                cnt = kh * kw if include_pad else (he - hs) * (we - ws)
                s += dy[n, c, y, xo] / cnt
        dx[n, c, i0, j0] = s


def _launch(kernel, total, *args):
    blocks, threads = elementwise(total)
    kernel[blocks, threads](*args)


def max_pool2d(x, kh, kw, sh, sw, pt, pl, out):
    """out[n, c, y, x] = max over the clipped window of x[n, c]; one thread per output.

    Preconditions: x C-contiguous (N, C, H, W); out (N, C, OH, OW); every window holds at
    least one input element (pt < kh, pl < kw, checked by the operator).
    """
    _launch(_max_pool_kernel, out.size, x, kh, kw, sh, sw, pt, pl, out)


def max_pool2d_grad(x, dy, kh, kw, sh, sw, pt, pl, dx):
    """dx[n, c, argmax of window (y, x)] += dy[n, c, y, x], the argmax recomputed from x;
    every other element of dx is zero.

    One thread per dx element, gathering over the windows that contain it (each window's
    argmax recomputed there). dx: C-contiguous (N, C, H, W), any contents (every element is
    written).
    """
    _launch(_max_pool_grad_kernel, dx.size, x, dy, kh, kw, sh, sw, pt, pl, dx.dtype.type(0), dx)


def avg_pool2d(x, kh, kw, sh, sw, pt, pl, include_pad, out):
    """out[n, c, y, x] = sum of the clipped window / count, where count is kh*kw if
    include_pad else the number of input elements in the window. One thread per output;
    sums accumulate in float64. Same preconditions as max_pool2d.
    """
    _launch(_avg_pool_kernel, out.size, x, kh, kw, sh, sw, pt, pl, include_pad, out)


def avg_pool2d_grad(dy, kh, kw, sh, sw, pt, pl, include_pad, dx):
    """dx[n, c, i, j] = sum of dy[n, c, y, x] / count over the windows (y, x) containing (i, j).

    One thread per dx element (gathered). dx: C-contiguous (N, C, H, W), any contents (every
    element is written).
    """
    _launch(_avg_pool_grad_kernel, dx.size, dy, kh, kw, sh, sw, pt, pl, include_pad,
            dx.dtype.type(0), dx)


@cuda.jit
def _max_pool_argmax_kernel(x, kh, kw, sh, sw, pt, pl, dh, dw, plane_offsets, out, argmax):
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, out.size, stride):
        xo = e % OW
        y = (e // OW) % OH
        c = (e // (OW * OH)) % C
        n = e // (OW * OH * C)
        best = -1
        m = x[n, c, 0, 0]
        for i in range(kh):
            h = y * sh - pt + i * dh
            if h >= 0 and h < H:
                for j in range(kw):
                    w = xo * sw - pl + j * dw
                    if w >= 0 and w < W:
                        v = x[n, c, h, w]
                        if best < 0 or v > m:
                            m = v
                            best = h * W + w
        out[n, c, y, xo] = m
        argmax[n, c, y, xo] = (c * H * W if plane_offsets else 0) + best


@cuda.jit
def _scatter_add_rows_kernel(src, index, zero, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for r in range(start, src.shape[0], stride):
        for k in range(out.shape[1]):
            out[r, k] = zero
        for j in range(src.shape[1]):
            out[r, index[r, j]] += src[r, j]


def max_pool2d_argmax(x, kh, kw, sh, sw, pt, pl, dh, dw, plane_offsets, out, argmax):
    """The CPU kernel's max and argmax (kernels/cpu/pool.py), one thread per output."""
    _launch(_max_pool_argmax_kernel, out.size, x, kh, kw, sh, sw, pt, pl, dh, dw,
            plane_offsets, out, argmax)


def scatter_add_rows(src, index, out):
    """out[r, index[r, j]] += src[r, j], out zeroed first. One thread per row r, which walks its
    row in order: no atomics, and repeated indices sum in the CPU kernel's order."""
    _launch(_scatter_add_rows_kernel, src.shape[0], src, index, out.dtype.type(0), out)


@cuda.jit
def _scatter_rows_kernel(src, index, zero, out, bad):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    width = out.shape[1]
    for r in range(start, src.shape[0], stride):
        for k in range(width):
            out[r, k] = zero
        count = 0
        for j in range(src.shape[1]):
            k = index[r, j]
            if k < 0 or k >= width:
                count += 1
            else:
                out[r, k] = src[r, j]
        if count:
            cuda.atomic.add(bad, 0, count)


@cuda.jit
def _gather_rows_kernel(src, index, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    m = out.shape[1]
    for e in range(start, out.size, stride):
        r = e // m
        j = e % m
        out[r, j] = src[r, index[r, j]]


def scatter_rows(src, index, out, bad):
    """out[r, index[r, j]] = src[r, j], out zeroed first, the last of repeated indices kept;
    out-of-range indices skipped and counted into bad[0] (a zeroed 1-element int64 device
    array). One thread per row, which walks its row in order (no races on repeats)."""
    _launch(_scatter_rows_kernel, src.shape[0], src, index, out.dtype.type(0), out, bad)


def gather_rows(src, index, out):
    """out[r, j] = src[r, index[r, j]], one thread per output element."""
    _launch(_gather_rows_kernel, out.size, src, index, out)
