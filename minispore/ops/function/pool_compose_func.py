"""1-D and adaptive pooling, reflection / replication padding, nearest upsampling, LRN,
group_norm and channel dropout, composed of existing primitives (AvgPool/MaxPool on an added
dim, averaging MatMuls, StridedSlice, ReduceMax, Concat, Gather)."""
import numpy as np

from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function import nn_func as N
from minispore.ops.function.array_compose_func import _split_at, flip, movedim, pad
from minispore.ops.function.composite_func import stack

__all__ = ["avg_pool1d", "max_pool1d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d", "lp_pool2d",
           "reflection_pad", "replication_pad", "upsample", "interpolate", "lrn", "group_norm",
           "dropout1d", "dropout2d", "dropout3d", "max_pool3d", "avg_pool3d",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "unfold"]


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _as_4d(name, x):
    """x (C, L) or (N, C, L) as (N, C, 1, L), with the shape to restore."""
    if x.ndim not in (2, 3):
        raise ValueError(f"For '{name}', the input must be 2-D (C, L) or 3-D (N, C, L), but got "
                         f"rank {x.ndim}.")
    lead = tuple(x.shape[:-1])
    return A.reshape(x, (-1, lead[-1], 1, x.shape[-1])), lead


def _pool1d(name, pool, x, kernel_size, stride):
    kernel_size = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size
    stride = kernel_size if stride is None else stride
    stride = stride[0] if isinstance(stride, (tuple, list)) else stride
    x4, lead = _as_4d(name, x)
    out = pool(x4, (1, int(kernel_size)), (1, int(stride)))
    return A.reshape(out, lead + (out.shape[-1],))


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over windows of the last dim of (N, C, L) or (C, L)."""
    _check_tensor("avg_pool1d", "input_x", input_x)
    if padding or ceil_mode:
        raise NotImplementedError("For 'avg_pool1d', padding and ceil_mode are not implemented "
                                  "in minispore.")
    return _pool1d("avg_pool1d", lambda x, k, s: N.avg_pool2d(x, k, s), input_x, kernel_size,
                   stride)


def max_pool1d(x, kernel_size=1, stride=None):
    """Max over windows of the last dim of (N, C, L) or (C, L)."""
    _check_tensor("max_pool1d", "x", x)
    return _pool1d("max_pool1d", lambda t, k, s: N.max_pool2d(t, k, s), x, kernel_size, stride)


def _bins(size, out):
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _averaging(size, out, np_dtype):
    m = np.zeros((size, out), np_dtype)
    for i, (lo, hi) in enumerate(_bins(size, out)):
        m[lo:hi, i] = 1.0 / (hi - lo)
    return Tensor(m)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """Mean over output_size near-equal bins of the last dim (one MatMul)."""
    _check_tensor("adaptive_avg_pool1d", "input", input)
    return M.matmul(input, _averaging(input.shape[-1], int(output_size), input.dtype.np_dtype))


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """Mean over near-equal bins of the last two dims (two MatMuls); None keeps a dim."""
    _check_tensor("adaptive_avg_pool2d", "input", input)
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    h, w = input.shape[-2:]
    oh, ow = oh or h, ow or w
    cols = M.matmul(input, _averaging(w, ow, input.dtype.np_dtype))
    return M.matmul(_averaging(h, oh, input.dtype.np_dtype), cols, transpose_a=True)


def _adaptive_max(x, axis, out):
    n = x.shape[axis]
    parts = [M.reduce_max(_split_at("adaptive_max_pool", x, [lo, hi], axis)[1], axis, True)
             for lo, hi in _bins(n, out)]
    return A.concat(parts, axis) if len(parts) > 1 else parts[0]


def adaptive_max_pool1d(input, output_size):  # noqa: A002
    """Max over output_size near-equal bins of the last dim."""
    _check_tensor("adaptive_max_pool1d", "input", input)
    return _adaptive_max(input, input.ndim - 1, int(output_size))


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """Max over near-equal bins of the last two dims: a rectangle's max is the max over its
    rows of the max over its columns, so the dims pool one after the other."""
    _check_tensor("adaptive_max_pool2d", "input", input)
    if return_indices:
        raise NotImplementedError("For 'adaptive_max_pool2d', return_indices is not "
                                  "implemented in minispore.")
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    h, w = input.shape[-2:]
    x = _adaptive_max(input, input.ndim - 2, oh or h)
    return _adaptive_max(x, input.ndim - 1, ow or w)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p) along the last dim."""
    k = kernel_size
    s = avg_pool1d(M.pow(x, float(norm_type)), k, k if stride is None else stride)
    return M.pow(M.mul(s, float(k)), 1.0 / norm_type)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p) over the last two dims."""
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    stride = (kh, kw) if stride is None else stride
    s = N.avg_pool2d(M.pow(x, float(norm_type)), (kh, kw), stride)
    return M.pow(M.mul(s, float(kh * kw)), 1.0 / norm_type)


def _edge_pad(name, x, padding, mirror):
    """x padded on its last len(padding) // 2 dims, (left, right) of the last dim first, by
    mirror images (reflection: the edge not repeated) or by repeating the edge."""
    padding = (padding,) * 2 if isinstance(padding, int) else tuple(padding)
    for i in range(len(padding) // 2):
        dim = x.ndim - 1 - i
        lo, hi = padding[2 * i], padding[2 * i + 1]
        n = x.shape[dim]
        if mirror and (lo >= n or hi >= n):
            raise ValueError(f"For '{name}', the padding ({lo}, {hi}) must be smaller than the "
                             f"padded dim ({n}).")
        parts = []
        if lo > 0:
            left = _split_at(name, x, [1, lo + 1] if mirror else [1], dim)[1 if mirror else 0]
            parts.append(flip(left, dim) if mirror else A.concat([left] * lo, dim))
        parts.append(x)
        if hi > 0:
            cut = [n - hi - 1, n - 1] if mirror else [n - 1]
            right = _split_at(name, x, cut, dim)[1]
            parts.append(flip(right, dim) if mirror else A.concat([right] * hi, dim))
        x = A.concat(parts, dim) if len(parts) > 1 else x
    return x


def reflection_pad(x, padding):
    return _edge_pad("ReflectionPad", x, padding, True)


def replication_pad(x, padding):
    return _edge_pad("ReplicationPad", x, padding, False)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
             recompute_scale_factor=None):
    """Nearest-neighbour resize of the spatial dims (all but N, C): output index i reads
    input index floor(i * in / out) (a Gather per dim)."""
    _check_tensor("interpolate", "input", input)
    if mode != "nearest":
        raise NotImplementedError(f"For 'interpolate', mode {mode!r} is not implemented in "
                                  f"minispore; only 'nearest' is.")
    spatial = tuple(input.shape[2:])
    if size is not None:
        out = (size,) * len(spatial) if isinstance(size, int) else tuple(size)
    elif scale_factor is not None:
        scales = (scale_factor,) * len(spatial) if isinstance(scale_factor, (int, float)) \
            else tuple(scale_factor)
        out = tuple(int(np.floor(s * f)) for s, f in zip(spatial, scales))
    else:
        raise ValueError("For 'interpolate', one of 'size' and 'scale_factor' must be given.")
    x = input
    for i, (n_in, n_out) in enumerate(zip(spatial, out)):
        if n_in != n_out:
            idx = Tensor((np.arange(n_out) * n_in // n_out).astype(np.int32))
            x = A.gather(x, idx, 2 + i)
    return x


interpolate = upsample


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """x / (bias + alpha * sum of x^2 over the channels within depth_radius)^beta for NCHW
    x: the channel window is a sum of 2r + 1 shifted slices of the zero-padded squares."""
    _check_tensor("lrn", "x", x)
    if norm_region != "ACROSS_CHANNELS" or x.ndim != 4:
        raise ValueError("For 'lrn', the input must be 4-D and 'norm_region' "
                         "'ACROSS_CHANNELS'.")
    r, c = int(depth_radius), x.shape[1]
    sq = M.square(x)
    n, _, h, w = x.shape
    pad = A.zeros((n, r, h, w), x.dtype)
    padded = A.concat([pad, sq, pad], 1) if r else sq
    total = None
    for k in range(2 * r + 1):
        window = _split_at("lrn", padded, [k, k + c], 1)[1]
        total = window if total is None else M.add(total, window)
    return M.div(x, M.pow(M.add(M.mul(total, float(alpha)), float(bias)), float(beta)))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalise each of num_groups channel groups per sample over its channels and spatial
    dims, then scale by weight and shift by bias (per channel)."""
    _check_tensor("group_norm", "input", input)
    n, c = input.shape[:2]
    if c % num_groups:
        raise ValueError(f"For 'group_norm', the {c} channels must divide into {num_groups} "
                         f"groups.")
    g = A.reshape(input, (n, num_groups, -1))
    mean = M.reduce_mean(g, 2, True)
    var = M.reduce_mean(M.square(M.sub(g, mean)), 2, True)
    out = A.reshape(M.div(M.sub(g, mean), M.sqrt(M.add(var, float(eps)))), tuple(input.shape))
    shape = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = M.mul(out, A.reshape(weight, shape))
    if bias is not None:
        out = M.add(out, A.reshape(bias, shape))
    return out


