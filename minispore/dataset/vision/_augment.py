"""AutoAugment, RandAugment and TrivialAugmentWide: MindSpore 2.7's policies and search spaces
composed of the vision ops here, with its quirks kept (noted where they bite): its integer draws
RandInt(lo, hi) = uniform{lo..hi} % (hi - lo) + lo favour lo twice, the rotation fill reaches
OpenCV in a permuted channel order, and TranslateX/Y hand a pixel count to an op that scales it
by the image width/height again (so any translation of at least one pixel fills the image)."""
import enum
import math

import numpy as np

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk
from minispore.dataset.vision import _color as col
from minispore.dataset.vision._affine import _affine, _fill, _mode, _rotate
from minispore.dataset.vision._filter import sharpen
from minispore.dataset.vision._image import Inter

FLOAT_MAX_INTEGER = 16777216


class AutoAugmentPolicy(str, enum.Enum):
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


def _round_half_even(v):
    return float(np.rint(np.float32(v)))


def linspace(start, end, n, scale=1.0, offset=0.0, rounded=False):
    """MindSpore's float32 Linspace: (start + i * step) * scale + offset, optionally rounded
    half to even."""
    f = np.float32
    step = f(0) if n == 1 else f((f(end) - f(start)) / f(n - 1))
    out = []
    for i in range(n):
        v = f(f(f(start) + f(i) * step) * f(scale) + f(offset))
        out.append(_round_half_even(v) if rounded else float(v))
    return out


def _space(num_bins, h, w, trivial=False, auto=False):
    """The op -> (magnitudes, signed) table, in std::map (sorted name) order."""
    f = np.float32
    if trivial:
        hi, tr, rot, post = 0.99, (32.0, 32.0), 135.0, -6.0
    else:
        hi, tr, rot, post = 0.9, (float(f(150.0) / f(331) * f(w)), float(f(150.0) / f(331) *
                                                                          f(h))), 30.0, -4.0
    shear = 0.99 if trivial else 0.3
    space = {
        "ShearX": (linspace(0.0, shear, num_bins), True),
        "ShearY": (linspace(0.0, shear, num_bins), True),
        "TranslateX": (linspace(0.0, tr[0], num_bins), True),
        "TranslateY": (linspace(0.0, tr[1], num_bins), True),
        "Rotate": (linspace(0.0, rot, num_bins), True),
        "Brightness": (linspace(0.0, hi, num_bins), True),
        "Color": (linspace(0.0, hi, num_bins), True),
        "Contrast": (linspace(0.0, hi, num_bins), True),
        "Sharpness": (linspace(0.0, hi, num_bins), True),
        "Posterize": (linspace(0.0, num_bins - 1.0, num_bins, post / (num_bins - 1.0), 8,
                               True), False),
        "Solarize": (linspace(256.0 if auto else 255.0, 0.0, num_bins), False),
        "AutoContrast": ([0.0], False),
        "Equalize": ([0.0], False),
    }
    space["Invert" if auto else "Identity"] = ([0.0], False)
    return dict(sorted(space.items()))


def apply_augment(op, img, name, magnitude, mode, fill, rotate_fill):
    """MindSpore's ApplyAugment on a batch of one (1, H, W, 3) uint8 image."""
    h, w = img.shape[1:3]
    if name in ("ShearX", "ShearY"):
        shear = float(np.float32(magnitude) * np.float32(180) / np.float32(math.pi))
        return _affine(op, img, 0.0, (0.0, 0.0), 1.0,
                       (shear, 0.0) if name == "ShearX" else (0.0, shear), mode, fill)
    if name in ("TranslateX", "TranslateY"):
        # MindSpore passes int(magnitude) pixels to AffineOp, which multiplies by W (or H)
        t = float(int(magnitude))
        tr = (t * w, 0.0) if name == "TranslateX" else (0.0, t * h)
        return _affine(op, img, 0.0, tr, 1.0, (0.0, 0.0), mode, fill)
    if name == "Rotate":
        return _rotate(op, img[0], magnitude, mode, False, None, rotate_fill)[None]
    if name == "Brightness":
        return col.AdjustBrightness(1 + magnitude)._compute(img, None)
    if name == "Color":
        return col.AdjustSaturation(1 + magnitude)._compute(img, None)
    if name == "Contrast":
        return col.AdjustContrast(1 + magnitude)._compute(img, None)
    if name == "Sharpness":
        return sharpen(img, 1 + magnitude)
    if name == "Posterize":
        return col._posterize(img, int(magnitude))
    if name == "Solarize":
        return col._solarize(img, magnitude, magnitude)
    if name == "AutoContrast":
        return col._autocontrast(img, 0.0, [])
    if name == "Equalize":
        return col._equalize(img)
    if name == "Invert":
        return col._invert(img)
    return img  # Identity


