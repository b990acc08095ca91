"""Convolution layers: Conv2d, Conv1d (a Conv2D over (N, C, 1, W)) and Conv2dTranspose."""
import math

from minispore.common import dtype as mstype
from minispore.common.initializer import HeUniform, Uniform, initializer
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops.operations.array_ops import ExpandDims, Fill, Squeeze
from minispore.ops.operations.combine_ops import Concat
from minispore.ops.operations.conv_ops import Conv2D, Conv2DTranspose
from minispore.ops.operations.activation_ops import BiasAdd

__all__ = ["Conv2d", "Conv1d", "Conv2dTranspose", "Conv1dTranspose"]

_PAD_MODES = ("same", "valid", "pad")


def _pair(name, arg_name, value):
    """An int or a tuple of two positive ints -> a tuple of two."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    if not isinstance(value, tuple) or len(value) != 2:
        raise TypeError(f"For '{name}', '{arg_name}' must be an int or a tuple of two ints, "
                        f"but got {value!r}.")
    for v in value:
        _check_positive_int(name, arg_name, v)
    return value


def _padding(value, pad_mode, name="Conv2d"):
    """MindSpore's padding: an int or a tuple of 4 (top, bottom, left, right); nonzero only
    with pad_mode='pad'."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * 4
    if not isinstance(value, tuple) or len(value) != 4 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise TypeError(f"For '{name}', 'padding' must be a non-negative int or a tuple of four "
                        f"non-negative ints, but got {value!r}.")
    if pad_mode != "pad" and any(value):
        raise ValueError(f"For '{name}', 'padding' must be 0 when 'pad_mode' is {pad_mode!r}, "
                         f"but got {value}.")
    return value


def _pad_mode(name, pad_mode):
    if pad_mode not in _PAD_MODES:
        raise ValueError(f"For '{name}', 'pad_mode' must be one of {list(_PAD_MODES)}, but "
                         f"got {pad_mode!r}.")
    return pad_mode


def _groups(name, in_channels, out_channels, group):
    _check_positive_int(name, "group", group)
    if in_channels % group or out_channels % group:
        raise ValueError(f"For '{name}', 'in_channels' ({in_channels}) and 'out_channels' "
                         f"({out_channels}) must be divisible by 'group' ({group}).")
    return group


def _init_params(cell, weight_init, bias_init, shape, out_channels, dtype):
    """MindSpore's conv defaults: W ~ HeUniform(sqrt(5)), b ~ U(+-1/sqrt(fan_in)), fan_in =
    shape[1] * prod(shape[2:])."""
    if weight_init is None:
        weight_init = HeUniform(math.sqrt(5))
    cell.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
    cell.bias = None
    if cell.has_bias:
        if bias_init is None:
            fan_in = shape[1] * math.prod(shape[2:])
            bias_init = Uniform(1 / math.sqrt(fan_in))
        cell.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")


