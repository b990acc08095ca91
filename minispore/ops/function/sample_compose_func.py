"""Resampling composed from MatMul, Floor, comparisons and GatherD (so gradients reach the input
and, through the interpolation weights, the grid): affine_grid, grid_sample (2-D and 3-D) and
crop_and_resize."""
import itertools

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import clamp
from minispore.ops.function.index_func import gather_d
from minispore.ops.operations.math_ops import broadcast_to
from minispore.ops.function.input_checks import check_tensor_dtype as _check

__all__ = ["affine_grid", "grid_sample", "crop_and_resize"]



def _base_coords(size, align_corners):
    """The normalised centres of `size` pixels in [-1, 1]: the end pixels' centres at +-1 with
    align_corners, else the end pixels' outer edges."""
    if align_corners:
        return np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(1)
    return (np.arange(size) * 2.0 + 1.0) / size - 1.0


def affine_grid(theta, size, align_corners=False):
    """The sampling grid of the affine maps theta (N, 2, 3) over size (N, C, H, W) -> (N, H, W, 2),
    or theta (N, 3, 4) over (N, C, D, H, W) -> (N, D, H, W, 3): each output point is
    theta @ (x, y[, z], 1) of its normalised base coordinates."""
    _check("AffineGrid", "theta", theta, (mstype.float16, mstype.float32))
    size = tuple(size)
    k = len(size) - 2
    if k not in (2, 3) or tuple(theta.shape) != (theta.shape[0], k, k + 1):
        raise ValueError(f"For 'AffineGrid', 'output_size' must have 4 or 5 values and theta "
                         f"shape (N, 2, 3) or (N, 3, 4) to match, but got output_size {size} and "
                         f"theta shape {tuple(theta.shape)}.")
    if size[0] != theta.shape[0]:
        raise ValueError(f"For 'AffineGrid', the output_size[0] must be equal to the shape[0] of "
                         f"theta, but got the output_size[0] is {size[0]} and the shape[0] of "
                         f"theta is {theta.shape[0]}.")
    spatial = size[2:]
    axes = [_base_coords(s, align_corners) for s in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    # columns x, y[, z], 1: x runs along the last dim
    base = np.stack([m.reshape(-1) for m in reversed(mesh)] + [np.ones(mesh[0].size)], -1)
    base = Tensor(base.astype(theta.dtype.np_dtype))
    n = theta.shape[0]
    points = M.batch_matmul(broadcast_to(base, (n,) + tuple(base.shape)), theta, transpose_b=True)
    return A.reshape(points, (n,) + tuple(spatial) + (k,))


def _reflect(c, low2, high2):
    """c reflected into [low2 / 2, high2 / 2] (as many bounces as needed)."""
    lo, span = low2 / 2.0, (high2 - low2) / 2.0
    if span <= 0:
        return M.mul(c, 0.0)
    d = M.abs(M.sub(c, lo))
    flips = M.floor(M.div(d, span))
    extra = M.sub(d, M.mul(flips, span))
    even = M.equal(M.sub(flips, M.mul(M.floor(M.div(flips, 2.0)), 2.0)), 0.0)
    return M.select(even, M.add(extra, lo), M.sub(span + lo, extra))


def _round_half_away(c):
    """c rounded to the nearest integer, ties away from zero (C's round, as MindSpore's
    nearest mode does; not ties to even)."""
    up = M.floor(M.add(c, 0.5))
    down = M.neg(M.floor(M.add(M.neg(c), 0.5)))
    return M.select(M.greater_equal(c, 0.0), up, down)


def _source_coord(g, size, padding_mode, align_corners):
    """Normalised grid values -> pixel coordinates along a dim of `size` (clipped or reflected
    per padding_mode)."""
    if align_corners:
        c = M.mul(M.add(g, 1.0), (size - 1) / 2.0)
    else:
        c = M.div(M.sub(M.mul(M.add(g, 1.0), float(size)), 1.0), 2.0)
    if padding_mode == "reflection":
        # about the end pixels' centres (align_corners) or their outer edges
        low2, high2 = (0.0, 2.0 * (size - 1)) if align_corners else (-1.0, 2.0 * size - 1)
        c = _reflect(c, low2, high2)
    if padding_mode in ("border", "reflection"):
        c = clamp(c, 0.0, float(size - 1))
    return c


def _gather_points(flat, coords, sizes):
    """flat (N, C, prod(sizes)) read at integer coords (one (N, P) tensor per dim) -> (N, C, P),
    zero where any coordinate is outside its dim."""
    valid, index = None, None
    for c, s in zip(coords, sizes):
        inside = M.logical_and(M.greater_equal(c, 0.0), M.less_equal(c, float(s - 1)))
        valid = inside if valid is None else M.logical_and(valid, inside)
        safe = A.cast(clamp(c, 0.0, float(s - 1)), mstype.int64)
        index = safe if index is None else M.add(M.mul(index, s), safe)
    n, ch = flat.shape[0], flat.shape[1]
    index = broadcast_to(A.expand_dims(index, 1), (n, ch, index.shape[1]))
    values = gather_d(flat, 2, index)
    valid = broadcast_to(A.expand_dims(valid, 1), tuple(values.shape))
    return M.select(valid, values, A.zeros_like(values))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros",  # noqa: A002
                align_corners=None):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2) of normalised (x, y) -> (N, C, Ho, Wo);
    or (N, C, D, H, W) at (N, Do, Ho, Wo, 3) of (x, y, z). mode 'bilinear' (trilinear in 3-D)
    or 'nearest' (ties away from zero); padding_mode 'zeros', 'border' or 'reflection'."""
    floats = (mstype.float16, mstype.float32, mstype.float64)
    _check("GridSampler", "input_x", input, floats)
    _check("GridSampler", "grid", grid, floats)
    if grid.dtype != input.dtype:
        raise TypeError(f"Input grid must have the same data type with input x! input[x] data "
                        f"type = Tensor[{input.dtype}] but input[grid] data type = "
                        f"Tensor[{grid.dtype}]")
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"For 'grid_sample', mode {mode!r} is not implemented in "
                                  f"minispore; 'bilinear' and 'nearest' are.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"For 'grid_sample', 'padding_mode' must be 'zeros', 'border' or "
                         f"'reflection', but got {padding_mode!r}.")
    k = input.ndim - 2
    if k not in (2, 3) or grid.ndim != input.ndim or grid.shape[-1] != k \
            or grid.shape[0] != input.shape[0]:
        raise ValueError(f"For 'grid_sample', input must be 4-D or 5-D and grid (N, ..., {k}) of "
                         f"the same rank and batch, but got shapes {tuple(input.shape)} and "
                         f"{tuple(grid.shape)}.")
    align = bool(align_corners)
    n, ch, sizes = input.shape[0], input.shape[1], tuple(input.shape[2:])
    out_spatial = tuple(grid.shape[1:-1])
    flat = A.reshape(input, (n, ch, -1))
    points = A.reshape(grid, (n, -1, k))
    # grid component i indexes spatial dim k - 1 - i (x is the last dim)
    coords = [_source_coord(points[:, :, k - 1 - d], sizes[d], padding_mode, align)
              for d in range(k)]
    if mode == "nearest":
        out = _gather_points(flat, [_round_half_away(c) for c in coords], sizes)
    else:
        lows = [M.floor(c) for c in coords]
        fracs = [M.sub(c, lo) for c, lo in zip(coords, lows)]
        out = None
        for corner in itertools.product((0, 1), repeat=k):
            weight = None
            for b, frac in zip(corner, fracs):
                w = frac if b else M.sub(1.0, frac)
                weight = w if weight is None else M.mul(weight, w)
            at = [M.add(lo, float(b)) for lo, b in zip(lows, corner)]
            part = M.mul(_gather_points(flat, at, sizes), A.expand_dims(weight, 1))
            out = part if out is None else M.add(out, part)
    return A.reshape(out, (n, ch) + out_spatial)


def _crop_coords(lo, hi, crop, size):
    """Sample positions (boxes, crop) along one image dim for normalised box edges lo, hi."""
    if crop > 1:
        steps = Tensor(np.arange(crop, dtype=np.float32).reshape(1, crop))
        scale = M.div(M.mul(M.sub(hi, lo), float(size - 1)), float(crop - 1))
        return M.add(A.expand_dims(M.mul(lo, float(size - 1)), 1),
                     M.mul(A.expand_dims(scale, 1), steps))
    return A.expand_dims(M.mul(M.add(lo, hi), 0.5 * (size - 1)), 1)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """Crops of image (B, H, W, C) at boxes (n, 4) = normalised (y1, x1, y2, x2) of images
    box_indices (n,), each resized to crop_size (h, w) -> float32 (n, h, w, C). A sample
    outside the image takes extrapolation_value. method 'bilinear' or 'nearest'."""
    _check("CropAndResize", "image", image, (mstype.int8, mstype.int16, mstype.int32,
                                             mstype.int64, mstype.uint8, mstype.uint16,
                                             mstype.float16, mstype.float32, mstype.float64))
    _check("CropAndResize", "boxes", boxes, (mstype.float32,))
    _check("CropAndResize", "box_indices", box_indices, (mstype.int32,))
    if method not in ("bilinear", "nearest"):
        raise NotImplementedError(f"For 'CropAndResize', method {method!r} is not implemented "
                                  f"in minispore; 'bilinear' and 'nearest' are.")
    if image.ndim != 4 or boxes.ndim != 2 or boxes.shape[1] != 4 or box_indices.ndim != 1 \
            or box_indices.shape[0] != boxes.shape[0]:
        raise ValueError(f"For 'CropAndResize', image must be 4-D, boxes (n, 4) and box_indices "
                         f"(n,), but got shapes {tuple(image.shape)}, {tuple(boxes.shape)} and "
                         f"{tuple(box_indices.shape)}.")
    crop = tuple(crop_size)
    if len(crop) != 2 or not all(isinstance(c, int) and not isinstance(c, bool) and c > 0
                                 for c in crop):
        raise ValueError(f"For 'CropAndResize', 'crop_size' must be two positive ints, but got "
                         f"{crop_size!r}.")
    b, h, w, ch = image.shape
    n, (ch_h, ch_w) = boxes.shape[0], crop
    ys = _crop_coords(boxes[:, 0], boxes[:, 2], ch_h, h)          # (n, ch_h)
    xs = _crop_coords(boxes[:, 1], boxes[:, 3], ch_w, w)          # (n, ch_w)
    ys = broadcast_to(A.expand_dims(ys, 2), (n, ch_h, ch_w))
    xs = broadcast_to(A.expand_dims(xs, 1), (n, ch_h, ch_w))
    flat = A.reshape(A.cast(image, mstype.float32), (b * h * w, ch))
    base = A.reshape(M.mul(A.cast(box_indices, mstype.int64), h * w), (n, 1, 1))

    def read(y, x):
        y = A.cast(clamp(y, 0.0, float(h - 1)), mstype.int64)
        x = A.cast(clamp(x, 0.0, float(w - 1)), mstype.int64)
        return A.gather(flat, M.add(base, M.add(M.mul(y, w), x)), 0)  # (n, ch_h, ch_w, C)

    if method == "nearest":
        # half away from zero (C's roundf), as TensorFlow's kernel rounds
        out = read(M.floor(M.add(ys, 0.5)), M.floor(M.add(xs, 0.5)))
    else:
        top, left = M.floor(ys), M.floor(xs)
        dy = A.expand_dims(M.sub(ys, top), 3)
        dx = A.expand_dims(M.sub(xs, left), 3)
        bottom, right = M.ceil(ys), M.ceil(xs)
        upper = M.add(read(top, left), M.mul(M.sub(read(top, right), read(top, left)), dx))
        lower = M.add(read(bottom, left),
                      M.mul(M.sub(read(bottom, right), read(bottom, left)), dx))
        out = M.add(upper, M.mul(M.sub(lower, upper), dy))
    inside = M.logical_and(
        M.logical_and(M.greater_equal(ys, 0.0), M.less_equal(ys, float(h - 1))),
        M.logical_and(M.greater_equal(xs, 0.0), M.less_equal(xs, float(w - 1))))
    inside = broadcast_to(A.expand_dims(inside, 3), (n, ch_h, ch_w, ch))
    fill = A.fill(mstype.float32, (n, ch_h, ch_w, ch), float(extrapolation_value))
    return M.select(inside, out, fill)
