"""Shape, layout, creation and type-conversion operators (indexing ones live in indexing_ops,
concat/split/tile in combine_ops)."""
import math
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter
from minispore.common.symbolic import SymDim
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.casting import cast_array
from minispore.ops.operations._base import (cached_op, check_tensor, contiguous, dims_equal,
                                            normalize_axis, shape_size, shapes_equal,
                                            tensor_ints)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Reshape", "Cast", "ZerosLike", "OnesLike", "Fill", "Identity", "StopGradient",
           "Transpose", "ExpandDims", "Squeeze", "Flatten", "Assign", "ScalarToTensor"]


def is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def is_dim(v):
    """An int or a symbolic dim (a shape argument computed from a dynamic input's shape)."""
    return is_int(v) or isinstance(v, SymDim)


def c_strides(shape):
    """Element strides of a C-contiguous array of `shape`."""
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * int(shape[k + 1])
    return strides


def movable(arr):
    """The array as the kernels can move it: Numba has no float16 on CPU, so pure data
    movement sees float16 as its uint16 bit pattern."""
    return arr.view(np.uint16) if arr.dtype == np.float16 else arr


def _fill_value(value, dtype):
    """`value` as the scalar the fill kernel writes into a `movable` buffer of `dtype`."""
    v = np.asarray(value, dtype=dtype)
    return (v.view(np.uint16) if dtype == np.float16 else v)[()]


def strided_copy(src, src_off, dst, dst_off, shape, src_strides, dst_strides):
    """Run the array.strided_copy kernel: src and dst are C-contiguous arrays seen as flat
    buffers; `shape` and the element strides describe the two views being copied."""
    kernel("array", "strided_copy")(
        movable(contiguous(src)).reshape(-1), int(src_off),
        movable(dst).reshape(-1), int(dst_off),
        np.asarray(shape, np.int64).reshape(-1), np.asarray(src_strides, np.int64).reshape(-1),
        np.asarray(dst_strides, np.int64).reshape(-1))


def check_int_tuple(prim, arg_name, value, allow_int=False):
    """A tuple/list of ints (or one int when allow_int) -> tuple of Python ints."""
    if allow_int and is_int(value):
        return (int(value),)
    if not isinstance(value, (tuple, list)) or not all(is_int(v) for v in value):
        raise prim.error(f"'{arg_name}' must be a tuple of ints, but got {value!r}.", TypeError)
    return tuple(int(v) for v in value)


def check_dim_tuple(prim, arg_name, value):
    """Like check_int_tuple, but entries may also be symbolic dims (a traced shape's dims)."""
    if not isinstance(value, (tuple, list)) or not all(is_dim(v) for v in value):
        raise prim.error(f"'{arg_name}' must be a tuple of ints, but got {value!r}.", TypeError)
    return tuple(v if isinstance(v, SymDim) else int(v) for v in value)


