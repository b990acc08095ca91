"""Convolution and pooling operators (NCHW): Conv2D with its backprop primitives, MaxPool, AvgPool.

Geometry follows MindSpore: 'valid' gives ceil((H - (k-1)*d) / s) rows, 'same' gives
ceil(H / s) with the padding split as top = total // 2 (the extra row at the bottom), 'pad'
uses explicit pads and floor((H + top + bottom - (k-1)*d - 1) / s) + 1.
"""
from minispore.ops import sharding_nn as rules
from minispore.ops.kernel_registry import kernel
from minispore import device
from minispore.common.symbolic import SymDim
from minispore.ops.operations._base import (cached_op, check_dtype, check_same_dtype,
                                            check_tensor, contiguous, dims_equal,
                                            float_dtypes, shapes_equal)
from minispore.ops.operations.array_ops import c_strides, strided_copy
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "Conv2DBackpropFilter", "MaxPool",
           "MaxPoolGrad", "AvgPool", "AvgPoolGrad"]


def _pair(name, arg, value):
    """An int, a pair, or a 4-tuple (1, 1, h, w) -> (h, w) of positive ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    elif isinstance(value, (tuple, list)) and len(value) == 4 and tuple(value[:2]) == (1, 1):
        value = tuple(value[2:])
    if (not isinstance(value, (tuple, list)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise TypeError(f"For '{name}', '{arg}' must be an int or a tuple of two ints, but got "
                        f"{value!r}.")
    if any(v < 1 for v in value):
        raise ValueError(f"For '{name}', '{arg}' must be positive, but got {tuple(value)}.")
    return tuple(value)


def _pad_mode(name, pad_mode, valid):
    if not isinstance(pad_mode, str) or pad_mode.lower() not in valid:
        raise ValueError(f"For '{name}', 'pad_mode' must be one of {list(valid)} (any case), "
                         f"but got {pad_mode!r}.")
    return pad_mode.lower()


def _pads(name, pad):
    """pad: int or (top, bottom, left, right) of non-negative ints."""
    if isinstance(pad, int) and not isinstance(pad, bool):
        pad = (pad,) * 4
    if (not isinstance(pad, (tuple, list)) or len(pad) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in pad)):
        raise TypeError(f"For '{name}', 'pad' must be an int or a tuple of four ints, but got "
                        f"{pad!r}.")
    if any(v < 0 for v in pad):
        raise ValueError(f"For '{name}', 'pad' must be non-negative, but got {tuple(pad)}.")
    return tuple(pad)


def _out_dim(size, k, s, d, pad_mode, lo, hi):
    """(output size, pad before, pad after) along one spatial dim."""
    span = (k - 1) * d + 1
    if pad_mode == "valid":
        return -(-(size - span + 1) // s), 0, 0
    if pad_mode == "same":
        out = -(-size // s)
        total = max(0, (out - 1) * s + span - size)
        return out, total // 2, total - total // 2
    return (size + lo + hi - span) // s + 1, lo, hi


def _geometry(prim, x_shape, kernel_size, stride, dilation):
    """((top, bottom, left, right), oh, ow) for an NCHW input, or an error naming the shape."""
    h, w = x_shape[2], x_shape[3]
    t, b, l, r = prim.pad
    if isinstance(h, SymDim) or isinstance(w, SymDim):
        return _symbolic_geometry(prim, x_shape, kernel_size, stride, dilation)
    oh, pt, pb = _out_dim(h, kernel_size[0], stride[0], dilation[0], prim.pad_mode, t, b)
    ow, pl, pr = _out_dim(w, kernel_size[1], stride[1], dilation[1], prim.pad_mode, l, r)
    if oh <= 0 or ow <= 0:
        raise prim.error(f"the input shape {tuple(x_shape)} is too small for kernel_size "
                         f"{kernel_size}, stride {stride}, dilation {dilation} and pad_mode "
                         f"'{prim.pad_mode}' (pads {prim.pad}): output would be ({oh}, {ow}).")
    return (pt, pb, pl, pr), oh, ow


def _symbolic_geometry(prim, x_shape, kernel_size, stride, dilation):
    """_geometry with a dynamic H or W: exact only where the output size is a polynomial
    again (stride 1, or a stride that the dim's Symbol divisor proves divides the span)."""
    t, b, l, r = prim.pad
    try:
        oh, pt, pb = _out_dim(x_shape[2], kernel_size[0], stride[0], dilation[0],
                              prim.pad_mode, t, b)
        ow, pl, pr = _out_dim(x_shape[3], kernel_size[1], stride[1], dilation[1],
                              prim.pad_mode, l, r)
        positive = oh > 0 and ow > 0
    except ValueError as e:
        raise prim.error(f"the dynamic spatial dims of x {tuple(x_shape)} cannot be carried "
                         f"through kernel_size {kernel_size}, stride {stride}, dilation "
                         f"{dilation} and pad_mode '{prim.pad_mode}': {e} Make H and W static "
                         f"in set_inputs (a dynamic batch is fine).") from None
    if not positive:
        raise prim.error(f"the input shape {tuple(x_shape)} is too small for kernel_size "
                         f"{kernel_size}, stride {stride}: output would be ({oh}, {ow}).")
    return (pt, pb, pl, pr), oh, ow


def _padded(x, pads):
    """x zero-padded by (top, bottom, left, right), contiguous (x itself when no padding)."""
    pt, pb, pl, pr = pads
    x = contiguous(x)
    if not any(pads):
        return x
    n, c, h, w = x.shape
    xp = device.empty((n, c, h + pt + pb, w + pl + pr), x.dtype)
    kernel("conv", "pad2d")(x, pt, pl, xp)
    return xp


def _cropped(xp, pads, out=None):
    """The inverse of _padded: xp without its (top, bottom, left, right) border, contiguous
    (written into `out` when given, which may be xp itself when there is no border)."""
    pt, pb, pl, pr = pads
    if not any(pads):
        return xp
    n, c, hp, wp = xp.shape
    shape = (n, c, hp - pt - pb, wp - pl - pr)
    if out is None:
        out = device.empty(shape, xp.dtype)
    strided_copy(xp, pt * wp + pl, out, 0, shape, c_strides(xp.shape), c_strides(shape))
    return out


def _check_4d(prim, name, x):
    check_tensor(prim, name, x)
    check_dtype(prim, name, x, float_dtypes(prim))
    if x.ndim != 4:
        raise prim.error(f"'{name}' must be 4-D (NCHW), but got shape {tuple(x.shape)}.")


def _shape_arg(prim, name, shape):
    if (not isinstance(shape, (tuple, list)) or len(shape) != 4
            or not all(isinstance(d, SymDim) or (isinstance(d, int) and d > 0)
                       for d in shape)):
        raise prim.error(f"'{name}' must be a tuple of four positive ints, but got {shape!r}.",
                         TypeError)
    return tuple(shape)


# -- convolution -------------------------------------------------------------------------
class _ConvBase(Primitive):
    """The attributes shared by Conv2D and its two backprop primitives."""
    float16_in_float32 = True

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW", pad_list=None):
        super().__init__()
        name = self.name
        if not isinstance(out_channel, int) or isinstance(out_channel, bool):
            raise TypeError(f"For '{name}', 'out_channel' must be an int, but got "
                            f"{type(out_channel).__name__}.")
        if out_channel <= 0:
            raise ValueError(f"For '{name}', 'out_channel' must be positive, but got "
                             f"{out_channel}.")
        if mode != 1:
            raise ValueError(f"For '{name}', 'mode' must be 1, but got {mode!r}.")
        if not isinstance(group, int) or isinstance(group, bool) or group <= 0:
            raise ValueError(f"For '{name}', 'group' must be a positive int, but got {group!r}.")
        if out_channel % group:
            raise ValueError(f"For '{name}', 'out_channel' ({out_channel}) must be divisible "
                             f"by 'group' ({group}).")
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', only data_format 'NCHW' is supported on CPU, "
                             f"but got {data_format!r}.")
        self.out_channel = out_channel
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.mode = mode
        self.pad_mode = _pad_mode(name, pad_mode, ("valid", "same", "pad"))
        self.pad = _pads(name, pad if pad_list is None else pad_list)
        if self.pad_mode != "pad" and any(self.pad):
            raise ValueError(f"For '{name}', 'pad' must be zero when 'pad_mode' is not 'pad', "
                             f"but got pad {pad!r} with pad_mode {pad_mode!r}.")
        self.stride = _pair(name, "stride", stride)
        self.dilation = _pair(name, "dilation", dilation)
        self.group = group
        self.data_format = data_format
        self._kwargs = dict(out_channel=out_channel, kernel_size=self.kernel_size,
                            pad_mode=self.pad_mode, pad=self.pad, stride=self.stride,
                            dilation=self.dilation, group=group)
        for key in ("out_channel", "kernel_size", "mode", "pad_mode", "pad", "stride",
                    "dilation", "group", "data_format"):
            self.add_prim_attr(key, getattr(self, key))
        self._related = {}

    def _same_attrs(self, cls):
        """The Conv2D / backprop primitive with this one's attributes (created once)."""
        op = self._related.get(cls)
        if op is None:
            op = self._related[cls] = cls(**self._kwargs)
        return op

    def _check_weight(self, x_shape, w):
        _check_4d(self, "weight", w)
        cout, cg, kh, kw = w.shape
        if cout != self.out_channel or (kh, kw) != self.kernel_size:
            raise self.error(f"'weight' shape {tuple(w.shape)} must be (out_channel="
                             f"{self.out_channel}, C_in/group, {self.kernel_size[0]}, "
                             f"{self.kernel_size[1]}).")
        if not dims_equal(self, x_shape[1], cg * self.group):
            raise self.error(f"the input channels {x_shape[1]} of x {tuple(x_shape)} must "
                             f"equal weight.shape[1] * group = {cg} * {self.group}.")

    def _geometry(self, x_shape):
        return _geometry(self, x_shape, self.kernel_size, self.stride, self.dilation)

    def _conv_args(self):
        return (self.group,) + self.stride + self.dilation


