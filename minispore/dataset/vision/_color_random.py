"""AdjustHue, RandomColorAdjust, RandomColor and RandomLighting with MindSpore 2.7's OpenCV
arithmetic (uint8 hue through OpenCV's HSV_FULL round trip, bit-exact)."""
import numpy as np

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk
from minispore.dataset.vision._color import (FLOAT_MAX_INTEGER, AdjustBrightness, AdjustContrast,
                                             AdjustSaturation, _gray, _rgb)
from minispore.dataset.vision._filter import add_weighted
from minispore.dataset.vision._hsv import hsv_full_to_rgb, rgb_to_hsv_full


def _uint8_rgb(op, x):
    img = _rgb(op, x)
    if img.dtype != np.uint8:
        # MindSpore 2.7 reads float images' HSV and lighting through uint8 pixel views, so its
        # float results are not meaningful; we do not imitate them
        raise NotImplementedError(f"{op}: {img.dtype} images (only uint8 is implemented).")
    return img


def adjust_hue(img, hue):
    """Shift the HSV_FULL hue (0..255) of uint8 RGB images by uint8(hue * 255), wrapping."""
    hsv = rgb_to_hsv_full(img)
    shift = int(np.float32(hue) * np.float32(255)) & 0xFF  # C++ cast truncates toward zero
    hsv[..., 0] = (hsv[..., 0].astype(np.int64) + shift) & 0xFF
    return hsv_full_to_rgb(hsv)


class AdjustHue(TensorOperation):
    """Rotate the hue of <H, W, 3> uint8 images by hue_factor (in [-0.5, 0.5]) of a turn."""

    def __init__(self, hue_factor):
        op = "AdjustHue"
        chk.type_check(op, "hue_factor", hue_factor, (float, int))
        chk.range_check(op, "hue_factor", hue_factor, -0.5, 0.5)
        self.hue_factor = float(hue_factor)

    def _compute(self, x, rng):
        return adjust_hue(_uint8_rgb("AdjustHue", x), self.hue_factor)


def _factor_range(op, name, value, center=1.0, bound=(0, FLOAT_MAX_INTEGER), non_negative=True):
    """MindSpore's check_random_color_adjust_param and __expand_values."""
    chk.type_check(op, name, value, (int, float, list, tuple))
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"{op}: The input value of {name} cannot be negative, got {value}.")
        lo, hi = center - value, center + value
        if non_negative:
            lo = max(0, lo)
        for v in (lo, hi):
            chk.range_check(op, name, v, *bound)
        return lo, hi
    if len(value) != 2:
        raise TypeError(f"{op}: If {name} is a sequence, the length must be 2, got {value!r}.")
    if value[0] > value[1]:
        raise ValueError(f"{op}: {name} value should be in (min,max) format. Got "
                         f"({value[0]}, {value[1]}).")
    for v in value:
        chk.range_check(op, name, v, *bound)
    return tuple(value)


class RandomColorAdjust(TensorOperation):
    """Brightness, contrast, saturation and hue adjustments in a random order per image, each
    with a factor drawn uniformly from its range; a range that is the identity is skipped."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        op = "RandomColorAdjust"
        self.brightness = _factor_range(op, "brightness", brightness)
        self.contrast = _factor_range(op, "contrast", contrast)
        self.saturation = _factor_range(op, "saturation", saturation)
        self.hue = _factor_range(op, "hue", hue, center=0, bound=(-0.5, 0.5),
                                 non_negative=False)

    def _steps(self):
        steps = []
        for name, rng_, ident, fn in (
                ("brightness", self.brightness, 1.0,
                 lambda i, f: AdjustBrightness(f)._compute(i, None)),
                ("contrast", self.contrast, 1.0,
                 lambda i, f: AdjustContrast(f)._compute(i, None)),
                ("saturation", self.saturation, 1.0,
                 lambda i, f: AdjustSaturation(f)._compute(i, None)),
                ("hue", self.hue, 0.0, lambda i, f: adjust_hue(
                    _uint8_rgb("RandomColorAdjust", i), f))):
            if not (rng_[0] == rng_[1] == ident):
                steps.append((rng_, fn))
        return steps

    def _compute(self, x, rng):
        steps = self._steps()
        if not steps:
            return x
        _rgb("RandomColorAdjust", x)
        outs = []
        for i in range(len(x)):
            img = x[i:i + 1]
            for k in rng.permutation(len(steps)):
                (lo, hi), fn = steps[k]
                img = fn(img, float(np.float32(rng.uniform(lo, hi))))
            outs.append(img[0])
        return np.stack(outs)


def _positive_degrees(op, degrees):
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


def color_blend(img, t):
    """MindSpore's RandomColor for one factor t: the image within 0.00195 of t = 1, its gray
    version within 0.00195 of t = 0, else addWeighted(img, t, gray, 1 - t)."""
    if abs(t - 1.0) < 0.00195:
        return img
    gray = np.broadcast_to(_gray(img), img.shape).astype(img.dtype)
    if abs(t) < 0.00195:
        return np.ascontiguousarray(gray)
    return add_weighted(img, t, gray, 1.0 - t, img.dtype)


class RandomColor(TensorOperation):
    """Blend each <H, W, 3> image with its gray version by a factor drawn from degrees
    (0 gray, 1 the image, above 1 more saturated)."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _positive_degrees("RandomColor", degrees)

    def _compute(self, x, rng):
        img = _rgb("RandomColor", x)
        ts = rng.uniform(self.degrees[0], self.degrees[1], size=len(img)).astype(np.float32)
        outs = [color_blend(img[i:i + 1], float(t))[0] for i, t in enumerate(ts)]
        return np.stack(outs) if outs else img


# AlexNet's PCA lighting: eigenvalues times eigenvectors of ImageNet's RGB covariance
_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]]).astype(np.float32)


def lighting(img, rnd):
    """Add the PCA offset eig @ rnd (float32) to every pixel, rounded half to even."""
    pca = (_EIG[:, 0] * rnd[0] + _EIG[:, 1] * rnd[1] + _EIG[:, 2] * rnd[2]).astype(np.float32)
    return np.clip(np.rint(img.astype(np.float32) + pca), 0, 255).astype(np.uint8)


class RandomLighting(TensorOperation):
    """AlexNet-style PCA lighting noise on <H, W, 3> uint8 images: the RGB offset is the
    eigenvector matrix times eigenvalue-weighted normal draws of standard deviation alpha."""

    def __init__(self, alpha=0.05):
        op = "RandomLighting"
        chk.type_check(op, "alpha", alpha, (float, int))
        chk.range_check(op, "alpha", alpha, 0, FLOAT_MAX_INTEGER)
        self.alpha = float(alpha)

    def _compute(self, x, rng):
        img = _uint8_rgb("RandomLighting", x)
        draws = rng.normal(0.0, self.alpha, size=(len(img), 3)).astype(np.float32)
        outs = [lighting(img[i], draws[i]) for i in range(len(img))]
        return np.stack(outs) if outs else img
