"""Basic layers: Dense, Flatten, Dropout, Unfold."""
import math

from minispore.common import dtype as mstype
from minispore.common.initializer import HeUniform, Uniform, initializer
from minispore.common.parameter import Parameter
from minispore.nn.cell import Cell
from minispore.nn.layer.activation import ReLU, get_activation
from minispore.ops import functional as F
from minispore.ops.operations.matmul_ops import MatMul
from minispore.ops.operations.activation_ops import BiasAdd, BiasAddReLU
from minispore.ops.function.cell_prims import ExtractImagePatches

__all__ = ["Dense", "Flatten", "Dropout", "Unfold"]


def _check_positive_int(name, arg_name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{name}', '{arg_name}' must be an int, but got "
                        f"{type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{name}', '{arg_name}' must be positive, but got {value}.")
    return value


def _check_bool(name, arg_name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', '{arg_name}' must be bool, but got "
                        f"{type(value).__name__}.")
    return value


def _activation_cell(activation):
    if activation is None or isinstance(activation, Cell):
        return activation
    if isinstance(activation, str):
        return get_activation(activation)
    raise TypeError(f"For 'Dense', 'activation' must be a str, a Cell or None, but got "
                    f"{type(activation).__name__}.")


class Dense(Cell):
    """Fully connected layer: y = activation(x @ W.T + b), W of shape (out_channels, in_channels).

    Defaults (MindSpore r2.1+): W ~ HeUniform(negative_slope=sqrt(5)), b ~ U(±1/sqrt(in_channels)).
    Inputs of rank > 2 are flattened to (-1, in_channels) and reshaped back.
    A Tensor ``weight_init`` / ``bias_init`` of the wrong shape raises ValueError.
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=mstype.float32):
        super().__init__()
        self.in_channels = _check_positive_int("Dense", "in_channels", in_channels)
        self.out_channels = _check_positive_int("Dense", "out_channels", out_channels)
        self.has_bias = _check_bool("Dense", "has_bias", has_bias)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels], dtype),
                                name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")
        self.matmul = MatMul(transpose_b=True)
        self.activation = _activation_cell(activation)
        # bias + ReLU fuse into one kernel pass; the activation cell is then skipped.
        fuse = has_bias and isinstance(self.activation, ReLU)
        self.bias_add = BiasAddReLU() if fuse else BiasAdd()
        self.activation_flag = self.activation is not None and not fuse

    def construct(self, x):
        shape = x.shape
        if len(shape) != 2:
            x = F.reshape(x, (-1, shape[-1]))
        x = self.matmul(x, self.weight)
        if self.has_bias:
            x = self.bias_add(x, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        if len(shape) != 2:
            x = F.reshape(x, tuple(shape[:-1]) + (self.out_channels,))
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation is not None:
            s += f", activation={self.activation}"
        return s


class Flatten(Cell):
    """(N, d1, d2, …) -> (N, d1*d2*…)."""

    def construct(self, x):
        return F.flatten(x)


class Dropout(Cell):
    """Zero each element with probability ``p`` while training, scaling the rest by 1/(1-p);
    the identity in inference (``set_train(False)``, the default).

    MindSpore 2.x: give ``p`` (drop probability, [0, 1)); ``keep_prob`` ((0, 1]) is the older
    form and means p = 1 - keep_prob. With neither, p = 0.5.
    """

    def __init__(self, keep_prob=None, p=None, dtype=mstype.float32):
        super().__init__()
        if p is None:
            if keep_prob is None:
                p = 0.5
            else:
                if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)):
                    raise TypeError(f"For 'Dropout', 'keep_prob' must be a float, but got "
                                    f"{type(keep_prob).__name__}.")
                if not 0 < keep_prob <= 1:
                    raise ValueError(f"For 'Dropout', 'keep_prob' must be in range (0, 1], but "
                                     f"got {keep_prob}.")
                p = 1.0 - keep_prob
        else:
            if isinstance(p, bool) or not isinstance(p, (int, float)):
                raise TypeError(f"For 'Dropout', 'p' must be a float, but got "
                                f"{type(p).__name__}.")
            if not 0 <= p < 1:
                raise ValueError(f"For 'Dropout', 'p' must be in range [0, 1), but got {p}.")
        self.p = float(p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return F.dropout(x, p=self.p)

    def extend_repr(self):
        return f"p={self.p}"


class Unfold(Cell):
    """Image patches of an NCHW input: ``ksizes``, ``strides`` and ``rates`` in the NHWC form
    [1, row, col, 1]; output (N, row_k * col_k * C, out_h, out_w), depth ordered (window row,
    window column, channel) with the channel fastest (ops.ExtractImagePatches). padding
    'valid' keeps the windows inside the image, 'same' (any case) pads with zeros to
    ceil(in / stride) positions. MindSpore runs it on Ascend and GPU only.

    >>> import numpy as np
    >>> from minispore import Tensor
    >>> net = Unfold([1, 2, 2, 1], [1, 2, 2, 1], [1, 2, 2, 1])
    >>> net(Tensor(np.ones([2, 3, 6, 6], np.float32))).shape
    (2, 12, 2, 2)
    """

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        for arg, value in (("ksize", ksizes), ("stride", strides), ("rate", rates)):
            # (MindSpore type-checks ksizes in place of each of the three)
            if not isinstance(ksizes, (tuple, list)):
                raise TypeError(f"For 'Unfold', the type of 'ksizes' should be one of "
                                f"'['tuple', 'list']', but got type '{type(ksizes).__name__}'.")
            if len(value) != 4 or value[0] != 1 or value[3] != 1:
                raise ValueError(f"For 'Unfold' the format of '{arg}s' must be [1, {arg}_row, "
                                 f"{arg}_col, 1], but got {value}.")
            row, col = value[1], value[2]
            if not (isinstance(row, int) and isinstance(col, int)) or row < 1 or col < 1:
                raise ValueError(f"For 'Unfold' the {arg}_row and {arg}_col in '{arg}s' must "
                                 f"be an positive integer number, but got {arg}_row is {row}, "
                                 f"{arg}_col is {col}")
        self.extract_image_patches = ExtractImagePatches(
            (1, 1, ksizes[1], ksizes[2]), (1, 1, strides[1], strides[2]),
            (1, 1, rates[1], rates[2]), padding)

    def construct(self, input_x):
        return self.extract_image_patches(input_x)
