"""Running extremes and binary search along one axis: Cummax and Cummin (values and positions)
and SearchSorted. Their kernels are the `cumextreme_middle` and `searchsorted_rows` of
kernels/{cpu,cuda}/sort.py (per-line bodies in kernels/lines.py)."""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_bool, check_dtype, check_tensor,
                                            contiguous, middle_view, normalize_axis,
                                            shapes_equal)
from minispore.ops.operations.array_ops import Reshape, Transpose
from minispore.ops.operations.indexing_ops import Gather, UnsortedSegmentSum
from minispore.ops.operations.logic_ops import LogicalAnd
from minispore.ops.operations.math_ops import Add, GreaterEqual, Less, Select
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Cummax", "Cummin", "SearchSorted"]

_INTEGERS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64,
             mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64)

_SCAN_AXIS = ("a running max/min needs every earlier element of its line; keep the scanned "
              "axis whole (cut the other axes)")


def scatter_add_along(dout, indices, axis):
    """dx with dx[..., i, ...] = the sum of dout[..., j, ...] over the j whose
    indices[..., j, ...] == i along `axis` (dx, dout and indices of one shape): the gradient
    of an operator whose outputs copy input elements (Cummax's values), written with
    UnsortedSegmentSum over the flattened lines, each line's ids offset by line * R."""
    shape = tuple(dout.shape)
    nd = len(shape)
    axis = axis % nd
    perm = tuple(i for i in range(nd) if i != axis) + (axis,)
    transpose, reshape = cached_op(Transpose), cached_op(Reshape)
    moved = perm != tuple(range(nd))
    if moved:
        dout, indices = transpose(dout, perm), transpose(indices, perm)
    R = shape[axis]
    lines = math.prod(shape) // max(R, 1)
    offsets = Tensor(np.arange(lines, dtype=indices.dtype.np_dtype).reshape(lines, 1) * R)
    ids = reshape(cached_op(Add)(reshape(indices, (lines, R)), offsets), (lines * R,))
    flat = cached_op(UnsortedSegmentSum)(reshape(dout, (lines * R,)), ids, lines * R)
    dx = reshape(flat, tuple(shape[i] for i in perm))
    if moved:
        dx = transpose(dx, tuple(int(i) for i in np.argsort(perm)))
    return dx


