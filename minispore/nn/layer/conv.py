"""Convolution layers: Conv2d."""
import math

from minispore.common import dtype as mstype
from minispore.common.initializer import HeUniform, Uniform, initializer
from minispore.common.parameter import Parameter
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops.operations.conv_ops import Conv2D
from minispore.ops.operations.activation_ops import BiasAdd

__all__ = ["Conv2d"]

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


def _padding(value, pad_mode):
    """MindSpore's padding: an int or a tuple of 4 (top, bottom, left, right); nonzero only
    with pad_mode='pad'."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * 4
    if not isinstance(value, tuple) or len(value) != 4 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise TypeError(f"For 'Conv2d', 'padding' must be a non-negative int or a tuple of four "
                        f"non-negative ints, but got {value!r}.")
    if pad_mode != "pad" and any(value):
        raise ValueError(f"For 'Conv2d', 'padding' must be 0 when 'pad_mode' is {pad_mode!r}, "
                         f"but got {value}.")
    return value


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