def _rgb_uint8(op, x):
    if x.ndim != 4 or x.shape[-1] != 3 or x.dtype != np.uint8:
        raise RuntimeError(f"{op}: the image must be <H, W, 3> uint8, got shape "
                           f"{list(x.shape[1:])} and dtype {x.dtype}.")
    return x


def _rand_int(rng, lo, hi):
    """MindSpore's RandInt(lo, hi): uniform on {lo, ..., hi}, then % (hi - lo) + lo."""
    return int(rng.integers(lo, hi + 1)) % (hi - lo) + lo


_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, -1)),
        (("Equalize", 0.8, -1), ("Equalize", 0.6, -1)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, -1), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, -1), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, -1)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, -1)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, -1), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, -1)),
        (("Equalize", 0.0, -1), ("Equalize", 0.8, -1)),
        (("Invert", 0.6, -1), ("Equalize", 1.0, -1)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, -1)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, -1)),
        (("Color", 0.4, 0), ("Equalize", 0.6, -1)),
        (("Equalize", 0.4, -1), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, -1)),
        (("Invert", 0.6, -1), ("Equalize", 1.0, -1)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, -1), ("Equalize", 0.6, -1)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, -1), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, -1), ("Equalize", 0.9, -1)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, -1), ("Equalize", 0.5, -1)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, -1), ("AutoContrast", 0.4, -1)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, -1)),
        (("Equalize", 0.2, -1), ("AutoContrast", 0.6, -1)),
        (("Equalize", 0.2, -1), ("Equalize", 0.6, -1)),
        (("Color", 0.9, 9), ("Equalize", 0.6, -1)),
        (("AutoContrast", 0.8, -1), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, -1)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, -1), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, -1), ("Invert", 0.1, -1)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, -1)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, -1)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, -1)),
        (("Equalize", 0.6, -1), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, -1), ("Equalize", 0.6, -1)),
        (("Equalize", 0.6, -1), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, -1)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, -1)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, -1), ("AutoContrast", 0.8, -1)),
        (("Equalize", 0.6, -1), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, -1)),
        (("Equalize", 0.9, -1), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, -1), ("Equalize", 0.6, -1)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, -1), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, -1), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, -1)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, -1)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, -1)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, -1)),
    ],
}


