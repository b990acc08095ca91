"""Operators that join, split or repeat tensors along axes: Concat, Split, Tile.

All three move data with the strided-copy kernel of array_ops (no arithmetic), so float16
travels as its bit pattern like every other data-movement operator.
"""
from minispore import device
from minispore.common.symbolic import SymDim
from minispore.ops import sharding as rules
from minispore.ops.operations._base import (cached_op, check_same_dtype, check_tensor,
                                            dims_equal, normalize_axis)
from minispore.ops.operations.array_ops import (Reshape, c_strides, check_int_tuple, is_int,
                                                strided_copy)
from minispore.ops.operations.indexing_ops import StridedSlice
from minispore.ops.operations.math_ops import ReduceSum
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Concat", "Split", "Tile"]


class Concat(Primitive):
    """out = the tensors joined along `axis`: Concat(axis)((t1, t2, ...)).

    All inputs have the same rank and dtype and equal dims except on `axis`. The call takes one
    tuple like MindSpore's, but hands each tensor to the interpreter as its own argument, so the
    autodiff tape sees every tensor (a tuple argument would hide them); the bprop therefore
    returns one gradient per tensor: the matching slice of dout.
    """
    sharding_rule = rules.axis_fixed("the concat axis must not be cut (MindSpore's rule)")

    def __init__(self, axis=0):
        super().__init__()
        if not is_int(axis):
            raise TypeError(f"For 'Concat', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        self.axis = int(axis)
        self.add_prim_attr("axis", self.axis)

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)):
            raise self.error(f"'input_x' must be a tuple or list of Tensors, but got "
                             f"{type(input_x).__name__}.", TypeError)
        if not input_x:
            raise self.error("'input_x' must hold at least one Tensor, but it is empty.")
        return super().__call__(*input_x)

    def infer(self, *xs):
        for i, x in enumerate(xs):
            check_tensor(self, f"input_x[{i}]", x)
        check_same_dtype(self, [f"input_x[{i}]" for i in range(len(xs))], xs)
        first = tuple(xs[0].shape)
        axis = normalize_axis(self, self.axis, len(first))
        total = 0
        for i, x in enumerate(xs):
            shape = tuple(x.shape)
            if len(shape) != len(first) or not all(dims_equal(self, a, b) for k, (a, b) in
                                                   enumerate(zip(shape, first)) if k != axis):
                raise self.error(f"input_x[{i}].shape {shape} must match input_x[0].shape "
                                 f"{first} on every dim except axis {axis}.")
            total += shape[axis]
        return Aval(first[:axis] + (total,) + first[axis + 1:], xs[0].dtype)

    writes_out = True

    def impl(self, *xs, out=None):
        axis = self.axis % xs[0].ndim
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        if out is None:
            out = device.empty(shape, xs[0].dtype)
        out_strides = c_strides(shape)
        offset = 0
        for x in xs:
            strided_copy(x, 0, out, offset * out_strides[axis], x.shape, c_strides(x.shape),
                         out_strides)
            offset += x.shape[axis]
        return out

    def bprop(self, inputs, out, dout):
        axis = self.axis % inputs[0].ndim
        grads, offset = [], 0
        piece = cached_op(StridedSlice, 0, 0, 0, 0, 0)
        for x in inputs:
            begin = [0] * x.ndim
            end = list(dout.shape)
            begin[axis], end[axis] = offset, offset + x.shape[axis]
            grads.append(piece(dout, tuple(begin), tuple(end), (1,) * x.ndim))
            offset += x.shape[axis]
        return tuple(grads)


