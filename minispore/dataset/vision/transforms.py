"""Vision transforms on HWC images: Resize, Rescale, Normalize, HWC2CHW, crops, flips, patches."""
import math

import numpy as np

from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _kernels
from minispore.dataset.vision._image import Border, Inter, SliceMode  # noqa: F401
from minispore.dataset.vision._image import image_batch as _image_batch
# The other families live in their own modules; MindSpore's path for all of them is
# mindspore.dataset.vision.transforms.
from minispore.dataset.vision._geometry import (CenterCrop, CutOut, Erase,  # noqa: F401
                                                HorizontalFlip, NormalizePad, Pad, PadToSize,
                                                RandomVerticalFlip, ToNumpy, ToTensor,
                                                VerticalFlip)
from minispore.dataset.vision._color import (AdjustBrightness, AdjustContrast,  # noqa: F401
                                             AdjustGamma, AdjustSaturation, AutoContrast, Equalize,
                                             Invert, Posterize, RandomAutoContrast, RandomEqualize,
                                             RandomInvert, RandomPosterize, RandomSolarize,
                                             Solarize)

from minispore.dataset.vision._affine import (Affine, RandomAffine, RandomRotation,  # noqa: F401
                                              Rotate)
from minispore.dataset.vision._random_resize import RandomResize, RandomResizedCrop  # noqa: F401
from minispore.dataset.vision._filter import (AdjustSharpness, GaussianBlur,  # noqa: F401
                                              RandomAdjustSharpness, RandomSharpness)
from minispore.dataset.vision._augment import (AutoAugment, AutoAugmentPolicy,  # noqa: F401
                                               RandAugment, TrivialAugmentWide)
from minispore.dataset.vision._erasing import RandomErasing, ToPIL  # noqa: F401
from minispore.dataset.vision._color_random import (AdjustHue, RandomColor,  # noqa: F401
                                                    RandomColorAdjust, RandomLighting)

_TAP_NAMES = {Inter.NEAREST: "nearest", Inter.LINEAR: "linear", Inter.CUBIC: "cubic",
              Inter.AREA: "area"}


def _check_size(op, size):
    if isinstance(size, int) and not isinstance(size, bool):
        size = (size,)
    if not isinstance(size, (list, tuple)) or len(size) not in (1, 2) or \
            not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
        raise ValueError(f"{op}: size must be a positive int or a sequence (height, width) of "
                         f"positive ints, got {size!r}.")
    return tuple(size)


class Resize(TensorOperation):
    """Resize to `size`: (h, w) exactly, or an int giving the shorter side (aspect kept).

    Follows OpenCV's resize as MindSpore calls it: uint8 LINEAR is its fixed-point arithmetic
    (bit-exact), AREA averages the covered cells when shrinking (exact); NEAREST is exact;
    CUBIC and enlarging AREA round a float32 sum, so uint8 may differ by 1 from OpenCV's fixed
    point. Float images stay float. HWC in, HWC out, dtype kept.
    """

    def __init__(self, size, interpolation=Inter.LINEAR):
        self.size = _check_size("Resize", size)
        if not isinstance(interpolation, Inter):
            raise TypeError(f"Resize: interpolation must be an Inter, got {interpolation!r}.")
        if Inter(interpolation) not in _TAP_NAMES:
            raise ValueError(f"Resize: interpolation {Inter(interpolation).name} is not "
                             f"supported; use Inter.NEAREST, Inter.LINEAR, Inter.CUBIC or "
                             f"Inter.AREA.")
        self.interpolation = Inter(interpolation)

    def _out_size(self, h, w):
        if len(self.size) == 2:
            return self.size
        s = self.size[0]
        return (s, int(w * s / h)) if h <= w else (int(h * s / w), s)

    def _compute(self, x, rng):
        img = _image_batch("Resize", x)
        oh, ow = self._out_size(img.shape[1], img.shape[2])
        out = _kernels.resize("Resize", img, oh, ow, _TAP_NAMES[self.interpolation])
        return out if x.ndim == 4 else out[..., 0]


class Rescale(TensorOperation):
    """out = float32(x) * rescale + shift."""

    def __init__(self, rescale, shift):
        for name, v in (("rescale", rescale), ("shift", shift)):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise TypeError(f"Rescale: {name} must be a number, got {v!r}.")
        self.rescale, self.shift = float(rescale), float(shift)

    def _compute(self, x, rng):
        out = x.astype(np.float32)
        out *= np.float32(self.rescale)
        out += np.float32(self.shift)
        return out


