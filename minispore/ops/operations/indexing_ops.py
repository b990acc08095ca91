"""Indexing operators: strided slices and their gradient, gather / segment sum, one-hot, and
masked select."""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.context import context
from minispore.common.symbolic import SymDim
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (broadcast_shape, cached_op, check_dtype,
                                            check_tensor, contiguous, normalize_axis, shape_size,
                                            shapes_equal)
from minispore.ops.operations.array_ops import (Reshape, Transpose, c_strides, check_dim_tuple,
                                                check_int_tuple, movable, strided_copy)
from minispore.ops.operations.math_ops import Sub, broadcast_to
from minispore.ops.primitive import Aval, Primitive

__all__ = ["StridedSlice", "StridedSliceGrad", "MicroBatchSlice", "Gather", "UnsortedSegmentSum",
           "OneHot", "EmbeddingLookup", "MaskedSelect"]

_INDEX_TYPES = (mstype.int32, mstype.int64)
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _bit(mask, i):
    return (mask >> i) & 1


class _SliceBase(Primitive):
    """The five masks of StridedSlice and the plan they give: which elements of x are taken."""
    sharding_rule = rules.replicate_only(
        "slice bounds are global indices; a cut needs per-slice bound arithmetic")

    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
        super().__init__()
        values = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        for name, v in zip(_MASKS, values):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
            if v < 0:
                raise ValueError(f"For '{self.name}', '{name}' must be a non-negative int, "
                                 f"but got {v}.")
            self.add_prim_attr(name, int(v))
        if bin(int(ellipsis_mask)).count("1") > 1:
            raise ValueError(f"For '{self.name}', only one bit of 'ellipsis_mask' may be set, "
                             f"but got {ellipsis_mask} ({bin(int(ellipsis_mask))}).")
        self.masks = tuple(int(v) for v in values)
        self._last = None

    def plan(self, shape, begin, end, strides):
        """(out shape, start, length and step per dim of x) for x.shape == shape.

        Follows TensorFlow/MindSpore: an ellipsis bit expands to the dims not named by the
        other entries, a new_axis bit adds a dim of 1, a shrink bit takes begin[i] and drops
        the dim, begin/end bits mean "from the start"/"to the end" for the stride's sign, and
        dims after the last entry are taken whole. Bounds clamp like Python slices.
        """
        key = (tuple(shape), begin, end, strides)
        if self._last is not None and self._last[0] == key:
            return self._last[1]    # infer and impl ask for the same plan back to back
        result = self._plan(shape, begin, end, strides)
        self._last = (key, result)
        return result

    def _plan(self, shape, begin, end, strides):
        begin = check_dim_tuple(self, "begin", begin)
        end = check_dim_tuple(self, "end", end)
        strides = check_int_tuple(self, "strides", strides)
        if not len(begin) == len(end) == len(strides):
            raise self.error(f"'begin' {begin}, 'end' {end} and 'strides' {strides} must have "
                             f"the same length.")
        if 0 in strides:
            raise self.error(f"'strides' {strides} must not contain 0.")
        bm, em, ellm, nam, sam = self.masks
        n, ndim = len(begin), len(shape)
        named = sum(1 for i in range(n) if not _bit(ellm, i) and not _bit(nam, i))
        if named > ndim:
            raise self.error(f"'begin' {begin} names {named} dims, but x.shape {tuple(shape)} "
                             f"has only {ndim}.")
        final, starts, lens, steps = [], [], [], []

        def take_whole(d):
            starts.append(0)
            lens.append(d)
            steps.append(1)
            final.append(d)

        xd = 0
        for i in range(n):
            if _bit(ellm, i):
                for _ in range(ndim - named):
                    take_whole(shape[xd])
                    xd += 1
            elif _bit(nam, i):
                final.append(1)
            else:
                d = shape[xd]
                if any(isinstance(v, SymDim) for v in (d, begin[i], end[i])):
                    start, length, step = self._symbolic_dim(i, d, begin[i], end[i],
                                                             strides[i], shape)
                    starts.append(start)
                    lens.append(length)
                    steps.append(step)
                    if not _bit(sam, i):
                        final.append(length)
                elif _bit(sam, i):
                    idx = begin[i] + d if begin[i] < 0 else begin[i]
                    if not 0 <= idx < d:
                        raise self.error(f"begin[{i}] = {begin[i]} with shrink_axis_mask is "
                                         f"out of range for dim {xd} of size {d} "
                                         f"(x.shape {tuple(shape)}).")
                    starts.append(idx)
                    lens.append(1)
                    steps.append(1)
                else:
                    sl = slice(None if _bit(bm, i) else begin[i],
                               None if _bit(em, i) else end[i], strides[i])
                    start, stop, step = sl.indices(d)
                    length = len(range(start, stop, step))
                    starts.append(start if length else 0)
                    lens.append(length)
                    steps.append(step)
                    final.append(length)
                xd += 1
        while xd < ndim:
            take_whole(shape[xd])
            xd += 1
        return tuple(final), starts, lens, steps

    def _symbolic_dim(self, i, d, b, e, step, shape):
        """(start, length, step) of entry i when the dim or a bound is symbolic: only unit
        strides whose bounds provably lie in order inside the dim."""
        bm, em, _, _, sam = self.masks
        if _bit(sam, i):
            b = b + d if not isinstance(b, SymDim) and b < 0 else b
            e, step = b + 1, 1
        if step != 1:
            raise self.error(f"entry {i} slices the dynamic dim {d} of x.shape {tuple(shape)} "
                             f"with stride {step}; only stride 1 is supported on dynamic dims.")
        b = 0 if _bit(bm, i) and not _bit(sam, i) else b
        e = d if _bit(em, i) and not _bit(sam, i) else e
        b = b + d if not isinstance(b, SymDim) and b < 0 else b
        e = e + d if not isinstance(e, SymDim) and e < 0 else e
        try:
            ordered = 0 <= b and b <= e and e <= d
        except ValueError as err:
            raise self.error(f"entry {i} ([{b}:{e}]) of the slice of x.shape {tuple(shape)} "
                             f"cannot be checked against the dynamic dim {d}: {err}") from None
        if not ordered:
            raise self.error(f"entry {i} ([{b}:{e}]) is out of range for the dynamic dim {d} "
                             f"of x.shape {tuple(shape)}.")
        return b, e - b, 1