class Split(Primitive):
    """outs = `output_num` equal pieces of x along `axis` (a tuple of tensors):
    Split(axis=0, output_num=1)(x). x.shape[axis] must be divisible by output_num."""
    sharding_rule = rules.axis_fixed(
        "the split axis must not be cut: each output is a global range of it")

    def __init__(self, axis=0, output_num=1):
        super().__init__()
        if not is_int(axis):
            raise TypeError(f"For 'Split', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        if not is_int(output_num):
            raise TypeError(f"For 'Split', 'output_num' must be an int, but got "
                            f"{type(output_num).__name__}.")
        if output_num < 1:
            raise ValueError(f"For 'Split', 'output_num' must be a positive int, but got "
                             f"{output_num}.")
        self.axis, self.output_num = int(axis), int(output_num)
        self.add_prim_attr("axis", self.axis)
        self.add_prim_attr("output_num", self.output_num)

    def infer(self, x):
        check_tensor(self, "input_x", x)
        axis = normalize_axis(self, self.axis, x.ndim)
        shape = tuple(x.shape)
        if isinstance(shape[axis], SymDim) and not shape[axis].divisible_by(self.output_num):
            raise self.error(f"x.shape[{axis}] = {shape[axis]} (x.shape {shape}) must be "
                             f"divisible by output_num = {self.output_num}, which its dynamic "
                             f"dims' Symbols do not prove (give them a divisor that is a "
                             f"multiple of {self.output_num}).")
        if shape[axis] % self.output_num:
            raise self.error(f"x.shape[{axis}] = {shape[axis]} (x.shape {shape}) must be "
                             f"divisible by output_num = {self.output_num}.")
        piece = shape[:axis] + (shape[axis] // self.output_num,) + shape[axis + 1:]
        return tuple(Aval(piece, x.dtype) for _ in range(self.output_num))

    def impl(self, x):
        axis = self.axis % x.ndim
        piece = list(x.shape)
        piece[axis] //= self.output_num
        xs = c_strides(x.shape)
        outs = []
        for i in range(self.output_num):
            out = device.empty(piece, x.dtype)
            strided_copy(x, i * piece[axis] * xs[axis], out, 0, piece, xs, c_strides(piece))
            outs.append(out)
        return tuple(outs)

    def bprop(self, inputs, out, dout):
        return (cached_op(Concat, self.axis)(tuple(dout)),)


class Tile(Primitive):
    """out = x repeated `multiples[i]` times along dim i: Tile()(x, multiples).

    When multiples is longer than x's rank, x gets leading dims of 1; when shorter, multiples
    gets leading 1s; a 0 empties its dim (as in MindSpore). `multiples` may also be an int
    Tensor of rank 1, or hold int scalar Tensors, whose values are read when called (eager
    values; MindSpore reads them as constants when it compiles). The gradient sums dout over
    the repeats.
    """
    sharding_rule = rules.replicate_only("a cut input would tile its slice, not the global tensor")

    def __call__(self, x, multiples):
        return super().__call__(x, self._int_multiples(multiples))

    def _int_multiples(self, multiples):
        """`multiples` with Tensors replaced by the ints they hold."""
        from minispore.common.tensor import Tensor

        def ints(t):
            if not t.dtype.is_int:
                raise self.error(f"'multiples' is a Tensor of dtype {t.dtype} and shape "
                                 f"{tuple(t.shape)}, which cannot be read as ints: give an int "
                                 f"Tensor or a tuple of ints.", TypeError)
            return [int(v) for v in t.asnumpy().reshape(-1)]
        if isinstance(multiples, Tensor):
            return tuple(ints(multiples))
        if isinstance(multiples, (tuple, list)) and any(isinstance(m, Tensor) for m in multiples):
            return tuple(ints(m)[0] if isinstance(m, Tensor) and m.size == 1 else m
                         for m in multiples)
        return multiples

    def _plan(self, x, multiples):
        multiples = check_int_tuple(self, "multiples", multiples)
        if any(m < 0 for m in multiples):
            raise self.error(f"every element of 'multiples' must be a non-negative int, but "
                             f"got {multiples}.")
        rank = max(len(multiples), x.ndim)
        shape = (1,) * (rank - x.ndim) + tuple(x.shape)
        multiples = (1,) * (rank - len(multiples)) + multiples
        return shape, multiples

    def infer(self, x, multiples):
        check_tensor(self, "input_x", x)
        shape, multiples = self._plan(x, multiples)
        return Aval(tuple(d * m for d, m in zip(shape, multiples)), x.dtype)

    def impl(self, x, multiples):
        shape, multiples = self._plan(x, multiples)
        xs = c_strides(shape)
        # Copy the (m0, d0, m1, d1, ...) view whose repeat dims have stride 0 in x.
        inter = [v for pair in zip(multiples, shape) for v in pair]
        src = [v for s in xs for v in (0, s)]
        out = device.empty(tuple(d * m for d, m in zip(shape, multiples)), x.dtype)
        strided_copy(x, 0, out, 0, inter, src, c_strides(inter))
        return out

    def bprop(self, inputs, out, dout):
        x, multiples = inputs
        shape, multiples = self._plan(x, multiples)
        reshape = cached_op(Reshape)
        inter = tuple(v for pair in zip(multiples, shape) for v in pair)
        summed = cached_op(ReduceSum, False)(reshape(dout, inter), tuple(range(0, len(inter), 2)))
        return reshape(summed, tuple(x.shape)), None
