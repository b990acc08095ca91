"""RandomResizedCrop and RandomResize: MindSpore 2.7's crop-box draw and random interpolation
around the OpenCV resize taps of _kernels (AREA and the linear family as Resize computes them)."""
import math

import numpy as np

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk
from minispore.dataset.vision import _kernels
from minispore.dataset.vision._image import Inter, image_batch, restore

FLOAT_MAX_INTEGER = 16777216
_TAPS = {Inter.NEAREST: "nearest", Inter.LINEAR: "linear", Inter.CUBIC: "cubic",
         Inter.AREA: "area"}


def _range_pair(op, name, value, lo_open):
    """MindSpore's scale/ratio checks: an ordered (min, max) pair of numbers."""
    chk.type_check(op, name, value, (tuple, list))
    if len(value) != 2:
        raise TypeError(f"{op}: {name} should be a list/tuple of length 2, got {value!r}.")
    for i, v in enumerate(value):
        chk.type_check(op, f"{name}[{i}]", v, (float, int))
    if lo_open:
        for i, v in enumerate(value):
            chk.range_check(op, f"{name}[{i}]", v, 0, FLOAT_MAX_INTEGER, lo_open=True)
    if value[0] > value[1]:
        raise ValueError(f"{op}: {name} should be in (min,max) format. Got (max,min): "
                         f"{value!r}.")
    if not lo_open:
        for v in value:
            chk.range_check(op, name, v, 0, FLOAT_MAX_INTEGER)
        if value[1] <= 0:
            raise ValueError(f"{op}: Input {name}[1] must be greater than 0, got {value!r}.")
    return tuple(float(v) for v in value)


def crop_box(rng, h, w, scale, ratio, max_attempts):
    """MindSpore's GetCropBox: up to max_attempts draws of an area fraction in scale and a
    log-uniform aspect ratio (w / h) in ratio; a box that fits is placed uniformly. Otherwise a
    centred box of the image clamped to the ratio bounds. Returns (y, x, h, w)."""
    log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
    for _ in range(max_attempts):
        area = rng.uniform(scale[0], scale[1])
        aspect = math.exp(rng.uniform(log_lo, log_hi))
        cw = max(int(round(math.sqrt(h * w * area * aspect))), 1)
        ch = max(int(round(cw / aspect)), 1)
        if cw <= w and ch <= h:
            return int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1)), ch, cw
    img_aspect = w / h
    lo, hi = float(np.float32(ratio[0])), float(np.float32(ratio[1]))
    if img_aspect < lo:
        cw, ch = w, int(round(w / lo))
    elif img_aspect > hi:
        cw, ch = int(round(h * hi)), h
    else:
        cw, ch = w, h
    cw, ch = max(cw, 1), max(ch, 1)
    return int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw


def _taps(op, interpolation):
    if interpolation == Inter.PILCUBIC:
        raise NotImplementedError(f"{op}: interpolation Inter.PILCUBIC is not implemented "
                                  f"(NEAREST, LINEAR, CUBIC and AREA are).")
    if interpolation == Inter.ANTIALIAS:
        raise TypeError(f"{op}: Current Interpolation is not supported with NumPy input: "
                        f"Inter.ANTIALIAS needs a PIL image.")
    return _TAPS[Inter(interpolation)]


class RandomResizedCrop(TensorOperation):
    """Crop a random box (area fraction in scale, aspect ratio w/h in ratio, log-uniform) and
    resize it to size, with Resize's OpenCV interpolation (uint8 LINEAR bit-exact; CUBIC may
    differ by one from OpenCV's fixed point, as in Resize). After max_attempts misses, the
    centred box of the image clamped to the ratio bounds is used."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        op = "RandomResizedCrop"
        chk.type_check(op, "interpolation", interpolation, (Inter,))
        self.size = chk.size_pair(op, size)
        self.scale = _range_pair(op, "scale", scale, lo_open=False)
        self.ratio = _range_pair(op, "ratio", ratio, lo_open=True)
        self.interpolation = interpolation
        self.max_attempts = chk.int_in(op, "max_attempts", max_attempts, 1)

    def _compute(self, x, rng):
        op = "RandomResizedCrop"
        img = image_batch(op, x)
        taps = _taps(op, self.interpolation)
        n, h, w, _ = img.shape
        outs = []
        for i in range(n):
            y0, x0, ch, cw = crop_box(rng, h, w, self.scale, self.ratio, self.max_attempts)
            outs.append(_kernels.resize(op, img[i:i + 1, y0:y0 + ch, x0:x0 + cw],
                                        self.size[0], self.size[1], taps)[0])
        out = np.stack(outs) if outs else np.empty((0,) + self.size + img.shape[3:], img.dtype)
        return restore(out, x)


class RandomResize(TensorOperation):
    """Resize to size (an int: the shorter side, aspect kept; (h, w): exactly) with an
    interpolation drawn per image from LINEAR, NEAREST, CUBIC and AREA, as MindSpore does."""

    _CHOICES = ("linear", "nearest", "cubic", "area")

    def __init__(self, size):
        op = "RandomResize"
        if isinstance(size, int) and not isinstance(size, bool):
            chk.range_check(op, "size", size, 1, FLOAT_MAX_INTEGER)
            self.size = (size,)
        elif isinstance(size, (list, tuple)) and len(size) == 2:
            for i, v in enumerate(size):
                chk.type_check(op, f"size at dim {i}", v, (int,))
                chk.range_check(op, f"size at dim {i}", v, 1, chk.INT32_MAX)
            self.size = tuple(size)
        else:
            raise TypeError(f"{op}: Size should be a single integer or a list/tuple (h, w) of "
                            f"length 2, got {size!r}.")

    def _out_size(self, h, w):
        if len(self.size) == 2:
            return self.size
        s = self.size[0]
        return (s, int(w * s / h)) if h <= w else (int(h * s / w), s)

    def _compute(self, x, rng):
        op = "RandomResize"
        img = image_batch(op, x)
        oh, ow = self._out_size(img.shape[1], img.shape[2])
        picks = rng.integers(0, 4, size=len(img))
        outs = [_kernels.resize(op, img[i:i + 1], oh, ow, self._CHOICES[p])[0]
                for i, p in enumerate(picks)]
        out = np.stack(outs) if outs else np.empty((0, oh, ow) + img.shape[3:], img.dtype)
        return restore(out, x)