class StridedSlice(_SliceBase):
    """out = x[begin:end:strides] per dim, with TensorFlow-style masks:
    StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(x, begin, end, strides). Bit i of a mask applies to entry i of
    begin/end/strides (see `plan`); each a tuple of ints or a 1-D int Tensor whose values are
    known (not computed in a graph being compiled: they set the output's shape). The gradient
    scatters dout into zeros (StridedSliceGrad).
    """

    def __call__(self, x, begin, end, strides):
        return super().__call__(x, self._ints("begin", begin), self._ints("end", end),
                                self._ints("strides", strides))

    def _ints(self, name, value):
        if not isinstance(value, Tensor):
            return value
        if value.traced:
            raise self.error(f"'{name}' is a Tensor computed in the graph being compiled; its "
                             f"values set the output's shape, so give a tuple of ints or a "
                             f"constant Tensor.", TypeError)
        if value.dtype not in (mstype.int32, mstype.int64) or len(value.shape) != 1:
            raise self.error(f"'{name}' as a Tensor must be 1-D int32 or int64, but got "
                             f"{value.dtype} of shape {tuple(value.shape)}.", TypeError)
        return tuple(int(v) for v in value.asnumpy())

    def infer(self, x, begin, end, strides):
        check_tensor(self, "input_x", x)
        return Aval(self.plan(tuple(x.shape), begin, end, strides)[0], x.dtype)

    writes_out = True

    def impl(self, x, begin, end, strides, out=None):
        final, starts, lens, steps = self.plan(x.shape, begin, end, strides)
        xs = c_strides(x.shape)
        block = device.empty(lens, x.dtype) if out is None else out.reshape(tuple(lens))
        strided_copy(x, sum(s * k for s, k in zip(starts, xs)), block, 0, lens,
                     [st * k for st, k in zip(steps, xs)], c_strides(lens))
        return block.reshape(final) if out is None else out

    def bprop(self, inputs, out, dout):
        x, begin, end, strides = inputs
        grad = cached_op(StridedSliceGrad, *self.masks)
        return (grad(dout, tuple(x.shape), tuple(begin), tuple(end), tuple(strides)),
                None, None, None)


