"""GaussianBlur and the sharpness family (AdjustSharpness, RandomSharpness,
RandomAdjustSharpness) as MindSpore 2.7 runs them through OpenCV 4.5: GaussianBlur's uint8 path
is OpenCV's bit-exact fixed-point separable filter (8-bit kernel taps, error-diffused so they
sum to 256), its float path a float32 separable filter; both mirror the border (REFLECT_101).
Sharpness smooths with the 3 x 3 kernel [1 1 1; 1 5 1; 1 1 1] / 13 (edges kept) and blends."""
import math

import numpy as np
from numba import njit

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk
from minispore.dataset.vision._image import image_batch, restore

FLOAT_MAX_INTEGER = 16777216


@njit(cache=True)
def _reflect101(i, n):
    if n == 1:
        return 0
    while i < 0 or i >= n:
        i = -i if i < 0 else 2 * n - 2 - i
    return i


@njit(cache=True)
def sep_filter_u8(src, out, kx, ky):
    """uint8 separable filter in OpenCV's fixed point: kx, ky int64 taps in 1/256 units.

    for n, c: row[y, x] = sum_j kx[j] * src[y, reflect(x + j - rx)]        (exact, 1/256)
              out[y, x] = (sum_i ky[i] * row[reflect(y + i - ry), x] + 2**15) >> 16, <= 255
    """
    n_img, h, w, ch = src.shape
    rx, ry = len(kx) // 2, len(ky) // 2
    row = np.empty((h, w), np.int64)
    for n in range(n_img):
        for c in range(ch):
            for y in range(h):
                for x in range(w):
                    acc = np.int64(0)
                    for j in range(len(kx)):
                        acc += kx[j] * np.int64(src[n, y, _reflect101(x + j - rx, w), c])
                    row[y, x] = acc
            for y in range(h):
                for x in range(w):
                    acc = np.int64(0)
                    for i in range(len(ky)):
                        acc += ky[i] * row[_reflect101(y + i - ry, h), x]
                    out[n, y, x, c] = min((acc + 32768) >> 16, 255)


@njit(cache=True)
def sep_filter_f32(src, out, kx, ky):
    """float32 separable filter with symmetric float32 taps, OpenCV's symmetric order:
    k[r] * v[0] + sum_j k[r - j] * (v[-j] + v[j]), rows then columns, borders REFLECT_101."""
    n_img, h, w, ch = src.shape
    rx, ry = len(kx) // 2, len(ky) // 2
    row = np.empty((h, w), np.float32)
    for n in range(n_img):
        for c in range(ch):
            for y in range(h):
                for x in range(w):
                    acc = kx[rx] * src[n, y, x, c]
                    for j in range(1, rx + 1):
                        acc += kx[rx - j] * (src[n, y, _reflect101(x - j, w), c] +
                                             src[n, y, _reflect101(x + j, w), c])
                    row[y, x] = acc
            for y in range(h):
                for x in range(w):
                    acc = ky[ry] * row[y, x]
                    for i in range(1, ry + 1):
                        acc += ky[ry - i] * (row[_reflect101(y - i, h), x] +
                                             row[_reflect101(y + i, h), x])
                    out[n, y, x, c] = acc


def gaussian_kernel(n, sigma):
    """getGaussianKernelBitExact for sigma > 0, in float64 (taps at even offsets x = 2 i,
    exp(-x^2 / (8 sigma^2)), normalised with the centre's 1)."""
    scale2 = -0.5 * 0.25 / (sigma * sigma)
    half = (n - 1) // 2
    vals = [math.exp(float(x * x) * scale2) for x in range(1 - n, 1 - n + 2 * half, 2)]
    total = sum(vals) * 2 + 1.0
    k = np.empty(n)
    for i, v in enumerate(vals):
        k[i] = k[n - 1 - i] = v / total
    k[half] = 1.0 / total
    return k


