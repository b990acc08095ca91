"""MindSpore's reducing scatters, each one ScatterRows on a 3-D view (ops/operations/
scatter_reduce_ops.py): Scatter* / ScatterNd* (written into the Parameter in place),
TensorScatterMul/Div/Max/Min, UnsortedSegmentMax/Min/Prod, IndexAdd, InplaceAdd/Sub/Update(V2)
and InplaceIndexAdd, with MindSpore 2.7.2's argument checks and messages."""
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.context import context
from minispore.common.tensor import Tensor
from minispore.ops.autodiff import replace_in_place
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_prims import _composite
from minispore.ops.operations._base import cached_op, shapes_equal
from minispore.ops.operations.scatter_reduce_ops import ScatterRows, reduction_identity

# scatter_sub is Tensor.scatter_sub's (MindSpore 2.7.2 has no ops.scatter_sub).
__all__ = ["scatter_add", "scatter_mul", "scatter_div", "scatter_max",
           "scatter_min", "scatter_update", "scatter_nd_add", "scatter_nd_sub",
           "scatter_nd_mul", "scatter_nd_div", "scatter_nd_max", "scatter_nd_min",
           "scatter_nd_update", "tensor_scatter_mul", "tensor_scatter_div",
           "tensor_scatter_max", "tensor_scatter_min", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "index_add", "inplace_add",
           "inplace_sub", "inplace_update", "inplace_index_add"]

_INDEX = (mstype.int32, mstype.int64)
_CTX = context()


def _known(t):
    """Whether t's values can be read now (not while a graph is being compiled)."""
    return not t.traced and _CTX.tracer is None


def _shapes_match(name, got, want):
    """got == want dim by dim, a dynamic dim against a static one left to the run (the
    reshapes into ScatterRows' view check it then)."""
    got, want = tuple(got), tuple(want)
    return len(got) == len(want) and all(
        shapes_equal(name, (a,), (b,)) or not (isinstance(a, int) and isinstance(b, int))
        for a, b in zip(got, want))


def _check(name, x, indices, updates, x_name="input_x"):
    for arg, v in ((x_name, x), ("indices", indices), ("updates", updates)):
        if not isinstance(v, Tensor):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    if indices.dtype not in _INDEX:
        raise TypeError(f"For '{name}', 'indices' must be an int32 or int64 Tensor, but got "
                        f"{indices.dtype}.")
    if updates.dtype != x.dtype:
        raise TypeError(f"For '{name}', 'updates' must have the dtype of '{x_name}' "
                        f"({x.dtype}), but got {updates.dtype}.")


def _scatter_3d(name, reduction, x, index, updates, outer, rows, cols,
                range_error=RuntimeError):
    if not isinstance(rows, int):       # a dynamic row count (GRAPH mode's set_inputs)
        if not isinstance(cols, int) or not isinstance(outer, int):
            raise NotImplementedError(f"For '{name}', a dynamic dim of x besides the scattered "
                                      f"one is not supported, but got x shape "
                                      f"{tuple(x.shape)}.")
        rows = -1
    out = cached_op(ScatterRows, reduction, name, range_error.__name__)(
        A.reshape(x, (outer, rows, cols)), A.reshape(index, (-1,)),
        A.reshape(updates, (outer, -1, cols)))     # -1: updates' rows may be dynamic
    return A.reshape(out, tuple(x.shape))


def write_back(x, value, name):
    """x holds value from now on (a Parameter through Assign); x is returned."""
    replace_in_place(x, value, name)
    return x


