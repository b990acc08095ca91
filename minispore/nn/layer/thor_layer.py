"""THOR's layers (MindSpore's nn.DenseThor, Conv2dThor, EmbeddingThor, EmbeddingLookupThor):
each computes as its plain twin and, while its ``thor`` flag is True, keeps the statistics
THOR's optimizer (nn/optim/thor.py) preconditions the layer's gradient with: A, the second
moment of the layer's input, written in forward, and G, that of the gradient at its output,
written in backward (an InsertGradientOf hook). ``add_flags_recursive(thor=False)`` turns the
statistics off (ModelThor does, between THOR's inverse updates).

MindSpore's GPU branch and its Ascend branch disagree on two statistics, and minispore follows
the Ascend branch, which is THOR's formula (A = E[a aᵀ] over the samples):
- DenseThor's A is xᵀx / batch (the GPU branch divides by in_channels);
- Conv2dThor's A is over every patch of the layer's own padding, stride and dilation, divided
  by their number (the GPU branch averages the patches over the batch before the product and
  pads 'same' whatever the layer's pad_mode).
MindSpore runs none of these layers on a CPU (its optimizer fails there), so there is no
recorded output to compare; tests/nn/test_thor.py checks every statistic against float64.
"""
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.auto_parallel_context import get_auto_parallel_context
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.activation import get_activation
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.nn.layer.conv import _pad_mode, _padding, _pair
from minispore.ops import functional as F
from minispore.ops.operations.activation_ops import BiasAdd
from minispore.ops.operations.conv_ops import Conv2D
from minispore.ops.operations.grad_hook_ops import InsertGradientOf
from minispore.ops.operations.indexing_ops import EmbeddingLookup as EmbeddingLookupOp
from minispore.ops.operations.matmul_ops import MatMul

__all__ = ["DenseThor", "Conv2dThor", "EmbeddingThor", "EmbeddingLookupThor"]


def _second_moment(rows, count):
    """rowsᵀ rows / count for a (count, d) matrix: the (d, d) second moment of its rows."""
    return F.mul(MatMul(transpose_a=True)(rows, rows), 1.0 / count)


