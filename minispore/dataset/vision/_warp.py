"""OpenCV 4.5's warpAffine (BORDER_CONSTANT) as a Numba kernel, with the affine matrices
MindSpore 2.7 builds for Rotate and Affine.

OpenCV maps each destination pixel through the inverse matrix in fixed point: coordinates carry
10 fractional bits (the row and column terms rounded separately), nearest keeps the rounded
pixel, and linear/cubic keep 5 fractional bits (a 32-step table) for their weights. uint8
images use 15-bit integer weights (rounded, then nudged so they sum to 1 << 15) and round the
sum half up; float32 images use the same quantized weights in float32. Taps outside
the image take the fill value. Reproducing these steps makes the uint8 results bit-exact.
"""
import functools
import math

import numpy as np
from numba import njit

NEAREST, LINEAR, CUBIC = 0, 1, 2
_AB_BITS = 10
_TAB = 32
_COEF_BITS = 15


@njit(cache=True)
def _cv_round(v):
    """cvRound: nearest integer, halves to even (lrint in the default rounding mode)."""
    r = math.floor(v)
    d = v - r
    if d > 0.5 or (d == 0.5 and r % 2 != 0):
        r += 1
    return np.int64(r)


@njit(cache=True)
def warp_affine(src, out, minv, mode, cval, wtab_f, wtab_i, to_int, lo, hi):
    """out[n, y, x, c] = src sampled at minv[n] @ (x, y, 1), OpenCV's fixed-point way.

    for n, y, x:
        X = round(minv1*y + minv2, 10 bits) + round(minv0*x, 10 bits) + half
        nearest: sx = X >> 10;  linear/cubic: X >>= 5, sx = X >> 5, fx = X & 31 (same for y)
        out = sum_taps w[fy, fx, tap] * (src[tap] if inside else cval[c])
    Preconditions: src (N,H,W,C), out (N,OH,OW,C) C-contiguous; minv (N,6) float64 inverse
    matrices; cval (C,) float64; wtab_f/wtab_i (32*32, K*K) float and int32 weight tables for
    K = 2 (linear) or 4 (cubic); to_int: integer output, sum in int64 then
    (sum + 2**14) >> 15 clipped to [lo, hi]; otherwise summed in float32 in OpenCV's
    order (bilinear v0*w0 + v1*w1 + v2*w2 + v3*w3; bicubic row sums, or cval + sum of
    (v - cval) * w when a tap falls outside).
    """
    n_img, h, w, ch = src.shape
    oh, ow = out.shape[1], out.shape[2]
    ab_scale = 1 << _AB_BITS
    rdelta = ab_scale // 2 if mode == NEAREST else ab_scale // _TAB // 2
    ksize = 2 if mode == LINEAR else 4
    koff = 0 if mode == LINEAR else 1
    adelta = np.empty(ow, np.int64)
    bdelta = np.empty(ow, np.int64)
    for n in range(n_img):
        m = minv[n]
        img = src[n]
        for x in range(ow):
            adelta[x] = _cv_round(m[0] * x * ab_scale)
            bdelta[x] = _cv_round(m[3] * x * ab_scale)
        for y in range(oh):
            x0 = _cv_round((m[1] * y + m[2]) * ab_scale) + rdelta
            y0 = _cv_round((m[4] * y + m[5]) * ab_scale) + rdelta
            for x in range(ow):
                xx = x0 + adelta[x]
                yy = y0 + bdelta[x]
                if mode == NEAREST:
                    sx = xx >> _AB_BITS
                    sy = yy >> _AB_BITS
                    inside = 0 <= sx < w and 0 <= sy < h
                    for c in range(ch):
                        out[n, y, x, c] = img[sy, sx, c] if inside else cval[c]
                    continue
                xx >>= _AB_BITS - 5
                yy >>= _AB_BITS - 5
                sx = (xx >> 5) - koff
                sy = (yy >> 5) - koff
                row = (yy & 31) * _TAB + (xx & 31)
                all_in = 0 <= sx and sx + ksize <= w and 0 <= sy and sy + ksize <= h
                none_in = sx >= w or sx + ksize <= 0 or sy >= h or sy + ksize <= 0
                for c in range(ch):
                    if none_in:
                        out[n, y, x, c] = cval[c]
                        continue
                    if to_int:
                        acc = np.int64(0)
                        for i in range(ksize):
                            yi = sy + i
                            for j in range(ksize):
                                xj = sx + j
                                v = img[yi, xj, c] if 0 <= yi < h and 0 <= xj < w else cval[c]
                                acc += np.int64(v) * wtab_i[row, i * ksize + j]
                        r = (acc + (1 << (_COEF_BITS - 1))) >> _COEF_BITS
                        out[n, y, x, c] = min(max(r, lo), hi)
                    elif mode == LINEAR or all_in:
                        acc_f = np.float32(0)
                        for i in range(ksize):
                            yi = sy + i
                            rs = np.float32(0)
                            for j in range(ksize):
                                xj = sx + j
                                v = img[yi, xj, c] if 0 <= yi < h and 0 <= xj < w else cval[c]
                                t = np.float32(v) * np.float32(wtab_f[row, i * ksize + j])
                                if mode == LINEAR:
                                    acc_f += t
                                else:
                                    rs = t if j == 0 else rs + t
                            if mode != LINEAR:
                                acc_f = rs if i == 0 else acc_f + rs
                        out[n, y, x, c] = acc_f
                    else:
                        cv = np.float32(cval[c])
                        acc_f = cv * np.float32(1.0)
                        for i in range(ksize):
                            yi = sy + i
                            if yi < 0 or yi >= h:
                                continue
                            for j in range(ksize):
                                xj = sx + j
                                if 0 <= xj < w:
                                    acc_f += (np.float32(img[yi, xj, c]) - cv) * \
                                        np.float32(wtab_f[row, i * ksize + j])
                        out[n, y, x, c] = acc_f