# -- Scatter*: rows of axis 0 ---------------------------------------------------------------
def _scatter(name, reduction, input_x, indices, updates):
    _check(name, input_x, indices, updates)
    shape = tuple(input_x.shape)
    want = tuple(indices.shape) + shape[1:]
    if input_x.ndim == 0 or not _shapes_match(name, updates.shape, want):
        raise ValueError(f"For {name}, updates_shape = indices_shape + input_x_shape[1:], but "
                         f"got input_x_shape: {shape}, indices_shape: {tuple(indices.shape)}, "
                         f"updates_shape: {tuple(updates.shape)}.")
    if _known(indices):
        flat = indices.asnumpy().reshape(-1)
        bad = flat[(flat < 0) | (flat >= shape[0])]
        if bad.size:
            raise RuntimeError(f"For '{name}', the value of indices should be in [0, "
                               f"{shape[0]}), but got '{bad[0]}' in indices.")
    if (reduction == "div" and not input_x.dtype.is_float and _known(updates)
            and not updates.asnumpy().all()):
        raise ValueError(f"For '{name}', updates must not contain 0")
    cols = math.prod(shape[1:])
    value = _scatter_3d(name, reduction, input_x, indices, updates, 1, shape[0], cols)
    return write_back(input_x, value, name)


def scatter_add(input_x, indices, updates):
    """``ops.scatter_add``: input_x[indices[i...]] += updates[i...] in place (repeated
    indices accumulate); returns input_x. Index outside [0, D): RuntimeError."""
    return _scatter("ScatterAdd", "add", input_x, indices, updates)


def scatter_sub(input_x, indices, updates):
    """input_x[indices[i...]] -= updates[i...] in place (ScatterSub, Tensor.scatter_sub)."""
    return _scatter("ScatterSub", "sub", input_x, indices, updates)


def scatter_mul(input_x, indices, updates):
    """``ops.scatter_mul``: input_x[indices[i...]] *= updates[i...] in place."""
    return _scatter("ScatterMul", "mul", input_x, indices, updates)


def scatter_div(input_x, indices, updates):
    """``ops.scatter_div``: input_x[indices[i...]] /= updates[i...] in place."""
    return _scatter("ScatterDiv", "div", input_x, indices, updates)


def scatter_max(input_x, indices, updates):
    """``ops.scatter_max``: input_x[indices[i...]] = max(itself, updates[i...]) in place."""
    return _scatter("ScatterMax", "max", input_x, indices, updates)


def scatter_min(input_x, indices, updates):
    """``ops.scatter_min``: input_x[indices[i...]] = min(itself, updates[i...]) in place."""
    return _scatter("ScatterMin", "min", input_x, indices, updates)


def scatter_update(input_x, indices, updates):
    """``ops.scatter_update``: input_x[indices[i...]] = updates[i...] in place (of repeated
    indices the last stays)."""
    return _scatter("ScatterUpdate", "update", input_x, indices, updates)


# -- ScatterNd* / TensorScatter*: rows named by the last axis of indices --------------------
def _nd(name, reduction, input_x, indices, updates, range_error=RuntimeError):
    _check(name, input_x, indices, updates)
    shape = tuple(input_x.shape)
    k = indices.shape[-1] if indices.ndim else 0
    if not isinstance(k, int):
        raise NotImplementedError(f"For '{name}', a dynamic indices.shape[-1] (the rank of "
                                  f"the rows named) is not supported: it fixes the rows' shape.")
    if indices.ndim == 0 or not 1 <= k <= len(shape):
        raise ValueError(f"For '{name}', indices.shape[-1] must be in [1, {len(shape)}] (the "
                         f"rank of input_x), but got indices shape {tuple(indices.shape)}.")
    want = tuple(indices.shape[:-1]) + shape[k:]
    if not _shapes_match(name, updates.shape, want):
        raise ValueError(f"For {name}, updates_shape = indices_shape[:-1] + x_shape["
                         f"indices_shape[-1]:], but got x_shape: {shape}, indices_shape: "
                         f"{tuple(indices.shape)}, updates_shape: {tuple(updates.shape)}.")
    if _known(indices):
        rows = indices.asnumpy().reshape(-1, k)
        bad = np.flatnonzero(((rows < 0) | (rows >= np.array(shape[:k]))).any(axis=1))
        if bad.size:
            raise range_error(f"For '{name}', the {bad[0]}-th value of 'indices'"
                              f"{rows[bad[0]].tolist()} is out of range{list(shape[:k])}.")
    strides = [math.prod(shape[i + 1:k]) for i in range(k)]
    linear = M.reduce_sum(A.cast(indices, mstype.int64) * Tensor(np.array(strides, np.int64)),
                          -1)
    return _scatter_3d(name, reduction, input_x, linear, updates, 1, math.prod(shape[:k]),
                       math.prod(shape[k:]), range_error)


