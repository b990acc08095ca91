"""Rotate, RandomRotation, Affine and RandomAffine: OpenCV warpAffine (the _warp kernel) with
the matrices MindSpore 2.7 builds, BORDER_CONSTANT filled with fill_value."""
import math
import numbers

import numpy as np

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk
from minispore.dataset.vision import _warp
from minispore.dataset.vision._image import Inter, image_batch, restore

FLOAT_MAX_INTEGER = 16777216
INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1
# OpenCV's warpAffine treats INTER_AREA as INTER_LINEAR
_MODES = {Inter.NEAREST: _warp.NEAREST, Inter.LINEAR: _warp.LINEAR, Inter.CUBIC: _warp.CUBIC,
          Inter.AREA: _warp.LINEAR}


def _resample(op, resample, name="resample"):
    chk.type_check(op, name, resample, (Inter,))
    return resample


def _mode(op, resample):
    """The warp mode, or MindSpore's RuntimeError for PILCUBIC/ANTIALIAS (raised per call)."""
    if resample not in _MODES:
        raise RuntimeError(f"{op}: Invalid InterpolationMode {Inter(resample).name}; use "
                           f"NEAREST, LINEAR, CUBIC or AREA.")
    return _MODES[resample]


def _fill(op, fill_value):
    """MindSpore's check_fill_value: an int in [0, 255] or a 3-tuple of them."""
    if isinstance(fill_value, int) and not isinstance(fill_value, bool):
        chk.range_check(op, "fill_value", fill_value, 0, 255)
        return (fill_value,) * 3
    if isinstance(fill_value, tuple) and len(fill_value) == 3:
        for i, v in enumerate(fill_value):
            chk.type_check(op, f"fill_value[{i}]", v, (int,))
            chk.range_check(op, f"fill_value[{i}]", v, 0, 255)
        return tuple(fill_value)
    raise TypeError(f"{op}: fill_value should be a single integer or a 3-tuple, got "
                    f"{fill_value!r}.")


def _center(op, center):
    if center is None:
        return None
    if not isinstance(center, (list, tuple)) or len(center) != 2:
        raise ValueError(f"{op}: Value center needs to be a 2-tuple, got {center!r}.")
    for v in center:
        chk.type_check(op, "center", v, (int, float))
        chk.range_check(op, "center", v, INT32_MIN, INT32_MAX)
    return tuple(float(v) for v in center)


def _images(op, x):
    img = image_batch(op, x)
    if img.dtype not in (np.uint8, np.float32):
        raise NotImplementedError(f"{op}: {img.dtype} images (uint8 and float32 are "
                                  f"implemented).")
    return img


def column(outs, img, x):
    """Per-image results as one column: stacked, or a list of per-row arrays when their shapes
    differ (expand=True with random angles), each without the channel axis for <H, W> input."""
    if not outs:
        return restore(img, x)
    if len({o.shape for o in outs}) == 1:
        return restore(np.stack(outs), x)
    return [o if x.ndim == 4 else o[..., 0] for o in outs]


def _rotate(op, img, degree, mode, expand, center, fill):
    """MindSpore's Rotate on one image (H, W, C): counter-clockwise by `degree` about center
    (default ((W-1)/2, (H-1)/2)); expand grows the canvas to the rotated bounding box."""
    h, w = img.shape[:2]
    cx, cy = center if center is not None else ((w - 1) / 2.0, (h - 1) / 2.0)
    m = _warp.rotation_matrix(cx, cy, degree)
    out_hw = (h, w)
    if expand:
        bw, bh = _warp.rotated_bbox(np.float32(cx), np.float32(cy), w, h, degree)
        m[2] += bw / 2.0 - w / 2.0
        m[5] += bh / 2.0 - h / 2.0
        # cv::Size from the float box: rounded to nearest (halves to even)
        out_hw = (int(np.rint(bh)), int(np.rint(bw)))
    # MindSpore hands OpenCV the fill as Scalar(b, g, r): channel 0 gets fill_value[2]
    return _warp.warp(op, img[None], m[None], out_hw, mode, fill[::-1])[0]