class _CumExtreme(Primitive):
    """(values, indices) = Cummax(axis)(input) / Cummin(axis)(input): values[..., r, ...] is
    the max (min) of input[..., :r+1, ...] along `axis` and indices its position. Of equal
    values the later position is taken, and a NaN wins and stays (each later NaN moving the
    index), as MindSpore 2.7 gives. input: float16/32/64 or integer (not bool), rank >= 1.
    Gradient: dout of the values added at their positions (none for the indices).

    Raises TypeError for a non-int axis or an unsupported dtype, ValueError for an axis out
    of range.
    """
    sharding_rule = rules.axis_fixed(_SCAN_AXIS)
    float16_in_float32 = True
    largest = None
    index_dtype = None

    def __init__(self, axis):
        super().__init__()
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise TypeError(f"For '{self.name}', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        self.axis = int(axis)
        self.add_prim_attr("axis", self.axis)

    def infer(self, x):
        check_tensor(self, "input", x)
        check_dtype(self, "input", x, mstype.float_types + _INTEGERS)
        if x.ndim == 0:
            raise self.error(f"the axis must be in [0, 0) for a 0-d input, but got "
                             f"{self.axis}.")
        normalize_axis(self, self.axis, x.ndim)
        return Aval(x.shape, x.dtype), Aval(x.shape, self.index_dtype)

    def impl(self, x):
        view = middle_view(x, (normalize_axis(self, self.axis, x.ndim),))[0]
        values = device.empty(view.shape, x.dtype)
        indices = device.empty(view.shape, self.index_dtype.np_dtype)
        kernel("sort", "cumextreme_middle")(view, values, indices, self.largest)
        return values.reshape(x.shape), indices.reshape(x.shape)

    def bprop(self, inputs, out, dout):
        # values[j] is input[indices[j]]: each output's cotangent flows to that one element.
        return (scatter_add_along(dout[0], out[1], self.axis),)


class Cummax(_CumExtreme):
    """The running maximum along `axis` and its positions (Int64); see _CumExtreme.

    >>> import numpy as np, minispore as ms
    >>> v, i = ms.ops.Cummax(0)(ms.Tensor(np.array([1., 3., 2., 3.], np.float32)))
    >>> v.asnumpy().tolist(), i.asnumpy().tolist()
    ([1.0, 3.0, 3.0, 3.0], [0, 1, 1, 3])
    """
    largest = True
    index_dtype = mstype.int64


class Cummin(_CumExtreme):
    """The running minimum along `axis` and its positions (Int32, as MindSpore's Cummin
    gives where its Cummax gives Int64); see _CumExtreme."""
    largest = False
    index_dtype = mstype.int32


_SEARCH_DTYPES = (mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32,
                  mstype.int64)


class SearchSorted(Primitive):
    """out = the insertion points of `values` in `sorted_sequence` along its last axis:
    ``SearchSorted(dtype=ms.int64, right=False)(sorted_sequence, values, sorter=None)``.

    out[..., j] is the first position whose element is >= values[..., j] (> with `right`).
    A 1-D sorted_sequence serves every value; otherwise its leading dims must equal those of
    values (one sorted row per row of values). Both of one dtype (float32/64, int8/16/32/64);
    out has values' shape and `dtype` (int32 or int64). A comparison with NaN is false, so a
    NaN element counts as before every value and a NaN value goes after every element (what
    MindSpore 2.7's CPU kernel returns). `sorter` (Int64, sorted_sequence's shape) searches
    sorted_sequence taken in that order along the last axis, as numpy's `sorter` (MindSpore's
    CPU kernel refuses it; its GPU kernel takes it); a position outside [0, last dim) raises
    Gather's ValueError. Not differentiable.
    """
    sharding_rule = rules.replicate_only("a binary search reads a whole sorted row for each "
                                         "value; minispore does not cut it")
    differentiable = False

    def __init__(self, dtype=mstype.int64, right=False):
        super().__init__()
        if dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{self.name}', 'dtype' must be mindspore.int32 or "
                            f"mindspore.int64, but got {dtype}.")
        check_bool(self.name, "right", right)
        self.dtype = dtype
        self.right = right
        self.add_prim_attr("dtype", dtype)
        self.add_prim_attr("right", right)

    def __call__(self, sorted_sequence, values, sorter=None):
        if sorter is not None:
            sorted_sequence = self._sorted_by(sorted_sequence, sorter)
        return super().__call__(sorted_sequence, values)

    def _sorted_by(self, seq, sorter):
        """seq[..., sorter[..., j]] along the last axis: one Gather over the flattened rows,
        each row's positions offset by row * R; a position outside [0, R) becomes -1 first,
        which Gather refuses, rather than reading a neighbouring row."""
        check_tensor(self, "sorted_sequence", seq)
        check_tensor(self, "sorter", sorter)
        if sorter.dtype != mstype.int64:
            # ValueError, not TypeError: what MindSpore raises here.
            raise self.error(f"'sorter' must be Int64, but got {sorter.dtype}.")
        if seq.ndim == 0 or not shapes_equal(self, tuple(sorter.shape), tuple(seq.shape)):
            raise self.error(f"'sorter' must have the shape of 'sorted_sequence' "
                             f"{tuple(seq.shape)} (rank >= 1), but got {tuple(sorter.shape)}.")
        R = seq.shape[-1]
        rows = math.prod(seq.shape[:-1])
        reshape = cached_op(Reshape)
        offsets = Tensor(np.arange(rows, dtype=np.int64).reshape(rows, 1) * R)
        positions = reshape(sorter, (rows, R))
        inside = cached_op(LogicalAnd)(cached_op(GreaterEqual)(positions, 0),
                                       cached_op(Less)(positions, R))
        ids = cached_op(Select)(inside, cached_op(Add)(positions, offsets), -1)
        taken = cached_op(Gather)(reshape(seq, (rows * R,)), reshape(ids, (rows * R,)), 0)
        return reshape(taken, tuple(seq.shape))

    def infer(self, seq, values):
        check_tensor(self, "sorted_sequence", seq)
        check_tensor(self, "values", values)
        check_dtype(self, "sorted_sequence", seq, _SEARCH_DTYPES)
        if values.dtype != seq.dtype:
            raise self.error(f"'values' must have the dtype of 'sorted_sequence' {seq.dtype}, "
                             f"but got {values.dtype}.", TypeError)
        if seq.ndim == 0:
            raise self.error("'sorted_sequence' must have rank >= 1, but got a 0-d tensor.")
        if seq.ndim > 1 and not (values.ndim == seq.ndim and shapes_equal(
                self, tuple(seq.shape[:-1]), tuple(values.shape[:-1]))):
            raise self.error(f"the 'sorted_sequence' must be 1 dimensional or all dimensions "
                             f"except the last dimension of 'sorted_sequence' must be the "
                             f"same as all dimensions except the last dimension of 'values', "
                             f"but got {tuple(seq.shape)} and {tuple(values.shape)}.")
        return Aval(values.shape, self.dtype)

    def impl(self, seq, values):
        if seq.ndim == 1:
            rows, width = 1, values.size
        else:
            rows, width = int(math.prod(values.shape[:-1])), values.shape[-1]
        out = device.empty((rows, width), self.dtype.np_dtype)
        seq_rows = 1 if seq.ndim == 1 else rows
        kernel("sort", "searchsorted_rows")(contiguous(seq).reshape(seq_rows, seq.shape[-1]),
                                            contiguous(values).reshape(rows, width), out,
                                            self.right)
        return out.reshape(values.shape)
