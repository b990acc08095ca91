"""Numba kernels for the vision transforms: separable resampling of HWC image batches."""
import functools
import math

import numpy as np
from numba import njit


@njit(cache=True)
def resample_taps(src, out, yidx, yw, xidx, xw, to_int, lo, hi, half_even=False):
    """Separable resampling with per-row/per-column tap tables, one image at a time.

    for n:
        tmp[y, ox, c] = sum_{j<Tx} xw[ox,j] * src[n, y, xidx[ox,j], c]          (rows pass)
        acc = sum_{i<Ty} yw[oy,i] * tmp[yidx[oy,i], ox, c]                     (columns pass)
        out[n, oy, ox, c] = clip(round(acc), lo, hi) if to_int else acc
    round: half up, or half to even when half_even (OpenCV's saturate_cast of a float sum).
    Preconditions: src (N,H,W,C) and out (N,OH,OW,C) C-contiguous; yidx/xidx hold int64 indices
    already clamped into [0,H) / [0,W); yw/xw float32, one row per output coordinate.
    Accumulates in float32; the columns pass runs over contiguous (ox, c) so it vectorises.
    """
    n_img, h, ch = src.shape[0], src.shape[1], src.shape[3]
    oh, ow = out.shape[1], out.shape[2]
    ty, tx = yidx.shape[1], xidx.shape[1]
    row_len = ow * ch
    xi = xidx.astype(np.uint64)
    yi = yidx.astype(np.uint64)
    tmp = np.empty((h, row_len), np.float32)
    acc = np.empty(row_len, np.float32)
    for n in range(n_img):
        img = src[n]
        for y in range(h):
            for ox in range(ow):
                for c in range(ch):
                    v = np.float32(0.0)
                    for j in range(tx):
                        v += xw[ox, j] * np.float32(img[y, xi[ox, j], c])
                    tmp[y, ox * ch + c] = v
        dst = out[n].reshape(oh, row_len)
        for oy in range(oh):
            acc[:] = 0.0
            for i in range(ty):
                w = yw[oy, i]
                line = tmp[yi[oy, i]]
                for k in range(row_len):
                    acc[k] += w * line[k]
            if to_int:
                for k in range(row_len):
                    v = np.rint(acc[k]) if half_even else math.floor(acc[k] + np.float32(0.5))
                    dst[oy, k] = min(max(v, lo), hi)
            else:
                for k in range(row_len):
                    dst[oy, k] = acc[k]


@functools.lru_cache(maxsize=64)
def _linear_taps(in_size, out_size):
    """OpenCV INTER_LINEAR: half-pixel centres, source index clamped with weight 0 at the edges."""
    scale = in_size / out_size
    f = (np.arange(out_size, dtype=np.float64) + 0.5) * scale - 0.5
    s = np.floor(f)
    frac = f - s
    s = s.astype(np.int64)
    low = s < 0
    high = s >= in_size - 1
    frac[low | high] = 0.0
    s[low] = 0
    s[high] = in_size - 1
    idx = np.stack([s, np.minimum(s + 1, in_size - 1)], axis=1)
    w = np.stack([1.0 - frac, frac], axis=1)
    return idx, w.astype(np.float32)


@functools.lru_cache(maxsize=64)
def _nearest_taps(in_size, out_size):
    """OpenCV INTER_NEAREST: src = floor(dst * in/out), no half-pixel offset."""
    s = np.minimum(np.floor(np.arange(out_size) * (in_size / out_size)).astype(np.int64),
                   in_size - 1)
    return s[:, None], np.ones((out_size, 1), np.float32)


@functools.lru_cache(maxsize=64)
def _cubic_taps(in_size, out_size, a=-0.75):
    """OpenCV INTER_CUBIC: Keys kernel with a = -0.75, half-pixel centres, replicated border."""
    scale = in_size / out_size
    f = (np.arange(out_size, dtype=np.float64) + 0.5) * scale - 0.5
    s = np.floor(f)
    x = f - s
    w0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    w1 = ((a + 2) * x - (a + 3)) * x * x + 1
    w2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    w3 = 1 - w0 - w1 - w2
    idx = s.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :]
    return np.clip(idx, 0, in_size - 1), np.stack([w0, w1, w2, w3], axis=1).astype(np.float32)


TAPS = {"nearest": _nearest_taps, "linear": _linear_taps, "cubic": _cubic_taps}


@functools.lru_cache(maxsize=64)
def _area_taps(in_size, out_size, box=True):
    """OpenCV INTER_AREA. When both axes shrink (box): each output averages the input cells its
    footprint [o * s, (o + 1) * s) covers, weighted by overlap (computeResizeAreaTab).
    Otherwise, on both axes: linear taps whose fraction is (o + 1) - (floor(o * s) + 1) / s,
    0 when negative, else its fractional part (uint8 may then differ by one from OpenCV's
    11-bit fixed-point linear resize)."""
    scale = in_size / out_size
    if box:
        taps = []
        for o in range(out_size):
            f0, f1 = o * scale, min((o + 1) * scale, in_size)
            lo, hi = math.floor(f0), math.ceil(f1)
            idx = np.arange(lo, hi)
            w = np.minimum(idx + 1, f1) - np.maximum(idx, f0)
            taps.append((idx, w / (f1 - f0)))
        width = max(len(t[0]) for t in taps)
        idx = np.zeros((out_size, width), np.int64)
        w = np.zeros((out_size, width), np.float32)
        for o, (i, ww) in enumerate(taps):
            idx[o, :len(i)] = np.minimum(i, in_size - 1)
            w[o, :len(i)] = ww
        return idx, w
    inv = 1.0 / scale
    o = np.arange(out_size)
    s = np.floor(o * scale).astype(np.int64)
    frac = (o + 1) - (s + 1) * inv
    frac = np.where(frac <= 0, 0.0, frac - np.floor(frac))
    idx = np.stack([np.minimum(s, in_size - 1), np.minimum(s + 1, in_size - 1)], axis=1)
    w = np.stack([1.0 - frac, frac], axis=1)
    return idx, w.astype(np.float32)