def _coeffs_1d(mode):
    """OpenCV's per-fraction 1-D coefficients in float32 (x = i / 32)."""
    x = (np.float32(1.0 / _TAB) * np.arange(_TAB, dtype=np.float32)).astype(np.float32)
    if mode == LINEAR:
        return np.stack([np.float32(1) - x, x], axis=1)
    a = np.float32(-0.75)
    one = np.float32(1)
    c0 = ((a * (x + one) - np.float32(5) * a) * (x + one) + np.float32(8) * a) * (x + one) - \
        np.float32(4) * a
    c1 = ((a + np.float32(2)) * x - (a + np.float32(3))) * x * x + one
    c2 = ((a + np.float32(2)) * (one - x) - (a + np.float32(3))) * (one - x) * (one - x) + one
    c3 = one - c0 - c1 - c2
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.float32)


@functools.lru_cache(maxsize=4)
def weight_tables(mode):
    """(float table, int table), each (32*32, K*K): OpenCV's initInterTab2D."""
    c = _coeffs_1d(mode)
    k = c.shape[1]
    ftab = np.empty((_TAB * _TAB, k * k), np.float32)
    itab = np.empty((_TAB * _TAB, k * k), np.int32)
    for i in range(_TAB):
        for j in range(_TAB):
            v = (c[i][:, None] * c[j][None, :]).astype(np.float32)
            iv = np.rint(v.astype(np.float64) * (1 << _COEF_BITS)).astype(np.int32)
            diff = int(iv.sum()) - (1 << _COEF_BITS)
            if diff:
                # nudge the largest (or smallest) of the central 2 x 2 weights, as OpenCV does
                k2 = k // 2
                mk = big = (k2, k2)
                for a in range(k2, k2 + 2):
                    for b in range(k2, k2 + 2):
                        if iv[a, b] < iv[mk]:
                            mk = (a, b)
                        elif iv[a, b] > iv[big]:
                            big = (a, b)
                if diff < 0:
                    iv[big] -= diff
                else:
                    iv[mk] -= diff
            ftab[i * _TAB + j] = v.ravel()
            itab[i * _TAB + j] = iv.ravel()
    return ftab, itab


