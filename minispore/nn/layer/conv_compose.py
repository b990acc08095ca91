"""Layers composed from functional ops: Conv3d (ops' conv3d, a sum of Conv2Ds over depth taps),
Conv3dTranspose (a conv3d of the zero-dilated input) and BiDense (x1^T W x2 + b)."""
import math

from minispore.common import dtype as mstype
from minispore.common.initializer import HeUniform, Uniform, initializer
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops import functional as F
from minispore.ops.function.composite_prims_more import check_conv3d_transpose
from minispore.ops.function.conv_compose_func import (_ints, conv3d_padded,
                                                     conv3d_transpose_padded)

__all__ = ["Conv3d", "Conv3dTranspose", "BiDense"]

_PAD_MODES = ("same", "valid", "pad")


def _padding6(name, padding, pad_mode):
    """An int or (head, tail, top, bottom, left, right); nonzero only with pad_mode 'pad'."""
    pads = _ints(name, "padding", padding, 6, 0)
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{name}', 'padding' must be 0 when 'pad_mode' is {pad_mode!r}, "
                         f"but got {padding!r}.")
    return pads



def _weight_and_bias(shape, out_channels, has_bias, weight_init, bias_init, dtype):
    """MindSpore's conv defaults: weight HeUniform(sqrt(5)), bias U(1/sqrt(fan_in))."""
    if weight_init is None:
        weight_init = HeUniform(math.sqrt(5))
    weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
    if not has_bias:
        return weight, None
    if bias_init is None:
        bias_init = Uniform(1 / math.sqrt(math.prod(shape[1:])))
    return weight, Parameter(initializer(bias_init, [out_channels], dtype), name="bias")