def _nd_in_place(name, reduction, input_x, indices, updates, use_locking):
    if not isinstance(use_locking, bool):
        raise TypeError(f"For '{name}', 'use_locking' must be a bool, but got "
                        f"{type(use_locking).__name__}.")
    error = ValueError if reduction == "update" else RuntimeError
    return write_back(input_x, _nd(name, reduction, input_x, indices, updates, error), name)


def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """``ops.scatter_nd_add``: input_x[indices[i..., :]] += updates[i...] in place; returns
    input_x. Index out of range: RuntimeError."""
    return _nd_in_place("ScatterNdAdd", "add", input_x, indices, updates, use_locking)


def scatter_nd_sub(input_x, indices, updates, use_locking=False):
    """``ops.scatter_nd_sub``: input_x[indices[i..., :]] -= updates[i...] in place."""
    return _nd_in_place("ScatterNdSub", "sub", input_x, indices, updates, use_locking)


def scatter_nd_mul(input_x, indices, updates, use_locking=False):
    """``ops.scatter_nd_mul``: input_x[indices[i..., :]] *= updates[i...] in place."""
    return _nd_in_place("ScatterNdMul", "mul", input_x, indices, updates, use_locking)


def scatter_nd_div(input_x, indices, updates, use_locking=False):
    """``ops.scatter_nd_div``: input_x[indices[i..., :]] /= updates[i...] in place."""
    return _nd_in_place("ScatterNdDiv", "div", input_x, indices, updates, use_locking)


def scatter_nd_max(input_x, indices, updates, use_locking=False):
    """``ops.scatter_nd_max``: elementwise max of input_x's rows and updates, in place."""
    return _nd_in_place("ScatterNdMax", "max", input_x, indices, updates, use_locking)


def scatter_nd_min(input_x, indices, updates, use_locking=False):
    """``ops.scatter_nd_min``: elementwise min of input_x's rows and updates, in place."""
    return _nd_in_place("ScatterNdMin", "min", input_x, indices, updates, use_locking)


def scatter_nd_update(input_x, indices, updates, use_locking=True):
    """``ops.scatter_nd_update``: input_x[indices[i..., :]] = updates[i...] in place (last
    repeated index stays). Index out of range: ValueError (MindSpore's)."""
    return _nd_in_place("ScatterNdUpdate", "update", input_x, indices, updates, use_locking)


def tensor_scatter_mul(input_x, indices, updates):
    """``ops.tensor_scatter_mul``: a copy of input_x with rows indices[i..., :] multiplied by
    updates[i...] (repeated indices multiply in turn). Differentiable."""
    return _nd("TensorScatterMul", "mul", input_x, indices, updates)


def tensor_scatter_div(input_x, indices, updates):
    """``ops.tensor_scatter_div``: a copy of input_x with rows indices[i..., :] divided by
    updates[i...]. Differentiable."""
    return _nd("TensorScatterDiv", "div", input_x, indices, updates)


def tensor_scatter_max(input_x, indices, updates):
    """``ops.tensor_scatter_max``: a copy of input_x with rows indices[i..., :] replaced by
    their max with updates[i...]. Differentiable (ties share dout)."""
    return _nd("TensorScatterMax", "max", input_x, indices, updates)


def tensor_scatter_min(input_x, indices, updates):
    """``ops.tensor_scatter_min``: as tensor_scatter_max with min."""
    return _nd("TensorScatterMin", "min", input_x, indices, updates)


