"""Shared argument handling for mindspore.numpy: input conversion, dtypes, axes, refusals.

MindSpore's mnp converts Python data the NumPy way but narrows it to 32 bits (ints become
int32, floats float32), so every function here turns its array-like inputs into Tensors
through `to_tensor` before it calls an operator.
"""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops import functional as F

# The dtypes a Python value becomes (mindspore.numpy narrows NumPy's 64-bit defaults).
_NARROW = {np.dtype(np.int64): mstype.int32, np.dtype(np.float64): mstype.float32}


def check_unsupported(fname, **given):
    """Refuse arguments accepted for MindSpore's signature but not built here (no silent
    ignore): each keyword is (value, default)."""
    for name, (value, default) in given.items():
        same = value is default or (isinstance(value, (bool, int, float, str))
                                    and type(value) is type(default) and value == default)
        if not same:
            raise NotImplementedError(
                f"For mindspore.numpy.{fname}, the argument '{name}'={value!r} is not "
                f"implemented in minispore (only the default {default!r} is)")


def _check_array_like(fname, x):
    if isinstance(x, (Tensor, bool, int, float, list, tuple, np.number, np.bool_)):
        return
    raise TypeError(f"For mindspore.numpy.{fname}, the input must be an int, float, bool, "
                    f"Tensor, list or tuple, but got {type(x)}")


def to_tensor(x, fname="asarray", dtype=None):
    """An array-like (Tensor, Python scalar, nested list/tuple) as a Tensor; Python data is
    narrowed to int32/float32 as mindspore.numpy does. `dtype`, when given, casts."""
    _check_array_like(fname, x)
    if not isinstance(x, Tensor):
        if isinstance(x, (list, tuple)):
            # A list may hold Tensors (mnp.array([t1, t2])): stack their values.
            if any(isinstance(e, Tensor) for e in _flat(x)):
                return to_tensor(F.stack([to_tensor(e, fname) for e in x]), fname, dtype)
        arr = np.asarray(x)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"For mindspore.numpy.{fname}, the input must hold numbers or "
                            f"bools, but got data of NumPy dtype {arr.dtype}")
        x = Tensor(arr, _NARROW.get(arr.dtype) or mstype.to_type(arr.dtype))
    if dtype is not None:
        x = cast(x, dtype)
    return x


def _flat(x):
    for e in x:
        if isinstance(e, (list, tuple)):
            yield from _flat(e)
        else:
            yield e


def promote_types(*dtypes):
    """MindSpore mnp's promotion: a float operand wins with the widest float present
    (int64 with float16 is float16, not NumPy's float64); among ints and bools, NumPy's rule."""
    floats = [d for d in dtypes if d.is_float]
    if floats:
        return mstype.to_type(np.result_type(*[d.np_dtype for d in floats]))
    return mstype.to_type(np.result_type(*[d.np_dtype for d in dtypes]))


def promote_all(xs):
    """Tensors cast to one dtype (promote_types of theirs)."""
    target = promote_types(*[x.dtype for x in xs])
    return [x if x.dtype == target else F.cast(x, target) for x in xs]


def cast(x, dtype):
    dtype = mstype.to_type(dtype)
    return x if x.dtype == dtype else F.cast(x, dtype)


def is_float(x):
    return x.dtype.is_float


def to_float(x, fname):
    """Integer and bool inputs of a float-only function become float32 (MindSpore's mnp
    does this for sqrt, sin, ...)."""
    x = to_tensor(x, fname)
    return x if is_float(x) else F.cast(x, mstype.float32)


def scalar_or_tensor(x, fname):
    """Binary operators take a Python number beside a Tensor as it is (the operator applies
    MindSpore's scalar promotion); anything else becomes a Tensor."""
    if isinstance(x, (bool, int, float)) and not isinstance(x, np.generic):
        return x
    return to_tensor(x, fname)


def binary_pair(x1, x2, fname):
    a, b = scalar_or_tensor(x1, fname), scalar_or_tensor(x2, fname)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = to_tensor(a, fname)
    return a, b


def norm_axis(fname, axis, ndim):
    """One axis in [-ndim, ndim) as a non-negative int."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For mindspore.numpy.{fname}, axis must be an int, but got {axis!r}")
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"For mindspore.numpy.{fname}, axis {axis} is out of range for a "
                         f"{ndim}-D input (valid: [{-ndim}, {ndim}))")
    return int(axis) % max(ndim, 1)


def norm_axes(fname, axis, ndim):
    """None -> None; an int or a tuple of ints -> a tuple of non-negative axes."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        out = tuple(norm_axis(fname, a, ndim) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError(f"For mindspore.numpy.{fname}, axis {axis!r} repeats an axis")
        return out
    return (norm_axis(fname, axis, ndim),)


def shape_tuple(fname, shape):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0
            for s in shape):
        raise ValueError(f"For mindspore.numpy.{fname}, shape must be a non-negative int or a "
                         f"tuple of them, but got {shape!r}")
    return tuple(int(s) for s in shape)
