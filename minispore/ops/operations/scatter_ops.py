"""Element-wise gathers and scatters along one axis: GatherD (MindSpore's gather_elements /
gather_d) and TensorScatterElements (scatter, tensor_scatter_elements). Kernels:
kernels/{cpu,cuda}/scatter.py."""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.casting import cast_array
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import cached_op, check_dtype, check_tensor, contiguous
from minispore.ops.operations.array_ops import (Cast, Reshape, ZerosLike, c_strides, movable,
                                                strided_copy)
from minispore.ops.operations.indexing_ops import UnsortedSegmentSum
from minispore.ops.operations.math_ops import Add, FloorMod, Mul
from minispore.ops.primitive import Aval, Primitive

__all__ = ["GatherD", "TensorScatterElements"]

_INDEX_TYPES = (mstype.int32, mstype.int64)


def _dim_of(prim, dim, ndim):
    """dim in [-rank, rank) (a 0-d tensor counts as rank 1) -> [0, rank)."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise prim.error(f"'dim' must be an int, but got {type(dim).__name__}.", TypeError)
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise prim.error(f"the dim value must be in [{-rank}, {rank}), but got {dim}.")
    return int(dim) % rank


def scatter_add_d(shape, dim, index, updates):
    """zeros(shape) with updates[p] added at p with p[dim] replaced by index[p] (index in
    [-shape[dim], shape[dim]), updates of index's shape, every other extent <= shape's): the
    transpose of GatherD, written as one UnsortedSegmentSum over the flat positions, so
    repeated positions accumulate and it differentiates in turn (a GatherD)."""
    shape, ishape = tuple(int(s) for s in shape), tuple(int(s) for s in index.shape)
    strides = c_strides(shape) if shape else [1]
    size = max(math.prod(shape), 1)
    # The flat offset of every index position with its coordinate along dim left out.
    grid = np.indices(ishape, dtype=np.int64) if ishape else np.zeros((0,), np.int64)
    base = sum((grid[d] * strides[d] for d in range(len(ishape)) if d != dim),
               np.zeros(ishape, np.int64))
    reshape = cached_op(Reshape)
    along = cached_op(FloorMod)(cached_op(Cast)(index, mstype.int64),
                                Tensor(np.int64(shape[dim] if shape else 1)))
    flat = cached_op(Add)(cached_op(Mul)(along, Tensor(np.int64(strides[dim]))),
                          Tensor(np.asarray(base, np.int64)))
    summed = cached_op(UnsortedSegmentSum)(reshape(updates, (-1,)), reshape(flat, (-1,)), size)
    return reshape(summed, shape)


class GatherD(Primitive):
    """out[p] = x[p with p[dim] replaced by index[p]]: GatherD()(x, dim, index), MindSpore's
    gather_elements (torch.gather).

    x: any dtype; index: int32/int64 of x's rank, index.shape[d] <= x.shape[d] for d != dim
    (longer or shorter along dim); out has index's shape and x's dtype. An index in [-D, 0)
    counts from the end (D = x.shape[dim]); one outside [-D, D) raises RuntimeError, as
    MindSpore 2.7.2's kernel does. Gradient: dout scatter-added into zeros of x's shape at the
    gathered positions (repeated positions accumulate); none for dim and index.

    >>> import numpy as np, minispore as ms
    >>> x = ms.Tensor(np.array([[1., 2.], [3., 4.]], np.float32))
    >>> ms.ops.GatherD()(x, 1, ms.Tensor(np.array([[0, 0], [1, 0]], np.int32))).asnumpy().tolist()
    [[1.0, 1.0], [4.0, 3.0]]
    """
    sharding_rule = rules.replicate_only(
        "each output element reads a data-dependent position along dim of x")

    def __call__(self, x, dim, index):
        if isinstance(dim, Tensor) and not dim.traced and dim.ndim == 0:
            dim = int(dim)          # MindSpore takes dim as an int or a 0-d int tensor
        return super().__call__(x, dim, index)

    def infer(self, x, dim, index):
        check_tensor(self, "x", x)
        check_tensor(self, "index", index)
        check_dtype(self, "index", index, _INDEX_TYPES)
        dim = _dim_of(self, dim, x.ndim)
        if index.ndim != x.ndim:
            raise self.error(f"the rank of 'index' must equal the rank of 'x' ({x.ndim}), but "
                             f"got index.shape {tuple(index.shape)} for x.shape "
                             f"{tuple(x.shape)}.")
        for d, (i, n) in enumerate(zip(index.shape, x.shape)):
            if d != dim and isinstance(i, int) and isinstance(n, int) and i > n:
                raise self.error(f"index.shape[{d}] = {i} must be <= x.shape[{d}] = {n} (every "
                                 f"dim but 'dim' = {dim}), but got index.shape "
                                 f"{tuple(index.shape)} for x.shape {tuple(x.shape)}.")
        return Aval(tuple(index.shape), x.dtype)

    def impl(self, x, dim, index):
        dim = _dim_of(self, dim, x.ndim)
        size = int(x.shape[dim]) if x.ndim else 1
        out = device.empty(index.shape, x.dtype)
        bad = kernel("scatter", "gather_d")(
            movable(contiguous(x)).reshape(-1), np.asarray(c_strides(x.shape), np.int64),
            contiguous(index).reshape(-1), np.asarray(index.shape, np.int64), dim, size,
            movable(out).reshape(-1))
        if bad >= 0:
            value = int(device.to_host(contiguous(index).reshape(-1)[bad:bad + 1])[0])
            raise self.error(f"the value of 'index' must be in [{-size}, {size}), but got: "
                             f"{value}.", RuntimeError)
        return out

    def bprop(self, inputs, out, dout):
        x, dim, index = inputs
        return scatter_add_d(x.shape, _dim_of(self, dim, x.ndim), index, dout), None, None


def _copy(x):
    """A fresh C-contiguous copy of x (the scatter kernels write into it in place)."""
    out = device.empty(x.shape, x.dtype)
    strides = c_strides(x.shape)
    strided_copy(x, 0, out, 0, x.shape, strides, strides)
    return out


class TensorScatterElements(Primitive):
    """out = input_x with out[p with p[axis] replaced by indices[p]] = updates[p] for every
    position p of indices (``reduction="add"``: += , repeated positions accumulate):
    TensorScatterElements(axis=0, reduction="none")(input_x, indices, updates), torch's
    scatter / scatter_add.

    indices: int32/int64 of input_x's rank, indices.shape[d] <= input_x.shape[d] for d != axis;
    updates: indices' shape, input_x's dtype. An index in [-D, 0) counts from the end; one
    outside [-D, D) raises RuntimeError (MindSpore 2.7.2's CPU kernel leaves such an update
    out silently: minispore refuses it rather than drop data). Of repeated positions without
    reduction the last update stays on the CPU; on the GPU which one stays is not defined, as
    in MindSpore. Gradients (MindSpore's): input_x gets dout with the scattered positions
    zeroed ("none") or dout itself ("add"); updates get dout gathered at indices (GatherD).
    """
    sharding_rule = rules.replicate_only(
        "each update writes a data-dependent position along axis of the output")
    # The CPU has no float16 and the GPU no float16 atomics: scattered in float32, exactly.
    float16_in_float32 = True

    def __init__(self, axis=0, reduction="none"):
        super().__init__()
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise TypeError(f"For '{self.name}', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        if reduction not in ("none", "add"):
            raise ValueError(f"For '{self.name}', 'reduction' must be 'none' or 'add', but got "
                             f"{reduction!r}.")
        self.axis, self.reduction = int(axis), reduction
        self.add_prim_attr("axis", self.axis)
        self.add_prim_attr("reduction", reduction)

    def infer(self, x, indices, updates):
        check_tensor(self, "input_x", x)
        check_tensor(self, "indices", indices)
        check_tensor(self, "updates", updates)
        check_dtype(self, "indices", indices, _INDEX_TYPES)
        if updates.dtype != x.dtype:
            raise self.error(f"'updates' must have the dtype of 'input_x' ({x.dtype}), but got "
                             f"{updates.dtype}.", TypeError)
        axis = _dim_of(self, self.axis, x.ndim)
        if tuple(indices.shape) != tuple(updates.shape):
            raise self.error(f"the shape of 'indices' and the shape of 'updates' must be the "
                             f"same, but got indices shape {tuple(indices.shape)} and updates "
                             f"shape {tuple(updates.shape)}.")
        if indices.ndim != x.ndim:
            raise self.error(f"the rank of 'indices' must equal the rank of 'input_x' "
                             f"({x.ndim}), but got indices.shape {tuple(indices.shape)}.")
        for d, (i, n) in enumerate(zip(indices.shape, x.shape)):
            if d != axis and isinstance(i, int) and isinstance(n, int) and i > n:
                raise self.error(f"indices.shape[{d}] = {i} must be <= input_x.shape[{d}] = "
                                 f"{n} (every dim but axis = {axis}), but got indices shape "
                                 f"{tuple(indices.shape)} for input_x shape {tuple(x.shape)}.")
        return Aval(tuple(x.shape), x.dtype)

    def impl(self, x, indices, updates):
        axis = _dim_of(self, self.axis, x.ndim)
        size = int(x.shape[axis]) if x.ndim else 1
        accumulate = self.reduction == "add"
        out = _copy(x)
        flat = out.reshape(-1)
        if accumulate and x.dtype == np.bool_:     # True + True is True: summed as uint8
            flat = flat.view(np.uint8)
            updates = contiguous(updates).view(np.uint8)
        elif not accumulate:
            flat, updates = movable(flat), movable(contiguous(updates))
        bad = kernel("scatter", "scatter_elements")(
            flat, np.asarray(c_strides(x.shape), np.int64), contiguous(indices).reshape(-1),
            np.asarray(indices.shape, np.int64), contiguous(updates).reshape(-1), axis, size,
            accumulate)
        if bad >= 0:
            value = int(device.to_host(contiguous(indices).reshape(-1)[bad:bad + 1])[0])
            raise self.error(f"the value of 'indices' must be in [{-size}, {size}), but got: "
                             f"{value}.", RuntimeError)
        if accumulate and x.dtype == np.bool_:
            out = cast_array(out.view(np.uint8), np.bool_)     # counts -> any
        return out

    def bprop(self, inputs, out, dout):
        _, indices, updates = inputs
        axis = self.axis
        dupdates = cached_op(GatherD)(dout, axis, indices)
        if self.reduction == "add":
            return dout, None, dupdates
        dx = self(dout, indices, cached_op(ZerosLike)(updates))
        return dx, None, dupdates
