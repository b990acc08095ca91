"""Indexed reads and writes of Tensors: ``x[index]`` (tensor_getitem), ``x[index] = value``
(tensor_setitem, made in place by Tensor.__setitem__) and ``x[mask]`` (masked_select), written
with StridedSlice(Grad), Select, UnsortedSegmentSum, Gather and MaskedSelect, so they run on both
devices and differentiate."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.context import context
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.operations import indexing_ops as I
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.array_ops import Fill, StopGradient
from minispore.ops.operations.scatter_ops import GatherD, TensorScatterElements

__all__ = ["tensor_getitem", "tensor_setitem", "masked_select", "gather_nd", "gather_elements",
           "gather_d", "tensor_scatter_elements", "scatter", "tensor_scatter_update",
           "tensor_scatter_add", "tensor_scatter_sub", "scatter_nd", "index_fill"]

_NAME = "Tensor.__setitem__"
_CTX = context()


def tensor_getitem(x, index):
    """x[index] for ints, slices (steps, negatives), Ellipsis, None and tuples of these (one
    StridedSlice), an integer Tensor / list (a Gather along axis 0), or a bool Tensor mask
    (the selected elements as a 1-D Tensor, ops.masked_select: PYNATIVE only, its length
    depends on the data). Differentiable."""
    if isinstance(index, Tensor) and index.dtype == mstype.bool_:
        return getitem_by_mask(x, index)
    if isinstance(index, (Tensor, list, np.ndarray)):
        return _getitem_by_indices(x, index)
    begin, end, strides, masks = slice_args(x, index)
    return A.strided_slice(x, begin, end, strides, *masks)


def slice_args(x, index):
    """(begin, end, strides, masks) of the StridedSlice that reads x[index] for a basic index
    (ints, slices, Ellipsis, None, tuples of these); IndexError for anything else."""
    items = index if isinstance(index, tuple) else (index,)
    begin, end, strides = [], [], []
    masks = [0, 0, 0, 0, 0]    # begin, end, ellipsis, new_axis, shrink_axis
    named = sum(1 for it in items if it is not None and it is not Ellipsis)
    if named > x.ndim:
        raise IndexError(f"too many indices for a Tensor of shape {tuple(x.shape)}: "
                         f"{named} dims indexed by {index!r}.")
    dim = 0
    for i, item in enumerate(items):
        if isinstance(item, Tensor) and item.ndim == 0 and item.dtype.is_int:
            item = int(item)
        if item is Ellipsis:
            if masks[2]:
                raise IndexError("an index can only have a single ellipsis ('...').")
            masks[2] |= 1 << i
            begin.append(0), end.append(0), strides.append(1)
            dim += x.ndim - named
        elif item is None:
            masks[3] |= 1 << i
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            size = x.shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for axis {dim} with size "
                                 f"{size} (Tensor shape {tuple(x.shape)}).")
            masks[4] |= 1 << i
            begin.append(int(item)), end.append(int(item) + 1), strides.append(1)
            dim += 1
        elif isinstance(item, slice):
            step = 1 if item.step is None else _slice_int(item.step, "step")
            if step == 0:
                raise ValueError("slice step cannot be zero.")
            if item.start is None:
                masks[0] |= 1 << i
            if item.stop is None:
                masks[1] |= 1 << i
            begin.append(0 if item.start is None else _slice_int(item.start, "start"))
            end.append(0 if item.stop is None else _slice_int(item.stop, "stop"))
            strides.append(step)
            dim += 1
        else:
            raise IndexError(f"Tensor index {index!r}: only ints, slices, Ellipsis, None, "
                             f"tuples of these, one integer Tensor/list or one bool Tensor "
                             f"are supported, but got {type(item).__name__}.")
    return begin, end, strides, masks


def _slice_int(v, what):
    if isinstance(v, Tensor):
        v = int(v)
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise TypeError(f"slice {what} must be an int or None, but got {type(v).__name__}.")
    return int(v)


def _getitem_by_indices(x, index):
    if x.ndim == 0:
        raise IndexError("a 0-d Tensor cannot be indexed by a Tensor or list.")
    if not isinstance(index, Tensor):
        arr = np.asarray(index)
        if arr.dtype.kind not in "iu" and arr.size:
            raise IndexError(f"a list or array index must hold ints, but got dtype {arr.dtype}.")
        arr = arr.astype(np.int64)
        size = x.shape[0]
        bad = arr[(arr < -size) | (arr >= size)]
        if bad.size:
            raise IndexError(f"index {int(bad[0])} is out of bounds for axis 0 with size "
                             f"{size} (Tensor shape {tuple(x.shape)}).")
        index = Tensor(np.where(arr < 0, arr + size, arr))
    if not index.dtype.is_int:
        raise IndexError(f"a Tensor index must be an int32/int64 Tensor, but got "
                         f"{index.dtype}.")
    if index.dtype not in (mstype.int32, mstype.int64):
        index = A.cast(index, mstype.int64)
    return A.gather(x, index, 0)



def tensor_setitem(x, index, value):
    """x with ``x[index] = value``, as a new Tensor (``Tensor.__setitem__`` then makes it the
    tensor's own value, in place, as MindSpore's setitem).

    index: an int, slice, Ellipsis, None or a tuple of these; a bool Tensor mask of x's shape
    (or of its leading dims); or an integer Tensor / list / array selecting rows (axis 0).
    value: a Python number, a list or a Tensor, converted to x's dtype and broadcast to the
    selected region. For a mask, a value that broadcasts to one selected element
    (x.shape[mask.ndim:]) is written with Select, in every mode; one value per selected
    element (numpy's ``x[mask] = values``) needs their count, so it runs in PYNATIVE_MODE
    only (RuntimeError while compiling).
    Repeated row indices receive the mean of their values (MindSpore leaves the order of
    repeated updates undefined; equal values, e.g. a scalar, give that value).

    Differentiable with respect to `value` and to the part of x not overwritten.

    Raises:
        IndexError: an index out of range, or of an unsupported kind.
        ValueError: `value` does not broadcast to the selected region.
        RuntimeError: one value per mask-selected element while compiling.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{_NAME}', the indexed object must be a Tensor, but got "
                        f"{type(x).__name__}.")
    value = _value_tensor(x, value)
    if isinstance(index, Tensor) and index.dtype == mstype.bool_:
        return _set_by_mask(x, index, value)
    if isinstance(index, (Tensor, list, np.ndarray)):
        return _set_by_rows(x, index, value)
    items = index if isinstance(index, tuple) else (index,)
    if any(isinstance(it, bool) for it in items):
        raise IndexError(f"For '{_NAME}', a Python bool index ({index!r}) is not supported; "
                         f"use a bool Tensor mask.")
    begin, end, strides, masks = slice_args(x, index)
    region = I.StridedSlice(*masks).plan(tuple(x.shape), tuple(begin), tuple(end),
                                         tuple(strides))[0]
    v = _broadcast(value, region, "the indexed region")
    placed = A.strided_slice_grad(v, tuple(x.shape), begin, end, strides, *masks)
    where = A.strided_slice_grad(A.ones(region, mstype.float32), tuple(x.shape), begin, end,
                                 strides, *masks)
    return M.select(A.cast(where, mstype.bool_), placed, x)