class Rotate(TensorOperation):
    """Rotate each image counter-clockwise by `degrees` (OpenCV warpAffine, bit-exact for
    uint8). As in MindSpore 2.7, channel c of the border takes fill_value[2 - c] (its C++ code
    passes the fill to OpenCV in BGR order)."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        op = "Rotate"
        chk.type_check(op, "degrees", degrees, (float, int))
        chk.range_check(op, "degrees", degrees, -FLOAT_MAX_INTEGER, FLOAT_MAX_INTEGER)
        self.degrees = degrees % 360
        self.resample = _resample(op, resample)
        chk.type_check(op, "expand", expand, (bool,))
        self.expand = expand
        self.center = _center(op, center)
        self.fill_value = _fill(op, fill_value)

    def _compute(self, x, rng):
        img = _images("Rotate", x)
        mode = _mode("Rotate", self.resample)
        outs = [_rotate("Rotate", i, self.degrees, mode, self.expand, self.center,
                        self.fill_value) for i in img]
        return column(outs, img, x)


def _degree_range(op, degrees):
    """MindSpore's check_degrees: a number >= 0 (meaning (-d, d)) or an ordered pair."""
    chk.type_check(op, "degrees", degrees, (int, float, list, tuple))
    if isinstance(degrees, (int, float)):
        chk.range_check(op, "degrees", degrees, 0, FLOAT_MAX_INTEGER)
        return None
    if len(degrees) != 2:
        raise TypeError(f"{op}: If degrees is a sequence, the length must be 2, got "
                        f"{degrees!r}.")
    for v in degrees:
        chk.type_check(op, "degrees", v, (int, float))
        chk.range_check(op, "degrees", v, -FLOAT_MAX_INTEGER, FLOAT_MAX_INTEGER)
    if degrees[0] > degrees[1]:
        raise ValueError(f"{op}: degrees should be in (min,max) format. Got (max,min): "
                         f"{degrees!r}.")
    return None