class Normalize(TensorOperation):
    """Per channel: (x - mean[c]) / std[c], float32 out; channels last unless is_hwc=False."""

    def __init__(self, mean, std, is_hwc=True):
        mean, std = list(np.atleast_1d(mean)), list(np.atleast_1d(std))
        if len(mean) != len(std) or not mean:
            raise ValueError(f"Normalize: mean {mean} and std {std} must have the same, non-zero "
                             f"length.")
        if min(std) <= 0:
            raise ValueError(f"Normalize: every std must be > 0, got {std}.")
        self.mean, self.std, self.is_hwc = [float(m) for m in mean], [float(s) for s in std], \
            bool(is_hwc)

    def _compute(self, x, rng):
        img = _image_batch("Normalize", x) if self.is_hwc else x
        channels = img.shape[-1] if self.is_hwc else img.shape[1]
        if len(self.mean) not in (1, channels):
            raise ValueError(f"Normalize: mean/std have {len(self.mean)} values but the image "
                             f"has {channels} channels (shape {list(x.shape[1:])}).")
        shape = (-1,) if self.is_hwc else (-1, 1, 1)
        mean = np.asarray(self.mean, np.float32).reshape(shape)
        inv = (1.0 / np.asarray(self.std, np.float32)).reshape(shape)
        out = (img.astype(np.float32) - mean) * inv
        return out if not self.is_hwc or x.ndim == 4 else out[..., 0]


class HWC2CHW(TensorOperation):
    """Transpose each image from <H, W, C> to <C, H, W> (an <H, W> image becomes <1, H, W>)."""

    def _compute(self, x, rng):
        return np.ascontiguousarray(_image_batch("HWC2CHW", x).transpose(0, 3, 1, 2))


def _padding(op, padding):
    if padding is None:
        return (0, 0, 0, 0)
    if isinstance(padding, int):
        padding = (padding,)
    pad = tuple(padding)
    if len(pad) not in (1, 2, 4) or not all(isinstance(p, int) and p >= 0 for p in pad):
        raise ValueError(f"{op}: padding must be a non-negative int or a sequence of 2 or 4 of "
                         f"them, got {padding!r}.")
    left, top, right, bottom = (pad * 4)[:4] if len(pad) == 1 else \
        (pad[0], pad[1], pad[0], pad[1]) if len(pad) == 2 else pad
    return left, top, right, bottom


class RandomCrop(TensorOperation):
    """Crop a random (h, w) window, after optional padding (left, top, right, bottom)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _check_size("RandomCrop", size)
        if len(self.size) == 1:
            self.size = self.size * 2
        self.padding = _padding("RandomCrop", padding)
        self.pad_if_needed, self.fill_value = bool(pad_if_needed), fill_value
        if not isinstance(padding_mode, Border):
            raise TypeError(f"RandomCrop: padding_mode must be a Border, got {padding_mode!r}.")
        self.padding_mode = padding_mode

    def _compute(self, x, rng):
        img = _image_batch("RandomCrop", x)
        left, top, right, bottom = self.padding
        oh, ow = self.size
        if self.pad_if_needed:
            bottom += max(oh - (img.shape[1] + top + bottom), 0)
            right += max(ow - (img.shape[2] + left + right), 0)
        widths = ((0, 0), (top, bottom), (left, right), (0, 0))
        if self.padding_mode is Border.CONSTANT:
            img = np.pad(img, widths, constant_values=self.fill_value)
        else:
            img = np.pad(img, widths, mode=self.padding_mode.value)
        n, h, w, _ = img.shape
        if oh > h or ow > w:
            raise ValueError(f"RandomCrop: crop size {(oh, ow)} exceeds the padded image size "
                             f"{(h, w)}; set pad_if_needed=True or a larger padding.")
        ys = rng.integers(0, h - oh + 1, size=n)
        xs = rng.integers(0, w - ow + 1, size=n)
        out = np.stack([img[i, ys[i]:ys[i] + oh, xs[i]:xs[i] + ow] for i in range(n)])
        return out if x.ndim == 4 else out[..., 0]


class RandomHorizontalFlip(TensorOperation):
    """Mirror each image left-right with probability prob."""

    def __init__(self, prob=0.5):
        if not 0.0 <= float(prob) <= 1.0:
            raise ValueError(f"RandomHorizontalFlip: prob must be in [0, 1], got {prob}.")
        self.prob = float(prob)

    def _compute(self, x, rng):
        img = _image_batch("RandomHorizontalFlip", x)
        flip = rng.random(len(img)) < self.prob
        out = img.copy()
        out[flip] = img[flip, :, ::-1]
        return out if x.ndim == 4 else out[..., 0]


class SlicePatches(TensorOperation):
    """Cut each image into num_height x num_width patches, one output column each (row-major).

    PAD pads the bottom/right with fill_value up to a multiple of the grid; DROP drops the rest.
    """

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        for name, v in (("num_height", num_height), ("num_width", num_width)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"SlicePatches: {name} must be an int >= 1, got {v!r}.")
        self.num_height, self.num_width = num_height, num_width
        self.slice_mode, self.fill_value = slice_mode, fill_value

    def _compute(self, x, rng):
        img = _image_batch("SlicePatches", x)
        _, h, w, _ = img.shape
        nh, nw = self.num_height, self.num_width
        if self.slice_mode is SliceMode.PAD:
            ph, pw = math.ceil(h / nh), math.ceil(w / nw)
            img = np.pad(img, ((0, 0), (0, ph * nh - h), (0, pw * nw - w), (0, 0)),
                         constant_values=self.fill_value)
        else:
            ph, pw = h // nh, w // nw
        patches = tuple(np.ascontiguousarray(img[:, i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                        for i in range(nh) for j in range(nw))
        return patches if x.ndim == 4 else tuple(p[..., 0] for p in patches)