# -- UnsortedSegment{Max,Min,Prod}: segments_ids name rows of the output --------------------
def _segment(name, reduction, x, segment_ids, num_segments):
    if not isinstance(x, Tensor) or not isinstance(segment_ids, Tensor):
        raise TypeError(f"For '{name}', 'x' and 'segment_ids' must be Tensors, but got "
                        f"{type(x).__name__} and {type(segment_ids).__name__}.")
    if segment_ids.dtype not in _INDEX:
        raise TypeError(f"For primitive[{name}], the input argument[segment_ids] must be a "
                        f"type of {{Tensor[Int32], Tensor[Int64]}}, but got "
                        f"Tensor[{segment_ids.dtype}].")
    if isinstance(num_segments, Tensor) and _known(num_segments):
        num_segments = int(num_segments.asnumpy().reshape(-1)[0])
    if not isinstance(num_segments, (int, np.integer)) or isinstance(num_segments, bool):
        raise TypeError(f"For '{name}', 'num_segments' must be an int or a 0-d int Tensor "
                        f"known eagerly, but got {type(num_segments).__name__}.")
    if num_segments <= 0:
        raise ValueError(f"For primitive[{name}], the num_segments's value must be greater "
                         f"than 0, but got {num_segments}.")
    k, shape = segment_ids.ndim, tuple(x.shape)
    if k == 0 or shape[:k] != tuple(segment_ids.shape):
        raise ValueError(f"For {name}, the first shape of input_x should be equal to length "
                         f"of segments_id (x shape {shape}, segment_ids shape "
                         f"{tuple(segment_ids.shape)}).")
    if _known(segment_ids):
        flat = segment_ids.asnumpy().reshape(-1)
        if ((flat < 0) | (flat >= num_segments)).any():
            raise RuntimeError(f"For '{name}', segment_ids value should be [0, "
                               f"{num_segments}), but got {flat.tolist()}.")
    out_shape = (int(num_segments),) + shape[k:]
    empty = reduction_identity(reduction, mstype.dtype_to_nptype(x.dtype))
    start = A.fill(x.dtype, out_shape, empty)
    n, cols = math.prod(shape[:k]), math.prod(shape[k:])
    out = cached_op(ScatterRows, reduction, name)(
        A.reshape(start, (1, int(num_segments), cols)), A.reshape(segment_ids, (n,)),
        A.reshape(x, (1, n, cols)))
    return A.reshape(out, out_shape)


def unsorted_segment_max(x, segment_ids, num_segments):
    """``ops.unsorted_segment_max``: out[s] = max of x's rows whose segment id is s (ids may
    cover x's leading dims); an empty segment holds the dtype's lowest value. Gradient: dout
    shared among the rows equal to the max."""
    return _segment("UnsortedSegmentMax", "max", x, segment_ids, num_segments)


def unsorted_segment_min(x, segment_ids, num_segments):
    """``ops.unsorted_segment_min``: as unsorted_segment_max with min (empty: the highest)."""
    return _segment("UnsortedSegmentMin", "min", x, segment_ids, num_segments)


def unsorted_segment_prod(x, segment_ids, num_segments):
    """``ops.unsorted_segment_prod``: out[s] = product of x's rows in segment s (empty: 1).
    Gradient: dout * out / x (a row that is 0 gets its sole-row value; MindSpore's handling
    of a zero among several rows of one segment is not reproduced)."""
    return _segment("UnsortedSegmentProd", "mul", x, segment_ids, num_segments)