def _value_tensor(x, value):
    if isinstance(value, Tensor):
        return value if value.dtype == x.dtype else A.cast(value, x.dtype)
    if isinstance(value, (numbers.Number, np.generic, list, tuple, np.ndarray)):
        return Tensor(np.asarray(value).astype(x.dtype.np_dtype), x.dtype)
    raise TypeError(f"For '{_NAME}', 'value' must be a Tensor, a number, a list or a tuple, "
                    f"but got {type(value).__name__}.")


def _squeezed(shape, ndim):
    """shape without leading 1s beyond `ndim` dims (numpy lets a value carry them)."""
    shape = tuple(shape)
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return shape


def _broadcasts(shape, target):
    if len(shape) > len(target):
        return False
    return all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(target)))


def _broadcast(value, target, what):
    shape = _squeezed(value.shape, len(target))
    if not _broadcasts(shape, target):
        raise ValueError(f"For '{_NAME}', the value of shape {tuple(value.shape)} cannot be "
                         f"broadcast to {what}, of shape {tuple(target)}.")
    if shape != tuple(value.shape):
        value = A.reshape(value, shape)
    return value if shape == tuple(target) else A.broadcast_to(value, tuple(target))


def _check_mask(x, mask, api):
    if tuple(mask.shape) != tuple(x.shape[:mask.ndim]):
        raise IndexError(f"For '{api}', the bool mask of shape {tuple(mask.shape)} must match "
                         f"the leading dims of the Tensor's shape {tuple(x.shape)}.")


