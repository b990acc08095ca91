"""RandomErasing (MindSpore's Python op on <C, H, W> arrays) and ToPIL."""
import math
import numbers

import numpy as np

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk

FLOAT_MAX_INTEGER = 16777216


def _check_value(op, value):
    chk.type_check(op, "value", value, (int, list, tuple, str))
    if isinstance(value, str) and value != "random" or \
            isinstance(value, (list, tuple)) and len(value) != 3:
        raise ValueError(f"{op}: The value for erasing should be either a single value, or a "
                         f"string 'random', or a sequence of 3 elements for RGB respectively, "
                         f"got {value!r}.")
    if isinstance(value, int):
        chk.range_check(op, "value", value, 0, 255)
    if isinstance(value, (list, tuple)):
        for v in value:
            chk.type_check(op, "value", v, (int,))
            chk.range_check(op, "value", v, 0, 255)
    return value


def erase_params(rng, c, h, w, scale, ratio, value, max_attempts):
    """MindSpore's get_erase_params (bounded): up to max_attempts draws of an area fraction in
    scale and an aspect ratio in ratio (uniform); a box strictly smaller than the image goes at
    a uniform position. Returns (top, left, height, width, fill) or None when every draw
    missed (the image is then unchanged)."""
    area = h * w
    for _ in range(max_attempts):
        erase_area = rng.uniform(scale[0], scale[1]) * area
        aspect = rng.uniform(ratio[0], ratio[1])
        ew = int(round(math.sqrt(erase_area * aspect)))
        eh = int(round(ew / aspect))
        if eh < h and ew < w:
            top = int(rng.integers(0, h - eh + 1))
            left = int(rng.integers(0, w - ew + 1))
            if isinstance(value, numbers.Number):
                fill = value
            elif isinstance(value, str):
                fill = rng.normal(0.0, 1.0, size=(c, eh, ew))
            else:
                fill = np.asarray(value, np.float64)[:, None, None] * np.ones((c, eh, ew))
            return top, left, eh, ew, fill
    return None


class RandomErasing(TensorOperation):
    """With probability prob, erase one random box of each <C, H, W> image (area fraction in
    scale, aspect ratio in ratio) to value: a number, one per channel, or 'random' (standard
    normal noise)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 max_attempts=10):
        op = "RandomErasing"
        chk.type_check(op, "prob", prob, (float, int))
        for name, pair in (("scale", scale), ("ratio", ratio)):
            chk.type_check(op, name, pair, (list, tuple))
            for i, v in enumerate(pair):
                chk.type_check(op, f"{name}[{i}]", v, (float, int))
            if len(pair) != 2:
                raise TypeError(f"{op}: {name} should be a list or tuple of length 2, got "
                                f"{pair!r}.")
        _check_value(op, value)
        chk.type_check(op, "inplace", inplace, (bool,))
        chk.type_check(op, "max_attempts", max_attempts, (int,))
        chk.range_check(op, "prob", prob, 0.0, 1.0)
        if scale[0] > scale[1]:
            raise ValueError(f"{op}: scale should be in (min,max) format. Got (max,min): "
                             f"{scale!r}.")
        for v in scale:
            chk.range_check(op, "scale", v, 0, FLOAT_MAX_INTEGER)
        if scale[1] <= 0:
            raise ValueError(f"{op}: Input scale[1] must be greater than 0, got {scale!r}.")
        if ratio[0] > ratio[1]:
            raise ValueError(f"{op}: ratio should be in (min,max) format. Got (max,min): "
                             f"{ratio!r}.")
        for v in ratio:
            chk.range_check(op, "ratio", v, 0, FLOAT_MAX_INTEGER, lo_open=True)
        chk.range_check(op, "max_attempts", max_attempts, 1, FLOAT_MAX_INTEGER)
        self.prob, self.scale, self.ratio = float(prob), tuple(scale), tuple(ratio)
        self.value, self.inplace, self.max_attempts = value, inplace, max_attempts

    def _compute(self, x, rng):
        op = "RandomErasing"
        if x.ndim != 4:
            raise ValueError(f"{op}: the image must be a <C, H, W> array, got shape "
                             f"{list(x.shape[1:])}.")
        out = x if self.inplace else x.copy()
        for i in range(len(x)):
            if not self.prob > rng.random():
                continue
            c, h, w = x.shape[1:]
            params = erase_params(rng, c, h, w, self.scale, self.ratio, self.value,
                                  self.max_attempts)
            if params is not None:
                top, left, eh, ew, fill = params
                out[i, :, top:top + eh, left:left + ew] = fill
        return out


class ToPIL(TensorOperation):
    """Convert a decoded numpy image (<H, W> or <H, W, C>) to a PIL Image, as MindSpore's
    ToPIL (PIL's Image.fromarray). Needs the Pillow package."""

    def __call__(self, img):
        try:
            from PIL import Image
        except ImportError:
            raise ImportError("ToPIL: needs the Pillow package (import PIL), which is not "
                              "installed; install it with `pip install pillow`.") from None
        if isinstance(img, Image.Image):
            return img
        if hasattr(img, "asnumpy"):
            img = img.asnumpy()
        if not isinstance(img, np.ndarray):
            raise TypeError(f"ToPIL: The input image should be of type numpy.ndarray or "
                            f"PIL.Image.Image. Got {type(img)}.")
        if img.ndim not in (2, 3):
            raise ValueError(f"ToPIL: The dimension of input image should be 2 or 3. Got "
                             f"{img.ndim}.")
        if img.ndim == 2:
            img = img[:, :, None]
        if img.shape[-1] > 4:
            raise ValueError(f"ToPIL: The channel of input image should not exceed 4. Got "
                             f"{img.shape[-1]}.")
        if img.shape[-1] == 1:
            if img.dtype not in (np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16,
                                 np.uint32, np.float32, np.float64):
                raise TypeError(f"ToPIL: The input image type {img.dtype} is not supported "
                                f"when image shape is [H, W] or [H, W, 1].")
            img = img[:, :, 0]
        elif img.dtype != np.uint8:
            raise TypeError(f"ToPIL: The input image type {img.dtype} is not supported when "
                            f"image shape is [H, W, 2], [H, W, 3] or [H, W, 4].")
        return Image.fromarray(img)

    def _compute(self, x, rng):
        raise NotImplementedError("ToPIL: a PIL Image is not an array column; call ToPIL on "
                                  "one image, not inside a map over a dataset.")