# -- IndexAdd / InplaceIndexAdd: rows along an axis ---------------------------------------
def _along(name, x, indices, y, axis, x_name):
    """Checks of IndexAdd / InplaceIndexAdd (MindSpore's messages); x + y's rows at indices
    along axis, as a new tensor."""
    _check(name, x, indices, y, x_name)
    if indices.dtype != mstype.int32:
        raise TypeError(f"For primitive[{name}], the input argument[indices] must be a type "
                        f"of {{Tensor[Int32]}}, but got Tensor[{indices.dtype}].")
    rank = x.ndim
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"For '{name}', 'axis' must be an int, but got "
                        f"{type(axis).__name__}.")
    if not -rank <= axis < rank:
        raise ValueError(f"For primitive[{name}], the axis must be in ({-rank - 1},{rank}), "
                         f"but got {axis}.")
    if indices.ndim != 1:
        raise ValueError(f"For '{name}', 'indices' must be 1-D, but got shape "
                         f"{tuple(indices.shape)}.")
    if y.ndim != rank:
        raise ValueError(f"For primitive[{name}], the attribute[{x_name} dim] must be equal "
                         f"to {y.ndim}, but got {rank}.")
    axis = int(axis) % rank
    shape = tuple(x.shape)
    want = shape[:axis] + (indices.shape[0],) + shape[axis + 1:]
    if tuple(y.shape) != want:
        raise ValueError(f"For '{name}', the shape of the updates must be {want} (x's with "
                         f"len(indices) along axis {axis}), but got {tuple(y.shape)}.")
    if _known(indices):
        flat = indices.asnumpy()
        bad = flat[(flat < 0) | (flat >= shape[axis])]
        if bad.size:
            raise RuntimeError(f"For '{name}', the value of 'indices' must be in range [0, "
                               f"{shape[axis]}), but got {bad[0]}.")
    return _scatter_3d(name, "add", x, indices, y, math.prod(shape[:axis]), shape[axis],
                       math.prod(shape[axis + 1:]))


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """``ops.index_add``: x[..., indices[i], ...] += y[..., i, ...] along axis, written into
    x in place (a Parameter through Assign) and returned. Differentiable (then out of place):
    x gets dout, y dout's rows at indices."""
    for arg, v in (("use_lock", use_lock), ("check_index_bound", check_index_bound)):
        if not isinstance(v, bool):
            raise TypeError(f"For 'IndexAdd', '{arg}' must be a bool, but got "
                            f"{type(v).__name__}.")
    value = _along("IndexAdd", x, indices, y, axis, "x")
    if _CTX.tapes:
        # Being differentiated, x keeps its value and the sum is returned as a new tensor, as
        # in MindSpore's graph (x's gradient is then dout's, not that of a written Parameter).
        return value
    return write_back(x, value, "IndexAdd")


def index_add_value(x, dim, index, source, alpha=1):
    """Tensor.index_add(dim, index, source, *, alpha=1): x with alpha * source's slices added
    along dim at index (int32), as a new tensor (the method writes it into x)."""
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
        raise TypeError(f"For 'Tensor.index_add', 'alpha' must be a number, but got "
                        f"{type(alpha).__name__}.")
    if alpha != 1:
        source = M.mul(source, Tensor(np.array(alpha, mstype.dtype_to_nptype(x.dtype))))
    return _along("IndexAdd", x, index, source, dim, "x")


def inplace_index_add(var, indices, updates, axis):
    """``ops.inplace_index_add``: var[..., indices[i], ...] += updates[..., i, ...] along
    axis, in place; returns var."""
    return write_back(var, _along("InplaceIndexAdd", var, indices, updates, axis, "var"),
                  "InplaceIndexAdd")


