"""2-D pooling CPU kernels (NCHW): max and average pooling forward and backward.

Windows are clipped to the input instead of padding it: output (y, x) covers rows
[y*sh - pt, y*sh - pt + kh) ∩ [0, H) and likewise for columns, so padded positions never win a
max and (with include_pad=False) never count in an average. The max-pool backward recomputes
the argmax from the input (the first maximum in row-major window order), as MindSpore's
MaxPoolGrad(x, y, dy) does, instead of storing indices in the forward.

Max pooling over 2x2 windows at stride 2 that all lie inside the input (LeNet's and VGG's
pools) takes a fast path: the windows are disjoint, so it runs on flat uint64 indices (no
wraparound checks) without data-dependent branches. The general loops pay a mispredicted
`v > m` branch about every other cell on real data (8 ns per 2x2 window); the fast path is
4.6x (backward) and 9-15x (forward) faster on LeNet's shapes. It compares the cells in the general
loops' order, so ties and NaNs come out the same: a NaN wins its window only as the window's
first cell (every later comparison with it is false) and is passed over anywhere else.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def _is_2x2_stride_2(kh, kw, sh, sw, pt, pl, oh, ow, h, w):
    """Whether every output window is the in-bounds 2x2 block at (2y, 2x)."""
    return (kh == 2 and kw == 2 and sh == 2 and sw == 2 and pt == 0 and pl == 0
            and 2 * oh <= h and 2 * ow <= w)


@njit(cache=True)
def max_pool2d(x, kh, kw, sh, sw, pt, pl, out):
    """out[n, c, y, x] = max over the clipped window of x[n, c].

    Loop nest: for n, c: for y: for x: for the window rows and columns (the 2x2 stride-2 path:
    for n*c planes: for y: for x, the four cells compared in straight-line code).
    Preconditions: x C-contiguous (N, C, H, W); out C-contiguous (N, C, OH, OW); every window
    holds at least one input element (pt < kh, pl < kw, checked by the operator).
    """
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    if _is_2x2_stride_2(kh, kw, sh, sw, pt, pl, OH, OW, H, W):
        _max_pool_2x2(x, out)
        return
    for n in range(N):
        for c in range(C):
            plane = x[n, c]
            for y in range(OH):
                h0 = y * sh - pt
                hs, he = max(h0, 0), min(h0 + kh, H)
                for xo in range(OW):
                    w0 = xo * sw - pl
                    ws, we = max(w0, 0), min(w0 + kw, W)
                    m = plane[hs, ws]
                    for i in range(hs, he):
                        for j in range(ws, we):
                            if plane[i, j] > m:
                                m = plane[i, j]
                    out[n, c, y, xo] = m


@njit(cache=True)
def _max_pool_2x2(x, out):
    """max_pool2d for 2x2 windows at stride 2 inside the input: the select chain compiles to
    vector max instructions over each output row."""
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    xf, of = x.reshape(-1), out.reshape(-1)
    planes = np.uint64(N * C)
    uh, uw, uoh, uow = np.uint64(H), np.uint64(W), np.uint64(OH), np.uint64(OW)
    one, two = np.uint64(1), np.uint64(2)
    for p in range(planes):
        for y in range(uoh):
            top = (p * uh + two * y) * uw
            bottom = top + uw
            row = (p * uoh + y) * uow
            for xo in range(uow):
                j = two * xo
                m = xf[top + j]
                v = xf[top + j + one]
                m = v if v > m else m
                v = xf[bottom + j]
                m = v if v > m else m
                v = xf[bottom + j + one]
                m = v if v > m else m
                of[row + xo] = m


@njit(cache=True)
def max_pool2d_grad(x, dy, kh, kw, sh, sw, pt, pl, dx):
    """dx[n, c, argmax of window (y, x)] += dy[n, c, y, x], the argmax recomputed from x;
    every other element of dx is zero.

    Same loop nest as max_pool2d, after zeroing dx (the 2x2 stride-2 path writes every
    element once instead). x, dy: C-contiguous; dx: C-contiguous (N, C, H, W), any contents.
    """
    N, C, H, W = x.shape
    OH, OW = dy.shape[2], dy.shape[3]
    if _is_2x2_stride_2(kh, kw, sh, sw, pt, pl, OH, OW, H, W):
        _max_pool_2x2_grad(x, dy, dx)
        return
    dx[:] = 0
    for n in range(N):
        for c in range(C):
            plane = x[n, c]
            for y in range(OH):
                h0 = y * sh - pt
                hs, he = max(h0, 0), min(h0 + kh, H)
                for xo in range(OW):
                    w0 = xo * sw - pl
                    ws, we = max(w0, 0), min(w0 + kw, W)
                    m = plane[hs, ws]
                    mi, mj = hs, ws
                    for i in range(hs, he):
                        for j in range(ws, we):
                            if plane[i, j] > m:
                                m = plane[i, j]
                                mi, mj = i, j
                    dx[n, c, mi, mj] += dy[n, c, y, xo]


@njit(cache=True, inline="always")
def _route_2x2(xf, g, gf, top, bottom, j, zero):
    """Write g to the first maximum of the 2x2 window at columns (j, j+1) of rows top and
    bottom (flat offsets) and zero to its other three cells; comparisons become masks."""
    one = np.uint64(1)
    a, b = xf[top + j], xf[top + j + one]
    c, d = xf[bottom + j], xf[bottom + j + one]
    b_wins = b > a
    m = b if b_wins else a
    c_wins = c > m
    m = c if c_wins else m
    d_wins = d > m
    # A later winner overrides an earlier one; the first cell wins when nothing beats it.
    c_wins = c_wins & (not d_wins)
    b_wins = b_wins & (not (c_wins | d_wins))
    gf[top + j] = zero if (b_wins | c_wins | d_wins) else g
    gf[top + j + one] = g if b_wins else zero
    gf[bottom + j] = g if c_wins else zero
    gf[bottom + j + one] = g if d_wins else zero


@njit(cache=True)
def _max_pool_2x2_grad(x, dy, dx):
    """max_pool2d_grad for 2x2 windows at stride 2 inside the input: each window writes its
    four cells, and the rows and columns no window covers (odd H or W) are zeroed.

    The windows of a row go four at a time through a constant-count inner loop, which LLVM
    unrolls into straight-line scalar code. Left to itself it vectorises the row loop, and the
    per-row setup (alias checks, permutes) then costs more than it saves on LeNet's 5- and
    14-window rows (0.30 vs 0.17 ms on (256, 16, 10, 10)).
    """
    N, C, H, W = x.shape
    OH, OW = dy.shape[2], dy.shape[3]
    xf, df, gf = x.reshape(-1), dy.reshape(-1), dx.reshape(-1)
    zero = dx.dtype.type(0)
    planes = np.uint64(N * C)
    uh, uw, uoh, uow = np.uint64(H), np.uint64(W), np.uint64(OH), np.uint64(OW)
    two, four = np.uint64(2), np.uint64(4)
    blocks = uow // four
    for p in range(planes):
        for y in range(uoh):
            top = (p * uh + two * y) * uw
            bottom = top + uw
            row = (p * uoh + y) * uow
            for blk in range(blocks):
                for u in range(four):
                    xo = blk * four + u
                    _route_2x2(xf, df[row + xo], gf, top, bottom, two * xo, zero)
            for xo in range(blocks * four, uow):
                _route_2x2(xf, df[row + xo], gf, top, bottom, two * xo, zero)
            for j in range(two * uow, uw):
                gf[top + j] = zero
                gf[bottom + j] = zero
        for i in range(two * uoh, uh):
            for j in range(uw):
                gf[(p * uh + i) * uw + j] = zero


@njit(cache=True)
def avg_pool2d(x, kh, kw, sh, sw, pt, pl, include_pad, out):
    """out[n, c, y, x] = sum of the clipped window / count, where count is kh*kw if
    include_pad else the number of input elements in the window.

    Same loop nest and preconditions as max_pool2d. Sums accumulate in float64.
    """
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    for n in range(N):
        for c in range(C):
            plane = x[n, c]
            for y in range(OH):
                h0 = y * sh - pt
                hs, he = max(h0, 0), min(h0 + kh, H)
                for xo in range(OW):
                    w0 = xo * sw - pl
                    ws, we = max(w0, 0), min(w0 + kw, W)
                    s = 0.0
                    for i in range(hs, he):
                        for j in range(ws, we):
                            s += plane[i, j]
                    cnt = kh * kw if include_pad else (he - hs) * (we - ws)
                    out[n, c, y, xo] = s / cnt


@njit(cache=True)
def avg_pool2d_grad(dy, kh, kw, sh, sw, pt, pl, include_pad, dx):
    """dx[n, c, i, j] = sum of dy[n, c, y, x] / count over the windows (y, x) containing (i, j).

    Same loop nest as avg_pool2d, after zeroing dx. dx: C-contiguous (N, C, H, W), any contents.
    """
    N, C, H, W = dx.shape
    OH, OW = dy.shape[2], dy.shape[3]
    dx[:] = 0
    for n in range(N):
        for c in range(C):
            for y in range(OH):
                h0 = y * sh - pt
                hs, he = max(h0, 0), min(h0 + kh, H)
                for xo in range(OW):
                    w0 = xo * sw - pl
                    ws, we = max(w0, 0), min(w0 + kw, W)
                    cnt = kh * kw if include_pad else (he - hs) * (we - ws)
                    g = dy[n, c, y, xo] / dx.dtype.type(cnt)
                    for i in range(hs, he):
                        for j in range(ws, we):
                            dx[n, c, i, j] += g


@njit(cache=True)
def max_pool2d_argmax(x, kh, kw, sh, sw, pt, pl, dh, dw, plane_offsets, out, argmax):
    """out[n, c, y, x] = max of x[n, c] over the dilated window, argmax[n, c, y, x] = its flat
    position h * W + w in the (H, W) plane, plus c * H * W when plane_offsets (MaxPoolWithArgmax's
    index into one sample's (C, H, W)).

    The window of (y, x) holds rows y*sh - pt + i*dh (i < kh) and columns x*sw - pl + j*dw
    (j < kw) that lie inside the input; the first maximum in row-major window order wins (a
    NaN wins only as the first in-bounds cell, as in max_pool2d).
    Loop nest: for n, c: for y, x: for the window rows, columns.
    Preconditions: x C-contiguous (N, C, H, W); out and argmax (N, C, OH, OW); every window
    holds at least one input element (checked by the operator).
    """
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    for n in range(N):
        for c in range(C):
            base = c * H * W if plane_offsets else 0
            for y in range(OH):
                for xo in range(OW):
                    best = -1
                    m = x[n, c, 0, 0]
                    for i in range(kh):
                        h = y * sh - pt + i * dh
                        if h < 0 or h >= H:
                            continue
                        for j in range(kw):
                            w = xo * sw - pl + j * dw
                            if w < 0 or w >= W:
                                continue
                            v = x[n, c, h, w]
                            if best < 0 or v > m:
                                m = v
                                best = h * W + w
                    out[n, c, y, xo] = m
                    argmax[n, c, y, xo] = base + best


@njit(cache=True)
def scatter_add_rows(src, index, out):
    """out[r, index[r, j]] += src[r, j] for every j, out zeroed first: the gradient of the
    argmax pools (rows are the (n, c) planes, or the samples for MaxPoolWithArgmax).

    Loop nest: for r: for j, in order, so repeated indices sum in a fixed order.
    Preconditions: src and index (R, M), out (R, K) C-contiguous; 0 <= index < K.
    """
    out[:] = 0
    for r in range(src.shape[0]):
        for j in range(src.shape[1]):
            out[r, index[r, j]] += src[r, j]


@njit(cache=True)
def scatter_rows(src, index, out, bad):
    """out[r, index[r, j]] = src[r, j], out zeroed first, j in order so a repeated index keeps
    the last value (MaxUnpool). Indices outside [0, K) are skipped and counted into bad[0].
    Preconditions: src and index (R, M), out (R, K) C-contiguous; bad a 1-element int64 array.
    """
    out[:] = 0
    width = out.shape[1]
    count = 0
    for r in range(src.shape[0]):
        for j in range(src.shape[1]):
            k = index[r, j]
            if k < 0 or k >= width:
                count += 1
            else:
                out[r, k] = src[r, j]
    bad[0] = count


@njit(cache=True)
def gather_rows(src, index, out):
    """out[r, j] = src[r, index[r, j]] (MaxUnpool's gradient).
    Preconditions: src (R, K), index and out (R, M) C-contiguous; 0 <= index < K."""
    for r in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[r, j] = src[r, index[r, j]]