def _channel_dropout(name, input, p, training, ranks):
    _check_tensor(name, "input", input)
    if not 0 <= p <= 1:
        raise ValueError(f"For '{name}', 'p' must be in [0, 1], but got {p}.")
    if not training or p == 0:
        return input
    if input.ndim not in ranks:
        raise ValueError(f"For '{name}', the input must have rank in {ranks}, but got "
                         f"{input.ndim}.")
    lead = 2 if input.ndim == max(ranks) else 1
    mask = N.dropout(A.ones(tuple(input.shape[:lead]) + (1,) * (input.ndim - lead),
                            input.dtype), p, True)
    return M.mul(input, mask)


def dropout1d(input, p=0.5, training=True):  # noqa: A002
    """Whole channels of (N, C, L) or (C, L) zeroed with probability p, the rest scaled by
    1/(1-p)."""
    return _channel_dropout("dropout1d", input, p, training, (2, 3))


def dropout2d(input, p=0.5, training=True):  # noqa: A002
    return _channel_dropout("dropout2d", input, p, training, (3, 4))


def dropout3d(input, p=0.5, training=True):  # noqa: A002
    return _channel_dropout("dropout3d", input, p, training, (4, 5))


def _triple(v):
    return (v,) * 3 if isinstance(v, int) else tuple(v)


