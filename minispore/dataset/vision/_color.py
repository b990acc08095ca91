"""Vision transforms that remap pixel values: Invert, Posterize, Solarize, the Adjust* family,
Equalize, AutoContrast and their Random* forms, following MindSpore 2.7's OpenCV arithmetic
(uint8 results rounded half to even and saturated; float results neither rounded nor clipped)."""
import numpy as np

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk
from minispore.dataset.vision._image import image_batch, restore

FLOAT_MAX_INTEGER = 16777216


def _rgb(op, x):
    if x.ndim != 4 or x.shape[-1] != 3:
        raise RuntimeError(f"{op}: the image must be <H, W, 3>, got shape {list(x.shape[1:])}.")
    return x


def _uint8(op, x):
    if x.dtype != np.uint8:
        raise RuntimeError(f"{op}: the image must be uint8, got {x.dtype}.")
    return x


def _saturate(values, dtype):
    """OpenCV's saturate_cast: round half to even and clip for integer dtypes."""
    if np.dtype(dtype).kind in "ui":
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    return values.astype(dtype)


def _gray(img):
    """OpenCV's RGB2GRAY per pixel, keeping a trailing axis: fixed point for uint8 (weights
    9798, 19235, 3735 over 2**15, rounded: its vectorised path, which the 2**14 weights of its
    scalar path miss by one on some pixels), 0.299 R + 0.587 G + 0.114 B in float32 otherwise."""
    if img.dtype == np.uint8:
        w = img.astype(np.int32)
        return ((w[..., 0] * 9798 + w[..., 1] * 19235 + w[..., 2] * 3735 + (1 << 14)) >> 15)[
            ..., None].astype(np.uint8)
    f = img.astype(np.float32)
    return (f[..., 0] * np.float32(0.299) + f[..., 1] * np.float32(0.587) +
            f[..., 2] * np.float32(0.114))[..., None]


def _blend(a, b, alpha, dtype):
    """OpenCV addWeighted(a, 1 - alpha, b, alpha) in the image's dtype. For integer images
    OpenCV computes fma(a, 1 - alpha, float32(b * alpha)) in float32 with alpha a float32, and
    rounds; we do the same (the fused multiply-add exactly, through float64), as the rounding of
    halves depends on it."""
    if np.dtype(dtype).kind not in "ui":
        return (a.astype(np.float64) * (1.0 - alpha) + b.astype(np.float64) * alpha).astype(dtype)
    beta = np.float32(alpha)
    weight = np.float32(1.0 - float(beta))
    fused = a.astype(np.float64) * np.float64(weight) + (b.astype(np.float32) * beta)
    return _saturate(fused.astype(np.float32), dtype)


def _apply_prob(x, rng, prob, fn):
    """fn on the images a draw below prob selects, the rest unchanged."""
    pick = rng.random(len(x)) < prob
    out = x.copy()
    if pick.any():
        out[pick] = fn(x[pick])
    return out


def _factor(op, name, value):
    return chk.number_in(op, name, value, 0, FLOAT_MAX_INTEGER)


def _invert(img):
    return (img.dtype.type(255) - img).astype(img.dtype)


class Invert(TensorOperation):
    """255 - x on <H, W, 3> images, in the image's dtype."""

    def _compute(self, x, rng):
        return _invert(_rgb("Invert", x))


class RandomInvert(TensorOperation):
    """Invert with probability prob."""

    def __init__(self, prob=0.5):
        self.prob = chk.prob("RandomInvert", prob)

    def _compute(self, x, rng):
        _rgb("RandomInvert", x)
        return _apply_prob(x, rng, self.prob, _invert)


def _posterize(img, bits):
    mask = np.uint8((0xFF << (8 - bits)) & 0xFF)
    return img & mask


class Posterize(TensorOperation):
    """Keep the `bits` high bits of each uint8 value (bits = 0 gives black)."""

    def __init__(self, bits):
        self.bits = chk.int_in("Posterize", "bits", bits, 0, 8)

    def _compute(self, x, rng):
        return _posterize(_uint8("Posterize", x), self.bits)


class RandomPosterize(TensorOperation):
    """Posterize each image with bits drawn uniformly from [min, max] (an int fixes it)."""

    def __init__(self, bits=(8, 8)):
        op = "RandomPosterize"
        chk.type_check(op, "bits", bits, (list, tuple, int))
        if isinstance(bits, int):
            chk.range_check(op, "bits", bits, 1, 8)
            bits = (bits, bits)
        if len(bits) != 2:
            raise TypeError(f"{op}: size of bits should be a single integer or a list/tuple "
                            f"(min, max) of length 2, got {bits!r}.")
        for b in bits:
            chk.int_in(op, "bits", b, 1, 8)
        if bits[0] > bits[1]:
            raise ValueError(f"{op}: bits must be in (min, max) order, got {bits!r}.")
        self.bits = tuple(bits)

    def _compute(self, x, rng):
        img = _uint8("RandomPosterize", x)
        draws = rng.integers(self.bits[0], self.bits[1] + 1, size=len(img))
        return np.stack([_posterize(i, int(b)) for i, b in zip(img, draws)])