def _mask_positions(mask):
    """The flat positions where `mask` holds, as an int64 Tensor (read once, PYNATIVE)."""
    flat = A.reshape(mask, (-1,))
    return masked_select(Tensor(np.arange(flat.shape[0], dtype=np.int64)), flat)


def _set_by_mask(x, mask, value):
    """Select(mask, value, x): the mask covers x's leading dims; value broadcasts to the rest."""
    _check_mask(x, mask, _NAME)
    k = mask.ndim
    rest = tuple(x.shape[k:])
    shape = _squeezed(value.shape, len(rest))
    if not _broadcasts(shape, rest):
        return _set_by_positions(x, mask, value)
    v = A.reshape(value, (1,) * (x.ndim - len(shape)) + shape)
    cond = A.reshape(mask, tuple(mask.shape) + (1,) * len(rest))
    return M.select(cond, v, x)


def _set_by_positions(x, mask, value):
    """One value per selected element (numpy's ``x[mask] = values``): the mask's positions,
    read once (MaskedSelect), index the rows of x seen as (mask.size,) + the rest."""
    if mask.traced:
        raise RuntimeError(
            f"For '{_NAME}', a bool mask with one value per selected element (value shape "
            f"{tuple(value.shape)}) needs the number of selected elements, which depends on "
            f"the mask's values and is not known while compiling in GRAPH_MODE or under "
            f"ms.jit; give a value that broadcasts to one selected element (shape "
            f"{tuple(x.shape[mask.ndim:])}), or run this code in PYNATIVE_MODE.")
    rest = tuple(x.shape[mask.ndim:])
    rows = A.reshape(x, (-1,) + rest)
    return A.reshape(_set_by_rows(rows, _mask_positions(mask), value), tuple(x.shape))


