"""Cells that wrap one tensor function each, composed of existing operators (gradients come
from theirs): Unflatten, Pad, CentralCrop, PixelShuffle, TimeDistributed, MatMul, OneHot, Range,
ClipByNorm, IGamma and LBeta, with MindSpore 2.7.2's arguments and checks."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F
from minispore.ops.primitive import Primitive

__all__ = ["Unflatten", "Pad", "CentralCrop", "PixelShuffle", "TimeDistributed", "MatMul",
           "OneHot", "Range", "ClipByNorm", "IGamma", "LBeta"]


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _span(x, axis, start, length):
    """x[..., start:start + length, ...] along `axis`."""
    begin, end = [0] * x.ndim, list(x.shape)
    begin[axis], end[axis] = start, start + length
    return F.strided_slice(x, tuple(begin), tuple(end), (1,) * x.ndim)


class Unflatten(Cell):
    """Splits dimension `axis` of the input into `unflattened_size` (a tuple whose product is
    that dimension's length)."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if not _is_int(axis):
            raise TypeError(f"For 'Unflatten', 'axis' must be int, but got "
                            f"{type(axis).__name__}.")
        if not isinstance(unflattened_size, (tuple, list)) or \
                not all(_is_int(s) for s in unflattened_size):
            raise TypeError(f"For 'Unflatten', 'unflattened_size' must be a tuple or list of "
                            f"ints, but got {unflattened_size!r}.")
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, x):
        shape = tuple(x.shape)
        axis = self.axis + len(shape) if self.axis < 0 else self.axis
        if not 0 <= axis < len(shape):
            raise ValueError(f"For 'Unflatten', 'axis' {self.axis} is out of range for a rank "
                             f"{len(shape)} input.")
        if int(np.prod(self.unflattened_size)) != shape[axis]:
            raise ValueError(f"For 'Unflatten', the product of 'unflattened_size' "
                             f"{self.unflattened_size} must equal the length {shape[axis]} of "
                             f"axis {self.axis}.")
        return F.reshape(x, shape[:axis] + self.unflattened_size + shape[axis + 1:])


class Pad(Cell):
    """nn.Pad(paddings, mode): paddings holds one (before, after) pair per dimension (from the
    first); mode CONSTANT pads zeros, REFLECT mirrors without the edge, SYMMETRIC with it."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if not isinstance(paddings, (tuple, list)) or not all(
                isinstance(p, (tuple, list)) and len(p) == 2 and all(_is_int(v) and v >= 0
                                                                     for v in p)
                for p in paddings):
            raise TypeError(f"For 'Pad', 'paddings' must be a tuple of (before, after) pairs of "
                            f"non-negative ints, but got {paddings!r}.")
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', 'mode' must be one of 'CONSTANT', 'REFLECT', "
                             f"'SYMMETRIC', but got {mode!r}.")
        self.paddings, self.mode = tuple(tuple(p) for p in paddings), mode

    def construct(self, x):
        if len(self.paddings) > x.ndim:
            raise ValueError(f"For 'Pad', 'paddings' has {len(self.paddings)} pairs for a rank "
                             f"{x.ndim} input.")
        for axis, (before, after) in enumerate(self.paddings):
            if before or after:
                x = self._pad_axis(x, axis, before, after)
        return x

    def _pad_axis(self, x, axis, before, after):
        n = x.shape[axis]
        if self.mode == "CONSTANT":
            parts = []
            for width in (before, after):
                shape = list(x.shape)
                shape[axis] = width
                parts.append(F.zeros(tuple(shape), x.dtype))
            return F.concat([parts[0], x, parts[1]], axis)
        edge = 1 if self.mode == "REFLECT" else 0   # REFLECT leaves the edge out
        if max(before, after) > n - edge:
            raise ValueError(f"For 'Pad', a {self.mode} padding of {max(before, after)} on "
                             f"axis {axis} must be at most {n - edge} for its length {n}.")
        parts = []
        if before:
            parts.append(F.flip(_span(x, axis, edge, before), (axis,)))
        parts.append(x)
        if after:
            parts.append(F.flip(_span(x, axis, n - edge - after, after), (axis,)))
        return F.concat(parts, axis)


class CentralCrop(Cell):
    """The central `central_fraction` of the last two (H, W) dimensions of a 3-D or 4-D image:
    start = int((h - h * fraction) / 2), size = h - 2 * start, as MindSpore crops."""

    def __init__(self, central_fraction):
        super().__init__()
        if isinstance(central_fraction, bool) or not isinstance(central_fraction,
                                                                 (int, float)):
            raise TypeError(f"For 'CentralCrop', 'central_fraction' must be float, but got "
                            f"{type(central_fraction).__name__}.")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', 'central_fraction' must be in (0.0, 1.0], "
                             f"but got {central_fraction}.")
        self.central_fraction = float(central_fraction)

    def construct(self, image):
        if image.ndim not in (3, 4):
            raise ValueError(f"For 'CentralCrop', the input must be 3-D or 4-D, but got rank "
                             f"{image.ndim}.")
        for axis in (image.ndim - 2, image.ndim - 1):
            size = image.shape[axis]
            start = int((size - size * self.central_fraction) / 2)
            image = _span(image, axis, start, size - 2 * start)
        return image


class PixelShuffle(Cell):
    """(..., C*r*r, H, W) -> (..., C, H*r, W*r)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, x):
        return F.pixel_shuffle(x, self.upscale_factor)