def invert(m):
    """OpenCV's inverse of a 2 x 3 affine matrix, in float64 (singular -> zeros)."""
    m = [float(v) for v in m]
    d = m[0] * m[4] - m[1] * m[3]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22 = m[4] * d, m[0] * d
    m0, m1, m3, m4 = a11, m[1] * -d, m[3] * -d, a22
    return np.array([m0, m1, -m0 * m[2] - m1 * m[5], m3, m4, -m3 * m[2] - m4 * m[5]])


def rotation_matrix(cx, cy, degrees):
    """cv::getRotationMatrix2D(Point2f(cx, cy), degrees, 1.0): counter-clockwise."""
    cx, cy = float(np.float32(cx)), float(np.float32(cy))
    angle = float(np.float32(degrees)) * math.pi / 180
    alpha, beta = math.cos(angle), math.sin(angle)
    return np.array([alpha, beta, (1 - alpha) * cx - beta * cy,
                     -beta, alpha, beta * cx + (1 - alpha) * cy])


def rotated_bbox(cx, cy, w, h, degrees):
    """cv::RotatedRect(center, (w, h), degrees).boundingRect2f() as (width, height) floats."""
    f = np.float32
    cx, cy, w, h = f(cx), f(cy), f(w), f(h)
    angle = float(f(degrees)) * math.pi / 180
    b = f(math.cos(angle)) * f(0.5)
    a = f(math.sin(angle)) * f(0.5)
    p0 = (cx - a * h - b * w, cy + b * h - a * w)
    p1 = (cx + a * h - b * w, cy - b * h - a * w)
    p2 = (f(2) * cx - p0[0], f(2) * cy - p0[1])
    p3 = (f(2) * cx - p1[0], f(2) * cy - p1[1])
    xs, ys = (p0[0], p1[0], p2[0], p3[0]), (p0[1], p1[1], p2[1], p3[1])
    return float(max(xs) - min(xs)), float(max(ys) - min(ys))


def affine_matrix(h, w, degrees, translation, scale, shear):
    """MindSpore's GetAffineMatrix (float32): rotation about the centre ((w-1)/2, (h-1)/2)
    with scale and shear (degrees), then translation in pixels."""
    f = np.float32
    rad = f(math.pi * float(f(degrees)) / 180.0)
    sx = f(math.pi * float(f(shear[0])) / 180.0)
    sy = f(math.pi * float(f(-f(shear[1]))) / 180.0)
    cx, cy = f((w - 1) / 2.0), f((h - 1) / 2.0)
    s, a, shx, shy = float(f(scale)), float(rad), float(sx), float(sy)
    m0 = f(s * math.cos(a + shy) / math.cos(shy))
    m1 = f(s * (-math.cos(a + shy) * math.tan(shx) / math.cos(shy) - math.sin(a)))
    m3 = f(s * math.sin(a + shy) / math.cos(shy))
    m4 = f(s * (-math.sin(a + shy) * math.tan(shx) / math.cos(shy) + math.cos(a)))
    m2 = (f(1) - m0) * cx - m1 * cy + f(translation[0])
    m5 = (f(1) - m4) * cy - m3 * cx + f(translation[1])
    return np.array([m0, m1, m2, m3, m4, m5], np.float32).astype(np.float64)


def warp(op, img, mats, out_hw, mode, fill):
    """warpAffine of a batch (N, H, W, C) with forward matrices mats (N, 6) into out_hw."""
    if img.dtype not in (np.uint8, np.float32):
        raise NotImplementedError(f"{op}: {img.dtype} images (uint8 and float32 images are "
                                  f"implemented).")
    n, _, _, c = img.shape
    minv = np.stack([invert(m) for m in mats]) if n else np.zeros((0, 6))
    cval = np.resize(np.asarray(fill, np.float64), c)
    out = np.empty((n, out_hw[0], out_hw[1], c), img.dtype)
    ftab, itab = weight_tables(mode) if mode != NEAREST else weight_tables(LINEAR)
    warp_affine(np.ascontiguousarray(img), out, minv, mode, cval, ftab, itab,
                img.dtype == np.uint8, 0, 255)
    return out