def _set_by_rows(x, index, value):
    """Rows `index` of x (axis 0) replaced: the values are scatter-added into zeros and divided
    by how often each row is named, then Select takes them where a row was named."""
    if x.ndim == 0:
        raise IndexError(f"For '{_NAME}', a 0-d Tensor cannot be indexed by a Tensor or list.")
    n = x.shape[0]
    if isinstance(index, Tensor):
        if not index.dtype.is_int:
            raise IndexError(f"For '{_NAME}', a Tensor index must be an integer or bool "
                             f"Tensor, but got {index.dtype}.")
        idx = index if index.dtype in (mstype.int32, mstype.int64) else \
            A.cast(index, mstype.int64)
        idx = M.select(M.less(idx, 0), M.add(idx, n), idx)
    else:
        arr = np.asarray(index)
        if arr.dtype.kind not in "iu" and arr.size:
            raise IndexError(f"For '{_NAME}', a list or array index must hold ints, but got "
                             f"dtype {arr.dtype}.")
        arr = arr.astype(np.int64)
        bad = arr[(arr < -n) | (arr >= n)]
        if bad.size:
            raise IndexError(f"For '{_NAME}', index {int(bad[0])} is out of bounds for axis 0 "
                             f"with size {n} (Tensor shape {tuple(x.shape)}).")
        idx = Tensor(np.where(arr < 0, arr + n, arr))
    rest = tuple(x.shape[1:])
    rows = tuple(idx.shape) + rest
    count_of = int(np.prod(idx.shape, dtype=np.int64))
    # Sums and counts in a float type: ints (and bools) go through float64, exact below 2**53.
    work = x.dtype if x.dtype.is_float else mstype.float64
    v = _broadcast(value if value.dtype == work else A.cast(value, work), rows, "the rows")
    # Gather raises for an index outside [-n, n) (UnsortedSegmentSum would drop it silently);
    # multiplying by its ones keeps that check in the computation.
    named = A.gather(A.ones((n,), work), idx, 0)
    v = M.mul(v, A.reshape(named, tuple(idx.shape) + (1,) * len(rest)))
    flat = A.reshape(idx, (count_of,))
    summed = A.unsorted_segment_sum(A.reshape(v, (count_of,) + rest), flat, n)
    count = A.unsorted_segment_sum(A.ones((count_of,), work), flat, n)
    count = A.reshape(count, (n,) + (1,) * len(rest))
    placed = M.div(summed, M.maximum(count, 1))
    if work != x.dtype:
        placed = A.cast(placed, x.dtype)
    return M.select(M.greater(count, 0), placed, x)


def masked_select(input, mask):  # noqa: A002 - MindSpore's argument name
    """The elements of `input` where `mask` (bool, broadcast with input) is True, as a 1-D
    Tensor in row-major order (ops.masked_select). Its length depends on the data, so it runs
    in PYNATIVE_MODE only; compiling it (GRAPH_MODE, ms.jit) raises RuntimeError.
    Differentiable with respect to `input`."""
    return I.MaskedSelect()(input, mask)


def getitem_by_mask(x, mask):
    """x[mask]: mask covers x's leading dims; the selected elements (or sub-arrays) stacked
    along a new first dim, as numpy does."""
    _check_mask(x, mask, "Tensor.__getitem__")
    if mask.ndim == x.ndim:
        return masked_select(x, mask)
    # The rows where the mask holds: their positions, read once, then a Gather (a tracer
    # refuses the MaskedSelect that reads them, as it refuses x[mask] above).
    rows = A.reshape(x, (-1,) + tuple(x.shape[mask.ndim:]))
    return A.gather(rows, _mask_positions(mask), 0)


def gather_nd(input_x, indices):
    """``ops.gather_nd(input_x, indices)``: out[i...] = input_x[indices[i..., 0], ...,
    indices[i..., K-1]], shaped indices.shape[:-1] + input_x.shape[K:] with K =
    indices.shape[-1]. Each index row is turned into a row of input_x seen as
    (prod(shape[:K]),) + shape[K:] and read by one Gather, whose bprop scatters (and adds
    repeated rows) back. An index outside the input raises RuntimeError when the indices'
    values are known (eagerly), as MindSpore's kernel does."""
    name = "GatherNd"
    for arg, v in (("input_x", input_x), ("indices", indices)):
        if not isinstance(v, Tensor):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    if indices.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{name}', 'indices' must be an int32 or int64 Tensor, but got "
                        f"{indices.dtype}.")
    shape = tuple(input_x.shape)
    k = indices.shape[-1] if indices.ndim else 0
    if indices.ndim == 0 or k > len(shape):
        raise ValueError(f"For primitive[{name}], the In GatherNd, the input of indices data "
                         f"must be greater than or equal to {k}, but got {len(shape)}.")
    if not indices.traced:
        rows = indices.asnumpy().reshape(-1, k)
        bad = np.flatnonzero(((rows < 0) | (rows >= np.array(shape[:k]))).any(axis=1))
        if bad.size:
            raise RuntimeError(f"For '{name}', the indices[{bad[0]}]: {rows[bad[0]].tolist()}, "
                               f"does not index into input_shape: {list(shape)}.")
    strides = [int(np.prod(shape[i + 1:k], dtype=np.int64)) for i in range(k)]
    linear = M.reduce_sum(A.cast(indices, mstype.int64) * Tensor(np.array(strides, np.int64)),
                          -1)
    flat = A.reshape(input_x, (int(np.prod(shape[:k], dtype=np.int64)),) + shape[k:])
    return A.gather(flat, linear, 0)