class Conv2D(_ConvBase):
    """2-D convolution (cross-correlation), NCHW:
    ``Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, dilation=1,
    group=1, data_format='NCHW')(x, weight)``.

    x (N, C_in, H, W), weight (out_channel, C_in/group, kh, kw) -> (N, out_channel, OH, OW).
    pad is an int or (top, bottom, left, right), non-zero only with pad_mode='pad'.
    """
    sharding_rule = rules.conv2d

    def infer(self, x, w):
        _check_4d(self, "x", x)
        check_same_dtype(self, ("x", "weight"), (x, w))
        self._check_weight(x.shape, w)
        _, oh, ow = self._geometry(x.shape)
        return Aval((x.shape[0], self.out_channel, oh, ow), x.dtype)

    def local_call(self, args, ctx):
        # out_channel is logical; an output-channel split gives each rank w's block of filters.
        x, w = args
        if w.shape[0] == self.out_channel:
            return self(x, w)
        local = type(self)(**dict(self._kwargs, out_channel=w.shape[0]))
        local.set_prim_instance_name(self.instance_name or self.name)
        return local(x, w)

    writes_out = True

    def impl(self, x, w, out=None):
        pads, oh, ow = self._geometry(x.shape)
        if out is None:
            out = device.empty((x.shape[0], self.out_channel, oh, ow), x.dtype)
        kernel("conv", "conv2d")(_padded(x, pads), contiguous(w),
                                 *self._conv_args(), out)
        return out

    def bprop(self, inputs, out, dout):
        x, w = inputs
        # Deferred: the tape computes dx only when x needs a gradient (not for a first layer).
        return (lambda: self._same_attrs(Conv2DBackpropInput)(dout, w, tuple(x.shape)),
                lambda: self._same_attrs(Conv2DBackpropFilter)(dout, x, tuple(w.shape)))


