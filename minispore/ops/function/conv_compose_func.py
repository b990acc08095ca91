"""ops.conv1d and ops.conv3d, composed from Conv2D (conv1d: a Conv2D over (N, C, 1, L); conv3d:
a sum over the kernel's depth taps of Conv2Ds over depth slices), and the 3-D transposed
convolution as a conv3d of the zero-dilated input, so gradients come free."""
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import constant_pad, flip
from minispore.ops.function.nn_func import conv2d

__all__ = ["conv1d", "conv3d"]

_PAD_MODES = ("valid", "same", "pad")


def _ints(name, arg, value, n, minimum):
    """An int or a tuple/list of n ints, each >= minimum -> a tuple of n."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * n
    if (not isinstance(value, (tuple, list)) or len(value) != n
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise TypeError(f"For '{name}', '{arg}' must be an int or a tuple of {n} ints, but got "
                        f"{value!r}.")
    if any(v < minimum for v in value):
        raise ValueError(f"For '{name}', every value of '{arg}' must be >= {minimum}, but got "
                         f"{tuple(value)}.")
    return tuple(value)


def _check(name, input, weight, rank, pad_mode, groups):  # noqa: A002
    for arg, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                            f"{type(t).__name__}.")
        if t.ndim != rank:
            raise ValueError(f"For '{name}', '{arg}' must be {rank}-D, but got shape "
                             f"{tuple(t.shape)}.")
    if pad_mode not in _PAD_MODES:
        raise ValueError(f"For '{name}', 'pad_mode' must be one of {list(_PAD_MODES)}, but got "
                         f"{pad_mode!r}.")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"For '{name}', 'groups' must be a positive int, but got {groups!r}.")
    if input.shape[1] != weight.shape[1] * groups:
        raise ValueError(f"For '{name}', the input's channels ({input.shape[1]}) must equal the "
                         f"weight's in_channels ({weight.shape[1]}) times groups ({groups}).")


def _pad_pairs(name, padding, pad_mode, n):
    """padding: an int or n ints (each padding both sides of its dim) -> 2n ints (before,
    after per dim); nonzero only with pad_mode 'pad'."""
    pads = tuple(p for p in _ints(name, "padding", padding, n, 0) for _ in range(2))
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{name}', 'padding' must be 0 when 'pad_mode' is {pad_mode!r}, "
                         f"but got {padding!r}.")
    return pads


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid",  # noqa: A002
           padding=0, dilation=1, groups=1):
    """1-D convolution of (N, C_in, L) by weight (C_out, C_in / groups, K); padding an int (both
    ends) with pad_mode 'pad'; bias (C_out,) added per channel. Returns (N, C_out, L_out)."""
    _check("conv1d", input, weight, 3, pad_mode, groups)
    (s,) = _ints("conv1d", "stride", stride, 1, 1)
    (d,) = _ints("conv1d", "dilation", dilation, 1, 1)
    lo, hi = _pad_pairs("conv1d", padding, pad_mode, 1)
    out = conv2d(A.expand_dims(input, 2), A.expand_dims(weight, 2), bias, (1, s), pad_mode,
                 (0, 0, lo, hi), (1, d), groups)
    return A.squeeze(out, 2)


def _depth_pads(size, k, s, d, pad_mode, lo, hi):
    """(pad before, pad after) along depth; 'same' splits the total as Conv2D does."""
    if pad_mode != "same":
        return lo, hi
    out = -(-size // s)
    total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
    return total // 2, total - total // 2


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid",  # noqa: A002
           padding=0, dilation=1, groups=1):
    """3-D convolution of (N, C_in, D, H, W) by weight (C_out, C_in / groups, kD, kH, kW);
    padding an int or 3 ints (both sides of D, H, W) with pad_mode 'pad'.

    out[:, :, z] = sum_t conv2d(x[:, :, z * s + t * d], weight[:, :, t]): each depth tap is one
    Conv2D over all output depths at once (depth folded into the batch)."""
    _check("conv3d", input, weight, 5, pad_mode, groups)
    strides = _ints("conv3d", "stride", stride, 3, 1)
    dilations = _ints("conv3d", "dilation", dilation, 3, 1)
    pads = _pad_pairs("conv3d", padding, pad_mode, 3)
    return conv3d_padded(input, weight, bias, strides, pad_mode, pads, dilations, groups)


def conv3d_padded(input, weight, bias, strides, pad_mode, pads, dilations, groups):  # noqa: A002
    """conv3d with checked arguments: strides and dilations 3 ints, pads 6 (head, tail, top,
    bottom, left, right); nn.Conv3d calls it for its asymmetric padding."""
    sd, sh, sw = strides
    dd, dh, dw = dilations
    n, c, depth, h, w = input.shape
    kd = weight.shape[2]
    lo, hi = _depth_pads(depth, kd, sd, dd, pad_mode, pads[0], pads[1])
    x = constant_pad(input, (0, 0, 0, 0, lo, hi)) if lo or hi else input
    out_d = (depth + lo + hi - (kd - 1) * dd - 1) // sd + 1
    if out_d < 1:
        raise ValueError(f"For 'conv3d', the padded depth ({depth + lo + hi}) is smaller than the "
                         f"dilated kernel depth ({(kd - 1) * dd + 1}).")
    total = None
    for t in range(kd):
        begin = t * dd
        taps = A.strided_slice(x, (0, 0, begin, 0, 0), (n, c, begin + (out_d - 1) * sd + 1, h, w),
                               (1, 1, sd, 1, 1))
        taps = A.reshape(A.transpose(taps, (0, 2, 1, 3, 4)), (n * out_d, c, h, w))
        part = conv2d(taps, weight[:, :, t], None, (sh, sw), pad_mode, pads[2:], (dh, dw), groups)
        total = part if total is None else M.add(total, part)
    _, co, ho, wo = total.shape
    out = A.transpose(A.reshape(total, (n, out_d, co, ho, wo)), (0, 2, 1, 3, 4))
    if bias is not None:
        out = M.add(out, A.reshape(bias, (1, co, 1, 1, 1)))
    return out


def _spread(x, axis, stride):
    """x with stride - 1 zeros put between neighbours along axis: length (n - 1) * stride + 1."""
    n = x.shape[axis]
    y = A.expand_dims(x, axis + 1)
    y = constant_pad(y, (0, 0) * (x.ndim - axis - 1) + (0, stride - 1))
    shape = tuple(x.shape[:axis]) + (n * stride,) + tuple(x.shape[axis + 1:])
    y = A.reshape(y, shape)
    end = list(shape)
    end[axis] = (n - 1) * stride + 1
    return A.strided_slice(y, (0,) * x.ndim, tuple(end), (1,) * x.ndim)


def _window(y, axis, lo, length):
    """y[lo:lo + length] along axis, zeros appended where that runs past y's end."""
    extra = lo + length - y.shape[axis]
    if extra > 0:
        y = constant_pad(y, (0, 0) * (y.ndim - axis - 1) + (0, extra))
    begin, end = [0] * y.ndim, list(y.shape)
    begin[axis], end[axis] = lo, lo + length
    return A.strided_slice(y, tuple(begin), tuple(end), (1,) * y.ndim)