def gather_elements(input, dim, index):  # noqa: A002
    """``ops.gather_elements(input, dim, index)``: out[p] = input[p with p[dim] replaced by
    index[p]] (one GatherD; see its docstring for shapes, negative indices and errors)."""
    return cached_op(GatherD)(input, dim, index)


def gather_d(x, dim, index):
    """``ops.gather_d(x, dim, index)``: MindSpore's older name of gather_elements."""
    return cached_op(GatherD)(x, dim, index)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """``ops.tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none")``:
    input_x with updates written (reduction "add": added) at indices along axis, one
    TensorScatterElements (see its docstring)."""
    return cached_op(TensorScatterElements, axis, reduction)(input_x, indices, updates)


def _updates(name, input, index, src):  # noqa: A002
    """src as the updates tensor: a Tensor as it is, a number filled to index's shape in
    input's dtype (MindSpore's scatter takes a float src)."""
    if isinstance(src, Tensor):
        return src
    if isinstance(src, (bool, numbers.Number)):
        if not isinstance(input, Tensor) or not isinstance(index, Tensor):
            raise TypeError(f"For '{name}', 'input' and 'index' must be Tensors, but got "
                            f"{type(input).__name__} and {type(index).__name__}.")
        return cached_op(Fill)(input.dtype, tuple(index.shape), src)
    raise TypeError(f"For '{name}', 'src' must be a Tensor or a number, but got "
                    f"{type(src).__name__}.")


def scatter(input, axis, index, src):  # noqa: A002
    """``ops.scatter(input, axis, index, src)``: input with src[p] written at p with p[axis]
    replaced by index[p] (src a Tensor of index's shape, or a number); TensorScatterElements."""
    return tensor_scatter_elements(input, index, _updates("scatter", input, index, src), axis)


def scatter_reduce_method(input, dim, index, src, reduce=None):  # noqa: A002
    """Tensor.scatter(dim, index, src, reduce=None) (reduce None or "add") and, with
    reduce="add", Tensor.scatter_add(dim, index, src)."""
    if reduce not in (None, "add"):
        if reduce == "multiply":
            raise NotImplementedError("For 'Tensor.scatter', reduce='multiply' is not "
                                      "implemented in minispore (None and 'add' are).")
        raise ValueError(f"For 'Tensor.scatter', 'reduce' must be None, 'add' or 'multiply', "
                         f"but got {reduce!r}.")
    return tensor_scatter_elements(input, index, _updates("scatter", input, index, src), dim,
                                   "add" if reduce == "add" else "none")