_MICRO_BATCH_ROWS = ("micro-batch i is the contiguous rows [i*N/m, (i+1)*N/m) of the whole "
                     "batch, which a cut of the batch dim does not hold; keep it whole (cut "
                     "the other dims)")


class MicroBatchSlice(StridedSlice):
    """Micro-batch `index` of `count` along dim 0: the contiguous rows [index * N / count,
    (index + 1) * N / count) of x's N rows (MindSpore's _MicroBatch slices them so);
    MicroBatchSlice(index, count)(x).

    Under operator parallelism the batch dim stays whole (so a data-parallel batch is gathered
    first): every rank's micro-batch is then the single-device one, whatever the layout.
    """
    sharding_rule = rules.axis_fixed(_MICRO_BATCH_ROWS)
    axis = 0            # the dim axis_fixed keeps whole

    def __init__(self, index, count):
        super().__init__()
        for name, value in (("index", index), ("count", count)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"For 'MicroBatchSlice', '{name}' must be an int, but got "
                                f"{type(value).__name__}.")
        if not 0 <= index < count:
            raise ValueError(f"For 'MicroBatchSlice', 'index' must be in [0, count={count}), "
                             f"but got {index}.")
        self.index, self.count = index, count
        self.add_prim_attr("index", index)
        self.add_prim_attr("count", count)

    def __call__(self, x):
        rows = x.shape[0] if len(x.shape) else None
        if rows is None or (isinstance(rows, int) and rows % self.count):
            raise self.error(f"the batch dim of the input (shape {tuple(x.shape)}) must be "
                             f"divisible by the micro-batch count {self.count}.")
        size = rows // self.count
        return StridedSlice.__call__(self, x, (self.index * size,),
                                     ((self.index + 1) * size,), (1,))


class StridedSliceGrad(_SliceBase):
    """out = zeros of shape `shapex` with dout written where StridedSlice (same masks) reads:
    StridedSliceGrad(masks)(dout, shapex, begin, end, strides)."""

    def infer(self, dout, shapex, begin, end, strides):
        check_tensor(self, "dy", dout)
        shapex = check_dim_tuple(self, "shapex", shapex)
        final = self.plan(shapex, begin, end, strides)[0]
        if not shapes_equal(self, dout.shape, final):
            raise self.error(f"dy.shape {tuple(dout.shape)} must equal the slice's shape "
                             f"{final} for shapex {shapex}.")
        return Aval(shapex, dout.dtype)

    def impl(self, dout, shapex, begin, end, strides):
        _, starts, lens, steps = self.plan(tuple(shapex), begin, end, strides)
        out = device.zeros(tuple(shapex), dout.dtype)
        xs = c_strides(shapex)
        strided_copy(dout, 0, out, sum(s * k for s, k in zip(starts, xs)), lens,
                     c_strides(lens), [st * k for st, k in zip(steps, xs)])
        return out

    def bprop(self, inputs, out, dout):
        _, _, begin, end, strides = inputs
        piece = cached_op(StridedSlice, *self.masks)
        return (piece(dout, tuple(begin), tuple(end), tuple(strides)), None, None, None, None)