class Conv2DBackpropInput(_ConvBase):
    """The gradient of Conv2D w.r.t. its input: ``Op(...)(dout, weight, input_size)``, same
    attributes as the Conv2D (plus an explicit ``pad_list``)."""
    sharding_rule = rules.conv2d_backprop_input

    def infer(self, dout, w, input_size):
        _check_4d(self, "dout", dout)
        check_same_dtype(self, ("dout", "weight"), (dout, w))
        input_size = _shape_arg(self, "input_size", input_size)
        self._check_weight(input_size, w)
        _, oh, ow = self._geometry(input_size)
        want = (input_size[0], self.out_channel, oh, ow)
        if not shapes_equal(self, dout.shape, want):
            raise self.error(f"'dout' shape {tuple(dout.shape)} does not match the Conv2D "
                             f"output {want} of input_size {input_size}.")
        return Aval(input_size, dout.dtype)

    writes_out = True

    def impl(self, dout, w, input_size, out=None):
        pads, _, _ = self._geometry(input_size)
        pt, pb, pl, pr = pads
        n, c, h, wd = input_size
        padded = (n, c, h + pt + pb, wd + pl + pr)
        if out is not None and not any(pads):
            dxp = out       # the kernel accumulates: zero it first
            kernel("array", "fill")(dxp, dxp.dtype.type(0))
        else:
            dxp = device.zeros(padded, dout.dtype)
        kernel("conv", "conv2d_backprop_input")(contiguous(dout),
                                                contiguous(w), *self._conv_args(), dxp)
        return _cropped(dxp, pads, out)

    def bprop(self, inputs, out, ddx):
        dout, w, _ = inputs
        # dx is bilinear in (dout, w): <ddx, dx> = <conv(ddx, w), dout>.
        d_dout = self._same_attrs(Conv2D)(ddx, w)
        d_w = self._same_attrs(Conv2DBackpropFilter)(dout, ddx, tuple(w.shape))
        return d_dout, d_w, None