class Conv2d(Cell):
    """2-D convolution over NCHW input; weight (out_channels, in_channels // group, kh, kw).

    ``pad_mode``: 'same' (output H = ceil(H / stride)), 'valid' (floor((H - dk) / s) + 1, no
    padding) or 'pad' (explicit ``padding``). Defaults (r2.1+): W ~ HeUniform(sqrt(5)),
    b ~ U(±1/sqrt(fan_in)) when ``has_bias``.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        self.in_channels = _check_positive_int("Conv2d", "in_channels", in_channels)
        self.out_channels = _check_positive_int("Conv2d", "out_channels", out_channels)
        self.kernel_size = _pair("Conv2d", "kernel_size", kernel_size)
        self.stride = _pair("Conv2d", "stride", stride)
        self.dilation = _pair("Conv2d", "dilation", dilation)
        self.group = _check_positive_int("Conv2d", "group", group)
        self.has_bias = _check_bool("Conv2d", "has_bias", has_bias)
        if pad_mode not in _PAD_MODES:
            raise ValueError(f"For 'Conv2d', 'pad_mode' must be one of {list(_PAD_MODES)}, but "
                             f"got {pad_mode!r}.")
        self.pad_mode = pad_mode
        self.padding = _padding(padding, pad_mode)
        if data_format != "NCHW":
            raise ValueError(f"For 'Conv2d', only data_format 'NCHW' is supported on CPU, but "
                             f"got {data_format!r}.")
        self.data_format = data_format
        if in_channels % group or out_channels % group:
            raise ValueError(f"For 'Conv2d', 'in_channels' ({in_channels}) and 'out_channels' "
                             f"({out_channels}) must be divisible by 'group' ({group}).")
        shape = [out_channels, in_channels // group, *self.kernel_size]
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in = shape[1] * shape[2] * shape[3]
                bias_init = Uniform(1 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")
        self.conv2d = Conv2D(out_channels, self.kernel_size, mode=1, pad_mode=pad_mode,
                             pad=self.padding, stride=self.stride, dilation=self.dilation,
                             group=group, data_format=data_format)
        self.bias_add = BiasAdd()

    def construct(self, x):
        out = self.conv2d(x, self.weight)
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, "
                f"weight_init={type(self.weight).__name__}, "
                f"bias_init={'None' if self.bias is None else 'Parameter'}, "
                f"format={self.data_format}")


def _single(name, arg_name, value, minimum):
    """An int (or a tuple of one int) >= minimum."""
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{name}', '{arg_name}' must be an int, but got {value!r}.")
    if value < minimum:
        raise ValueError(f"For '{name}', '{arg_name}' must be at least {minimum}, but got "
                         f"{value}.")
    return value


def _weight_1d(name, weight_init, channels):
    """A 1-D convolution's Tensor weight_init, given 3-D (`channels`, kernel_size), as the 4-D
    (..., 1, kernel_size) weight MindSpore keeps; any other initializer unchanged."""
    if not isinstance(weight_init, Tensor):
        return weight_init
    if weight_init.ndim != 3:
        raise ValueError(f"For '{name}', a Tensor 'weight_init' must be 3-D ({channels}, "
                         f"kernel_size), but got shape {tuple(weight_init.shape)}.")
    return Tensor(weight_init.asnumpy()[:, :, None, :])


class Conv1d(Cell):
    """1-D convolution over (N, C_in, L) input, run as a Conv2D over (N, C_in, 1, L).

    The weight Parameter is MindSpore's: 4-D, (out_channels, in_channels // group, 1,
    kernel_size); a Tensor ``weight_init`` is given 3-D, (out, in // group, kernel_size), as in
    MindSpore. ``pad_mode`` 'same' (L_out = ceil(L / stride)), 'valid' (ceil((L - (k - 1) * d)
    / stride)) or 'pad' (``padding`` zeros on both ends). Defaults as nn.Conv2d.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        super().__init__()
        name = "Conv1d"
        self.in_channels = _check_positive_int(name, "in_channels", in_channels)
        self.out_channels = _check_positive_int(name, "out_channels", out_channels)
        if isinstance(kernel_size, bool) or not isinstance(kernel_size, int):
            raise TypeError(f"For '{name}', 'kernel_size' must be an int, but got "
                            f"{kernel_size!r}.")
        self.kernel_size = _single(name, "kernel_size", kernel_size, 1)
        if isinstance(stride, bool) or not isinstance(stride, int):
            raise TypeError(f"For '{name}', 'stride' must be an int, but got {stride!r}.")
        self.stride = _single(name, "stride", stride, 1)
        self.dilation = _single(name, "dilation", dilation, 1)
        self.pad_mode = _pad_mode(name, pad_mode)
        self.padding = _single(name, "padding", padding, 0)
        if pad_mode != "pad" and self.padding:
            raise ValueError(f"For '{name}', 'padding' must be 0 when 'pad_mode' is "
                             f"{pad_mode!r}, but got {self.padding}.")
        self.group = _groups(name, in_channels, out_channels, group)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        weight_init = _weight_1d(name, weight_init, "out_channels, in_channels // group")
        shape = [out_channels, in_channels // group, 1, self.kernel_size]
        _init_params(self, weight_init, bias_init, shape, out_channels, dtype)
        self.conv2d = Conv2D(out_channels, (1, self.kernel_size), mode=1, pad_mode=pad_mode,
                             pad=(0, 0, self.padding, self.padding), stride=(1, self.stride),
                             dilation=(1, self.dilation), group=group)
        self.bias_add = BiasAdd()
        self.expand_dims = ExpandDims()
        self.squeeze = Squeeze(2)

    def construct(self, x):
        if len(x.shape) != 3:
            raise ValueError(f"For 'Conv1d', the input must be 3-D (N, C, L), but got shape "
                             f"{tuple(x.shape)}.")
        out = self.conv2d(self.expand_dims(x, 2), self.weight)
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        return self.squeeze(out)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


class Conv2dTranspose(Cell):
    """2-D transposed convolution over NCHW input: the adjoint of the nn.Conv2d with the same
    arguments, run by ops.Conv2DTranspose. Weight (in_channels, out_channels // group, kh, kw).

    Output size per spatial dim, with span = (k - 1) * dilation + 1 (MindSpore's rules):
    'same' H * stride; 'valid' H * stride + max(span - stride, 0); 'pad' H * stride - (pad
    before + pad after) + span - stride, then ``output_padding`` rows (columns) of zeros at the
    bottom (right), after the bias: MindSpore pads the result, it does not extend the
    convolution. output_padding is in [0, max(stride, dilation)) and needs pad_mode='pad'.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=mstype.float32):
        super().__init__()
        name = "Conv2dTranspose"
        self.in_channels = _check_positive_int(name, "in_channels", in_channels)
        self.out_channels = _check_positive_int(name, "out_channels", out_channels)
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.stride = _pair(name, "stride", stride)
        self.dilation = _pair(name, "dilation", dilation)
        self.pad_mode = _pad_mode(name, pad_mode)
        self.padding = _padding(padding, pad_mode, name)
        self.output_padding = self._output_padding(output_padding)
        self.group = _groups(name, in_channels, out_channels, group)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        shape = [in_channels, out_channels // group, *self.kernel_size]
        _init_params(self, weight_init, bias_init, shape, out_channels, dtype)
        # Conv2DTranspose's out_channel is that of the Conv2D it transposes: our in_channels.
        self.conv2d_transpose = Conv2DTranspose(in_channels, self.kernel_size, pad_mode=pad_mode,
                                                pad=self.padding, stride=self.stride,
                                                dilation=self.dilation, group=group)
        self.bias_add = BiasAdd()
        self.fill = Fill()
        self.concat_h = Concat(2)
        self.concat_w = Concat(3)

    def _output_padding(self, value):
        name = "Conv2dTranspose"
        if isinstance(value, int) and not isinstance(value, bool):
            value = (value, value)
        if not isinstance(value, tuple) or len(value) != 2 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise TypeError(f"For '{name}', 'output_padding' must be an int or a tuple of two "
                            f"ints, but got {value!r}.")
        for axis, v, s, d in zip("HW", value, self.stride, self.dilation):
            if not 0 <= v < max(s, d):
                raise ValueError(f"For '{name}', 'output_padding' along {axis} must be in "
                                 f"[0, max(stride, dilation)) = [0, {max(s, d)}), but got "
                                 f"{value}.")
        if any(value) and self.pad_mode != "pad":
            raise ValueError(f"For '{name}', 'output_padding' must be 0 when 'pad_mode' is "
                             f"{self.pad_mode!r} (only 'pad' takes it), but got {value}.")
        return value

    def _out_size(self, size, axis):
        k, s, d = self.kernel_size[axis], self.stride[axis], self.dilation[axis]
        span = (k - 1) * d + 1
        if self.pad_mode == "same":
            return size * s
        if self.pad_mode == "valid":
            return size * s + max(span - s, 0)
        return size * s - self.padding[2 * axis] - self.padding[2 * axis + 1] + span - s

    def construct(self, x):
        if len(x.shape) != 4:
            raise ValueError(f"For 'Conv2dTranspose', the input must be 4-D (N, C, H, W), but "
                             f"got shape {tuple(x.shape)}.")
        n, _, h, w = x.shape
        oh, ow = self._out_size(h, 0), self._out_size(w, 1)
        if oh <= 0 or ow <= 0:
            raise ValueError(f"For 'Conv2dTranspose', the padding {self.padding} leaves no "
                             f"output for input shape {tuple(x.shape)}: ({oh}, {ow}).")
        out = self.conv2d_transpose(x, self.weight, (n, self.out_channels, oh, ow))
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        ph, pw = self.output_padding
        if ph:
            out = self.concat_h((out, self.fill(x.dtype, (n, self.out_channels, ph, ow), 0)))
        if pw:
            out = self.concat_w((out, self.fill(x.dtype, (n, self.out_channels, oh + ph, pw),
                                                0)))
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, "
                f"output_padding={self.output_padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


class Conv1dTranspose(Conv2dTranspose):
    """1-D transposed convolution over (N, C_in, L) input, run as the Conv2dTranspose of
    kernel (1, kernel_size) over (N, C_in, 1, L), as MindSpore does: its weight Parameter is
    4-D, (in_channels, out_channels // group, 1, kernel_size); a Tensor ``weight_init`` is
    given 3-D, (in, out // group, kernel_size). Output length as Conv2dTranspose's rules."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        name = "Conv1dTranspose"
        for arg, value in (("kernel_size", kernel_size), ("stride", stride),
                           ("padding", padding), ("dilation", dilation)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For '{name}', '{arg}' must be an int, but got {value!r}.")
        if pad_mode != "pad" and padding:
            raise ValueError(f"For '{name}', 'padding' must be 0 when 'pad_mode' is "
                             f"{pad_mode!r}, but got {padding}.")
        weight_init = _weight_1d(name, weight_init, "in_channels, out_channels // group")
        super().__init__(in_channels, out_channels, (1, kernel_size), stride=(1, stride),
                         pad_mode=pad_mode, padding=(0, 0, padding, padding), dilation=(1, dilation),
                         group=group, has_bias=has_bias, weight_init=weight_init,
                         bias_init=bias_init, dtype=dtype)
        self.expand_dims = ExpandDims()
        self.squeeze = Squeeze(2)

    def construct(self, x):
        if len(x.shape) != 3:
            raise ValueError(f"For 'Conv1dTranspose', the input must be 3-D (N, C, L), but got "
                             f"shape {tuple(x.shape)}.")
        return self.squeeze(super().construct(self.expand_dims(x, 2)))

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")
