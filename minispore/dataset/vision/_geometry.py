"""Vision transforms that move or pad pixels without resampling: crops, flips, pads, erasing,
and the layout conversions ToTensor, ToNumpy and NormalizePad (MindSpore 2.7 semantics)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.dataset.transforms.transforms import TensorOperation
from minispore.dataset.vision import _checks as chk
from minispore.dataset.vision._image import Border, restore as _restore
from minispore.dataset.vision._image import image_batch as _image_batch


def _rgb_batch(op, x):
    """A batch of <H, W, 3> images, or MindSpore's RuntimeError for any other layout."""
    if x.ndim != 4 or x.shape[-1] != 3:
        raise RuntimeError(f"{op}: the image must be <H, W, 3>, got shape {list(x.shape[1:])}.")
    return x


def _pad_images(img, top, bottom, left, right, mode, fill):
    """np.pad of an (N, H, W, C) batch; CONSTANT fills channel c with fill[c] (a gray image
    takes fill[0], as OpenCV's copyMakeBorder does with a 3-value scalar)."""
    widths = ((0, 0), (top, bottom), (left, right), (0, 0))
    if mode is not Border.CONSTANT:
        return np.pad(img, widths, mode=mode.value)
    c = img.shape[-1]
    if c not in (1, 3):
        raise RuntimeError(f"Pad: the image must have 1 or 3 channels, got {c}.")
    out = np.empty((img.shape[0], img.shape[1] + top + bottom, img.shape[2] + left + right, c),
                   img.dtype)
    out[...] = np.asarray(fill[:c], np.float64).astype(img.dtype)
    out[:, top:top + img.shape[1], left:left + img.shape[2]] = img
    return out