class Conv2DTranspose(Conv2DBackpropInput):
    """Transposed 2-D convolution ("deconvolution"): ``Conv2DTranspose(out_channel, kernel_size,
    pad_mode='valid', pad=0, pad_list=None, mode=1, stride=1, dilation=1, group=1,
    data_format='NCHW')(dout, weight, input_size)`` (MindSpore's argument order).

    It is Conv2DBackpropInput under its public name, as in MindSpore: the adjoint of the Conv2D
    with the same attributes, so ``<Conv2D(x, w), y> == <x, Conv2DTranspose(y, w, x.shape)>``.
    dout (N, out_channel, H, W), weight (out_channel, C/group, kh, kw), input_size the
    (N, C, OH, OW) of the result, which must be a size whose Conv2D output is dout's.
    Kernels, bprop and sharding rule are Conv2DBackpropInput's.
    """

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        super().__init__(out_channel, kernel_size, mode=mode, pad_mode=pad_mode, pad=pad,
                         stride=stride, dilation=dilation, group=group, data_format=data_format,
                         pad_list=pad_list)


class Conv2DBackpropFilter(_ConvBase):
    """The gradient of Conv2D w.r.t. its weight: ``Op(...)(dout, x, filter_size)``."""
    sharding_rule = rules.conv2d_backprop_filter

    def infer(self, dout, x, filter_size):
        _check_4d(self, "dout", dout)
        _check_4d(self, "x", x)
        check_same_dtype(self, ("dout", "x"), (dout, x))
        filter_size = _shape_arg(self, "filter_size", filter_size)
        if filter_size[0] != self.out_channel or filter_size[2:] != self.kernel_size \
                or not dims_equal(self, x.shape[1], filter_size[1] * self.group):
            raise self.error(f"'filter_size' {filter_size} does not match out_channel "
                             f"{self.out_channel}, kernel_size {self.kernel_size}, group "
                             f"{self.group} and x {tuple(x.shape)}.")
        _, oh, ow = self._geometry(x.shape)
        want = (x.shape[0], self.out_channel, oh, ow)
        if not shapes_equal(self, dout.shape, want):
            raise self.error(f"'dout' shape {tuple(dout.shape)} does not match the Conv2D "
                             f"output {want} of x {tuple(x.shape)}.")
        return Aval(filter_size, x.dtype)

    writes_out = True

    def impl(self, dout, x, filter_size, out=None):
        pads, _, _ = self._geometry(x.shape)
        dw = device.empty(filter_size, x.dtype) if out is None else out
        kernel("conv", "conv2d_backprop_filter")(contiguous(dout), _padded(x, pads),
                                                 *self._conv_args(), dw)
        return dw

    def bprop(self, inputs, out, ddw):
        dout, x, _ = inputs
        # dw is bilinear in (dout, x): <ddw, dw> = <conv(x, ddw), dout>.
        d_dout = self._same_attrs(Conv2D)(x, ddw)
        d_x = self._same_attrs(Conv2DBackpropInput)(dout, ddw, tuple(x.shape))
        return d_dout, d_x, None


# -- pooling -----------------------------------------------------------------------------
class _Pool2D(Primitive):
    """Shared attributes of the pooling primitives. Besides MindSpore's 'valid' and 'same',
    pad_mode='pad' with ``pad`` (int or (top, bottom, left, right)) serves ops.max_pool2d /
    ops.avg_pool2d's explicit padding; ``count_include_pad`` is AvgPool's divisor rule there
    ('same' never counts the padding)."""
    float16_in_float32 = True
    sharding_rule = rules.pool

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW", pad=0,
                 count_include_pad=False):
        super().__init__()
        name = self.name
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.strides = _pair(name, "strides", strides)
        self.pad_mode = _pad_mode(name, pad_mode, ("valid", "same", "pad"))
        self.pad = _pads(name, pad)
        if self.pad_mode != "pad" and any(self.pad):
            raise ValueError(f"For '{name}', 'pad' must be zero when 'pad_mode' is not 'pad', "
                             f"but got {pad!r}.")
        if max(self.pad[:2]) >= self.kernel_size[0] or max(self.pad[2:]) >= self.kernel_size[1]:
            raise ValueError(f"For '{name}', every pad must be smaller than the kernel, but got "
                             f"pad {self.pad} with kernel_size {self.kernel_size}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', only data_format 'NCHW' is supported on CPU, "
                             f"but got {data_format!r}.")
        self.count_include_pad = bool(count_include_pad)
        self.data_format = data_format
        self._kwargs = dict(kernel_size=self.kernel_size, strides=self.strides,
                            pad_mode=self.pad_mode, pad=self.pad,
                            count_include_pad=self.count_include_pad)
        for key in ("kernel_size", "strides", "pad_mode", "data_format"):
            self.add_prim_attr(key, getattr(self, key))
        self._grad = None

    def _geometry(self, x_shape):
        return _geometry(self, x_shape, self.kernel_size, self.strides, (1, 1))

    def _args(self, pads):
        return self.kernel_size + self.strides + (pads[0], pads[2])

    def infer(self, x):
        _check_4d(self, "x", x)
        _, oh, ow = self._geometry(x.shape)
        return Aval((x.shape[0], x.shape[1], oh, ow), x.dtype)

    def _grad_op(self, cls):
        if self._grad is None:
            self._grad = cls(**self._kwargs)
        return self._grad


