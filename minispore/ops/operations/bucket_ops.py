"""The operators of a gradient bucket, the one data-parallel mechanism of both modes
(nn/wrap/grad_reducer.py): `PackBucket` packs the gradients into one flat buffer, scaled by the
mean's 1/degree in the same pass; an all-reduce reduces it (`AllReduce` at once, or
`AllReduceStart` ... `AllReduceWait` with the rest of the backward in between); `BucketView`
hands each gradient back as a view of the reduced buffer, without a copy.

A compiled step traces PackBucket, AllReduce and BucketView, and its overlap pass
(parallel/comm/overlap.py) splits the AllReduce into a start and a wait; an eager step starts
each bucket from the backward's ready hooks and waits for it when the reducer runs. The same
operators on the same values: both modes reduce the same bits.

None has a bprop: they only run after autodiff. In a graph PackBucket writes into a memory-plan
buffer and a BucketView aliases its input, which the plan keeps alive as long as the view is
read (minispore/graph/arena.py).
"""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.communication.collectives import iallreduce
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.primitive import Aval, Primitive

__all__ = ["PackBucket", "BucketView", "AllReduceStart", "AllReduceWait", "progress"]

# Made by the data-parallel reducer and the overlap pass on each rank's own gradients, after
# the parallel passes have partitioned the step: never sharded.
_AFTER_PARTITION = "a gradient bucket of one rank, made after the step is partitioned"
_SCALED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


class PackBucket(Primitive):
    """flat = the inputs flattened one after another; with ``scaled``, the last input is a
    0-d factor every element is multiplied by."""
    differentiable = False
    writes_out = True
    sharding_rule = rules.replicate_only(_AFTER_PARTITION)

    def __init__(self, scaled):
        super().__init__()
        self.scaled = scaled
        self.add_prim_attr("scaled", scaled)

    def infer(self, *xs):
        grads = xs[:-1] if self.scaled else xs
        return Aval((sum(math.prod(g.shape) for g in grads),), grads[0].dtype)

    def impl(self, *arrays, out=None):
        grads, factor = (arrays[:-1], arrays[-1]) if self.scaled else (arrays, None)
        if out is None:
            out = device.empty((sum(g.size for g in grads),), grads[0].dtype)
        # float32/float64 scale in one vectorised loop; float16 goes through the mul ufunc
        # (computed in float32 and rounded, as every float16 product here is).
        scale = factor is not None and out.dtype in _SCALED_DTYPES
        if scale:
            factor = device.contiguous(factor, dtype=out.dtype).reshape(1)
        offset = 0
        for g in grads:
            piece = out[offset:offset + g.size]
            flat = device.contiguous(g).reshape(g.size)
            if factor is None:
                kernel("array", "cast")(flat, piece)
            elif scale:
                kernel("array", "scale")(flat, factor, piece)
            else:
                kernel("elementwise", "mul")(flat, factor, out=piece)
            offset += g.size
        return out


class BucketView(Primitive):
    """The gradient of `shape` at element `offset` of a reduced bucket: a view, no copy."""
    differentiable = False
    sharding_rule = rules.replicate_only(_AFTER_PARTITION)

    def __init__(self, offset, shape):
        super().__init__()
        self.offset, self.shape = offset, tuple(shape)
        self.add_prim_attr("offset", offset)
        self.add_prim_attr("shape", self.shape)

    def infer(self, flat):
        return Aval(self.shape, flat.dtype)

    def impl(self, flat):
        return flat[self.offset:self.offset + math.prod(self.shape)].reshape(self.shape)


class _Pending:
    """A started all-reduce: its handle, the inputs' shapes (the results have the same), and
    whether the results go back to the device."""
    __slots__ = ("handle", "shapes", "on_device")

    def __init__(self, handle, shapes, on_device):
        self.handle, self.shapes, self.on_device = handle, shapes, on_device


class AllReduceStart(Primitive):
    """Start an all-reduce (`op` over `group`) of the flat concatenation of `count` inputs.
    Its value is the pending operation, a token of no elements for `AllReduceWait` (in a graph
    the node's value; eagerly the data of the Tensor it returns).

    ``in_place``: one host input that nobody else reads (the eager reducer's freshly packed
    bucket) is reduced where it lies instead of in a packed copy."""
    differentiable = False
    sharding_rule = rules.replicate_only(_AFTER_PARTITION)
    replayable = False
    communication = True
    handle_output = True

    def __init__(self, op, group, count, in_place=False):
        super().__init__()
        self.op, self.group, self.in_place = op, group, in_place
        self.add_prim_attr("op", op)
        self.add_prim_attr("group", group)
        self.add_prim_attr("count", count)

    def infer(self, *xs):
        return Aval((0,), mstype.uint8)

    def impl(self, *arrays):
        if self.in_place and len(arrays) == 1 and type(arrays[0]) is np.ndarray \
                and arrays[0].flags.c_contiguous:
            (flat,) = arrays
            return _Pending(iallreduce(flat, self.op, self.group), [flat.shape], False)
        on_device = any(device.is_device_array(a) for a in arrays)
        host = [np.asarray(device.to_host(a)) for a in arrays]    # (0-d stays 0-d)
        flat = np.empty(sum(a.size for a in host), host[0].dtype)
        offset = 0
        for a in host:
            flat[offset:offset + a.size] = a.ravel()
            offset += a.size
        return _Pending(iallreduce(flat, self.op, self.group), [a.shape for a in host],
                        on_device)


class AllReduceWait(Primitive):
    """Complete the all-reduce an `AllReduceStart` began; returns each input's reduced value
    (one value for a single input, else a tuple), of the `avals` the inputs had."""
    differentiable = False
    sharding_rule = rules.replicate_only(_AFTER_PARTITION)
    replayable = False
    communication = True

    def __init__(self, avals):
        super().__init__()
        self.avals = tuple(avals)
        self.add_prim_attr("count", len(self.avals))

    def infer(self, pending):
        return self.avals if len(self.avals) > 1 else self.avals[0]

    def impl(self, pending):
        flat = pending.handle.wait()
        outs, offset = [], 0
        for shape in pending.shapes:
            n = math.prod(shape)
            out = flat[offset:offset + n].reshape(shape)
            outs.append(device.asarray(out) if pending.on_device else out)
            offset += n
        return tuple(outs) if len(outs) > 1 else outs[0]


def progress(token):
    """Let MPI move the all-reduce behind an eager `AllReduceStart`'s token forward: MPICH
    progresses non-blocking collectives only inside MPI calls (unless its progress thread is
    on), so the eager reducer pokes its started buckets while Python runs the backward."""
    token._require_data().handle.test()