def _solarize(img, lo, hi):
    """255 - x where lo <= x <= hi; a single threshold (lo == hi) inverts every x >= lo."""
    hit = img >= lo if lo == hi else (img >= lo) & (img <= hi)
    return np.where(hit, (255 - img.astype(np.float64)).astype(img.dtype), img)


class Solarize(TensorOperation):
    """Invert (255 - x) the pixels whose value lies in threshold = (min, max), or at or above a
    single threshold."""

    def __init__(self, threshold):
        op = "Solarize"
        chk.type_check(op, "threshold", threshold, (float, int, list, tuple))
        if isinstance(threshold, (float, int)):
            threshold = (threshold, threshold)
        if len(threshold) != 2:
            raise TypeError(f"{op}: threshold must be a single number or sequence of two "
                            f"numbers, got {threshold!r}.")
        for i, v in enumerate(threshold):
            chk.number_in(op, f"threshold[{i}]", v, 0, 255)
        if threshold[1] < threshold[0]:
            raise ValueError(f"{op}: threshold must be in order of (min, max), got "
                             f"{threshold!r}.")
        self.threshold = tuple(threshold)

    def _compute(self, x, rng):
        return _solarize(x, *self.threshold)


class RandomSolarize(TensorOperation):
    """Solarize with (min, max) drawn as two integers uniformly from threshold, then sorted."""

    def __init__(self, threshold=(0, 255)):
        op = "RandomSolarize"
        chk.type_check(op, "threshold", threshold, (tuple,))
        for v in threshold:
            chk.type_check(op, "threshold", v, (int,))
        if len(threshold) != 2:
            raise ValueError(f"{op}: threshold must be a sequence of two numbers, got "
                             f"{threshold!r}.")
        for v in threshold:
            chk.range_check(op, "threshold", v, 0, 255)
        if threshold[1] < threshold[0]:
            raise ValueError(f"{op}: threshold must be in min max format numbers, got "
                             f"{threshold!r}.")
        self.threshold = threshold

    def _compute(self, x, rng):
        draws = np.sort(rng.integers(self.threshold[0], self.threshold[1] + 1,
                                     size=(len(x), 2)), axis=1)
        return np.stack([_solarize(i, int(lo), int(hi)) for i, (lo, hi) in zip(x, draws)])


class AdjustBrightness(TensorOperation):
    """x * brightness_factor (uint8: rounded and saturated)."""

    def __init__(self, brightness_factor):
        self.brightness_factor = _factor("AdjustBrightness", "brightness_factor",
                                         brightness_factor)

    def _compute(self, x, rng):
        # OpenCV's convertTo scales integer images in float32
        return _saturate(x.astype(np.float32) * np.float32(self.brightness_factor), x.dtype) \
            if x.dtype.kind in "ui" else (x * np.float32(self.brightness_factor)).astype(x.dtype)


class AdjustContrast(TensorOperation):
    """Blend each <H, W, 3> image with its mean gray level: mean + factor * (x - mean); for
    uint8 the mean is first rounded to uint8, as MindSpore's OpenCV code does."""

    def __init__(self, contrast_factor):
        self.contrast_factor = _factor("AdjustContrast", "contrast_factor", contrast_factor)

    def _compute(self, x, rng):
        img = _rgb("AdjustContrast", x)
        mean = _gray(img).mean(axis=(1, 2, 3), dtype=np.float64)[:, None, None, None]
        if img.dtype.kind in "ui":
            mean = np.rint(mean)  # saturate_cast<uchar>: 116.5 -> 116
        return _blend(np.broadcast_to(mean, img.shape), img, self.contrast_factor, img.dtype)


class AdjustSaturation(TensorOperation):
    """Blend each <H, W, 3> image with its own gray version: gray + factor * (x - gray)."""

    def __init__(self, saturation_factor):
        self.saturation_factor = _factor("AdjustSaturation", "saturation_factor",
                                         saturation_factor)

    def _compute(self, x, rng):
        img = _rgb("AdjustSaturation", x)
        return _blend(np.broadcast_to(_gray(img), img.shape), img, self.saturation_factor,
                      img.dtype)


class AdjustGamma(TensorOperation):
    """uint8 images: out = floor(min((x / 255) ** gamma * 255.999 * gain, 255)) (a lookup
    table, as MindSpore builds it). Float images are not implemented."""

    def __init__(self, gamma, gain=1.0):
        self.gamma = _factor("AdjustGamma", "gamma", gamma)
        chk.type_check("AdjustGamma", "gain", gain, (float, int))
        chk.range_check("AdjustGamma", "gain", gain, -FLOAT_MAX_INTEGER, FLOAT_MAX_INTEGER)
        self.gain = float(gain)

    def _compute(self, x, rng):
        if x.dtype != np.uint8:
            raise NotImplementedError(f"AdjustGamma: {x.dtype} images (only uint8 is "
                                      f"implemented).")
        f = (np.arange(256, dtype=np.float32) / np.float32(255)) ** np.float32(self.gamma)
        lut = np.floor(np.minimum(f * np.float32(255.999) * np.float32(self.gain), 255))
        return np.clip(lut, 0, 255).astype(np.uint8)[x]