class Gather(Primitive):
    """out = params taken at `indices` along `axis`: Gather()(params, indices, axis).

    indices: int32/int64 of any shape, values in [0, params.shape[axis]) (others raise
    ValueError); out.shape = params.shape[:axis] + indices.shape + params.shape[axis+1:].
    The gradient scatter-adds dout into zeros of params' shape (UnsortedSegmentSum).

    ``add_prim_attr("manual_split", (s0, s1, ...))`` under operator parallel: with params' dim 0
    cut k ways by the strategy, block b holds s_b rows instead of rows / k (the sizes sum to
    the rows; minispore/parallel/partition.py slices the table so).
    """
    sharding_rule = rules.gather

    zero_out_of_range = False

    def __init__(self, batch_dims=0):
        super().__init__()
        if not isinstance(batch_dims, int) or isinstance(batch_dims, bool):
            raise TypeError(f"For 'Gather', 'batch_dims' must be an int, but got "
                            f"{type(batch_dims).__name__}.")
        if batch_dims != 0:
            raise ValueError(f"For 'Gather', only batch_dims=0 is supported, but got "
                             f"{batch_dims}.")
        self.add_prim_attr("batch_dims", batch_dims)

    def local_call(self, args, ctx):
        """A row split of the table (axis 0 cut): indices are shifted by this rank's first row
        and rows outside the local block read as zeros; the pass then sums the ranks' partial
        results (mindspore_semantics.md §2.4, Gather)."""
        params, indices, axis = args
        layout, shape = ctx.in_layouts[0], ctx.global_in_shapes[0]
        axis = axis % len(shape)
        if layout.cuts()[axis] == 1:
            return self(params, indices, axis)
        if axis != 0:
            raise self.error(f"a cut of the gathered axis is supported for axis=0 only, but got "
                             f"axis={axis} with params of shape {shape} cut {layout.cuts()}.")
        splits = self.attrs.get("manual_split")
        if splits is not None:          # non-uniform rows (the partition sliced the table so)
            offset = sum(splits[:layout.block_index(ctx.rank)[0]])
        else:
            offset = ctx.block_offset(layout, shape, 0)
        return _GatherOrZero()(params, cached_op(Sub)(indices, offset), 0)

    def infer(self, params, indices, axis):
        check_tensor(self, "input_params", params)
        check_tensor(self, "input_indices", indices)
        check_dtype(self, "input_indices", indices, _INDEX_TYPES)
        if params.ndim < 1:
            raise self.error("'input_params' must have rank >= 1, but got a 0-d tensor.")
        axis = normalize_axis(self, axis, params.ndim)
        p = tuple(params.shape)
        return Aval(p[:axis] + tuple(indices.shape) + p[axis + 1:], params.dtype)

    def impl(self, params, indices, axis):
        axis = int(axis) % params.ndim
        outer = int(math.prod(params.shape[:axis]))
        inner = int(math.prod(params.shape[axis + 1:]))
        p3 = contiguous(params).reshape(outer, params.shape[axis], inner)
        idx = contiguous(indices).reshape(-1)
        out = device.empty((outer, idx.size, inner), params.dtype)
        bad = kernel("indexing", "gather")(movable(p3), idx, movable(out),
                                           self.zero_out_of_range)
        if bad >= 0:
            raise self.error(f"input_indices holds {idx[bad]}, out of range [0, "
                             f"{params.shape[axis]}) for axis {axis} of input_params.shape "
                             f"{params.shape}.")
        return out.reshape(params.shape[:axis] + indices.shape + params.shape[axis + 1:])

    def bprop(self, inputs, out, dout):
        params, indices, axis = inputs
        segment_sum, transpose = cached_op(UnsortedSegmentSum), cached_op(Transpose)
        axis = int(axis) % params.ndim
        if axis == 0:
            return segment_sum(dout, indices, params.shape[0]), None, None
        # Move the indices' dims to the front, scatter-add along dim 0, move the result back.
        p, q = axis, indices.ndim
        r = dout.ndim - p - q
        front = tuple(range(p, p + q)) + tuple(range(p)) + tuple(range(p + q, p + q + r))
        summed = segment_sum(transpose(dout, front), indices, params.shape[axis])
        back = tuple(range(1, p + 1)) + (0,) + tuple(range(p + 1, p + 1 + r))
        return transpose(summed, back), None, None


class _GatherOrZero(Gather):
    """Gather along axis 0 where out-of-range indices give zero rows: the transpose of
    UnsortedSegmentSum, which drops out-of-range segment ids."""

    zero_out_of_range = True

    def bprop(self, inputs, out, dout):
        params, indices, _ = inputs
        return cached_op(UnsortedSegmentSum)(dout, indices, params.shape[0]), None, None