class TimeDistributed(Cell):
    """``TimeDistributed(layer, time_axis, reshape_with_axis=None)``: `layer` (a Cell or a
    Primitive) applied to every time step of an input of rank >= 3, as MindSpore computes it.
    Without reshape_with_axis each step (the input unstacked along time_axis) goes through
    the layer on its own and the results are stacked back there, so a BatchNorm keeps
    per-step statistics; with it, the time axis is moved next to reshape_with_axis, merged
    into it for one call of the layer, and split again."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        if not isinstance(layer, (Cell, Primitive)):
            raise TypeError(f"For 'TimeDistributed', the 'layer' must be Cell or Primitive "
                            f"instance, but got type: {type(layer).__name__}.")
        super().__init__()
        for arg, value in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"For 'TimeDistributed', '{arg}' must be an int, but got "
                                f"{type(value).__name__}.")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs):
        if not isinstance(inputs, Tensor):
            raise TypeError("For 'TimeDistributed', the inputs and outputs must be a Tensor.")
        rank = inputs.ndim
        if rank < 3:
            raise ValueError(f"For 'TimeDistributed', the inputs shape must be at least 3D, but "
                             f"got {rank}.")
        time_axis = self.time_axis % rank
        if self.reshape_with_axis is not None:
            return self._reshaped(inputs, time_axis, self.reshape_with_axis % rank)
        steps = []
        for step in F.unstack(inputs, time_axis):
            out = self.layer(step)
            if not isinstance(out, Tensor):
                raise TypeError("For 'TimeDistributed', the inputs and outputs must be a "
                                "Tensor.")
            if time_axis > out.ndim:
                raise ValueError(f"For 'TimeDistributed', the value of 'time_axis' must be in "
                                 f"range of [{-out.ndim - 1}, {out.ndim}], but got "
                                 f"{time_axis}.")
            steps.append(out)
        return F.stack(steps, time_axis)

    def _reshaped(self, inputs, time_axis, with_axis):
        rank = inputs.ndim
        moved = rank - 2 if with_axis == rank - 1 else \
            (with_axis + 1 if time_axis > with_axis else with_axis - 1)
        pos = min(moved, with_axis)
        low, high = sorted((moved, time_axis))
        perm = tuple(range(rank))
        inputs = F.transpose(inputs, perm[:low] + (perm[high],) + perm[low:high]
                             + perm[high + 1:])
        shape = tuple(inputs.shape)
        merged = F.reshape(inputs, shape[:pos] + (-1,) + shape[pos + 2:])
        out = self.layer(merged)
        if not isinstance(out, Tensor):
            raise TypeError("For 'TimeDistributed', the inputs and outputs must be a Tensor.")
        if pos >= out.ndim or merged.shape[pos] != out.shape[pos]:
            raise ValueError(f"For 'TimeDistributed', the 'reshape_with_axis' is invalid in the "
                             f"input and output: 'reshape_pos' {pos}, 'inputs_shape' "
                             f"{tuple(merged.shape)}, 'outputs_shape' {tuple(out.shape)}; try "
                             f"it without 'reshape_with_axis'.")
        split = tuple(out.shape[:pos]) + shape[pos:pos + 2] + tuple(out.shape[pos + 1:])
        return F.reshape(out, (-1,) + split[1:])


class MatMul(Cell):
    """Batched matrix product with the last two dims of either side transposed first; batch
    dims broadcast."""

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        for name, value in (("transpose_x1", transpose_x1), ("transpose_x2", transpose_x2)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'MatMul', '{name}' must be bool, but got "
                                f"{type(value).__name__}.")
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1:
            x1 = F.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = F.swapaxes(x2, -1, -2)
        return F.matmul(x1, x2)


class OneHot(Cell):
    """One-hot vectors of `depth` along `axis`, on_value where the index matches."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32):
        super().__init__()
        if not _is_int(depth) or depth < 0:
            raise ValueError(f"For 'OneHot', 'depth' must be a non-negative int, but got "
                             f"{depth!r}.")
        self.axis, self.depth = axis, depth
        self.on_value = Tensor(np.asarray(on_value), dtype)
        self.off_value = Tensor(np.asarray(off_value), dtype)

    def construct(self, indices):
        return F.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis)


class Range(Cell):
    """The constant sequence start, start + delta, … below limit (or [0, start) when limit is
    None): Int32 when every argument is an int, Float32 otherwise."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        for name, value in (("start", start), ("limit", limit), ("delta", delta)):
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, float))):
                raise TypeError(f"For 'Range', '{name}' must be int or float, but got "
                                f"{type(value).__name__}.")
        if delta == 0:
            raise ValueError("For 'Range', 'delta' can not be zero.")
        if limit is None:
            start, limit = 0, start
        ints = all(_is_int(v) for v in (start, limit, delta))
        values = np.arange(start, limit, delta, dtype=np.int32 if ints else np.float32)
        self.result = Tensor(values, mstype.int32 if ints else mstype.float32)

    def construct(self):
        return self.result


class ClipByNorm(Cell):
    """x * clip_norm / max(||x||_2, clip_norm), the L2 norm over `axis` (all axes when None)."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = () if axis is None else axis

    def construct(self, x, clip_norm):
        l2sum = F.reduce_sum(F.mul(x, x), self.axis, keep_dims=True)
        l2norm = F.sqrt(l2sum)
        return F.div(F.mul(x, clip_norm), F.maximum(l2norm, F.cast(clip_norm, x.dtype)))


class IGamma(Cell):
    """The regularised lower incomplete gamma function P(a, x)."""

    def construct(self, a, x):
        return F.igamma(a, x)


class LBeta(Cell):
    """log |Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), elementwise."""

    def construct(self, x, y):
        return F.sub(F.add(F.lgamma(x), F.lgamma(y)), F.lgamma(F.add(x, y)))