def conv3d_transpose_padded(x, weight, strides, pad_mode, pads, dilations, groups,
                            output_padding):
    """The transpose (input gradient) of conv3d: x (N, C_in, D, H, W), weight (C_in,
    C_out / groups, kD, kH, kW). The full result, (size - 1) * stride + dilation * (k - 1) + 1
    per dim, is a stride-1 conv3d of x spread by stride with zeros, by the flipped kernel with
    its channel roles swapped, padded dilation * (k - 1) on both sides. Then per dim: 'valid'
    keeps it, 'pad' crops (before, after) pads and appends output_padding, 'same' keeps
    size * stride centred (MindSpore's split: the smaller half before)."""
    k = tuple(weight.shape[2:])
    sizes = tuple(x.shape[2:])
    for d, s in enumerate(strides):
        if s > 1:
            x = _spread(x, 2 + d, s)
    c_in, c_out_g = weight.shape[0], weight.shape[1]
    w = A.reshape(weight, (groups, c_in // groups, c_out_g) + k)
    w = A.reshape(A.transpose(w, (0, 2, 1, 3, 4, 5)), (groups * c_out_g, c_in // groups) + k)
    w = flip(w, (2, 3, 4))
    full_pads = tuple(p for d in range(3) for p in (dilations[d] * (k[d] - 1),) * 2)
    y = conv3d_padded(x, w, None, (1, 1, 1), "pad", full_pads, dilations, groups)
    for d in range(3):
        full = y.shape[2 + d]
        if pad_mode == "valid":
            lo, length = 0, full
        elif pad_mode == "pad":
            lo = pads[2 * d]
            length = full - pads[2 * d] - pads[2 * d + 1] + output_padding[d]
        else:
            length = sizes[d] * strides[d]
            lo = max(full - length, 0) // 2
        if length < 1:
            raise ValueError(f"For 'Conv3DTranspose', the output would be empty along spatial "
                             f"dim {d} (padding {pads[2 * d:2 * d + 2]} for a full size {full}).")
        if (lo, length) != (0, full):
            y = _window(y, 2 + d, lo, length)
    return y
