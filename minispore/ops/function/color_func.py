"""Colour-space conversions: ops.RGBToHSV and ops.HSVToRGB, composed of elementwise operators
(so they differentiate through them: RGBToHSV's gradient equals MindSpore's analytic bprop).

The last axis holds the three channels, values in [0, 1]; hue is in [0, 1) (a sixth per
sector), as in MindSpore and TensorFlow.
"""
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import clamp, stack
from minispore.ops.function.composite_prims import _composite
from minispore.ops.operations._base import HALF_FLOATS

__all__ = ["RGBToHSV", "HSVToRGB"]


def _channels(name, images, rank=None):
    if not isinstance(images, Tensor):
        raise TypeError(f"For '{name}', the input must be a Tensor, but got "
                        f"{type(images).__name__}.")
    if images.dtype not in HALF_FLOATS:
        raise TypeError(f"For '{name}', the input must be Float16, Float32 or Float64, but "
                        f"got {images.dtype}.")
    if rank is not None and images.ndim != rank:
        raise ValueError(f"For '{name}', the input must be {rank}-D (N, H, W, 3), but got "
                         f"shape {tuple(images.shape)}.")
    if images.ndim < 1 or images.shape[-1] != 3:
        raise ValueError(f"For '{name}', the last dimension of the input must be 3, but got "
                         f"shape {tuple(images.shape)}.")
    return [A.squeeze(c, -1) for c in A.split(images, 1, -1)]


def rgb_to_hsv(images):
    """(..., 3) RGB -> HSV: v = max, s = (max - min) / max (0 where max is 0), hue from the
    channel holding the maximum (red first, then green, on ties), 0 for grays."""
    r, g, b = _channels("RGBToHSV", images)
    hi = M.maximum(M.maximum(r, g), b)
    lo = M.minimum(M.minimum(r, g), b)
    delta = M.sub(hi, lo)
    zero = A.zeros_like(hi)
    one = A.ones_like(hi)
    # Safe denominators: the unused branch of each select must stay finite, or its gradient
    # (0 * inf) would poison the taken one.
    hi_safe = M.select(M.greater(hi, zero), hi, one)
    delta_safe = M.select(M.greater(delta, zero), delta, one)
    s = M.select(M.greater(hi, zero), M.div(delta, hi_safe), zero)
    h_r = M.div(M.sub(g, b), delta_safe)
    h_g = M.add(M.div(M.sub(b, r), delta_safe), 2.0)
    h_b = M.add(M.div(M.sub(r, g), delta_safe), 4.0)
    h = M.select(M.equal(hi, r), h_r, M.select(M.equal(hi, g), h_g, h_b))
    h = M.div(h, 6.0)
    h = M.select(M.less(h, zero), M.add(h, 1.0), h)
    h = M.select(M.greater(delta, zero), h, zero)
    return stack([h, s, hi], -1)


def hsv_to_rgb(images):
    """(N, H, W, 3) HSV -> RGB: each channel ((d - 1) * s + 1) * v with d the clamped
    piecewise-linear hue ramp of that channel (TensorFlow's formula, which MindSpore uses)."""
    h, s, v = _channels("HSVToRGB", images, rank=4)
    dh = M.mul(h, 6.0)
    ramps = [clamp(M.sub(M.abs(M.sub(dh, 3.0)), 1.0), 0.0, 1.0),
             clamp(M.sub(2.0, M.abs(M.sub(dh, 2.0))), 0.0, 1.0),
             clamp(M.sub(2.0, M.abs(M.sub(dh, 4.0))), 0.0, 1.0)]
    return stack([M.mul(M.add(M.mul(M.sub(d, 1.0), s), 1.0), v) for d in ramps], -1)


RGBToHSV = _composite("RGBToHSV", rgb_to_hsv, doc=rgb_to_hsv.__doc__)
HSVToRGB = _composite("HSVToRGB", hsv_to_rgb, doc=hsv_to_rgb.__doc__)
