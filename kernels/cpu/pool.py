"""2-D pooling CPU kernels (NCHW): max and average pooling forward and backward.

Windows are clipped to the input instead of padding it: output (y, x) covers rows
[y*sh - pt, y*sh - pt + kh) ∩ [0, H) and likewise for columns, so padded positions never win a
max and (with include_pad=False) never count in an average. The max-pool backward recomputes
the argmax from the input (the first maximum in row-major window order), as MindSpore's
MaxPoolGrad(x, y, dy) does, instead of storing indices in the forward.
"""
from numba import njit


@njit(cache=True)
def max_pool2d(x, kh, kw, sh, sw, pt, pl, out):
    """out[n, c, y, x] = max over the clipped window of x[n, c].

    Loop nest: for n, c: for y: for x: for the window rows and columns.
    Preconditions: x C-contiguous (N, C, H, W); out (N, C, OH, OW); every window holds at
    least one input element (pt < kh, pl < kw, checked by the operator).
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
                    m = plane[hs, ws]
                    for i in range(hs, he):
                        for j in range(ws, we):
                            if plane[i, j] > m:
                                m = plane[i, j]
                    out[n, c, y, xo] = m


@njit(cache=True)
def max_pool2d_grad(x, dy, kh, kw, sh, sw, pt, pl, dx):
    """dx[n, c, argmax of window (y, x)] += dy[n, c, y, x], the argmax recomputed from x.

    Same loop nest as max_pool2d. dx: C-contiguous (N, C, H, W), zeroed by the caller.
    """
    N, C, H, W = x.shape
    OH, OW = dy.shape[2], dy.shape[3]
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
    """dx[n, c, i, j] += dy[n, c, y, x] / count for every window (y, x) containing (i, j).

    Same loop nest as avg_pool2d. dx: C-contiguous (N, C, H, W), zeroed by the caller.
    """
    N, C, H, W = dx.shape
    OH, OW = dy.shape[2], dy.shape[3]
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