def _window_reduce(x, axis, kernel, stride, reduce):
    """reduce over windows [j * stride, j * stride + kernel) of axis, one slice per output."""
    n = x.shape[axis]
    out = (n - kernel) // stride + 1
    if out < 1:
        raise ValueError(f"For the 3-D pooling, the kernel {kernel} is larger than the input "
                         f"dim {n}.")
    parts = [reduce(_split_at("pool3d", x, [j * stride, j * stride + kernel], axis)[1], axis,
                    True) for j in range(out)]
    return A.concat(parts, axis) if len(parts) > 1 else parts[0]


def _pool3d(name, x, kernel_size, stride, reduce):
    _check_tensor(name, "x", x)
    if x.ndim not in (4, 5):
        raise ValueError(f"For '{name}', the input must be 4-D (C, D, H, W) or 5-D, but got "
                         f"rank {x.ndim}.")
    k = _triple(kernel_size)
    s = k if stride is None else _triple(stride)
    for i in range(3):
        x = _window_reduce(x, x.ndim - 3 + i, k[i], s[i], reduce)
    return x


def max_pool3d(x, kernel_size, stride=None):
    """Max over (kd, kh, kw) boxes of the last three dims: separable, one dim at a time."""
    return _pool3d("max_pool3d", x, kernel_size, stride, M.reduce_max)


def avg_pool3d(x, kernel_size, stride=None):
    """Mean over (kd, kh, kw) boxes of the last three dims: separable, one dim at a time."""
    return _pool3d("avg_pool3d", x, kernel_size, stride, M.reduce_mean)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """Mean over near-equal bins of the last three dims (None keeps a dim)."""
    _check_tensor("adaptive_avg_pool3d", "input", input)
    x, sizes = input, _triple(output_size)
    for i, out in enumerate(sizes):
        axis = x.ndim - 3 + i
        n = x.shape[axis]
        moved = movedim(x, axis, -1)
        pooled = M.matmul(moved, _averaging(n, out or n, x.dtype.np_dtype))
        x = movedim(pooled, -1, axis)
    return x


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """Max over near-equal bins of the last three dims, one dim at a time."""
    _check_tensor("adaptive_max_pool3d", "input", input)
    if return_indices:
        raise NotImplementedError("For 'adaptive_max_pool3d', return_indices is not "
                                  "implemented in minispore.")
    x, sizes = input, _triple(output_size)
    for i, out in enumerate(sizes):
        axis = x.ndim - 3 + i
        x = _adaptive_max(x, axis, out or x.shape[axis])
    return x


def _pair_of(name, arg, value, low):
    """`value` (an int or 1-2 ints) as a pair of ints >= `low`, with MindSpore's messages."""
    values = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(values) <= 2:
        raise ValueError(f"For 'unfold', the {arg} size should be in : [1, 2], but got "
                         f"{len(values)}.")
    relation = "> 0" if low == 1 else ">= 0"
    for i, v in enumerate(values):
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            raise ValueError(f"For '{name}', the '{arg}[{i}]' must be int and must {relation}, "
                             f"but got '{v}' with type '{type(v).__name__}'.")
    return values * 2 if len(values) == 1 else values


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """``ops.unfold(input, kernel_size, dilation=1, padding=0, stride=1)`` (MindSpore's Im2Col):
    the sliding (kh, kw) blocks of a (N, C, H, W) input as columns, (N, C * kh * kw, L) with
    L the number of block positions; channel-major rows, kernel offsets row-major within a
    channel. Built from a pad, one strided slice per kernel offset and a stack, so it is
    differentiable and compiles."""
    _check_tensor("unfold", "input", input)
    kh, kw = _pair_of("unfold", "kernel_size", kernel_size, 1)
    dh, dw = _pair_of("unfold", "dilation", dilation, 1)
    ph, pw = _pair_of("unfold", "padding", padding, 0)
    sh, sw = _pair_of("unfold", "stride", stride, 1)
    if input.ndim != 4:
        raise ValueError(f"For primitive[Im2Col], the dimension of input x must be equal to 4, "
                         f"but got {input.ndim}.")
    n, c, h, w = input.shape
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError(f"For 'unfold', the (H, W) {(h, w)} padded by {(ph, pw)} is smaller "
                         f"than the dilated kernel {(dh * (kh - 1) + 1, dw * (kw - 1) + 1)}.")
    x = pad(input, (pw, pw, ph, ph)) if ph or pw else input
    blocks = [x[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
              for i in range(kh) for j in range(kw)]
    return A.reshape(stack(blocks, 2), (n, c * kh * kw, oh * ow))
