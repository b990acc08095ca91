"""Sorting and scanning operators along one axis: CumSum, Sort, TopK and their gradient SortGrad."""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.symbolic import SymDim
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_bool, check_dtype, check_tensor,
                                            middle_view, normalize_axis, shapes_equal)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["CumSum", "Sort", "TopK"]

# Kernels take float32/float64 and integers; float16 (no Numba CPU type) is refused with a
# TypeError, as in activation_ops and nn_ops.
_NUMBER = (mstype.float32, mstype.float64) + mstype.int_types
# Sort takes float16 as MindSpore's CPU Sort does, through its float32 kernel (exact: every
# float16 is a float32, and the order of the values does not change). TopK does not: on ties
# MindSpore's float16 TopK returns the later position first, not the earlier one.
_SORTABLE = (mstype.float16,) + _NUMBER


def _check_int(prim, name, value):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"For '{prim.name}', '{name}' must be an int, but got "
                        f"{type(value).__name__}.")


def _check_input(prim, name, x, dtypes=_NUMBER):
    check_tensor(prim, name, x)
    check_dtype(prim, name, x, dtypes)
    if x.ndim == 0:
        raise prim.error(f"the input '{name}' must have rank >= 1, but got a 0-d tensor.")


def _lines(x, axis):
    """x as the C-contiguous (A, R, B) view the sort kernels take, R the axis (a free reshape:
    one axis is always a contiguous block)."""
    return middle_view(x, (axis,))[0]


class CumSum(Primitive):
    """out[..., i, ...] = x[..., 0, ...] + ... + x[..., i, ...] along `axis`.

    ``CumSum(exclusive=False, reverse=False)(x, axis)``: `exclusive` leaves each element out of
    its own sum (the first output of a line is 0); `reverse` sums from the end of the axis.
    x: float32/float64 or integer, rank >= 1; out has x's shape and dtype. Float sums
    accumulate in float64, integer sums in int64 (then wrap to x's dtype, as MindSpore).
    Gradient: the cumulative sum of dout in the opposite direction (same `exclusive`).

    Raises TypeError for a non-bool attribute, a non-int axis or an unsupported dtype,
    ValueError for an axis out of range.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.CumSum()(ms.Tensor(np.array([1, 2, 3], np.int32)), 0).asnumpy().tolist()
    [1, 3, 6]
    """
    sharding_rule = rules.scan

    def __init__(self, exclusive=False, reverse=False):
        super().__init__()
        check_bool(self.name, "exclusive", exclusive)
        check_bool(self.name, "reverse", reverse)
        self.exclusive = exclusive
        self.reverse = reverse
        self.add_prim_attr("exclusive", exclusive)
        self.add_prim_attr("reverse", reverse)

    def __call__(self, x, axis):
        return super().__call__(x, axis)

    def infer(self, x, axis):
        _check_input(self, "x", x)
        normalize_axis(self, axis, x.ndim)
        return Aval(x.shape, x.dtype)

    def impl(self, x, axis):
        view = _lines(x, normalize_axis(self, axis, x.ndim))
        out = device.empty(view.shape, x.dtype)
        acc0 = np.float64(0) if x.dtype.kind == "f" else np.int64(0)
        kernel("sort", "cumsum_middle")(view, out, acc0, self.exclusive, self.reverse)
        return out.reshape(x.shape)

    def bprop(self, inputs, out, dout):
        # d out[j] / d x[i] = 1 exactly where out[j]'s sum covers i: the same scan, reversed.
        _, axis = inputs
        return cached_op(CumSum, self.exclusive, not self.reverse)(dout, axis), None


class Sort(Primitive):
    """Stable sort along `axis`: ``values, indices = Sort(axis=-1, descending=False)(x)``.

    values are x's elements in ascending (descending) order along the axis; indices (int32)
    are their positions in x, so values = take_along_axis(x, indices). Equal elements keep
    their input order in both directions; NaN counts as the largest value (last ascending,
    first descending). x: float16/32/64 or integer, rank >= 1.
    Gradient: dout[0] scattered back to the positions `indices` (none for the indices).

    Raises TypeError for a non-int axis, a non-bool descending or an unsupported dtype,
    ValueError for an axis out of range.

    >>> import numpy as np, minispore as ms
    >>> v, i = ms.ops.Sort()(ms.Tensor(np.array([3., 1., 2., 1.], np.float32)))
    >>> v.asnumpy().tolist(), i.asnumpy().tolist()
    ([1.0, 1.0, 2.0, 3.0], [1, 3, 2, 0])
    """
    sharding_rule = rules.axis_fixed(rules.SORT_AXIS)
    float16_in_float32 = True

    def __init__(self, axis=-1, descending=False):
        super().__init__()
        _check_int(self, "axis", axis)
        check_bool(self.name, "descending", descending)
        self.axis = int(axis)
        self.descending = descending
        self.add_prim_attr("axis", self.axis)
        self.add_prim_attr("descending", descending)

    def infer(self, x):
        _check_input(self, "x", x, _SORTABLE)
        normalize_axis(self, self.axis, x.ndim)
        return Aval(x.shape, x.dtype), Aval(x.shape, mstype.int32)

    def impl(self, x):
        view = _lines(x, normalize_axis(self, self.axis, x.ndim))
        values = device.empty(view.shape, x.dtype)
        indices = device.empty(view.shape, np.int32)
        work = device.empty(view.shape, np.int32)
        kernel("sort", "sort_middle")(view, values, indices, work, self.descending)
        return values.reshape(x.shape), indices.reshape(x.shape)

    def bprop(self, inputs, out, dout):
        return (cached_op(SortGrad, self.axis)(inputs[0], out[1], dout[0]),)