class DenseThor(Cell):
    """``DenseThor(in_channels, out_channels, weight_init='normal', bias_init='zeros',
    has_bias=True, activation=None)``: nn.Dense's y = activation(x Wᵀ + b), keeping
    'matrix_a' = xᵀx / batch (in_channels²) and 'matrix_g' = dyᵀdy / batch (out_channels²)
    for THOR."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, activation=None):
        super().__init__()
        self.thor = True
        self.in_channels = _check_positive_int("DenseThor", "in_channels", in_channels)
        self.out_channels = _check_positive_int("DenseThor", "out_channels", out_channels)
        self.has_bias = _check_bool("DenseThor", "has_bias", has_bias)
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != (out_channels,
                                                                             in_channels):
            raise ValueError(f"For 'DenseThor', 'weight_init' must have shape ({out_channels}, "
                             f"{in_channels}) (out_channels, in_channels), but got "
                             f"{tuple(weight_init.shape)}.")
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels]),
                                name="weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(f"For 'DenseThor', 'bias_init' must have shape "
                                 f"({out_channels},), but got {tuple(bias_init.shape)}.")
            self.bias = Parameter(initializer(bias_init, [out_channels]), name="bias")
            self.bias_add = BiasAdd()
        self.matmul = MatMul(transpose_b=True)
        self.activation = get_activation(activation) if isinstance(activation, str) \
            else activation
        self.activation_flag = self.activation is not None
        self.matrix_a = Parameter(Tensor(np.eye(in_channels, dtype=np.float32)),
                                  name="matrix_a", requires_grad=False)
        self.matrix_g = Parameter(Tensor(np.eye(out_channels, dtype=np.float32)),
                                  name="matrix_g", requires_grad=False)
        self.getG = InsertGradientOf(self.save_gradient)

    def save_gradient(self, dout):
        """The backward hook: G from the gradient at the layer's output, which passes on."""
        self.matrix_g = _second_moment(dout, dout.shape[0])
        return dout

    def construct(self, x):
        if self.thor:
            self.matrix_a = _second_moment(x, x.shape[0])
            x = self.getG(self.matmul(x, self.weight))
        else:
            x = self.matmul(x, self.weight)
        if self.has_bias:
            x = self.bias_add(x, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        return s


class Conv2dThor(Cell):
    """``Conv2dThor(in_channels, out_channels, kernel_size, stride=1, pad_mode='same',
    padding=0, dilation=1, group=1, has_bias=False, weight_init='normal',
    bias_init='zeros')``: nn.Conv2d, keeping for THOR 'matrix_a' = PᵀP / n over the n =
    batch·H_out·W_out input patches P (in_channels·kh·kw squared), 'matrix_g' = DᵀD / n over
    the output gradient's n positions (out_channels squared), and n in 'a_normalizer' and
    'g_normalizer'.

    Raises:
        NotImplementedError: group > 1 (THOR's A spans every input channel of a patch; MindSpore
            builds grouped THOR convolutions only as Ascend's depthwise kernel).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros"):
        super().__init__()
        name = "Conv2dThor"
        self.in_channels = _check_positive_int(name, "in_channels", in_channels)
        self.out_channels = _check_positive_int(name, "out_channels", out_channels)
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.stride = _pair(name, "stride", stride)
        self.dilation = _pair(name, "dilation", dilation)
        self.pad_mode = _pad_mode(name, pad_mode)
        self.padding = _padding(padding, pad_mode, name)
        self.group = _check_positive_int(name, "group", group)
        if group != 1:
            raise NotImplementedError(
                f"For 'Conv2dThor', group={group} is not implemented by minispore: THOR's "
                f"statistic A spans every input channel of a patch (MindSpore builds grouped "
                f"THOR convolutions only with Ascend's depthwise kernel); use group=1.")
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        shape = [out_channels, in_channels, *self.kernel_size]
        self.weight = Parameter(initializer(weight_init, shape), name="weight")
        self.bias = Parameter(initializer(bias_init, [out_channels]), name="bias") \
            if has_bias else None
        self.conv2d = Conv2D(out_channels, self.kernel_size, mode=1, pad_mode=pad_mode,
                             pad=self.padding, stride=self.stride, dilation=self.dilation)
        self.bias_add = BiasAdd()
        self.thor = True
        self.matrix_a_dim = in_channels * self.kernel_size[0] * self.kernel_size[1]
        self.matrix_g_dim = out_channels
        self.a_normalizer = Parameter(initializer(1, [1], mstype.float32),
                                      name="a_normalizer", requires_grad=False)
        self.g_normalizer = Parameter(initializer(1, [1], mstype.float32),
                                      name="g_normalizer", requires_grad=False)
        self.matrix_a_cov = Parameter(Tensor(np.zeros((self.matrix_a_dim,) * 2, np.float32)),
                                      name="matrix_a", requires_grad=False)
        self.matrix_g_cov = Parameter(Tensor(np.zeros((out_channels,) * 2, np.float32)),
                                      name="matrix_g", requires_grad=False)
        self.getG = InsertGradientOf(self.save_gradient)

    def _patches(self, x):
        """The (batch·H_out·W_out, in_channels·kh·kw) patch matrix the convolution reads,
        each row ordered as the weight's (in_channels, kh, kw)."""
        top, bottom, left, right = self.padding
        if self.pad_mode == "same":
            (top, bottom), (left, right) = (
                _same_pads(size, k, s, d) for size, k, s, d in
                zip(x.shape[2:], self.kernel_size, self.stride, self.dilation))
        if top or bottom or left or right:
            x = F.pad(x, (left, right, top, bottom))
        columns = F.unfold(x, self.kernel_size, self.dilation, 0, self.stride)
        return F.reshape(F.transpose(columns, (0, 2, 1)), (-1, self.matrix_a_dim))

    def save_gradient(self, dout):
        """The backward hook: G over the output gradient's positions, which passes on."""
        rows = F.reshape(F.transpose(dout, (0, 2, 3, 1)), (-1, self.out_channels))
        self.matrix_g_cov = _second_moment(rows, rows.shape[0])
        self.g_normalizer = Tensor(np.array([rows.shape[0]], np.float32))
        return dout

    def construct(self, x):
        if self.thor:
            patches = self._patches(x)
            self.matrix_a_cov = _second_moment(patches, patches.shape[0])
            self.a_normalizer = Tensor(np.array([patches.shape[0]], np.float32))
            out = self.getG(self.conv2d(x, self.weight))
        else:
            out = self.conv2d(x, self.weight)
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


def _same_pads(size, kernel, stride, dilation):
    """(before, after) padding of pad_mode 'same': output size ceil(size / stride), the odd
    pixel after."""
    span = (kernel - 1) * dilation + 1
    total = max((math.ceil(size / stride) - 1) * stride + span - size, 0)
    return total // 2, total - total // 2


class _EmbeddingStatistics(Cell):
    """A and G of an embedding table for THOR: 'matrix_a' (vocab_size,) counts each id in the
    batch; 'matrix_g' (embedding_size²) is the second moment of the looked-up rows'
    gradient, divided by `g_count(dout)`."""

    def _init_statistics(self, vocab_size, embedding_size):
        self.thor = True
        self.matrix_a = Parameter(Tensor(np.zeros(vocab_size, np.float32)), name="matrix_a",
                                  requires_grad=False)
        self.matrix_g = Parameter(Tensor(np.zeros((embedding_size,) * 2, np.float32)),
                                  name="matrix_g", requires_grad=False)
        self.getG = InsertGradientOf(self.save_gradient)

    def _count_ids(self, flat_ids, dtype):
        on, off = Tensor(1.0, dtype), Tensor(0.0, dtype)
        self.matrix_a = F.reduce_sum(F.one_hot(flat_ids, self.vocab_size, on, off), 0)

    def save_gradient(self, dout):
        """The backward hook: G from the looked-up rows' gradient, which passes on."""
        rows = F.reshape(dout, (-1, self.embedding_size))
        self.matrix_g = F.mul(MatMul(transpose_a=True)(rows, rows), 1.0 / self.g_count(dout))
        return dout


class EmbeddingThor(_EmbeddingStatistics):
    """``EmbeddingThor(vocab_size, embedding_size, use_one_hot=False, embedding_table='normal',
    dtype=mstype.float32, padding_idx=None)``: nn.Embedding's lookup of 'embedding_table',
    keeping A and G for THOR (not with use_one_hot, which looks up by a matrix product as
    MindSpore's does). G is divided by the number of ids looked up."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.float32, padding_idx=None):
        super().__init__()
        for arg, value in (("vocab_size", vocab_size), ("embedding_size", embedding_size)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'EmbeddingThor', '{arg}' must be an int, but got "
                                f"{type(value).__name__}.")
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.use_one_hot = _check_bool("EmbeddingThor", "use_one_hot", use_one_hot)
        self.dtype = dtype
        table = initializer(embedding_table, [vocab_size, embedding_size]).init_data()
        self.padding_idx = padding_idx
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, int) or \
                    not 0 <= padding_idx <= vocab_size:
                raise ValueError(f"For 'EmbeddingThor', 'padding_idx' must be an int in [0, "
                                 f"{vocab_size}], but got {padding_idx!r}.")
            values = table.asnumpy().copy()
            values[padding_idx] = 0
            table = Tensor(values)
        self.embedding_table = Parameter(table, name="embedding_table")
        self._init_statistics(vocab_size, embedding_size)

    def g_count(self, dout):
        return dout.shape[0]

    def construct(self, ids):
        out_shape = tuple(ids.shape) + (self.embedding_size,)
        flat_ids = F.reshape(ids, (-1,))
        if self.use_one_hot:
            on, off = Tensor(1.0, self.dtype), Tensor(0.0, self.dtype)
            rows = F.matmul(F.one_hot(flat_ids, self.vocab_size, on, off), self.embedding_table)
        elif self.thor:
            self._count_ids(flat_ids, self.dtype)
            rows = self.getG(F.gather(self.embedding_table, flat_ids, 0))
        else:
            rows = F.gather(self.embedding_table, flat_ids, 0)
        return F.reshape(rows, out_shape)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, dtype={self.dtype}, "
                f"padding_idx={self.padding_idx}")


class EmbeddingLookupThor(_EmbeddingStatistics):
    """``EmbeddingLookupThor(vocab_size, embedding_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', manual_shapes=None, max_norm=None, sparse=True)``: rows
    `indices` of a float16 'embedding_table' (MindSpore keeps this one in float16), with THOR's
    A and G kept when target='DEVICE'. target='CPU' is MindSpore's host lookup
    (ops.EmbeddingLookup: an id outside the table gives a zero row), which keeps none. G is
    divided by indices.shape[0]. `max_norm` clips each looked-up row's norm.

    Raises:
        NotImplementedError: semi-auto or auto parallel (MindSpore shards the table by
            slice_mode there; minispore's THOR lookup is not sharded).
    """

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True):
        super().__init__()
        name = "EmbeddingLookupThor"
        self.vocab_size = _check_positive_int(name, "vocab_size", vocab_size)
        self.embedding_size = _check_positive_int(name, "embedding_size", embedding_size)
        self.sparse = _check_bool(name, "sparse", sparse)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{name}', the 'target' must be one of values in ('CPU', "
                             f"'DEVICE'), but got {target}.")
        if not sparse and target == "CPU":
            raise ValueError(f"For '{name}', embedding_lookup must be sparse when 'target' is "
                             f"CPU, but got 'sparse': {sparse}, 'target': {target}.")
        mode = get_auto_parallel_context("parallel_mode")
        if mode in ("semi_auto_parallel", "auto_parallel"):
            raise NotImplementedError(
                f"For '{name}', slice_mode={slice_mode!r} under {mode} is not "
                f"implemented by minispore (the THOR lookup's table is not sharded); use "
                f"nn.EmbeddingLookup, or data parallel.")
        self.target, self.slice_mode, self.manual_shapes = target, slice_mode, manual_shapes
        self.dtype = mstype.float16
        self.embedding_table = Parameter(
            initializer(param_init, [vocab_size, embedding_size], mstype.float16),
            name="embedding_table")
        self.max_norm = None
        if max_norm is not None:
            if isinstance(max_norm, bool) or not isinstance(max_norm, (int, float)) or \
                    max_norm <= 0:
                raise ValueError(f"For '{name}', 'max_norm' must be a positive float, but got "
                                 f"{max_norm!r}.")
            self.max_norm = float(max_norm)
        self.host_lookup = EmbeddingLookupOp()
        self._init_statistics(vocab_size, embedding_size)

    def g_count(self, dout):
        return dout.shape[0]

    def construct(self, indices):
        if self.target == "CPU":
            out = self.host_lookup(self.embedding_table, indices, 0)
        elif self.thor:
            self._count_ids(F.reshape(indices, (-1,)), self.dtype)
            out = self.getG(F.gather(self.embedding_table, indices, 0))
        else:
            out = F.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            axes = tuple(range(indices.ndim, out.ndim))
            out = F.clip_by_norm(out, Tensor(self.max_norm, out.dtype), axes)
        return out
