"""Max pooling that also returns where each maximum was (NCHW): MaxPoolWithArgmax (MindSpore's
first form: 'valid'/'same' padding, Int32 indices into one sample's (C, H, W)) and
MaxPoolWithArgmaxV2 (explicit pads, dilation, ceil_mode, indices into each (H, W) plane, Int32
or Int64), with MaxPoolGradWithArgmax, their gradient: dout added at the recorded positions.
"""
from minispore import device
from minispore.common import dtype as mstype
from minispore.ops import sharding_nn as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_dtype, check_tensor, contiguous,
                                            shapes_equal)
from minispore.ops.operations.array_ops import Reshape
from minispore.ops.operations.conv_ops import _check_4d, _pair, _Pool2D
from minispore.ops.operations.scatter_ops import GatherD
from minispore.ops.primitive import Aval, Primitive

__all__ = ["MaxPoolWithArgmax", "MaxPoolWithArgmaxV2", "MaxPoolGradWithArgmax"]


def _pool_argmax(x, args, plane_offsets, oh, ow, argmax_dtype):
    out = device.empty((x.shape[0], x.shape[1], oh, ow), x.dtype)
    argmax = device.empty(out.shape, argmax_dtype)
    kernel("pool", "max_pool2d_argmax")(contiguous(x), *args, plane_offsets, out, argmax)
    return out, argmax


