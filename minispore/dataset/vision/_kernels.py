"""Numba kernels for the vision transforms: separable resampling of HWC image batches."""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def resample_taps(src, out, yidx, yw, xidx, xw, to_int, lo, hi):
    """Separable resampling with per-row/per-column tap tables.

    for n, oy, ox, c:
        acc = sum_{i<Ty, j<Tx} yw[oy,i] * xw[ox,j] * src[n, yidx[oy,i], xidx[ox,j], c]
        out[n, oy, ox, c] = clip(floor(acc + 0.5), lo, hi) if to_int else acc
    Preconditions: src (N,H,W,C) and out (N,OH,OW,C) C-contiguous; yidx/xidx hold int64 indices
    already clamped into [0,H) / [0,W); yw/xw float32, one row per output coordinate.
    Accumulates in float32.
    """
    n_img, oh, ow, ch = out.shape
    ty = yidx.shape[1]
    tx = xidx.shape[1]
    for n in range(n_img):
        for oy in range(oh):
            for ox in range(ow):
                for c in range(ch):
                    acc = np.float32(0.0)
                    for i in range(ty):
                        sy = yidx[oy, i]
                        row = np.float32(0.0)
                        for j in range(tx):
                            row += xw[ox, j] * np.float32(src[n, sy, xidx[ox, j], c])
                        acc += yw[oy, i] * row
                    if to_int:
                        v = math.floor(acc + np.float32(0.5))
                        out[n, oy, ox, c] = min(max(v, lo), hi)
                    else:
                        out[n, oy, ox, c] = acc


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


def _nearest_taps(in_size, out_size):
    """OpenCV INTER_NEAREST: src = floor(dst * in/out), no half-pixel offset."""
    s = np.minimum(np.floor(np.arange(out_size) * (in_size / out_size)).astype(np.int64),
                   in_size - 1)
    return s[:, None], np.ones((out_size, 1), np.float32)


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
