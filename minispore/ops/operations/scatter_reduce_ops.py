"""ScatterRows: the one primitive under MindSpore's reducing scatters (Scatter*, ScatterNd*,
TensorScatterMul/Div/Max/Min, UnsortedSegmentMax/Min/Prod, IndexAdd, Inplace*; their argument
checks live in ops/function/scatter_reduce_func.py). Kernels: kernels/{cpu,cuda}/
scatter_reduce.py."""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_dtype, check_tensor, contiguous,
                                            shapes_equal)
from minispore.ops.operations.array_ops import Cast, OnesLike, ZerosLike
from minispore.ops.operations.indexing_ops import Gather
from minispore.ops.operations.math_ops import Add, Equal, Mul, Neg, RealDiv, Select
from minispore.ops.operations.scatter_ops import _copy
from minispore.ops.primitive import Aval, Primitive

__all__ = []    # internal: the public names are the compositions of scatter_reduce_func.py

# The kernels' reduction codes (kernels/cpu/scatter_reduce.py).
REDUCTIONS = ("update", "add", "sub", "mul", "div", "max", "min")


class ScatterRows(Primitive):
    """out = x with, for j in order, out[o, index[j], c] = reduce(out[o, index[j], c],
    updates[o, j, c]): ScatterRows(reduction, op_name)(x, index, updates) on x (O, R, C),
    index (n,) int32/int64 in [0, R), updates (O, n, C) of x's dtype. Repeated rows fold every
    update in index order ("update": the last stays), MindSpore's CPU result, on both devices.
    An index outside [0, R) raises `range_error` (RuntimeError, or ValueError as
    MindSpore's ScatterNdUpdate does) naming `op_name` (the public operator).

    Gradients (MindSpore's TensorScatter* bprops, written so repeated rows stay right where
    MindSpore's assume none): add/sub/update as TensorScatterAdd/Sub/Update; mul: x gets
    dout scattered-multiplied by updates, updates get gather(dout * out) / updates (x's row
    times dout where an update is 0); div: x gets dout scattered-divided, updates
    -gather(dout * out) / updates; max/min: dout shared among x and the updates equal to the
    result.
    """
    sharding_rule = rules.replicate_only("each update writes a data-dependent row of x")
    float16_in_float32 = True      # Numba has no float16 arithmetic; exact in float32

    def __init__(self, reduction="update", op_name="ScatterRows", range_error="RuntimeError"):
        super().__init__()
        if reduction not in REDUCTIONS:
            raise ValueError(f"For 'ScatterRows', 'reduction' must be one of {REDUCTIONS}, "
                             f"but got {reduction!r}.")
        if range_error not in ("RuntimeError", "ValueError"):
            raise ValueError(f"For 'ScatterRows', 'range_error' must be 'RuntimeError' or "
                             f"'ValueError', but got {range_error!r}.")
        self.reduction, self.op_name = reduction, op_name
        self.range_error = ValueError if range_error == "ValueError" else RuntimeError
        self.add_prim_attr("reduction", reduction)

    def infer(self, x, index, updates):
        check_tensor(self, "x", x)
        check_tensor(self, "index", index)
        check_tensor(self, "updates", updates)
        check_dtype(self, "index", index, (mstype.int32, mstype.int64))
        if x.ndim != 3 or index.ndim != 1 or updates.ndim != 3:
            raise self.error(f"x and updates must be 3-D and index 1-D, but got shapes "
                             f"{tuple(x.shape)}, {tuple(index.shape)}, {tuple(updates.shape)}.")
        # An index or updates of dynamic length (GRAPH mode's set_inputs) are held to each
        # other when the kernel runs: a dynamic dim is never linked to a static one.
        static = isinstance(index.shape[0], int) and isinstance(updates.shape[1], int)
        n = index.shape[0] if static else updates.shape[1]
        want = (x.shape[0], n, x.shape[2])
        if not shapes_equal(self, updates.shape, want):
            raise self.error(f"updates must have shape {want}, but got "
                             f"{tuple(updates.shape)}.")
        if updates.dtype != x.dtype:
            raise self.error(f"updates must have x's dtype {x.dtype}, but got "
                             f"{updates.dtype}.", TypeError)
        return Aval(tuple(x.shape), x.dtype)

    def impl(self, x, index, updates):
        if index.shape[0] != updates.shape[1]:
            raise ValueError(f"For '{self.op_name}', the number of indices must equal the "
                             f"rows of the updates ({updates.shape[1]}), but got "
                             f"{index.shape[0]}.")
        out = _copy(x)
        index = contiguous(index)
        bad = kernel("scatter_reduce", "scatter_rows")(out, index, contiguous(updates),
                                                       REDUCTIONS.index(self.reduction))
        if bad >= 0:
            value = int(device.to_host(index[bad:bad + 1])[0])
            raise self.range_error(f"For '{self.op_name}', the value of indices should be in "
                                   f"[0, {x.shape[1]}), but got '{value}' in indices.")
        return out

    def bprop(self, inputs, out, dout):
        x, index, updates = inputs
        gather, mul = cached_op(Gather), cached_op(Mul)
        rows = gather(dout, index, 1)
        kind = self.reduction
        if kind == "add":
            return dout, None, rows
        if kind == "sub":
            return dout, None, cached_op(Neg)(rows)
        if kind == "update":
            return self(dout, index, cached_op(ZerosLike)(updates)), None, rows
        if kind in ("mul", "div"):
            dx = self(dout, index, updates)
            zero = cached_op(Equal)(updates, cached_op(ZerosLike)(updates))
            safe = cached_op(Select)(zero, cached_op(OnesLike)(updates), updates)
            dupd = cached_op(RealDiv)(gather(mul(dout, out), index, 1), safe)
            if kind == "div":
                return dx, None, cached_op(Neg)(dupd)
            return dx, None, cached_op(Select)(zero, mul(gather(x, index, 1), rows), dupd)
        # max / min: dout split evenly among x and the updates that equal the result.
        cast = cached_op(Cast)
        x_hit = cast(cached_op(Equal)(x, out), dout.dtype)
        upd_hit = cast(cached_op(Equal)(updates, gather(out, index, 1)), dout.dtype)
        count = cached_op(Add)(x_hit, cached_op(ScatterRows, "add", self.op_name)(
            cached_op(ZerosLike)(x_hit), index, upd_hit))
        share = cached_op(RealDiv)(dout, count)
        return mul(share, x_hit), None, mul(gather(share, index, 1), upd_hit)


def reduction_identity(reduction, dtype):
    """The start value of an empty segment for UnsortedSegment{Max,Min,Prod}: MindSpore's
    lowest / highest finite value of the dtype, or 1."""
    if reduction == "mul":
        return 1
    info = np.finfo(dtype) if np.issubdtype(dtype, np.floating) else np.iinfo(dtype)
    return info.min if reduction == "max" else info.max