TAPS["area"] = _area_taps


def resize(op, img, oh, ow, taps_name):
    """Resample a batch (N, H, W, C) to (oh, ow) with the named OpenCV taps; integer images
    are rounded to nearest and saturated, float images stay float."""
    if img.dtype.kind not in "uif":
        raise TypeError(f"{op}: images must be numeric, got {img.dtype}.")
    n, h, w, c = img.shape
    if taps_name == "linear" and img.dtype == np.uint8:
        xofs, xalpha = linear_fixed_taps(w, ow)
        yofs, ybeta = linear_fixed_taps(h, oh, clamp=False)
        out = np.empty((n, oh, ow, c), np.uint8)
        resize_linear_u8(np.ascontiguousarray(img), out, xofs, xalpha, yofs, ybeta)
        return out
    if taps_name == "area":
        box = h >= oh and w >= ow
        (yidx, yw), (xidx, xw) = _area_taps(h, oh, box), _area_taps(w, ow, box)
    else:
        yidx, yw = TAPS[taps_name](h, oh)
        xidx, xw = TAPS[taps_name](w, ow)
    out = np.empty((n, oh, ow, c), img.dtype)
    to_int = img.dtype.kind in "ui"
    info = np.iinfo(img.dtype) if to_int else None
    # INTER_AREA's shrinking path sums in float and rounds with saturate_cast (half to even)
    resample_taps(np.ascontiguousarray(img), out, yidx, yw, xidx, xw, to_int,
                  int(info.min) if to_int else 0, int(info.max) if to_int else 0,
                  taps_name == "area")
    return out


@njit(cache=True)
def resize_linear_u8(src, out, xofs, xalpha, yofs, ybeta):
    """OpenCV 4.5's uint8 INTER_LINEAR resize, fixed point with 11-bit coefficients.

    rows:    D[x] = S[xofs[x]] * xalpha[x, 0] + S[xofs[x] + C] * xalpha[x, 1]   (int, exact)
    columns: ((((D0 >> 4) * b0) >> 16) + (((D1 >> 4) * b1) >> 16) + 2) >> 2, saturated to
             [0, 255] (its SIMD arithmetic, which MindSpore's build applies to whole rows).
    Preconditions: src (N,H,W,C), out (N,OH,OW,C) uint8; xofs (OW,) source columns with
    xalpha (OW, 2) int64 (weight 0 on a clamped second tap); yofs (OH,) may lie outside
    [0, H): OpenCV clamps the rows, not the vertical weights ybeta (OH, 2) int64.
    """
    n_img, h, w, ch = src.shape
    oh, ow = out.shape[1], out.shape[2]
    row_len = ow * ch
    rows = np.empty((h, row_len), np.int64)
    for n in range(n_img):
        for y in range(h):
            for ox in range(ow):
                sx = xofs[ox]
                sx1 = min(sx + 1, w - 1)
                for c in range(ch):
                    rows[y, ox * ch + c] = np.int64(src[n, y, sx, c]) * xalpha[ox, 0] + \
                        np.int64(src[n, y, sx1, c]) * xalpha[ox, 1]
        for oy in range(oh):
            r0 = rows[min(max(yofs[oy], 0), h - 1)]
            r1 = rows[min(max(yofs[oy] + 1, 0), h - 1)]
            b0, b1 = ybeta[oy, 0], ybeta[oy, 1]
            dst = out[n, oy].reshape(row_len)
            for k in range(row_len):
                v = (((((r0[k] >> 4) * b0) >> 16) + (((r1[k] >> 4) * b1) >> 16)) + 2) >> 2
                dst[k] = min(max(v, 0), 255)


@functools.lru_cache(maxsize=64)
def linear_fixed_taps(in_size, out_size, clamp=True):
    """OpenCV's INTER_LINEAR source index and 11-bit weights per output coordinate: the float
    position (o + 0.5) / (out / in) - 0.5; horizontally (clamp) an edge position takes the
    edge pixel with weight 0 on the far tap, vertically it keeps its weights."""
    scale = 1.0 / (out_size / in_size)
    f = ((np.arange(out_size, dtype=np.float64) + 0.5) * scale - 0.5).astype(np.float32)
    s = np.floor(f).astype(np.int64)
    frac = (f - s.astype(np.float32)).astype(np.float32)
    if clamp:
        low, high = s < 0, s >= in_size - 1
        frac[low | high] = 0
        s[low] = 0
        s[high] = in_size - 1
    alpha = np.stack([np.float32(1) - frac, frac], axis=1).astype(np.float32)
    return s, np.rint(alpha.astype(np.float64) * 2048).astype(np.int64)

