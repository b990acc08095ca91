"""Shared pieces of operator definitions: shape/dtype checks, broadcasting, the elementwise factory."""
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.symbolic import SymDim, prod, unify
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.interpreter import to_tensor
from minispore.ops.kernel_registry import kernel
from minispore.ops.primitive import Aval, Primitive


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


def dim_scalar(value, dtype):
    """A size used as a number in arithmetic (a mean's count): the int itself when static; a
    dynamic size becomes a 0-d tensor computed when the graph runs (the value is unknown while
    tracing)."""
    if isinstance(value, SymDim):
        from minispore.ops.operations.array_ops import ScalarToTensor
        return ScalarToTensor()(value, dtype)
    return value


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


def sum_to_shape(grad, shape):
    """Reduce a broadcast gradient back to `shape` (sum over the broadcast axes)."""
    from minispore.ops import functional as F
    gshape = grad.shape
    if tuple(gshape) == tuple(shape):
        return grad
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                      if d == 1 and gshape[i + lead] != 1)
    if axes:
        grad = F.reduce_sum(grad, axes, False)
    return F.reshape(grad, tuple(shape))


class UnaryElementwise(Primitive):
    """y = f(x) elementwise; subclasses set `kernel_name` and `valid_dtypes`, and a bprop."""
    sharding_rule = rules.elementwise

    kernel_name = None
    valid_dtypes = mstype.float_types
    family = "elementwise"

    def __init__(self):
        super().__init__()

    def infer(self, x):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, self.valid_dtypes)
        return Aval(x.shape, x.dtype)

    writes_out = True

    def impl(self, x, out=None):
        return kernel(self.family, self.kernel_name)(x, out=out)


def _category(dtype):
    """0 bool, 1 integer, 2 floating point: MindSpore 2.x's promotion order of kinds."""
    return 0 if dtype == mstype.bool_ else (2 if dtype.is_float else 1)


def promote_types(a, b):
    """The dtype two tensors of dtypes `a` and `b` meet in (MindSpore 2.x): the higher kind
    wins (bool < int < float: int32 with float16 is float16), and within a kind the wider
    type (float16 with float32 is float32; uint8 with int8 is int16)."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    return mstype.to_type(np.promote_types(a.np_dtype, b.np_dtype))


class BinaryElementwise(Primitive):
    """z = f(x, y) elementwise with numpy broadcasting and MindSpore's type promotion: a Python
    scalar is weak (it takes the tensor's dtype unless its kind is higher: an int tensor plus
    1.5 is float32), two tensors meet in `promote_types` (the lower one is cast first, a Cast
    node in graphs).

    The bprop reduces each gradient over the axes its input was broadcast along.
    """
    sharding_rule = rules.elementwise

    kernel_name = None
    valid_dtypes = mstype.number_types
    out_dtype = None          # None: same as the inputs (comparisons set bool_)
    family = "elementwise"

    def __init__(self):
        super().__init__()

    def __call__(self, x, y):
        if not isinstance(x, Tensor):
            if not isinstance(y, Tensor):
                raise self.error(f"at least one input must be a Tensor, but got "
                                 f"{type(x).__name__} and {type(y).__name__}.", TypeError)
            x = to_tensor(x, y)
        elif not isinstance(y, Tensor):
            if not isinstance(y, (numbers.Number, np.generic)):
                raise self.error(f"the input 'y' must be a Tensor or a number, but got "
                                 f"{type(y).__name__}.", TypeError)
            y = to_tensor(y, x)
        if x.dtype != y.dtype:
            x, y = self.promote(x, y)
        return super().__call__(x, y)

    def promote(self, x, y):
        """x and y cast to the dtype they meet in."""
        from minispore.ops import functional as F
        dtype = promote_types(x.dtype, y.dtype)
        return (x if x.dtype == dtype else F.cast(x, dtype),
                y if y.dtype == dtype else F.cast(y, dtype))

    def infer(self, x, y):
        dtype, shape = x.dtype, x.shape
        # The common eager case first (same dtype and shape): 0.3 us instead of 1.3 us.
        if dtype is y.dtype and shape == y.shape and dtype in self.valid_dtypes:
            return Aval(shape, self.out_dtype or dtype)
        check_dtype(self, "x", x, self.valid_dtypes)
        check_same_dtype(self, ("x", "y"), (x, y))
        return Aval(broadcast_shape(self, shape, y.shape), self.out_dtype or dtype)

    writes_out = True

    def impl(self, x, y, out=None):
        return kernel(self.family, self.kernel_name)(x, y, out=out)


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
        outer = int(np.prod(shape[:axes[0]], dtype=np.int64))
        red = int(np.prod(shape[axes[0]:axes[-1] + 1], dtype=np.int64))
        inner = int(np.prod(shape[axes[-1] + 1:], dtype=np.int64))
        return contiguous(x).reshape(outer, red, inner), None
    keep = [i for i in range(len(shape)) if i not in axes]
    perm = keep + list(axes)
    moved = contiguous(device.transpose(x, perm))
    outer = int(np.prod([shape[i] for i in keep], dtype=np.int64))
    red = int(np.prod([shape[i] for i in axes], dtype=np.int64))
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


_instances = {}


def cached_op(cls, *attrs):
    """One gradient primitive per (class, attributes), shared by every bprop that needs it."""
    key = (cls,) + attrs
    op = _instances.get(key)
    if op is None:
        op = _instances[key] = cls(*attrs)
    return op