class Reshape(Primitive):
    """out = x viewed with `shape` (a tuple, or a Tensor of ints as MindSpore takes); one
    entry may be -1 (inferred). No data moves."""
    sharding_rule = rules.reshape

    def __call__(self, x, shape):
        if isinstance(shape, Tensor):
            shape = tensor_ints(self, "shape", shape)
        return super().__call__(x, shape)

    def infer(self, x, shape):
        check_tensor(self, "x", x)
        if not isinstance(shape, (tuple, list)) or not all(is_dim(d) for d in shape):
            raise self.error(f"'shape' must be a tuple of ints, but got {shape!r}.", TypeError)
        shape = tuple(d if isinstance(d, SymDim) else int(d) for d in shape)
        if shape.count(-1) > 1 or any(d < -1 for d in shape):
            raise self.error(f"'shape' {shape} may contain at most one -1 and no other "
                             f"negative dims.")
        size = shape_size(x.shape)
        known = shape_size([d for d in shape if d != -1])
        if -1 in shape:
            if isinstance(size, SymDim) or isinstance(known, SymDim):
                return Aval(self._symbolic_fill(x, shape, size, known), x.dtype)
            if known == 0 or size % known:
                raise self.error(f"cannot reshape x of shape {tuple(x.shape)} (size {size}) "
                                 f"into {shape}: {size} is not divisible by {known}.")
            shape = tuple(size // known if d == -1 else d for d in shape)
        elif not dims_equal(self, known, size):
            raise self.error(f"cannot reshape x of shape {tuple(x.shape)} (size {size}) into "
                             f"{shape} (size {known}).")
        return Aval(shape, x.dtype)

    def _symbolic_fill(self, x, shape, size, known):
        """The -1 entry when a size is symbolic: the exact quotient of the two products."""
        try:
            missing = size / known
        except (ValueError, ZeroDivisionError) as e:
            raise self.error(f"cannot reshape x of shape {tuple(x.shape)} (size {size}) into "
                             f"{shape}: {e}") from None
        if not isinstance(missing, SymDim) and missing < 0:
            raise self.error(f"cannot reshape x of shape {tuple(x.shape)} into {shape}.")
        return tuple(missing if d == -1 else d for d in shape)

    def impl(self, x, shape):
        return x.reshape(shape)

    def local_call(self, args, ctx):
        # `shape` is logical; each rank reshapes its block to the block of the result.
        return self(args[0], ctx.out_shapes[0])

    def bprop(self, inputs, out, dout):
        x, _ = inputs
        return cached_op(Reshape)(dout, tuple(x.shape)), None


class Cast(Primitive):
    """out = x converted to `dtype` (a minispore dtype). Gradient flows back as the input dtype
    for float inputs and is None for integer inputs."""
    sharding_rule = rules.elementwise

    def infer(self, x, dtype):
        check_tensor(self, "x", x)
        try:
            dtype = mstype.to_type(dtype)
        except TypeError as e:
            raise self.error(str(e), TypeError) from None
        return Aval(x.shape, dtype)

    def impl(self, x, dtype):
        return cast_array(x, mstype.to_type(dtype).np_dtype)

    def bprop(self, inputs, out, dout):
        x, _ = inputs
        if not x.dtype.is_float:
            return None, None
        return cached_op(Cast)(dout, x.dtype), None


class _FillLike(Primitive):
    sharding_rule = rules.elementwise
    value = 0
    differentiable = False

    def infer(self, x):
        check_tensor(self, "x", x)
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        out = device.empty(x.shape, x.dtype)
        kernel("array", "fill")(movable(out), _fill_value(self.value, out.dtype))
        return out


class ZerosLike(_FillLike):
    """out = zeros with x's shape and dtype."""
    value = 0


class OnesLike(_FillLike):
    """out = ones with x's shape and dtype."""
    value = 1


class Fill(Primitive):
    """out = a tensor of `shape` and `dtype` filled with `value`: Fill()(dtype, shape, value)."""
    sharding_rule = rules.replicate_only("it has no tensor input; its output is built whole")
    differentiable = False

    def infer(self, dtype, shape, value):
        try:
            dtype = mstype.to_type(dtype)
        except TypeError as e:
            raise self.error(str(e), TypeError) from None
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(d, SymDim) or (is_int(d) and d >= 0) for d in shape):
            raise self.error(f"'shape' must be a tuple of non-negative ints, but got "
                             f"{shape!r}.", TypeError)
        if not isinstance(value, (numbers.Number, np.generic)):
            raise self.error(f"'value' must be a number, but got {type(value).__name__}.",
                             TypeError)
        return Aval(tuple(d if isinstance(d, SymDim) else int(d) for d in shape), dtype)

    def impl(self, dtype, shape, value):
        out = device.empty(tuple(shape), mstype.to_type(dtype).np_dtype)
        kernel("array", "fill")(movable(out), _fill_value(value, out.dtype))
        return out


class Identity(Primitive):
    """out = a copy of x (the gradient passes through)."""
    sharding_rule = rules.elementwise

    def infer(self, x):
        check_tensor(self, "x", x)
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        out = device.empty(x.shape, x.dtype)
        kernel("array", "cast")(movable(contiguous(x)), movable(out))
        return out

    def bprop(self, inputs, out, dout):
        return (dout,)