def fixed_point_kernel(k):
    """OpenCV's getGaussianKernelFixedPoint_ED with 8 fraction bits: taps rounded with the
    error carried to the next one, the centre taking what makes the sum 256."""
    n = len(k)
    out = np.empty(n, np.int64)
    err, total = 0.0, 0
    for i in range(n // 2):
        adj = k[i] * 256.0 + err
        v = int(np.rint(adj))
        err = adj - v
        out[i] = out[n - 1 - i] = v
        total += v
    out[n // 2] = int(np.rint(256.0 - 2 * total))
    return out


def _sigmas(kernel_size, sigma):
    """MindSpore's GaussianBlurOperation: a sigma <= 0 becomes float32(k * 0.15 + 0.35) of its
    kernel side; a single sigma serves both axes."""
    f = np.float32
    auto = [f(f(k) * f(0.15) + f(0.35)) for k in kernel_size]
    sx = auto[0] if sigma[0] <= 0 else f(sigma[0])
    sy = sx if len(sigma) == 1 else (auto[1] if sigma[1] <= 0 else f(sigma[1]))
    return float(sx), float(sy)


def _gaussian(img, kw, kh, sx, sy):
    kx, ky = gaussian_kernel(kw, sx), gaussian_kernel(kh, sy)
    src = np.ascontiguousarray(img)
    out = np.empty_like(src)
    if img.dtype == np.uint8:
        sep_filter_u8(src, out, fixed_point_kernel(kx), fixed_point_kernel(ky))
    else:
        sep_filter_f32(src, out, kx.astype(np.float32), ky.astype(np.float32))
    return out


class GaussianBlur(TensorOperation):
    """Blur with a Gaussian of kernel_size = (width, height) (odd) and sigma = (x, y) (a number
    for both; None or 0: 0.15 size + 0.35 of that side, as MindSpore sets it). uint8 results equal
    OpenCV's bit-exact fixed point; float32 agrees to float32 rounding."""

    def __init__(self, kernel_size, sigma=None):
        op = "GaussianBlur"
        chk.type_check(op, "kernel_size", kernel_size, (int, list, tuple))
        if isinstance(kernel_size, int):
            kernel_size = (kernel_size, kernel_size)
        elif len(kernel_size) != 2:
            raise TypeError(f"{op}: Kernel size should be a single integer or a list/tuple "
                            f"(kernel_width, kernel_height) of length 2, got {kernel_size!r}.")
        for i, k in enumerate(kernel_size):
            chk.type_check(op, f"kernel_size[{i}]", k, (int,))
            chk.range_check(op, "kernel_size", k, 1, FLOAT_MAX_INTEGER)
            if k % 2 == 0:
                raise ValueError(f"{op}: Input kernel_size[{i}] is not an odd value, got {k}.")
        if sigma is None:
            sigma = (0.0,)
        elif isinstance(sigma, (int, float)) and not isinstance(sigma, bool):
            chk.range_check(op, "sigma", sigma, 0, FLOAT_MAX_INTEGER)
            sigma = (float(sigma),)
        elif isinstance(sigma, (list, tuple)) and len(sigma) == 2:
            for i, s in enumerate(sigma):
                chk.type_check(op, f"sigma[{i}]", s, (int, float))
                chk.range_check(op, "sigma", s, 0, FLOAT_MAX_INTEGER)
            sigma = tuple(float(s) for s in sigma)
        elif isinstance(sigma, (list, tuple)):
            raise TypeError(f"{op}: Sigma should be a single number or a list/tuple of length 2 "
                            f"for width and height, got {sigma!r}.")
        else:
            chk.type_check(op, "sigma", sigma, (int, float, list, tuple))
        self.kernel_size, self.sigma = tuple(kernel_size), sigma

    def _compute(self, x, rng):
        img = image_batch("GaussianBlur", x)
        if img.dtype not in (np.uint8, np.float32):
            raise NotImplementedError(f"GaussianBlur: {img.dtype} images (uint8 and float32 "
                                      f"are implemented).")
        return restore(_gaussian(img, *self.kernel_size,
                                 *_sigmas(self.kernel_size, self.sigma)), x)


@njit(cache=True)
def _smooth3x3(src, out):
    """out = src filtered by [1 1 1; 1 5 1; 1 1 1] / 13 in float32 (row-major tap order),
    rounded half to even for uint8; the outermost rows and columns keep src."""
    n_img, h, w, ch = src.shape
    k1 = np.float32(1.0 / 13.0)
    k5 = np.float32(5.0 / 13.0)
    for n in range(n_img):
        for y in range(h):
            for x in range(w):
                for c in range(ch):
                    if y == 0 or x == 0 or y == h - 1 or x == w - 1:
                        out[n, y, x, c] = src[n, y, x, c]
                        continue
                    acc = np.float32(0.0)
                    for i in range(3):
                        for j in range(3):
                            k = k5 if i == 1 and j == 1 else k1
                            acc += k * np.float32(src[n, y + i - 1, x + j - 1, c])
                    out[n, y, x, c] = acc


def add_weighted(src1, w1, src2, w2, dtype):
    """OpenCV addWeighted(src1, w1, src2, w2, 0): uint8 computes fma(src1, float32(w1),
    float32(src2 * float32(w2))) in float32 and rounds half to even; floats work in float64."""
    if np.dtype(dtype) != np.uint8:
        return (src1.astype(np.float64) * w1 + src2.astype(np.float64) * w2).astype(dtype)
    a, b = np.float32(w1), np.float32(w2)
    fused = src1.astype(np.float64) * np.float64(a) + (src2.astype(np.float32) * b)
    return np.clip(np.rint(fused.astype(np.float32)), 0, 255).astype(np.uint8)


def sharpen(img, alpha):
    """MindSpore's AdjustSharpness: addWeighted(img, alpha, smoothed, 1 - alpha)."""
    smooth = np.empty(img.shape, np.float32)
    _smooth3x3(np.ascontiguousarray(img), smooth)
    if img.dtype == np.uint8:
        smooth = np.rint(smooth).astype(np.uint8)
    else:
        smooth = smooth.astype(img.dtype)
    return add_weighted(img, alpha, smooth, 1.0 - float(np.float32(alpha)), img.dtype)


def _sharpness_images(op, x):
    img = image_batch(op, x)
    if img.dtype not in (np.uint8, np.float32):
        raise NotImplementedError(f"{op}: {img.dtype} images (uint8 and float32 are "
                                  f"implemented).")
    return img


class AdjustSharpness(TensorOperation):
    """Blend each image with its 3 x 3 smoothed version: factor 0 smooths, 1 keeps the image,
    2 sharpens (uint8 rounded half to even, as OpenCV's saturate_cast)."""

    def __init__(self, sharpness_factor):
        op = "AdjustSharpness"
        chk.type_check(op, "sharpness_factor", sharpness_factor, (float, int))
        chk.range_check(op, "sharpness_factor", sharpness_factor, 0, FLOAT_MAX_INTEGER)
        self.sharpness_factor = float(sharpness_factor)

    def _compute(self, x, rng):
        img = _sharpness_images("AdjustSharpness", x)
        return restore(sharpen(img, self.sharpness_factor), x)


def _degrees(op, degrees):
    """check_positive_degrees: an ordered (min, max) pair in [0, 16777216]."""
    if not isinstance(degrees, (list, tuple)):
        raise TypeError(f"{op}: degrees must be either a tuple or a list, got {degrees!r}.")
    for i, d in enumerate(degrees):
        chk.type_check(op, f"degrees[{i}]", d, (int, float))
    if len(degrees) != 2:
        raise ValueError(f"{op}: degrees must be a sequence with length 2, got {degrees!r}.")
    for d in degrees:
        chk.range_check(op, "degrees", d, 0, FLOAT_MAX_INTEGER)
    if degrees[0] > degrees[1]:
        raise ValueError(f"{op}: degrees should be in (min,max) format. Got (max,min): "
                         f"{degrees!r}.")
    return tuple(float(d) for d in degrees)


class RandomSharpness(TensorOperation):
    """AdjustSharpness with a factor drawn uniformly from degrees per image."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _degrees("RandomSharpness", degrees)

    def _compute(self, x, rng):
        img = _sharpness_images("RandomSharpness", x)
        factors = rng.uniform(self.degrees[0], self.degrees[1], size=len(img))
        outs = [sharpen(img[i:i + 1], f)[0] for i, f in enumerate(factors)]
        return restore(np.stack(outs) if outs else img, x)


class RandomAdjustSharpness(TensorOperation):
    """AdjustSharpness(degree) with probability prob."""

    def __init__(self, degree, prob=0.5):
        op = "RandomAdjustSharpness"
        chk.type_check(op, "degree", degree, (float, int))
        chk.range_check(op, "degree", degree, 0, FLOAT_MAX_INTEGER)
        self.degree = float(degree)
        self.prob = chk.prob(op, prob)

    def _compute(self, x, rng):
        img = _sharpness_images("RandomAdjustSharpness", x)
        pick = rng.random(len(img)) < self.prob
        out = img.copy()
        if pick.any():
            out[pick] = sharpen(img[pick], self.degree)
        return restore(out, x)