class _Pool2DGrad(_Pool2D):
    """``Op(...)(x, out, dout) -> dx``: the gradient of the matching pooling primitive."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    def infer(self, x, out, dout):
        _check_4d(self, "x", x)
        check_tensor(self, "dout", dout)
        check_same_dtype(self, ("x", "dout"), (x, dout))
        _, oh, ow = self._geometry(x.shape)
        want = (x.shape[0], x.shape[1], oh, ow)
        if not shapes_equal(self, dout.shape, want):
            raise self.error(f"'dout' shape {tuple(dout.shape)} must be the pooled shape "
                             f"{want} of x {tuple(x.shape)}.")
        return Aval(x.shape, x.dtype)


class MaxPool(_Pool2D):
    """Max pooling: ``MaxPool(kernel_size=1, strides=1, pad_mode='valid')(x)``, x NCHW.

    'same' pads so that OH = ceil(H / s); padded cells never win. The backward (MaxPoolGrad)
    recomputes each window's argmax from x rather than storing indices in the forward, so the
    forward returns one tensor, as in MindSpore, and costs no extra memory.
    """

    writes_out = True

    def impl(self, x, out=None):
        pads, oh, ow = self._geometry(x.shape)
        if out is None:
            out = device.empty((x.shape[0], x.shape[1], oh, ow), x.dtype)
        kernel("pool", "max_pool2d")(contiguous(x), *self._args(pads), out)
        return out

    def bprop(self, inputs, out, dout):
        return (self._grad_op(MaxPoolGrad)(inputs[0], out, dout),)


class MaxPoolGrad(_Pool2DGrad):
    """dx: dout routed to the first maximum of each window (ties go to the first)."""

    writes_out = True

    def impl(self, x, y, dout, out=None):
        pads, _, _ = self._geometry(x.shape)
        # The kernel writes every element, so neither buffer needs zeroing.
        dx = device.empty(x.shape, x.dtype) if out is None else out
        kernel("pool", "max_pool2d_grad")(contiguous(x), contiguous(dout),
                                          *self._args(pads), dx)
        return dx


class AvgPool(_Pool2D):
    """Average pooling: ``AvgPool(kernel_size=1, strides=1, pad_mode='valid')(x)``, x NCHW.

    With 'same' each window averages only the input cells it covers (padding is not counted).
    """

    writes_out = True

    def impl(self, x, out=None):
        pads, oh, ow = self._geometry(x.shape)
        if out is None:
            out = device.empty((x.shape[0], x.shape[1], oh, ow), x.dtype)
        kernel("pool", "avg_pool2d")(contiguous(x), *self._args(pads),
                                     self.count_include_pad, out)
        return out

    def bprop(self, inputs, out, dout):
        return (self._grad_op(AvgPoolGrad)(inputs[0], out, dout),)


class AvgPoolGrad(_Pool2DGrad):
    """dx: each dout spread evenly over its window's counted cells."""

    writes_out = True

    def bprop(self, inputs, out, dout):
        # linear in dout, and its transpose is the average pooling itself (each window sums
        # its counted cells and divides by the same count); x and out only give shapes
        return None, None, cached_op(AvgPool, **self._kwargs)(dout)

    def impl(self, x, y, dout, out=None):
        pads, _, _ = self._geometry(x.shape)
        dx = device.empty(x.shape, x.dtype) if out is None else out    # every element written
        kernel("pool", "avg_pool2d_grad")(contiguous(dout), *self._args(pads),
                                          self.count_include_pad, dx)
        return dx
