"""The two graph nodes of a traced data-parallel gradient bucket around its AllReduce:
`PackBucket` packs the gradients into one flat buffer, scaled by the mean's 1/degree in the
same pass (what the eager reducer does while packing, so both modes reduce the same bits), and
`BucketView` hands each gradient back as a view of the reduced buffer, without a copy.

They exist only in compiled graphs (DistributedGradReducer._traced), after autodiff, so they
have no bprop. PackBucket writes into a memory-plan buffer; a BucketView aliases its input,
which the plan keeps alive as long as the view is read (minispore/graph/arena.py).
"""
import math

from minispore import device
from minispore.ops.kernel_registry import kernel
from minispore.ops.primitive import Aval, Primitive


class PackBucket(Primitive):
    """flat = the inputs flattened one after another; with ``scaled``, the last input is a
    0-d factor every element is multiplied by."""
    differentiable = False
    writes_out = True

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
        offset = 0
        for g in grads:
            piece = out[offset:offset + g.size]
            flat = device.contiguous(g).reshape(g.size)
            if factor is None:
                kernel("array", "cast")(flat, piece)
            else:
                kernel("elementwise", "mul")(flat, factor, out=piece)
            offset += g.size
        return out


class BucketView(Primitive):
    """The gradient of `shape` at element `offset` of a reduced bucket: a view, no copy."""
    differentiable = False

    def __init__(self, offset, shape):
        super().__init__()
        self.offset, self.shape = offset, tuple(shape)
        self.add_prim_attr("offset", offset)
        self.add_prim_attr("shape", self.shape)

    def infer(self, flat):
        return Aval(self.shape, flat.dtype)

    def impl(self, flat):
        return flat[self.offset:self.offset + math.prod(self.shape)].reshape(self.shape)