class EmbeddingLookup(_GatherOrZero):
    """out = rows ``indices - offset`` of `input_params`, zero rows for indices outside
    [offset, offset + rows): EmbeddingLookup()(input_params, input_indices, offset).

    Traced as a gather of the shifted indices along axis 0, so it shares Gather's sharding rule
    (row, column and index cuts; ``manual_split``). ``add_prim_attr("primitive_target",
    "CPU")`` (or ``set_device("CPU")``) asks for the table and the lookup to stay in host
    memory; on the CPU device that is where they are, and on the GPU device it raises
    NotImplementedError (keeping a table on the host beside device tensors is not built).
    """

    def __init__(self):
        super().__init__()
        self.del_prim_attr("batch_dims")

    def set_device(self, device_target):
        return self.add_prim_attr("primitive_target", device_target)

    def __call__(self, input_params, input_indices, offset):
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise self.error(f"'offset' must be an int, but got {type(offset).__name__}.",
                             TypeError)
        target = self.attrs.get("primitive_target")
        if target not in (None, "CPU", "GPU", "Ascend"):
            raise self.error(f"'primitive_target' must be 'CPU', 'GPU' or 'Ascend', but got "
                             f"{target!r}.")
        if target == "CPU" and device.on_gpu():
            raise NotImplementedError(
                f"For '{self.name}', primitive_target 'CPU' with device_target 'GPU' (the table "
                f"and its lookup kept in host memory) is not implemented in minispore; use "
                f"the GPU target for the whole network, or device_target 'CPU'.")
        if offset:
            input_indices = cached_op(Sub)(input_indices, offset)
        return Primitive.__call__(self, input_params, input_indices, 0)


class UnsortedSegmentSum(Primitive):
    """out[s] = sum of x[j] over the j with segment_ids[j] == s:
    UnsortedSegmentSum()(x, segment_ids, num_segments).

    segment_ids (int32/int64) has the shape of x's leading dims; out.shape =
    (num_segments,) + x.shape[segment_ids.ndim:]. Ids outside [0, num_segments) are dropped.
    """
    sharding_rule = rules.segment_sum
    # Numba has no float16 on the CPU: float16 values are summed in float32 and rounded once.
    float16_in_float32 = True

    def __call__(self, x, segment_ids, num_segments):
        if isinstance(num_segments, Tensor):
            num_segments = int(num_segments)
        return super().__call__(x, segment_ids, num_segments)

    def infer(self, x, segment_ids, num_segments):
        check_tensor(self, "x", x)
        check_tensor(self, "segment_ids", segment_ids)
        check_dtype(self, "segment_ids", segment_ids, _INDEX_TYPES)
        if isinstance(num_segments, SymDim):
            num_segments_dim = num_segments
        elif not isinstance(num_segments, (int, np.integer)) or isinstance(num_segments, bool):
            raise self.error(f"'num_segments' must be an int, but got "
                             f"{type(num_segments).__name__}.", TypeError)
        else:
            num_segments_dim = int(num_segments)
        if not isinstance(num_segments_dim, SymDim) and num_segments_dim <= 0:
            raise self.error(f"'num_segments' must be a positive int, but got {num_segments}.")
        k = segment_ids.ndim
        if not shapes_equal(self, x.shape[:k], segment_ids.shape):
            raise self.error(f"segment_ids.shape {tuple(segment_ids.shape)} must equal the "
                             f"leading dims of x.shape {tuple(x.shape)}.")
        return Aval((num_segments_dim,) + tuple(x.shape[k:]), x.dtype)

    def impl(self, x, segment_ids, num_segments):
        ids = contiguous(segment_ids).reshape(-1)
        inner = int(math.prod(x.shape[segment_ids.ndim:]))
        out = device.empty((1, int(num_segments), inner), x.dtype)
        if context().get("deterministic") == "ON":   # the CUDA kernel's atomic adds would
            run = kernel("indexing", "unsorted_segment_sum_deterministic")   # vary the order
        else:
            run = kernel("indexing", "unsorted_segment_sum")
        run(contiguous(x).reshape(1, ids.size, inner), ids, out)
        return out.reshape((int(num_segments),) + x.shape[segment_ids.ndim:])

    def bprop(self, inputs, out, dout):
        _, segment_ids, _ = inputs
        return _gather_or_zero(dout, segment_ids, 0), None, None


_gather_or_zero = _GatherOrZero()