def _tensor_scatter_nd(name, input_x, indices, updates, reduction, negate, range_error):
    """input_x with updates[i...] written (reduction "add": added) at the row
    indices[i..., :K] of input_x, K = indices.shape[-1]. The rows of input_x seen as
    (prod(shape[:K]), prod(shape[K:])) are scattered along axis 0 by one
    TensorScatterElements, its index each row's linear position broadcast over the row, so
    repeated rows accumulate ("add") or the last stays ("none", CPU), and it differentiates as
    MindSpore's TensorScatter* do (updates get dout's rows, input_x dout, with the updated rows
    zeroed for "none"). Indices outside [0, shape[:K]) raise `range_error` when their values
    are known (eagerly), as MindSpore's kernels do; negative ones are refused too."""
    for arg, v in (("input_x", input_x), ("indices", indices), ("updates", updates)):
        if not isinstance(v, Tensor):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    if indices.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{name}', 'indices' must be an int32 or int64 Tensor, but got "
                        f"{indices.dtype}.")
    if updates.dtype != input_x.dtype:
        raise TypeError(f"For '{name}', 'updates' must have the dtype of 'input_x' "
                        f"({input_x.dtype}), but got {updates.dtype}.")
    shape = tuple(input_x.shape)
    k = indices.shape[-1] if indices.ndim else 0
    if indices.ndim == 0 or not 1 <= k <= len(shape):
        raise ValueError(f"For '{name}', indices.shape[-1] must be in [1, {len(shape)}] (the "
                         f"rank of input_x), but got indices shape {tuple(indices.shape)}.")
    want = tuple(indices.shape[:-1]) + shape[k:]
    if tuple(updates.shape) != want:
        raise ValueError(f"For {name}, updates_shape = indices_shape[:-1] + x_shape["
                         f"indices_shape[-1]:], but got x_shape: {shape}, indices_shape: "
                         f"{tuple(indices.shape)}, updates_shape: {tuple(updates.shape)}.")
    if not indices.traced and _CTX.tracer is None:    # a Parameter reads while compiling
        rows = indices.asnumpy().reshape(-1, k)
        bad = np.flatnonzero(((rows < 0) | (rows >= np.array(shape[:k]))).any(axis=1))
        if bad.size:
            raise range_error(f"For '{name}', the {bad[0]}-th value of 'indices'"
                              f"{rows[bad[0]].tolist()} is out of range{list(shape[:k])}.")
    n = int(np.prod(indices.shape[:-1], dtype=np.int64))
    cols = int(np.prod(shape[k:], dtype=np.int64))
    if n == 0 or cols == 0:     # nothing to write: input_x, as a new tensor
        return A.reshape(input_x, shape)
    strides = [int(np.prod(shape[i + 1:k], dtype=np.int64)) for i in range(k)]
    linear = M.reduce_sum(A.cast(indices, mstype.int64) * Tensor(np.array(strides, np.int64)),
                          -1)
    index = A.broadcast_to(A.reshape(linear, (n, 1)), (n, cols))
    rows_in = A.reshape(updates, (n, cols))
    if negate:
        rows_in = M.neg(rows_in)
    flat = A.reshape(input_x, (int(np.prod(shape[:k], dtype=np.int64)), cols))
    return A.reshape(tensor_scatter_elements(flat, index, rows_in, 0, reduction), shape)


def tensor_scatter_update(input_x, indices, updates):
    """``ops.tensor_scatter_update(input_x, indices, updates)``: input_x with the elements (or
    slices) at indices[i..., :] replaced by updates[i...]; of repeated indices the last update
    stays on the CPU. An index out of range raises ValueError (MindSpore's)."""
    return _tensor_scatter_nd("TensorScatterUpdate", input_x, indices, updates, "none", False,
                              ValueError)


def tensor_scatter_add(input_x, indices, updates):
    """``ops.tensor_scatter_add(input_x, indices, updates)``: input_x with updates[i...] added
    at indices[i..., :] (repeated indices accumulate). Out of range: RuntimeError."""
    return _tensor_scatter_nd("TensorScatterAdd", input_x, indices, updates, "add", False,
                              RuntimeError)


def tensor_scatter_sub(input_x, indices, updates):
    """``ops.tensor_scatter_sub(input_x, indices, updates)``: input_x with updates[i...]
    subtracted at indices[i..., :] (repeated indices accumulate). Out of range: RuntimeError."""
    return _tensor_scatter_nd("TensorScatterSub", input_x, indices, updates, "add", True,
                              RuntimeError)