class MaxPoolWithArgmax(_Pool2D):
    """``out, argmax = MaxPoolWithArgmax(kernel_size=1, strides=1, pad_mode='valid')(x)``.

    argmax (Int32) holds c * H * W + h * W + w of each window's first maximum: an index into
    the sample's flattened (C, H, W), as MindSpore's CPU kernel returns it. 'same' gives
    OH = ceil(H / s) with max(k - s, 0) // 2 rows of padding on top (MindSpore 2.7.2's rule
    for this operator, measured: MaxPool's 'same' centres the total padding instead, which
    differs when H is not a multiple of s); padded cells never win.
    Gradient: dout added at argmax (MaxPoolGradWithArgmax); none for argmax.
    """
    sharding_rule = rules.pool_argmax
    plane_offsets = True

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same"):
            raise ValueError(f"For 'MaxPoolWithArgmax', 'pad_mode' must be 'valid' or 'same' "
                             f"(any case), but got {pad_mode!r}.")
        super().__init__(kernel_size, strides, pad_mode, data_format)

    def _geometry(self, x_shape):
        pads, oh, ow = super()._geometry(x_shape)
        if self.pad_mode == "same":
            (kh, kw), (sh, sw) = self.kernel_size, self.strides
            pads = (max(kh - sh, 0) // 2, pads[1], max(kw - sw, 0) // 2, pads[3])
        return pads, oh, ow

    def infer(self, x):
        out = super().infer(x)
        return out, Aval(out.shape, mstype.int32)

    def impl(self, x):
        pads, oh, ow = self._geometry(x.shape)
        return _pool_argmax(x, self._args(pads) + (1, 1), True, oh, ow, mstype.int32.np_dtype)

    def bprop(self, inputs, out, dout):
        return (cached_op(MaxPoolGradWithArgmax, True)(inputs[0], dout[0], out[1]),)


def _v2_dim(size, k, s, p, d, ceil_mode):
    """Output length along one axis: floor (or ceil) of (size + 2p - d(k-1) - 1) / s, plus one;
    with ceil_mode the last window must start inside the input or its left padding."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


class MaxPoolWithArgmaxV2(Primitive):
    """``out, argmax = MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1),
    ceil_mode=False, argmax_type=mstype.int64)(x)``, x NCHW float.

    Pads are implicit -inf on every side (at most half the kernel); dilation spreads the
    window; argmax holds h * W + w, the position in each (H, W) plane of the window's first
    maximum. Gradient: dout added at argmax; none for argmax.
    """
    float16_in_float32 = True
    sharding_rule = rules.pool_argmax
    plane_offsets = False

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                 argmax_type=mstype.int64):
        super().__init__()
        name = self.name
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.strides = self.kernel_size if strides is None else _pair(name, "strides", strides)
        if isinstance(pads, int) and not isinstance(pads, bool):
            pads = (pads, pads)
        if (not isinstance(pads, (tuple, list)) or len(pads) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                           for v in pads)):
            raise TypeError(f"For '{name}', 'pads' must be a non-negative int or a pair of "
                            f"them, but got {pads!r}.")
        self.pads = tuple(pads)
        self.dilation = _pair(name, "dilation", dilation)
        if not isinstance(ceil_mode, bool):
            raise TypeError(f"For '{name}', 'ceil_mode' must be bool, but got "
                            f"{type(ceil_mode).__name__}.")
        self.ceil_mode = ceil_mode
        if argmax_type not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{name}', 'argmax_type' must be mindspore.int32 or "
                            f"mindspore.int64, but got {argmax_type}.")
        self.argmax_type = argmax_type
        for key in ("kernel_size", "strides", "pads", "dilation", "ceil_mode", "argmax_type"):
            self.add_prim_attr(key, getattr(self, key))

    def _out_hw(self, x_shape):
        # Checked at the call, as MindSpore does (its constructor accepts any pads).
        if any(2 * p > k for p, k in zip(self.pads, self.kernel_size)):
            raise ValueError(f"It is required that the `pads` is no more than half of the "
                             f"`kernel_size`, but gets pads{self.pads} and "
                             f"kernel_size{self.kernel_size}.")
        oh, ow = (_v2_dim(x_shape[2 + a], self.kernel_size[a], self.strides[a], self.pads[a],
                          self.dilation[a], self.ceil_mode) for a in (0, 1))
        if oh <= 0 or ow <= 0:
            raise self.error(f"the input shape {tuple(x_shape)} is too small for kernel_size "
                             f"{self.kernel_size}, strides {self.strides}, pads {self.pads} "
                             f"and dilation {self.dilation}: output would be ({oh}, {ow}).")
        return oh, ow

    def infer(self, x):
        _check_4d(self, "x", x)
        oh, ow = self._out_hw(x.shape)
        shape = (x.shape[0], x.shape[1], oh, ow)
        return Aval(shape, x.dtype), Aval(shape, self.argmax_type)

    def impl(self, x):
        oh, ow = self._out_hw(x.shape)
        args = self.kernel_size + self.strides + self.pads + self.dilation
        return _pool_argmax(x, args, False, oh, ow, self.argmax_type.np_dtype)

    def bprop(self, inputs, out, dout):
        return (cached_op(MaxPoolGradWithArgmax, False)(inputs[0], dout[0], out[1]),)


class MaxPoolGradWithArgmax(Primitive):
    """``MaxPoolGradWithArgmax(plane_offsets)(x, dout, argmax) -> dx``: dx zero but for
    dout[n, c, y, x] added at argmax[n, c, y, x], an index into the (H, W) plane of (n, c), or
    with plane_offsets into sample n's (C, H, W) (MaxPoolWithArgmax's indices)."""
    float16_in_float32 = True
    sharding_rule = rules.pool_argmax

    def bprop(self, inputs, out, dout):
        # linear in dout: its transpose reads the cotangent at each argmax (a GatherD over the
        # rows the kernel scattered into); x only gives the shape, argmax is an index
        x, d, argmax = inputs
        n, c, h, w = x.shape
        rows = (n, c * h * w) if self.plane_offsets else (n * c, h * w)
        flat = cached_op(Reshape)(dout, rows)
        index = cached_op(Reshape)(argmax, (rows[0], -1))
        picked = cached_op(GatherD)(flat, 1, index)
        return None, cached_op(Reshape)(picked, tuple(d.shape)), None

    def __init__(self, plane_offsets):
        super().__init__()
        self.plane_offsets = bool(plane_offsets)
        self.add_prim_attr("plane_offsets", self.plane_offsets)

    def infer(self, x, dout, argmax):
        _check_4d(self, "x", x)
        check_tensor(self, "dout", dout)
        check_dtype(self, "dout", dout, (x.dtype,))
        check_dtype(self, "argmax", argmax, (mstype.int32, mstype.int64))
        if not shapes_equal(self, dout.shape, argmax.shape) or len(dout.shape) != 4 \
                or tuple(dout.shape[:2]) != tuple(x.shape[:2]):
            raise self.error(f"'dout' {tuple(dout.shape)} and 'argmax' {tuple(argmax.shape)} "
                             f"must be the pooled shape of x {tuple(x.shape)}.")
        return Aval(x.shape, x.dtype)

    def impl(self, x, dout, argmax):
        n, c, h, w = x.shape
        rows, width = (n, c * h * w) if self.plane_offsets else (n * c, h * w)
        dx = device.empty((rows, width), x.dtype)
        kernel("pool", "scatter_add_rows")(contiguous(dout).reshape(rows, -1),
                                           contiguous(argmax).reshape(rows, -1), dx)
        return dx.reshape(x.shape)