class TopK(Primitive):
    """The k largest elements along the last axis: ``values, indices = TopK(sorted=True)(x, k)``.

    values (x.shape[:-1] + (k,)) in descending order, indices (int32) their positions; of
    equal elements the earlier position comes first; NaN counts as the largest value.
    ``sorted=False`` leaves the order unspecified (MindSpore); minispore returns it sorted,
    except when k is the whole last dim, where it keeps the input order as MindSpore's CPU
    kernel does.
    x: float32/float64 or integer, rank >= 1; k an int in [1, x.shape[-1]].
    Gradient: dout[0] scattered back to the positions `indices` (none for the indices).

    Raises TypeError for a non-bool `sorted`, a non-int k or an unsupported dtype, ValueError
    for k out of range.

    >>> import numpy as np, minispore as ms
    >>> v, i = ms.ops.TopK()(ms.Tensor(np.array([1., 3., 2., 3.], np.float32)), 2)
    >>> v.asnumpy().tolist(), i.asnumpy().tolist()
    ([3.0, 3.0], [1, 3])
    """
    sharding_rule = rules.topk

    def __init__(self, sorted=True):  # noqa: A002 - MindSpore's argument name
        super().__init__()
        check_bool(self.name, "sorted", sorted)
        self.sorted = sorted
        self.add_prim_attr("sorted", sorted)

    def __call__(self, input_x, k):
        return super().__call__(input_x, k)

    def _check_k(self, x, k):
        _check_int(self, "k", k)
        n = x.shape[-1]
        if k < 1 or (not isinstance(n, SymDim) and k > n):
            raise self.error(f"'k' must be in [1, {n}] (the last dim of input_x of shape "
                             f"{tuple(x.shape)}), but got {k}.")

    def infer(self, x, k):
        _check_input(self, "input_x", x)
        self._check_k(x, k)
        shape = tuple(x.shape[:-1]) + (int(k),)
        return Aval(shape, x.dtype), Aval(shape, mstype.int32)

    def impl(self, x, k):
        self._check_k(x, k)     # a dynamic last dim is known only now
        if not self.sorted and int(k) == x.shape[-1]:
            # Every element is among the top k: MindSpore's CPU kernel then keeps the input
            # order (values = x, indices = 0..n-1) rather than sorting.
            idx = np.broadcast_to(np.arange(x.shape[-1], dtype=np.int32), x.shape)
            return device.astype(x, x.dtype), device.like(x, np.ascontiguousarray(idx))
        view = _lines(x, x.ndim - 1)
        shape = (view.shape[0], int(k), 1)
        values = device.empty(shape, x.dtype)
        indices = device.empty(shape, np.int32)
        order = device.empty(view.shape, np.int32)
        work = device.empty(view.shape, np.int32)
        kernel("sort", "topk_middle")(view, values, indices, order, work)
        out_shape = tuple(x.shape[:-1]) + (int(k),)
        return values.reshape(out_shape), indices.reshape(out_shape)

    def bprop(self, inputs, out, dout):
        return cached_op(SortGrad, -1)(inputs[0], out[1], dout[0]), None


class SortGrad(Primitive):
    """dx = zeros_like(x) with dx[..., indices[..., j, ...], ...] = dout[..., j, ...] along
    `axis`: ``SortGrad(axis)(x, indices, dout)``, the gradient of Sort and TopK (x gives the
    shape; indices and dout have x's shape except along the axis, positions distinct)."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    sharding_rule = rules.sort_grad
    float16_in_float32 = True       # Sort's float16 gradient (a scatter: exact)

    def __init__(self, axis=-1):
        super().__init__()
        _check_int(self, "axis", axis)
        self.axis = int(axis)
        self.add_prim_attr("axis", self.axis)

    def infer(self, x, indices, dout):
        check_tensor(self, "x", x)
        check_dtype(self, "dout", dout, (mstype.float16, mstype.float32, mstype.float64))
        check_dtype(self, "indices", indices, (mstype.int32, mstype.int64))
        axis = normalize_axis(self, self.axis, x.ndim)

        def others(s):
            return tuple(s[:axis]) + tuple(s[axis + 1:])
        if not (shapes_equal(self, indices.shape, dout.shape) and dout.ndim == x.ndim
                and shapes_equal(self, others(dout.shape), others(x.shape))):
            raise self.error(f"'indices' and 'dout' must have the shape of x {tuple(x.shape)} "
                             f"except along axis {self.axis}, but got {tuple(indices.shape)} "
                             f"and {tuple(dout.shape)}.")
        return Aval(x.shape, dout.dtype)

    def impl(self, x, indices, dout):
        axis = normalize_axis(self, self.axis, x.ndim)
        shape = x.shape
        lines = (int(math.prod(shape[:axis])), shape[axis],
                 int(math.prod(shape[axis + 1:])))
        dx = device.empty(lines, dout.dtype)
        kernel("sort", "scatter_middle")(_lines(dout, axis), _lines(indices, axis), dx)
        return dx.reshape(x.shape)