def scatter_nd(indices, updates, shape):
    """``ops.scatter_nd(indices, updates, shape)``: zeros of `shape` (a tuple of positive ints)
    and updates' dtype with updates[i...] added at indices[i..., :] (repeated indices
    accumulate, as MindSpore's ScatterNd does): tensor_scatter_add into Fill's zeros, so the
    gradient of updates is dout's rows at indices. Out of range or negative: RuntimeError."""
    name = "ScatterNd"
    if not isinstance(shape, (tuple, list)) or not shape or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d > 0
            for d in shape):
        raise TypeError(f"For '{name}', 'shape' must be a non-empty tuple of positive ints, "
                        f"but got {shape!r}.")
    if not isinstance(updates, Tensor):
        raise TypeError(f"For '{name}', 'updates' must be a Tensor, but got "
                        f"{type(updates).__name__}.")
    zeros = cached_op(Fill)(updates.dtype, tuple(int(d) for d in shape), 0)
    return _tensor_scatter_nd(name, zeros, indices, updates, "add", False, RuntimeError)


def index_fill(x, axis, index, value):
    """``ops.index_fill(x, axis, index, value)``: x with every position whose coordinate along
    axis is in `index` (1-D or 0-D int32, in [-D, D)) set to `value` (a number or a 0-d
    Tensor). One TensorScatterElements of the value along axis, its index `index` broadcast
    over x's other dims, so x's gradient is dout with the filled positions zeroed; value gets
    none (zero), as in MindSpore 2.7.2."""
    name = "IndexFill"
    if not isinstance(x, Tensor) or not isinstance(index, Tensor):
        raise TypeError(f"For '{name}', 'x' and 'index' must be Tensors, but got "
                        f"{type(x).__name__} and {type(index).__name__}.")
    if isinstance(axis, Tensor) and axis.ndim == 0 and not axis.traced:
        axis = int(axis)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"For '{name}', 'axis' must be an int, but got {type(axis).__name__}.")
    rank = max(x.ndim, 1)
    if not -rank <= axis < rank:
        raise RuntimeError(f"For '{name}', the input of 'dim' out of range (expected to be in "
                           f"range of [{-rank}, {rank - 1}], but got {axis})")
    if index.dtype != mstype.int32:
        raise TypeError(f"For '{name}', 'index' must be an int32 Tensor, but got "
                        f"{index.dtype}.")
    if index.ndim > 1:
        raise ValueError(f"For '{name}', the rank of 'index' must be in [0,1], but got "
                         f"{index.ndim}.")
    shape = tuple(x.shape) if x.ndim else (1,)
    axis, size = int(axis) % rank, int(shape[int(axis) % rank])
    if not index.traced:
        flat = index.asnumpy().reshape(-1)
        bad = flat[(flat < -size) | (flat >= size)]
        if bad.size:
            raise RuntimeError(f"For '{name}', the input of 'index' out of range (expected to "
                               f"be in range of [{-size}, {size - 1}], but got {bad[0]})")
    n = int(np.prod(index.shape, dtype=np.int64))
    if n == 0:
        return A.reshape(x, tuple(x.shape))
    target = shape[:axis] + (n,) + shape[axis + 1:]
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"For '{name}', 'value' must be a number or a 0-d Tensor, but got "
                             f"a Tensor of shape {tuple(value.shape)}.")
        fill = A.broadcast_to(A.cast(cached_op(StopGradient)(value), x.dtype), target)
    elif isinstance(value, (bool, numbers.Number)):
        fill = cached_op(Fill)(x.dtype, target, value)
    else:
        raise TypeError(f"For '{name}', 'value' must be a number or a 0-d Tensor, but got "
                        f"{type(value).__name__}.")
    along = tuple(n if d == axis else 1 for d in range(len(shape)))
    idx = A.broadcast_to(A.reshape(index, along), target)
    out = tensor_scatter_elements(A.reshape(x, shape), idx, fill, axis)
    return A.reshape(out, tuple(x.shape))
