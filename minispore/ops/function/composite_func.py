"""Everyday functional operators that are compositions of existing primitives (each of which
has its CPU and CUDA kernels, bprop and sharding rule): stack, where, clamp/clip, permute,
swapaxes, argmin, masked_fill, stop_gradient, depend, arange; and ``ops.Stack``."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.operations.array_ops import StopGradient
from minispore.ops.operations.grad_hook_ops import Depend
from minispore.ops.operations.math_ops import Select

__all__ = ["stack", "Stack", "where", "clamp", "clip", "permute", "swapaxes", "argmin",
           "masked_fill", "stop_gradient", "depend", "arange"]


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                        f"{type(x).__name__}.")


def stack(tensors, axis=0):
    """Tensors of one shape joined along a new dim `axis` (concat of their expand_dims). A
    lone Tensor counts as a sequence of one, as in MindSpore (shape (1, ...) at axis 0)."""
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    if not isinstance(tensors, (tuple, list)) or not tensors:
        raise TypeError(f"For 'stack', 'tensors' must be a non-empty tuple or list of Tensors, "
                        f"but got {type(tensors).__name__}.")
    for i, t in enumerate(tensors):
        _check_tensor("stack", f"tensors[{i}]", t)
    shape = tuple(tensors[0].shape)
    for i, t in enumerate(tensors[1:], 1):
        if tuple(t.shape) != shape:
            raise ValueError(f"For 'stack', every tensor must have shape {shape}, but "
                             f"tensors[{i}] has {tuple(t.shape)}.")
    ndim = len(shape) + 1
    if not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"For 'stack', 'axis' must be an int in [{-ndim}, {ndim}), but got "
                         f"{axis!r}.")
    axis %= ndim
    return A.concat([A.expand_dims(t, axis) for t in tensors], axis)


class Stack:
    """``ops.Stack(axis=0)(tensors)``: see `stack`."""

    def __init__(self, axis=0):
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"For 'Stack', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        self.axis = axis

    def __call__(self, tensors):
        return stack(tensors, self.axis)


def where(condition, x, y):
    """x where `condition` (a bool Tensor) else y, broadcast together (Select)."""
    _check_tensor("where", "condition", condition)
    if condition.dtype != mstype.bool_:
        raise TypeError(f"For 'where', 'condition' must be a bool Tensor, but got "
                        f"{condition.dtype}.")
    return Select()(condition, x, y)


def clamp(input, min=None, max=None):  # noqa: A002
    """input limited to [min, max] (numbers or Tensors; either may be None, not both)."""
    _check_tensor("clamp", "input", input)
    if min is None and max is None:
        raise ValueError("For 'clamp', at least one of 'min' and 'max' must be given.")
    out = input
    if min is not None:
        out = M.maximum(out, min)
    if max is not None:
        out = M.minimum(out, max)
    return out


clip = clamp


def permute(input, axis):  # noqa: A002
    """input with its dims in the order `axis` (Transpose)."""
    _check_tensor("permute", "input", input)
    return A.transpose(input, tuple(axis))


def swapaxes(input, axis0, axis1):  # noqa: A002
    """input with dims `axis0` and `axis1` exchanged."""
    _check_tensor("swapaxes", "input", input)
    ndim = len(input.shape)
    for name, a in (("axis0", axis0), ("axis1", axis1)):
        if not isinstance(a, int) or not -ndim <= a < ndim:
            raise ValueError(f"For 'swapaxes', '{name}' must be an int in [{-ndim}, {ndim}), "
                             f"but got {a!r}.")
    perm = list(range(ndim))
    perm[axis0 % ndim], perm[axis1 % ndim] = perm[axis1 % ndim], perm[axis0 % ndim]
    return A.transpose(input, tuple(perm))


def argmin(input, axis=None, keepdims=False):  # noqa: A002
    """int32 indices (MindSpore's dtype here) of the minimum along `axis` (the flattened input
    when None): the argmax of the negated input (bool and unsigned inputs are widened first)."""
    _check_tensor("argmin", "input", input)
    x = input
    if x.dtype == mstype.bool_ or x.dtype.np_dtype.kind == "u":
        x = A.cast(x, mstype.int64)
    return A.cast(M.argmax(M.neg(x), axis, keepdims), mstype.int32)


def masked_fill(input_x, mask, value):
    """input_x with `value` where `mask` is True."""
    _check_tensor("masked_fill", "input_x", input_x)
    _check_tensor("masked_fill", "mask", mask)
    if mask.dtype != mstype.bool_:
        raise TypeError(f"For 'masked_fill', 'mask' must be a bool Tensor, but got "
                        f"{mask.dtype}.")
    if isinstance(value, Tensor):
        value = A.cast(value, input_x.dtype)
    elif not isinstance(value, numbers.Number):
        raise TypeError(f"For 'masked_fill', 'value' must be a number or a Tensor, but got "
                        f"{type(value).__name__}.")
    return Select()(mask, value, input_x)


def stop_gradient(x):
    """x, with no gradient flowing back through it."""
    return StopGradient()(x)


def depend(value, expr):
    """`value` once `expr` is computed (ops.Depend): minispore keeps side effects in program
    order, so this is `value` itself."""
    return Depend()(value, expr)


def arange(start=0, end=None, step=1, dtype=None):
    """[start, end) by `step` as a 1-D Tensor (ints give int64, floats float32, or `dtype`)."""
    if end is None:
        start, end = 0, start
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"For 'arange', '{name}' must be an int or a float, but got "
                            f"{type(v).__name__}.")
    if step == 0:
        raise ValueError("For 'arange', 'step' must not be 0.")
    if (end - start) * step < 0:
        raise ValueError(f"For 'arange', 'step' {step} cannot go from {start} to {end}.")
    if dtype is None:
        dtype = mstype.int64 if all(isinstance(v, int) for v in (start, end, step)) \
            else mstype.float32
    dtype = mstype.to_type(dtype)
    return Tensor(np.arange(start, end, step).astype(dtype.np_dtype), dtype)