class Conv3d(Cell):
    """3-D convolution over NCDHW input; weight (out_channels, in_channels // group, kd, kh, kw).

    ``pad_mode``: 'same' (each output dim = ceil(size / stride)), 'valid' or 'pad' (explicit
    ``padding``: an int or (head, tail, top, bottom, left, right)). Defaults as nn.Conv2d:
    W ~ HeUniform(sqrt(5)), b ~ U(+-1/sqrt(fan_in)) when ``has_bias``.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        super().__init__()
        name = "Conv3d"
        self.in_channels = _check_positive_int(name, "in_channels", in_channels)
        self.out_channels = _check_positive_int(name, "out_channels", out_channels)
        self.kernel_size = _ints(name, "kernel_size", kernel_size, 3, 1)
        self.stride = _ints(name, "stride", stride, 3, 1)
        self.dilation = _ints(name, "dilation", dilation, 3, 1)
        if pad_mode not in _PAD_MODES:
            raise ValueError(f"For '{name}', 'pad_mode' must be one of {list(_PAD_MODES)}, but "
                             f"got {pad_mode!r}.")
        self.pad_mode = pad_mode
        self.padding = _padding6(name, padding, pad_mode)
        if data_format != "NCDHW":
            raise ValueError(f"For '{name}', only data_format 'NCDHW' is supported, but got "
                             f"{data_format!r}.")
        self.group = _check_positive_int(name, "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{name}', 'in_channels' ({in_channels}) and 'out_channels' "
                             f"({out_channels}) must be divisible by 'group' ({group}).")
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.weight, self.bias = _weight_and_bias(
            [out_channels, in_channels // group, *self.kernel_size], out_channels, has_bias,
            weight_init, bias_init, dtype)

    def construct(self, x):
        if len(x.shape) != 5:
            raise ValueError(f"For 'Conv3d', the input must be 5-D (N, C, D, H, W), but got "
                             f"shape {tuple(x.shape)}.")
        return conv3d_padded(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding,
                             self.dilation, self.group)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


class Conv3dTranspose(Cell):
    """3-D transposed convolution (the input gradient of Conv3d) over NCDHW input; weight
    (in_channels, out_channels // group, kd, kh, kw). Output per dim: 'valid' (size - 1) * stride
    + dilation * (k - 1) + 1; 'same' size * stride; 'pad' the valid size minus ``padding``
    (head, tail, top, bottom, left, right) plus ``output_padding``. Defaults as nn.Conv3d."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        super().__init__()
        name = "Conv3dTranspose"
        self.in_channels = _check_positive_int(name, "in_channels", in_channels)
        self.out_channels = _check_positive_int(name, "out_channels", out_channels)
        self.group = _check_positive_int(name, "group", group)
        if data_format != "NCDHW":
            raise ValueError(f"For '{name}', only data_format 'NCDHW' is supported, but got "
                             f"{data_format!r}.")
        (self.kernel_size, self.padding, self.stride, self.dilation,
         self.output_padding) = check_conv3d_transpose(
             name, in_channels, out_channels, kernel_size, pad_mode, padding, stride, dilation,
             group, output_padding)
        self.pad_mode = pad_mode
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.weight, self.bias = _weight_and_bias(
            [in_channels, out_channels // group, *self.kernel_size], out_channels, has_bias,
            weight_init, bias_init, dtype)

    def construct(self, x):
        if len(x.shape) != 5:
            raise ValueError(f"For 'Conv3dTranspose', the input must be 5-D (N, C, D, H, W), but "
                             f"got shape {tuple(x.shape)}.")
        out = conv3d_transpose_padded(x, self.weight, self.stride, self.pad_mode, self.padding,
                                      self.dilation, self.group, self.output_padding)
        if self.has_bias:
            out = F.add(out, F.reshape(self.bias, (1, -1, 1, 1, 1)))
        return out


class BiDense(Cell):
    """Bilinear layer: y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o], for inputs
    (..., in1_channels) and (..., in2_channels) of the same leading shape. W (out, in1, in2)
    and b default to U(+-1/sqrt(in1_channels)), as MindSpore's."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None,
                 bias_init=None, has_bias=True, dtype=mstype.float32):
        super().__init__()
        name = "BiDense"
        self.in1_channels = _check_positive_int(name, "in1_channels", in1_channels)
        self.in2_channels = _check_positive_int(name, "in2_channels", in2_channels)
        self.out_channels = _check_positive_int(name, "out_channels", out_channels)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        bound = 1 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != shape:
            raise ValueError(f"For '{name}', a Tensor 'weight_init' must have shape {shape}, but "
                             f"got {tuple(weight_init.shape)}.")
        weight_init = Uniform(bound) if weight_init is None else weight_init
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(f"For '{name}', a Tensor 'bias_init' must have shape "
                                 f"({out_channels},), but got {tuple(bias_init.shape)}.")
            bias_init = Uniform(bound) if bias_init is None else bias_init
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")

    def construct(self, input1, input2):
        lead = tuple(input1.shape[:-1])
        if input1.shape[-1] != self.in1_channels or input2.shape[-1] != self.in2_channels:
            raise ValueError(f"For 'BiDense', the last dims of input1 and input2 must be "
                             f"{self.in1_channels} and {self.in2_channels}, but got shapes "
                             f"{tuple(input1.shape)} and {tuple(input2.shape)}.")
        if tuple(input2.shape[:-1]) != lead:
            raise ValueError(f"For 'BiDense', input1 and input2 must share their leading dims, "
                             f"but got shapes {tuple(input1.shape)} and {tuple(input2.shape)}.")
        x1 = F.reshape(input1, (-1, self.in1_channels))
        x2 = F.reshape(input2, (-1, self.in2_channels))
        # x1 W: (B, in1) @ (in1, out * in2), then each out's row dotted with x2
        w = F.reshape(F.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        xw = F.reshape(F.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        out = F.reduce_sum(F.mul(xw, F.expand_dims(x2, 1)), 2)
        if self.has_bias:
            out = F.add(out, self.bias)
        return F.reshape(out, lead + (self.out_channels,))