class RandomRotation(TensorOperation):
    """Rotate by an angle drawn uniformly from degrees ((-d, d) for a number d), otherwise as
    Rotate (same fill order)."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        op = "RandomRotation"
        _degree_range(op, degrees)
        if isinstance(degrees, (int, float)):
            d = degrees % 360
            degrees = [-d, d]
        elif degrees[1] - degrees[0] >= 360:
            degrees = [-180, 180]
        else:
            degrees = [degrees[0] % 360, degrees[1] % 360]
            if degrees[0] > degrees[1]:
                degrees[1] += 360
        self.degrees = degrees
        self.resample = _resample(op, resample)
        chk.type_check(op, "expand", expand, (bool,))
        self.expand = expand
        self.center = _center(op, center)
        self.fill_value = _fill(op, fill_value)

    def _compute(self, x, rng):
        op = "RandomRotation"
        img = _images(op, x)
        mode = _mode(op, self.resample)
        angles = rng.uniform(self.degrees[0], self.degrees[1], size=len(img))
        outs = [_rotate(op, i, a, mode, self.expand, self.center, self.fill_value)
                for i, a in zip(img, angles)]
        return column(outs, img, x)


def _affine(op, img, degrees, translate_px, scale, shear, mode, fill):
    h, w = img.shape[1:3]
    m = _warp.affine_matrix(h, w, degrees, translate_px, scale, shear)
    return _warp.warp(op, img, np.broadcast_to(m, (len(img), 6)), (h, w), mode, fill)


class Affine(TensorOperation):
    """Rotate by degrees about the centre, scale, shear (degrees, x then y) and translate
    (fractions of the width and height), in one warpAffine (MindSpore's matrix, float32)."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        op = "Affine"
        chk.type_check(op, "degrees", degrees, (int, float))
        chk.range_check(op, "degrees", degrees, -180, 180)
        chk.type_check(op, "translate", translate, (list, tuple))
        if len(translate) != 2:
            raise TypeError(f"{op}: The length of translate should be 2, got {translate!r}.")
        for i, t in enumerate(translate):
            chk.type_check(op, f"translate[{i}]", t, (int, float))
            chk.range_check(op, f"translate[{i}]", t, -1.0, 1.0)
        chk.type_check(op, "scale", scale, (int, float))
        if scale <= 0:
            raise ValueError(f"{op}: Input scale must be greater than 0, got {scale}.")
        chk.type_check(op, "shear", shear, (numbers.Number, tuple, list))
        if isinstance(shear, (list, tuple)):
            if len(shear) != 2:
                raise TypeError(f"{op}: The length of shear should be 2, got {shear!r}.")
            for i, s in enumerate(shear):
                chk.type_check(op, f"shear[{i}]", s, (int, float))
                chk.range_check(op, f"shear[{i}]", s, -180, 180)
        else:
            chk.range_check(op, "shear", shear, -180, 180)
            shear = (shear, 0.0)
        self.degrees, self.translate, self.scale, self.shear = degrees, tuple(translate), \
            scale, tuple(shear)
        self.resample = _resample(op, resample)
        self.fill_value = _fill(op, fill_value)

    def _compute(self, x, rng):
        img = _images("Affine", x)
        mode = _mode("Affine", self.resample)
        h, w = img.shape[1:3]
        px = (np.float32(self.translate[0]) * np.float32(w),
              np.float32(self.translate[1]) * np.float32(h))
        return restore(_affine("Affine", img, self.degrees, px, self.scale, self.shear, mode,
                               self.fill_value), x)


def _pair_or_quad(op, name, value, lengths):
    chk.type_check(op, name, value, (list, tuple))
    for i, v in enumerate(value):
        chk.type_check(op, f"{name}[{i}]", v, (int, float))
    if len(value) not in lengths:
        raise TypeError(f"{op}: {name} should be a list or tuple of length "
                        f"{' or '.join(map(str, lengths))}, got {value!r}.")
    return value


class RandomAffine(TensorOperation):
    """Affine with parameters drawn uniformly per image: an angle in degrees ((-d, d) for a
    number), a translation in translate = (min_x, max_x[, min_y, max_y]) fractions of the
    width/height, a scale in scale = (min, max), shears in shear ((-s, s) on x for a number;
    (min_x, max_x[, min_y, max_y]))."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
                 fill_value=0):
        op = "RandomAffine"
        _degree_range(op, degrees)
        if translate is not None:
            _pair_or_quad(op, "translate", translate, (2, 4))
            for i, t in enumerate(translate):
                chk.range_check(op, f"translate at {i}", t, -1.0, 1.0)
        if scale is not None:
            _pair_or_quad(op, "scale", scale, (2,))
            if scale[0] > scale[1]:
                raise ValueError(f"{op}: Input scale[1] must be equal to or greater than "
                                 f"scale[0], got {scale!r}.")
            for v in scale:
                chk.range_check(op, "scale", v, 0, FLOAT_MAX_INTEGER)
            if scale[1] <= 0:
                raise ValueError(f"{op}: Input scale[1] must be greater than 0, got {scale!r}.")
        if shear is not None:
            chk.type_check(op, "shear", shear, (numbers.Number, tuple, list))
            if isinstance(shear, numbers.Number):
                if shear <= 0:
                    raise ValueError(f"{op}: Input shear must be greater than 0, got {shear}.")
                shear = (-shear, shear, 0.0, 0.0)
            else:
                _pair_or_quad(op, "shear", shear, (2, 4))
                if shear[0] > shear[1] or (len(shear) == 4 and shear[2] > shear[3]):
                    raise ValueError(f"{op}: Input shear[1] must be equal to or greater than "
                                     f"shear[0] (and shear[3] than shear[2]), got {shear!r}.")
                shear = tuple(shear) + (0.0, 0.0) if len(shear) == 2 else tuple(shear)
        self.resample = _resample(op, resample)
        self.fill_value = _fill(op, fill_value)
        self.degrees = (-degrees, degrees) if isinstance(degrees, (int, float)) else \
            tuple(degrees)
        translate = tuple(translate) if translate is not None else (0.0, 0.0, 0.0, 0.0)
        self.translate = translate + (0.0, 0.0) if len(translate) == 2 else translate
        self.scale = tuple(scale) if scale is not None else (1.0, 1.0)
        self.shear = tuple(shear) if shear is not None else (0.0, 0.0, 0.0, 0.0)

    def _compute(self, x, rng):
        op = "RandomAffine"
        img = _images(op, x)
        mode = _mode(op, self.resample)
        h, w = img.shape[1:3]
        t, f = self.translate, np.float32
        outs = []
        for i in range(len(img)):
            deg = math.fmod(rng.uniform(*self.degrees), 360.0)
            tx = rng.uniform(f(t[0]) * f(w), f(t[1]) * f(w))
            ty = rng.uniform(f(t[2]) * f(h), f(t[3]) * f(h))
            scale = rng.uniform(*self.scale)
            shear = (rng.uniform(*self.shear[:2]), rng.uniform(*self.shear[2:]))
            outs.append(_affine(op, img[i:i + 1], deg, (tx, ty), scale, shear, mode,
                                self.fill_value)[0])
        return restore(np.stack(outs) if outs else img, x)
