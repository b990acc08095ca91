"""Shared pieces of operator definitions: shape/dtype checks, broadcasting and reduction axes,
gradient-primitive caching. It defines no operator, so every operator family may import it."""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.registry import REGISTRY
from minispore.common.symbolic import SymDim, prod, unify
from minispore.common.tensor import Tensor
from minispore.ops.primitive import Aval


def is_tensor(x):
    """A Tensor, or the abstract value standing for one while shapes are inferred."""
    return isinstance(x, (Tensor, Aval))


# x as a C-contiguous array (of `dtype` if given) on its device, without copying when it
# already is one; 0-d stays 0-d (np.ascontiguousarray returns at least 1-d).
contiguous = device.contiguous


def check_tensor(prim, arg_name, x):
    if not isinstance(x, Tensor) and not isinstance(x, Aval):
        raise prim.error(f"the input '{arg_name}' must be a Tensor, but got "
                         f"{type(x).__name__}.", TypeError)


def check_bool(name, arg_name, value):
    """`value` when it is a bool; TypeError naming operator `name` and `arg_name` otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', '{arg_name}' must be bool, but got "
                        f"{type(value).__name__}.")
    return value


def check_dtype(prim, arg_name, x, valid):
    if x.dtype not in valid:
        raise prim.error(f"the dtype of '{arg_name}' must be one of "
                         f"[{', '.join(str(t) for t in valid)}], but got {x.dtype}.", TypeError)


def check_same_dtype(prim, names, tensors):
    dtypes = [t.dtype for t in tensors]
    if any(d != dtypes[0] for d in dtypes):
        shown = ", ".join(f"'{n}' {d}" for n, d in zip(names, dtypes))
        raise prim.error(f"the inputs must have the same dtype, but got {shown}.", TypeError)


def normalize_axis(prim, axis, ndim, arg_name="axis"):
    """One axis in [-ndim, ndim) -> [0, ndim), with a clear error otherwise."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise prim.error(f"'{arg_name}' must be an int, but got {type(axis).__name__}.",
                         TypeError)
    if not -ndim <= axis < max(ndim, 1):
        raise prim.error(f"'{arg_name}' must be in [{-ndim}, {ndim}), but got {axis}.")
    return int(axis) % max(ndim, 1)


def dims_equal(who, a, b):
    """a == b for ints; for symbolic dims, equal or made equal (a dynamic dim linked to the
    other, checked when the graph is called: see symbolic.unify). `who` (an operator or a
    name) is recorded as the reason for the link."""
    return a == b or ((isinstance(a, SymDim) or isinstance(b, SymDim))
                      and unify(a, b, getattr(who, "name", who)))


def shapes_equal(prim, sa, sb):
    """Two shapes equal dim by dim (dims_equal), of equal rank."""
    sa, sb = tuple(sa), tuple(sb)
    return sa == sb or (len(sa) == len(sb) and all(dims_equal(prim, a, b)
                                                   for a, b in zip(sa, sb)))


def shape_size(shape):
    """The element count of a shape of ints and SymDims."""
    return prod(shape)


def symbolic_error(prim, what, dim):
    """The error for an operator argument that must be static but is a dynamic dim."""
    return prim.error(f"{what} is the dynamic dim {dim}, which this operator needs static; "
                      f"make that input dim static (an int in set_inputs) or compute it in "
                      f"PYNATIVE mode.")


def broadcast_shape(prim, sx, sy, names=("x", "y")):
    """numpy broadcasting of two shapes, or an error naming both (as `names`). A dynamic dim
    broadcasts against 1 and against an equal dim; it is never assumed to be 1 at run time."""
    out = []
    for i in range(1, max(len(sx), len(sy)) + 1):
        a = sx[-i] if i <= len(sx) else 1
        b = sy[-i] if i <= len(sy) else 1
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif (isinstance(a, SymDim) or isinstance(b, SymDim)) and unify(a, b, prim.name):
            out.append(a)
        else:
            raise prim.error(f"{names[0]}.shape {tuple(sx)} and {names[1]}.shape {tuple(sy)} "
                             f"cannot be broadcast together (dim {-i}: {a} vs {b}).")
    return tuple(reversed(out))