class StopGradient(Identity):
    """out = a copy of x whose gradient is zero: nothing flows back through it (never
    recorded, so no cotangent reaches what computed x, not even a zero one)."""
    differentiable = False


class Transpose(Primitive):
    """out = x with its axes permuted: Transpose()(x, perm), out.shape[i] = x.shape[perm[i]].

    `perm` is a tuple holding each axis in [-ndim, ndim) once. The gradient is the transpose
    by the inverse permutation.
    """
    sharding_rule = rules.transpose

    def _perm(self, x, perm):
        perm = check_int_tuple(self, "input_perm", perm)
        if len(perm) != x.ndim:
            raise self.error(f"the length of 'input_perm' {perm} must equal the rank of x "
                             f"{tuple(x.shape)} ({x.ndim}).")
        norm = tuple(normalize_axis(self, p, x.ndim, "input_perm") for p in perm)
        if sorted(norm) != list(range(x.ndim)):
            raise self.error(f"'input_perm' {perm} must be a permutation of the axes of x "
                             f"(0..{x.ndim - 1}), each once.")
        return norm

    def infer(self, x, perm):
        check_tensor(self, "x", x)
        perm = self._perm(x, perm)
        return Aval(tuple(x.shape[p] for p in perm), x.dtype)

    def impl(self, x, perm):
        perm = tuple(int(p) % max(x.ndim, 1) for p in perm)
        shape = tuple(x.shape[p] for p in perm)
        out = device.empty(shape, x.dtype)
        xs = c_strides(x.shape)
        strided_copy(x, 0, out, 0, shape, [xs[p] for p in perm], c_strides(shape))
        return out

    def bprop(self, inputs, out, dout):
        x, perm = inputs
        perm = [int(p) % max(x.ndim, 1) for p in perm]
        inverse = tuple(int(i) for i in np.argsort(perm))
        return cached_op(Transpose)(dout, inverse), None


class _ReshapeLike(Primitive):
    """Ops that only change the shape: a view forward, a reshape backward."""
    sharding_rule = rules.reshape

    def bprop(self, inputs, out, dout):
        return (cached_op(Reshape)(dout, tuple(inputs[0].shape)),) + (None,) * (len(inputs) - 1)


class ExpandDims(_ReshapeLike):
    """out = x with a new dim of size 1 at `axis`: ExpandDims()(x, axis), axis in
    [-x.ndim - 1, x.ndim]."""

    def infer(self, x, axis):
        check_tensor(self, "input_x", x)
        axis = normalize_axis(self, axis, x.ndim + 1)
        shape = tuple(x.shape)
        return Aval(shape[:axis] + (1,) + shape[axis:], x.dtype)

    def impl(self, x, axis):
        axis = int(axis) % (x.ndim + 1)
        return x.reshape(x.shape[:axis] + (1,) + x.shape[axis:])


class Squeeze(_ReshapeLike):
    """out = x without the size-1 dims listed in `axis` (every size-1 dim when axis=()).

    Squeezing a dim whose size is not 1 raises ValueError.
    """

    def __init__(self, axis=()):
        super().__init__()
        if is_int(axis):
            axis = (int(axis),)
        if not isinstance(axis, (tuple, list)) or not all(is_int(a) for a in axis):
            raise TypeError(f"For 'Squeeze', 'axis' must be an int or a tuple of ints, "
                            f"but got {axis!r}.")
        self.axis = tuple(int(a) for a in axis)
        self.add_prim_attr("axis", self.axis)

    def _shape(self, shape):
        if not self.axis:
            return tuple(d for d in shape if d != 1)
        axes = {normalize_axis(self, a, len(shape)) for a in self.axis}
        for a in sorted(axes):
            if shape[a] != 1:
                raise self.error(f"cannot squeeze axis {a} of x.shape {tuple(shape)}: its "
                                 f"size is {shape[a]}, not 1.")
        return tuple(d for i, d in enumerate(shape) if i not in axes)

    def infer(self, x):
        check_tensor(self, "x", x)
        return Aval(self._shape(tuple(x.shape)), x.dtype)

    def impl(self, x):
        return x.reshape(self._shape(x.shape))