# -- InplaceAdd / InplaceSub / InplaceUpdate: rows of axis 0, out of place ----------------
def _inplace(name, reduction, x, v, indices, allow_tensor):
    if isinstance(indices, Tensor) and allow_tensor and indices.traced:
        return _inplace_traced(name, reduction, x, v, indices)
    if isinstance(indices, Tensor) and allow_tensor:
        indices = indices.asnumpy().reshape(-1).tolist()
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
        indices = (int(indices),)
    if not isinstance(indices, (tuple, list)) or not all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in indices):
        allowed = "['tuple', 'int', 'Tensor']" if allow_tensor else "['tuple', 'int']"
        raise TypeError(f"For '{name}', the type of 'indices' should be one of '{allowed}', "
                        f"but got type '{type(indices).__name__}'.")
    if not isinstance(x, Tensor) or not isinstance(v, Tensor):
        raise TypeError(f"For '{name}', 'x' and 'v' must be Tensors, but got "
                        f"{type(x).__name__} and {type(v).__name__}.")
    if x.dtype != v.dtype:
        raise TypeError(f"For primitive[{name}], the input type must be same.")
    if x.ndim != v.ndim:
        raise ValueError(f"For primitive[{name}], the rank of x must be equal to rank of v "
                         f"which is {v.ndim} , but got {x.ndim}.")
    shape = tuple(x.shape)
    # v's first dim may be dynamic (GRAPH mode's set_inputs): ScatterRows checks it on run.
    static = isinstance(v.shape[0], int)
    if (static and v.shape[0] != len(indices)) or tuple(v.shape[1:]) != shape[1:]:
        raise ValueError(f"For primitive[{name}], the size of indices must be equal to "
                         f"{v.shape[0]} , but got {len(indices)}.")
    rows = shape[0]
    if not isinstance(rows, int):       # a dynamic row count: ScatterRows checks on run
        if any(i < 0 for i in indices):
            raise NotImplementedError(f"For '{name}', a negative index into x of dynamic "
                                      f"shape {shape} is not supported.")
        index = Tensor(np.array(indices, np.int64))
        return _scatter_3d(name, reduction, x, index, v, 1, rows, math.prod(shape[1:]))
    low = -rows if reduction == "update" else 0      # InplaceUpdate counts from the end too
    for i in indices:
        if not low <= i < rows:
            if reduction == "update":
                raise RuntimeError(f"For '{name}', the value of 'indices' must be between "
                                   f"{-rows} and {rows - 1}, but got indice: {i}")
            raise ValueError(f"For primitive[{name}], the value of indices must be in "
                             f"[0,{rows}), but got {i}.")
    index = Tensor(np.array([int(i) % rows for i in indices], np.int64))
    return _scatter_3d(name, reduction, x, index, v, 1, rows, math.prod(shape[1:]))


def _inplace_traced(name, reduction, x, v, indices):
    """InplaceUpdate(V2) with indices only known when the graph runs (GRAPH mode): an index
    in [-D, 0) wraps by a FloorMod; one outside [-D, D) still wraps (the graph cannot raise
    on a value), which MindSpore reports as an error."""
    _check(name, x, indices, v, "x")
    if x.ndim != v.ndim or tuple(v.shape[1:]) != tuple(x.shape[1:]):
        raise ValueError(f"For primitive[{name}], v must have x's shape but for its first "
                         f"dim, but got x {tuple(x.shape)} and v {tuple(v.shape)}.")
    if indices.ndim != 1:
        raise ValueError(f"For '{name}', 'indices' must be 1-D, but got shape "
                         f"{tuple(indices.shape)}.")
    shape = tuple(x.shape)
    rows, cols = shape[0], math.prod(shape[1:])
    index = M.floor_mod(A.cast(indices, mstype.int64), Tensor(np.int64(rows)))
    out = cached_op(ScatterRows, reduction, name)(
        A.reshape(x, (1, rows, cols)), index, A.reshape(v, (1, int(v.shape[0]), cols)))
    return A.reshape(out, shape)


def inplace_add(x, v, indices):
    """``ops.inplace_add``: a copy of x with x[indices[i]] += v[i] (x is not written)."""
    return _inplace("InplaceAdd", "add", x, v, indices, False)


def inplace_sub(x, v, indices):
    """``ops.inplace_sub``: a copy of x with x[indices[i]] -= v[i] (x is not written)."""
    return _inplace("InplaceSub", "sub", x, v, indices, False)


def inplace_update(x, v, indices):
    """``ops.inplace_update``: a copy of x with x[indices[i]] = v[i]; indices an int, a tuple
    or an int Tensor, in [-D, D)."""
    return _inplace("InplaceUpdate", "update", x, v, indices, True)


def _attr_bool(name, key, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', '{key}' must be a bool, but got "
                        f"{type(value).__name__}.")
    return value