def _equalize_channel(ch):
    """OpenCV equalizeHist on one uint8 channel."""
    hist = np.bincount(ch.ravel(), minlength=256)
    lo = int(np.flatnonzero(hist)[0])
    total = ch.size
    if hist[lo] == total:
        return np.full_like(ch, lo)
    scale = np.float32(255.0) / np.float32(total - hist[lo])
    cum = np.cumsum(hist).astype(np.float32) - np.float32(hist[lo])
    lut = np.clip(np.rint(cum * scale), 0, 255).astype(np.uint8)
    lut[:lo + 1] = 0
    return lut[ch]


def _equalize(img):
    out = np.empty_like(img)
    for n in range(img.shape[0]):
        for c in range(img.shape[-1]):
            out[n, ..., c] = _equalize_channel(img[n, ..., c])
    return out


class Equalize(TensorOperation):
    """Histogram equalization of each uint8 channel (OpenCV's equalizeHist)."""

    def _compute(self, x, rng):
        return restore(_equalize(image_batch("Equalize", _uint8("Equalize", x))), x)


class RandomEqualize(TensorOperation):
    """Equalize with probability prob."""

    def __init__(self, prob=0.5):
        self.prob = chk.prob("RandomEqualize", prob)

    def _compute(self, x, rng):
        img = image_batch("RandomEqualize", _uint8("RandomEqualize", x))
        return restore(_apply_prob(img, rng, self.prob, _equalize), x)


def _autocontrast_lut(hist, cutoff, ignore):
    """PIL's autocontrast table for one channel's histogram (MindSpore ports it to C++)."""
    h = hist.astype(np.int64).copy()
    for g in ignore:
        h[g] = 0
    # MindSpore passes the percentage on as an int32 (7.5 cuts 7 percent), then takes
    # int(float32(p / 100) * n) pixels from each end
    percent = int(cutoff)
    if percent:
        n = int(h.sum())
        for order in (range(256), range(255, -1, -1)):
            cut = int(np.float32(np.float32(percent) / np.float32(100)) * np.float32(n))
            for i in order:
                if cut > h[i]:
                    cut -= h[i]
                    h[i] = 0
                else:
                    h[i] -= cut
                    cut = 0
                if cut <= 0:
                    break
    nz = np.flatnonzero(h)
    if nz.size == 0 or nz[-1] <= nz[0]:
        return np.arange(256, dtype=np.uint8)
    lo, hi = int(nz[0]), int(nz[-1])
    # float32 arithmetic, truncated: MindSpore's C++ port, not PIL's doubles (they differ by
    # one at the top of the range)
    scale = np.float32(255) / np.float32(hi - lo)
    offset = np.float32(-lo) * scale
    lut = np.arange(256, dtype=np.float32) * scale + offset
    return np.clip(lut.astype(np.int64), 0, 255).astype(np.uint8)


def _autocontrast(img, cutoff, ignore):
    out = np.empty_like(img)
    for n in range(img.shape[0]):
        for c in range(img.shape[-1]):
            ch = img[n, ..., c]
            out[n, ..., c] = _autocontrast_lut(np.bincount(ch.ravel(), minlength=256), cutoff,
                                               ignore)[ch]
    return out


def _check_autocontrast(op, cutoff, ignore):
    chk.type_check(op, "cutoff", cutoff, (int, float))
    if not 0 <= cutoff < 50:
        raise ValueError(f"{op}: input cutoff is not within the required interval of [0, 50), "
                         f"got {cutoff}.")
    if ignore is None:
        ignore = []
    chk.type_check(op, "ignore", ignore, (list, tuple, int))
    if isinstance(ignore, int):
        ignore = [ignore]
    for item in ignore:
        chk.int_in(op, "ignore", item, 0, 255)
    return cutoff, list(ignore)


class AutoContrast(TensorOperation):
    """Stretch each uint8 channel so its darkest value (after dropping `cutoff` percent of the
    pixels at each end and the `ignore` values) maps to 0 and its brightest to 255."""

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff, self.ignore = _check_autocontrast("AutoContrast", cutoff, ignore)

    def _compute(self, x, rng):
        img = image_batch("AutoContrast", _uint8("AutoContrast", x))
        return restore(_autocontrast(img, self.cutoff, self.ignore), x)


class RandomAutoContrast(TensorOperation):
    """AutoContrast with probability prob."""

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self.cutoff, self.ignore = _check_autocontrast("RandomAutoContrast", cutoff, ignore)
        self.prob = chk.prob("RandomAutoContrast", prob)

    def _compute(self, x, rng):
        img = image_batch("RandomAutoContrast", _uint8("RandomAutoContrast", x))
        return restore(_apply_prob(img, rng, self.prob,
                                   lambda b: _autocontrast(b, self.cutoff, self.ignore)), x)