def tensor_ints(prim, arg_name, value):
    """A Tensor of ints `value` (MindSpore takes a shape or an axis as a Tensor) read as an int
    (0-d) or a tuple of ints. Reading a traced Tensor raises TensorValueNeeded: a compiled
    call then runs op by op (graph/jit.py)."""
    if not value.dtype.is_int:
        raise prim.error(f"'{arg_name}' given as a Tensor must hold integers, but got "
                         f"{value.dtype}.", TypeError)
    array = np.asarray(value.asnumpy())
    return int(array) if array.ndim == 0 else tuple(int(v) for v in array.reshape(-1))


def reduce_axes(prim, axis, ndim):
    """MindSpore's `axis` argument (None, (), int, tuple or list) -> sorted tuple of axes;
    None and () both mean every axis."""
    if axis is None or axis == () or axis == []:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = sorted({normalize_axis(prim, a, ndim) for a in axes})
    if len(out) != len(axes):
        raise prim.error(f"'axis' {axis} has duplicate axes.")
    return tuple(out)


def reduced_shape(shape, axes, keep_dims):
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def middle_view(x, axes):
    """x as a C-contiguous (outer, reduced, inner) array for the `*_middle` kernels: a free
    reshape when the reduced axes are one contiguous block, else (one copy) with them moved to
    the end. Also returns the permutation applied (None when none), to undo it on a gradient."""
    shape = x.shape
    if axes and axes == tuple(range(axes[0], axes[-1] + 1)):
        outer = int(math.prod(shape[:axes[0]]))
        red = int(math.prod(shape[axes[0]:axes[-1] + 1]))
        inner = int(math.prod(shape[axes[-1] + 1:]))
        return contiguous(x).reshape(outer, red, inner), None
    keep = [i for i in range(len(shape)) if i not in axes]
    perm = keep + list(axes)
    moved = contiguous(device.transpose(x, perm))
    outer = int(math.prod([shape[i] for i in keep]))
    red = int(math.prod([shape[i] for i in axes]))
    return moved.reshape(outer, red, 1), perm


def run_middle_reduction(kernel_fn, x, axes, out_dtype=None):
    """Apply a `*_middle` reduction kernel to x's `middle_view`; returns (outer, inner)."""
    view, _ = middle_view(x, axes)
    out = device.empty((view.shape[0], view.shape[2]), out_dtype or x.dtype)
    kernel_fn(view, out)
    return out



# -- helpers shared by the nn operator families (nn_ops, activation_ops, conv_ops) -----------
FLOATS = (mstype.float32, mstype.float64)
# The float dtypes of an operator with `float16_in_float32` (see Primitive).
HALF_FLOATS = (mstype.float16,) + FLOATS


def float_dtypes(prim):
    """The float dtypes `prim` takes: float16 too where it runs float16 through float32."""
    return HALF_FLOATS if prim.float16_in_float32 else FLOATS


def check_float(prim, name, x):
    check_tensor(prim, name, x)
    check_dtype(prim, name, x, float_dtypes(prim))


def check_same_shape(prim, names, a, b):
    check_same_dtype(prim, names, (a, b))
    if not shapes_equal(prim, a.shape, b.shape):
        raise prim.error(f"'{names[0]}' and '{names[1]}' must have the same shape, but got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}.")


_instances = REGISTRY.owned("ops.primitive_instances", dict)   # cached_op's instances


def _hashable(value):
    return tuple(_hashable(v) for v in value) if isinstance(value, (list, tuple)) else value


def _typed(values):
    """`values` with each one's type beside it: 1, 1.0 and True are equal keys, not equal
    attributes (an axis of 1.0 must meet its own constructor's check)."""
    return tuple((type(v), _hashable(v)) for v in values)


def cached_op(cls, *attrs, **named):
    """The one primitive instance per (class, attributes) that every bprop, functional op and
    parallel pass building an operator of its own shares (attributes are fixed at
    construction, so the instances are interchangeable)."""
    if named:
        key = (cls, _typed(attrs), tuple((k,) + _typed((v,)) for k, v in sorted(named.items())))
    elif attrs:
        key = (cls,) + attrs + tuple(map(type, attrs))
    else:
        key = cls
    try:
        op = _instances.get(key)
    except TypeError:       # an unhashable attribute (a list): compare it as a tuple
        key = (cls, _typed(attrs), tuple((k,) + _typed((v,)) for k, v in sorted(named.items())))
        op = _instances.get(key)
    if op is None:
        op = _instances[key] = cls(*attrs, **named)
    return op