def _locking(name, fn, default):
    """Primitive `name` over fn. Scatter*'s use_locking attribute only guards concurrent
    writers: one process, one writer here, so it is checked and not otherwise used."""
    def call(input_x, indices, updates, use_locking=default):
        _attr_bool(name, "use_locking", use_locking)
        return fn(input_x, indices, updates)
    return _composite(name, call, (("use_locking", default),))


ScatterAdd = _locking("ScatterAdd", scatter_add, False)
ScatterSub = _locking("ScatterSub", scatter_sub, False)
ScatterMul = _locking("ScatterMul", scatter_mul, False)
ScatterDiv = _locking("ScatterDiv", scatter_div, False)
ScatterMax = _locking("ScatterMax", scatter_max, False)
ScatterMin = _locking("ScatterMin", scatter_min, False)
ScatterUpdate = _locking("ScatterUpdate", scatter_update, True)
ScatterNdAdd = _composite("ScatterNdAdd", scatter_nd_add, (("use_locking", False),))
ScatterNdSub = _composite("ScatterNdSub", scatter_nd_sub, (("use_locking", False),))
ScatterNdMul = _composite("ScatterNdMul", scatter_nd_mul, (("use_locking", False),))
ScatterNdDiv = _composite("ScatterNdDiv", scatter_nd_div, (("use_locking", False),))
ScatterNdMax = _composite("ScatterNdMax", scatter_nd_max, (("use_locking", False),))
ScatterNdMin = _composite("ScatterNdMin", scatter_nd_min, (("use_locking", False),))
ScatterNdUpdate = _composite("ScatterNdUpdate", scatter_nd_update, (("use_locking", True),))
TensorScatterMul = _composite("TensorScatterMul", tensor_scatter_mul)
TensorScatterDiv = _composite("TensorScatterDiv", tensor_scatter_div)
TensorScatterMax = _composite("TensorScatterMax", tensor_scatter_max)
TensorScatterMin = _composite("TensorScatterMin", tensor_scatter_min)
UnsortedSegmentMax = _composite("UnsortedSegmentMax", unsorted_segment_max)
UnsortedSegmentMin = _composite("UnsortedSegmentMin", unsorted_segment_min)
UnsortedSegmentProd = _composite("UnsortedSegmentProd", unsorted_segment_prod)
IndexAdd = _composite("IndexAdd", lambda x, indices, y, axis, use_lock=True, check_index_bound=True:
                 index_add(x, indices, y, axis, use_lock, check_index_bound),
                 (("axis", None), ("use_lock", True), ("check_index_bound", True)))
InplaceAdd = _composite("InplaceAdd", lambda x, v, indices: inplace_add(x, v, indices),
                   (("indices", None),))
InplaceSub = _composite("InplaceSub", lambda x, v, indices: inplace_sub(x, v, indices),
                   (("indices", None),))
InplaceUpdate = _composite("InplaceUpdate", lambda x, v, indices: inplace_update(x, v, indices),
                      (("indices", None),))
InplaceUpdateV2 = _composite("InplaceUpdateV2", lambda x, indices, v: inplace_update(x, v, indices))
InplaceIndexAdd = _composite("InplaceIndexAdd", lambda var, indices, updates, axis:
                        inplace_index_add(var, indices, updates, axis), (("axis", None),))

__all__ += ["ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin",
            "ScatterUpdate", "ScatterNdAdd", "ScatterNdSub", "ScatterNdMul", "ScatterNdDiv",
            "ScatterNdMax", "ScatterNdMin", "ScatterNdUpdate", "TensorScatterMul",
            "TensorScatterDiv", "TensorScatterMax", "TensorScatterMin", "UnsortedSegmentMax",
            "UnsortedSegmentMin", "UnsortedSegmentProd", "IndexAdd", "InplaceAdd",
            "InplaceSub", "InplaceUpdate", "InplaceUpdateV2", "InplaceIndexAdd"]