class Flatten(_ReshapeLike):
    """out = x reshaped to (N, prod(other dims)), keeping dim 0 (MindSpore's ops.Flatten)."""

    def infer(self, x):
        check_tensor(self, "input_x", x)
        if x.ndim < 1:
            raise self.error(f"the rank of 'input_x' must be at least 1, but got a 0-d "
                             f"tensor of shape {tuple(x.shape)}.")
        return Aval((x.shape[0], shape_size(x.shape[1:])), x.dtype)

    def impl(self, x):
        return x.reshape(x.shape[0], int(math.prod(x.shape[1:])))


class Assign(Primitive):
    """Write `value` into the Parameter `variable` in place and return `variable`:
    Assign()(variable, value). value has variable's shape; it is converted to variable's
    dtype. Not differentiable. A plain Tensor `variable` (MindSpore allows it too) takes the
    new value as ``x[...] = value`` does, and the call returns a new tensor holding it."""
    sharding_rule = rules.elementwise

    differentiable = False
    side_effect = True    # writes `variable` in place: graphs keep and order it

    def __call__(self, variable, value):
        if getattr(variable, "mapped_parameter", None) is not None:
            # a Parameter given to vmap as a mapped input: the batching rule writes every
            # slice's value into the Parameter itself
            return super().__call__(variable, value)
        if not isinstance(variable, Parameter):
            if not isinstance(variable, Tensor):
                raise self.error(f"'variable' must be a Parameter or a Tensor, but got "
                                 f"{type(variable).__name__}.", TypeError)
            self.infer(variable, value)
            # Tensor.__setitem__ (ops/tensor_methods.py) writes it in place as MindSpore does,
            # tapes and tracer told; the result is a copy that shares no buffer with it.
            variable[...] = cached_op(Cast)(value, variable.dtype)
            return cached_op(Identity)(variable)
        super().__call__(variable, value)
        return variable

    def infer(self, variable, value):
        check_tensor(self, "value", value)
        if not shapes_equal(self, value.shape, variable.shape):
            raise self.error(f"'value' shape {tuple(value.shape)} must equal the shape of "
                             f"'variable' {tuple(variable.shape)}.")
        return Aval(variable.shape, variable.dtype)

    def impl(self, variable, value):
        value = contiguous(value)
        if value.dtype != variable.dtype:
            value = cast_array(value, variable.dtype)
        kernel("array", "cast")(movable(value), movable(variable))
        return variable


class ScalarToTensor(Primitive):
    """out = a 0-d tensor of `dtype` holding the number `input_x`:
    ScalarToTensor()(input_x, dtype=mstype.float32). `input_x` may be a symbolic dim, so a
    graph can use a dynamic size (a mean's element count) as a value computed when it runs."""
    sharding_rule = rules.replicate_only("it has no tensor input; its output is a scalar")

    differentiable = False

    def __call__(self, input_x, dtype=mstype.float32):
        return super().__call__(input_x, dtype)

    def infer(self, input_x, dtype):
        if not isinstance(input_x, (numbers.Number, np.generic, SymDim)):
            raise self.error(f"'input_x' must be a number, but got {type(input_x).__name__}.",
                             TypeError)
        try:
            dtype = mstype.to_type(dtype)
        except TypeError as e:
            raise self.error(str(e), TypeError) from None
        return Aval((), dtype)

    def impl(self, input_x, dtype):
        out = device.empty((), mstype.to_type(dtype).np_dtype)
        kernel("array", "fill")(movable(out), _fill_value(input_x, out.dtype))
        return out


def dim_scalar(value, dtype):
    """A size used as a number in arithmetic (a mean's count): the int itself when static; a
    dynamic size becomes a 0-d tensor computed when the graph runs (the value is unknown while
    tracing)."""
    if isinstance(value, SymDim):
        return cached_op(ScalarToTensor)(value, dtype)
    return value