class AutoAugment(TensorOperation):
    """One of the policy's 25 sub-policies per image, each of its two ops applied with its
    probability at its magnitude (of 10 bins), signed ops negated half the time."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
                 fill_value=0):
        op = "AutoAugment"
        chk.type_check(op, "policy", policy, (AutoAugmentPolicy,))
        chk.type_check(op, "interpolation", interpolation, (Inter,))
        self.policy, self.interpolation = policy, interpolation
        self.fill_value = _fill(op, fill_value)

    def _compute(self, x, rng):
        op = "AutoAugment"
        img = _rgb_uint8(op, x)
        mode = _mode(op, self.interpolation)
        subs = _POLICIES[self.policy]
        outs = []
        for i in range(len(img)):
            cur = img[i:i + 1]
            sub = subs[int(rng.integers(0, len(subs)))]
            probs = rng.random(2).astype(np.float32)
            signs = rng.integers(0, 2, size=2)
            space = _space(10, *cur.shape[1:3], auto=True)
            for k, (name, p, mag_id) in enumerate(sub):
                if probs[k] <= np.float32(p):
                    mags, signed = space[name]
                    m = mags[mag_id] if len(mags) != 1 and mag_id != -1 else 0.0
                    if signed and signs[k] == 0:
                        m = -m
                    cur = apply_augment(op, cur, name, m, mode, self.fill_value,
                                        self.fill_value)
            outs.append(cur[0])
        return np.stack(outs) if outs else img


def _augment_args(op, num_magnitude_bins, interpolation, fill_value):
    chk.type_check(op, "num_magnitude_bins", num_magnitude_bins, (int,))
    chk.range_check(op, "num_magnitude_bins", num_magnitude_bins, 2, FLOAT_MAX_INTEGER)
    chk.type_check(op, "interpolation", interpolation, (Inter,))
    return _fill(op, fill_value)


class RandAugment(TensorOperation):
    """num_ops ops drawn from the RandAugment space per image, each at bin `magnitude` of
    num_magnitude_bins (signed ops negated a third of the time, as MindSpore draws it)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST,
                 fill_value=0):
        op = "RandAugment"
        chk.type_check(op, "num_ops", num_ops, (int,))
        chk.range_check(op, "num_ops", num_ops, 0, FLOAT_MAX_INTEGER)
        chk.type_check(op, "num_magnitude_bins", num_magnitude_bins, (int,))
        chk.range_check(op, "num_magnitude_bins", num_magnitude_bins, 2, FLOAT_MAX_INTEGER)
        chk.type_check(op, "magnitude", magnitude, (int,))
        if not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"{op}: Input magnitude is not within the required interval of "
                             f"[0, {num_magnitude_bins}), got {magnitude}.")
        self.fill_value = _augment_args(op, num_magnitude_bins, interpolation, fill_value)
        self.num_ops, self.magnitude = num_ops, magnitude
        self.num_magnitude_bins, self.interpolation = num_magnitude_bins, interpolation

    def _compute(self, x, rng):
        op = "RandAugment"
        img = _rgb_uint8(op, x)
        mode = _mode(op, self.interpolation)
        fill = self.fill_value
        outs = []
        for i in range(len(img)):
            cur = img[i:i + 1]
            space = _space(self.num_magnitude_bins, *cur.shape[1:3])
            names = list(space)
            for _ in range(self.num_ops):
                name = names[_rand_int(rng, 0, len(names))]
                mags, signed = space[name]
                m = mags[self.magnitude] if len(mags) != 1 else 0.0
                if signed and _rand_int(rng, 0, 2):
                    m = -m
                cur = apply_augment(op, cur, name, m, mode, fill, (fill[0], fill[2], fill[1]))
            outs.append(cur[0])
        return np.stack(outs) if outs else img


class TrivialAugmentWide(TensorOperation):
    """One op from the TrivialAugment-Wide space per image at a random bin of
    num_magnitude_bins (signed ops negated a third of the time, as MindSpore draws it)."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        op = "TrivialAugmentWide"
        self.fill_value = _augment_args(op, num_magnitude_bins, interpolation, fill_value)
        self.num_magnitude_bins, self.interpolation = num_magnitude_bins, interpolation

    def _compute(self, x, rng):
        op = "TrivialAugmentWide"
        img = _rgb_uint8(op, x)
        mode = _mode(op, self.interpolation)
        fill = self.fill_value
        space = _space(self.num_magnitude_bins, 0, 0, trivial=True)
        names = list(space)
        outs = []
        for i in range(len(img)):
            name = names[_rand_int(rng, 0, len(names))]
            mags, signed = space[name]
            m = mags[_rand_int(rng, 0, len(mags))] if len(mags) != 1 else 0.0
            if signed and _rand_int(rng, 0, 2):
                m = -m
            outs.append(apply_augment(op, img[i:i + 1], name, m, mode, fill,
                                      (fill[0], fill[2], fill[1]))[0])
        return np.stack(outs) if outs else img