class CenterCrop(TensorOperation):
    """Crop the central (h, w) window (top = (H - h) // 2); a crop larger than the image first
    pads it with zeros, half (rounded down) before and the rest after."""

    def __init__(self, size):
        self.size = chk.size_pair("CenterCrop", size)

    def _compute(self, x, rng):
        img = _image_batch("CenterCrop", x)
        h, w = self.size
        ph, pw = max(h - img.shape[1], 0), max(w - img.shape[2], 0)
        if ph or pw:
            img = np.pad(img, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
        top, left = (img.shape[1] - h) // 2, (img.shape[2] - w) // 2
        return _restore(np.ascontiguousarray(img[:, top:top + h, left:left + w]), x)


class HorizontalFlip(TensorOperation):
    """Mirror each image left-right."""

    def _compute(self, x, rng):
        return _restore(np.ascontiguousarray(_image_batch("HorizontalFlip", x)[:, :, ::-1]), x)


class VerticalFlip(TensorOperation):
    """Mirror each image top-bottom."""

    def _compute(self, x, rng):
        return _restore(np.ascontiguousarray(_image_batch("VerticalFlip", x)[:, ::-1]), x)


class RandomVerticalFlip(TensorOperation):
    """Mirror each image top-bottom with probability prob."""

    def __init__(self, prob=0.5):
        self.prob = chk.prob("RandomVerticalFlip", prob)

    def _compute(self, x, rng):
        img = _image_batch("RandomVerticalFlip", x)
        flip = rng.random(len(img)) < self.prob
        out = img.copy()
        out[flip] = img[flip, ::-1]
        return _restore(out, x)


def _parse_padding(op, padding):
    """MindSpore's padding: an int (all sides), (left/right, top/bottom) or (left, top, right,
    bottom); returns (left, top, right, bottom)."""
    chk.type_check(op, "padding", padding, (int, list, tuple))
    if isinstance(padding, int):
        padding = (padding,) * 4
    elif len(padding) == 2:
        padding = (padding[0], padding[1], padding[0], padding[1])
    elif len(padding) != 4:
        raise ValueError(f"{op}: the size of the padding list or tuple should be 2 or 4, got "
                         f"{padding!r}.")
    for p in padding:
        chk.int_in(op, "padding", p, 0)
    return tuple(padding)


class Pad(TensorOperation):
    """Pad each side (left, top, right, bottom) with fill_value (CONSTANT) or by EDGE, REFLECT
    or SYMMETRIC border rules (numpy's modes of the same names)."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _parse_padding("Pad", padding)
        self.fill_value = chk.fill_rgb("Pad", fill_value)
        chk.type_check("Pad", "padding_mode", padding_mode, (Border,))
        self.padding_mode = padding_mode

    def _compute(self, x, rng):
        left, top, right, bottom = self.padding
        img = _image_batch("Pad", x)
        return _restore(_pad_images(img, top, bottom, left, right, self.padding_mode,
                                    self.fill_value), x)


class PadToSize(TensorOperation):
    """Pad to size (h, w), the image placed at offset (top, left) or centred (rounding down)."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = chk.size_pair("PadToSize", size, hi=chk.INT32_MAX)
        if offset is not None:
            chk.type_check("PadToSize", "offset", offset, (int, list, tuple))
            if isinstance(offset, int):
                offset = (offset, offset)
            if len(offset) not in (0, 2):
                raise ValueError(f"PadToSize: the offset must be empty or a sequence of length "
                                 f"2, got {offset!r}.")
            for v in offset:
                chk.int_in("PadToSize", "offset", v, 0)
            offset = tuple(offset) or None
        self.offset = offset
        self.fill_value = chk.fill_rgb("PadToSize", fill_value)
        chk.type_check("PadToSize", "padding_mode", padding_mode, (Border,))
        self.padding_mode = padding_mode

    def _compute(self, x, rng):
        img = _image_batch("PadToSize", x)
        (h, w), (ih, iw) = self.size, img.shape[1:3]
        top, left = self.offset or ((h - ih) // 2, (w - iw) // 2)
        if h < ih or w < iw or top > h - ih or left > w - iw:
            raise RuntimeError(f"PadToSize: the image {[ih, iw]} placed at offset "
                               f"{[top, left]} does not fit in size {[h, w]}.")
        return _restore(_pad_images(img, top, h - ih - top, left, w - iw - left,
                                    self.padding_mode, self.fill_value), x)


class ToTensor(TensorOperation):
    """<H, W, C> (or <H, W>) -> <C, H, W>, values scaled by 1/255 in float32, then cast to
    output_type (a numpy or minispore dtype)."""

    def __init__(self, output_type=np.float32):
        try:
            self.output_type = mstype.to_type(output_type)
        except TypeError:
            raise TypeError(f"ToTensor: argument output_type with value {output_type!r} is not "
                            f"of type [Type, numpy.dtype].") from None

    def _compute(self, x, rng):
        if x.ndim not in (3, 4):
            raise RuntimeError(f"ToTensor: the image must be <H, W> or <H, W, C>, got shape "
                               f"{list(x.shape[1:])}.")
        # times float32(1/255), not divided by 255: MindSpore's rounding, seen in the last bit
        img = _image_batch("ToTensor", x).astype(np.float32) * np.float32(1 / 255)
        return np.ascontiguousarray(img.transpose(0, 3, 1, 2)).astype(self.output_type.np_dtype)


class ToNumpy(TensorOperation):
    """The input as a numpy array (numpy in, numpy out)."""

    def _compute(self, x, rng):
        return x


class NormalizePad(TensorOperation):
    """Normalize ((x - mean) / std per channel) and append one channel of zeros; the result is
    float32 or float16 (computed in float32)."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        op = "NormalizePad"
        for name, vals in (("mean", mean), ("std", std)):
            chk.type_check(op, name, vals, (list, tuple))
        if len(mean) != len(std):
            raise ValueError(f"{op}: length of mean and std must be equal, got {mean!r} and "
                             f"{std!r}.")
        for i, m in enumerate(mean):
            chk.number_in(op, f"mean[{i}]", m, 0, 255)
        for i, s in enumerate(std):
            chk.number_in(op, f"std[{i}]", s, 0, 255, lo_open=True)
        chk.type_check(op, "dtype", dtype, (str,))
        if dtype not in ("float32", "float16"):
            raise ValueError(f"{op}: dtype only supports float32 or float16, got {dtype!r}.")
        chk.type_check(op, "is_hwc", is_hwc, (bool,))
        self.mean, self.std, self.dtype, self.is_hwc = list(mean), list(std), dtype, is_hwc

    def _compute(self, x, rng):
        img = _image_batch("NormalizePad", x) if self.is_hwc or x.ndim == 3 else \
            x.transpose(0, 2, 3, 1)
        if len(self.mean) not in (1, img.shape[-1]):
            raise RuntimeError(f"NormalizePad: the image has {img.shape[-1]} channels but mean "
                               f"and std have {len(self.mean)} values.")
        norm = (img.astype(np.float32) - np.asarray(self.mean, np.float32)) / \
            np.asarray(self.std, np.float32)
        if not self.is_hwc and x.ndim == 4:
            norm = norm.transpose(0, 3, 1, 2)
        # MindSpore 2.7 writes the normalized image's values in their own (HWC or CHW) order and
        # then H*W zeros, viewed as <H, W, C+1> (or <C+1, H, W>): right for CHW, but for HWC the
        # zeros are not a trailing channel. We reproduce its output exactly.
        n = norm.shape[0]
        flat = np.concatenate([norm.reshape(n, -1), np.zeros((n, img.shape[1] * img.shape[2]),
                                                              np.float32)], axis=1)
        shape = (img.shape[1], img.shape[2], img.shape[3] + 1) if self.is_hwc or x.ndim == 3 \
            else (img.shape[3] + 1, img.shape[1], img.shape[2])
        return flat.reshape((n,) + shape).astype(self.dtype)


class Erase(TensorOperation):
    """Set the window rows [top, top + height) x columns [left, left + width) of an <H, W, 3>
    image to value (one number or one per channel)."""

    def __init__(self, top, left, height, width, value=0.0, inplace=False):
        op = "Erase"
        chk.int_in(op, "top", top, 0)
        chk.int_in(op, "left", left, 0)
        chk.int_in(op, "height", height, 1)
        chk.int_in(op, "width", width, 1)
        chk.type_check(op, "inplace", inplace, (bool,))
        chk.type_check(op, "value", value, (float, int, tuple))
        vals = (value,) * 3 if isinstance(value, (float, int)) else value
        if len(vals) != 3:
            raise TypeError(f"{op}: value should be a single integer/float or a 3-tuple, got "
                            f"{value!r}.")
        for i, v in enumerate(vals):
            chk.type_check(op, f"value[{i}]", v, (float, int))
            chk.range_check(op, f"value[{i}]", v, 0, 255)
        self.top, self.left, self.height, self.width = top, left, height, width
        self.value, self.inplace = tuple(vals), inplace

    def _compute(self, x, rng):
        img = _rgb_batch("Erase", x)
        if self.top + self.height > img.shape[1] or self.left + self.width > img.shape[2]:
            raise RuntimeError(f"Erase: the window top={self.top}, left={self.left}, "
                               f"height={self.height}, width={self.width} exceeds the image "
                               f"size {list(img.shape[1:3])}.")
        value = np.asarray(self.value, np.float64)
        if img.dtype.kind in "ui":  # OpenCV's saturate_cast rounds to nearest
            value = np.rint(value)
        out = img if self.inplace else img.copy()
        out[:, self.top:self.top + self.height, self.left:self.left + self.width] = \
            value.astype(img.dtype)
        return out


class CutOut(TensorOperation):
    """Zero num_patches random length x length boxes of each <H, W, C> (or <C, H, W>) image.

    As in MindSpore, a box's corner is drawn uniformly from [-length, H] x [-length, W] and the
    box clipped to the image, so boxes may hang over the border (and cover less).
    """

    def __init__(self, length, num_patches=1, is_hwc=True):
        op = "CutOut"
        chk.type_check(op, "length", length, (int,))
        chk.type_check(op, "num_patches", num_patches, (int,))
        chk.type_check(op, "is_hwc", is_hwc, (bool,))
        chk.range_check(op, "length", length, 1, 16777216)
        chk.range_check(op, "num_patches", num_patches, 1, 16777216)
        self.length, self.num_patches, self.is_hwc = length, num_patches, is_hwc

    def _compute(self, x, rng):
        if x.ndim != 4:
            raise RuntimeError(f"CutOut: the image must have rank 3, got shape "
                               f"{list(x.shape[1:])}.")
        h, w = x.shape[1:3] if self.is_hwc else x.shape[2:4]
        n, side = self.length, len(x)
        if side and (n > h or n > w):
            raise RuntimeError(f"CutOut: box size {n} is too large for an image of height {h} "
                               f"and width {w}.")
        out = x.copy()
        tops = rng.integers(0, h + n + 1, size=(side, self.num_patches)) - n
        lefts = rng.integers(0, w + n + 1, size=(side, self.num_patches)) - n
        for i in range(side):
            for top, left in zip(tops[i], lefts[i]):
                rows = slice(max(top, 0), min(top + n, h))
                cols = slice(max(left, 0), min(left + n, w))
                if self.is_hwc:
                    out[i, rows, cols] = 0
                else:
                    out[i, :, rows, cols] = 0
        return out