class OneHot(Primitive):
    """out[..., d, ...] = on_value where indices == d, else off_value, with the depth dim
    inserted at `axis` (-1: last): OneHot(axis=-1)(indices, depth, on_value, off_value).

    indices int32/int64; on_value and off_value scalar tensors of one dtype, which is the
    output's. Indices outside [0, depth) give all off_value. Not differentiable.
    """
    sharding_rule = rules.one_hot

    differentiable = False
    # Numba has no float16 on the CPU: float16 on/off values fill a float32 result, rounded back
    # (exactly: it holds only the two values).
    float16_in_float32 = True

    def __init__(self, axis=-1):
        super().__init__()
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"For 'OneHot', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        if axis < -1:
            raise ValueError(f"For 'OneHot', 'axis' must be >= -1, but got {axis}.")
        self.axis = axis
        self.add_prim_attr("axis", axis)

    def infer(self, indices, depth, on_value, off_value):
        check_tensor(self, "indices", indices)
        check_dtype(self, "indices", indices, _INDEX_TYPES)
        if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool):
            raise self.error(f"'depth' must be an int, but got {type(depth).__name__}.",
                             TypeError)
        if depth < 0:
            raise self.error(f"'depth' must be non-negative, but got {depth}.")
        for name, v in (("on_value", on_value), ("off_value", off_value)):
            check_tensor(self, name, v)
            if shape_size(v.shape) != 1:
                raise self.error(f"'{name}' must be a scalar tensor, but got shape "
                                 f"{tuple(v.shape)}.")
        if on_value.dtype != off_value.dtype:
            raise self.error(f"'on_value' ({on_value.dtype}) and 'off_value' "
                             f"({off_value.dtype}) must have the same dtype.", TypeError)
        if self.axis > indices.ndim:
            raise self.error(f"'axis' must be in [-1, {indices.ndim}] for indices of shape "
                             f"{tuple(indices.shape)}, but got {self.axis}.")
        axis = indices.ndim if self.axis == -1 else self.axis
        s = tuple(indices.shape)
        return Aval(s[:axis] + (int(depth),) + s[axis:], on_value.dtype)

    writes_out = True

    def impl(self, indices, depth, on_value, off_value, out=None):
        axis = indices.ndim if self.axis == -1 else self.axis
        outer = int(math.prod(indices.shape[:axis]))
        inner = int(math.prod(indices.shape[axis:]))
        if out is None:
            out = device.empty(indices.shape[:axis] + (int(depth),) + indices.shape[axis:],
                               on_value.dtype)
        kernel("indexing", "one_hot")(contiguous(indices).reshape(outer, inner),
                                      device.first(on_value), device.first(off_value),
                                      out.reshape(outer, int(depth), inner))
        return out


class MaskedSelect(Primitive):
    """out = the elements of `x` where `mask` is True, in row-major order, as a 1-D tensor:
    MaskedSelect()(x, mask). x and mask (bool) broadcast together.

    The output's length depends on the mask's values, so the operator runs eagerly
    (PYNATIVE_MODE) only: compiling it (GRAPH_MODE, ms.jit) raises RuntimeError, as graphs here
    have shapes known before they run. The gradient scatters dout back to the selected
    positions (UnsortedSegmentSum at the mask's positions, found by MaskedSelect again).
    """
    sharding_rule = rules.replicate_only("the output length depends on the mask's values")
    values_decide_shape = "mask"

    def __call__(self, x, mask):
        for name, v in (("x", x), ("mask", mask)):
            check_tensor(self, name, v)
        shape = broadcast_shape(self, tuple(x.shape), tuple(mask.shape), ("x", "mask"))
        if tuple(x.shape) != shape:
            x = broadcast_to(x, shape)
        if tuple(mask.shape) != shape:
            mask = broadcast_to(mask, shape)
        return super().__call__(x, mask)

    def infer(self, x, mask):
        check_tensor(self, "x", x)
        check_dtype(self, "mask", mask, (mstype.bool_,))
        if not shapes_equal(self, x.shape, mask.shape):
            raise self.error(f"x.shape {tuple(x.shape)} and mask.shape {tuple(mask.shape)} "
                             f"must be equal.")
        return Aval((-1,), x.dtype)     # -1: known once the mask is (eager runs only)

    def impl(self, x, mask):
        xf = contiguous(x).reshape(-1)
        mf = contiguous(mask).reshape(-1)
        offsets, total = kernel("indexing", "masked_offsets")(mf)
        out = device.empty((total,), x.dtype)
        kernel("indexing", "masked_select")(xf, mf, offsets, out)
        return out

    def bprop(self, inputs, out, dout):
        x, mask = inputs
        reshape = cached_op(Reshape)
        n = shape_size(x.shape)
        flat_mask = reshape(mask, (n,))
        positions = self(Tensor(np.arange(n, dtype=np.int64)), flat_mask)
        summed = cached_op(UnsortedSegmentSum)(dout, positions, n)
        return reshape(summed, tuple(x.shape)), None
