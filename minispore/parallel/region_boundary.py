"""Where an `ms.shard` / `Cell.shard` region meets the code around it (mindspore_semantics.md
§6.2).

A region's body is the sharded function between boundary operators:

- an entry ``Identity`` per input with a user strategy (``in_strategy[i]``; None leaves the
  input in the layout it has, for propagation to decide), so the input is redistributed to
  that layout when the region starts;
- an exit ``Identity`` per output, fixed to the layout the region hands back: replicated under
  ``full_batch``, else dim 0 cut over every device (data parallel) -- preceded by one fixed to
  ``out_strategy[k]`` when the user gave one.

Being operators with user strategies, they are what sharding propagation starts from; every
node traced inside carries the ``SHARD_REGION`` annotation, so under semi_auto_parallel only
those nodes take propagated strategies.

In PYNATIVE the code around the region runs eagerly with each rank's own copy of every tensor,
so its gradients are *true* ones (each rank holds the whole gradient), while inside a region,
as in every partitioned graph, a cotangent of a replicated tensor is *partial* (the ranks'
copies add up to it; see minispore/ops/operations/comm_ops.py). `ScaleGrad` and
`_MirrorOperator` convert at the boundary (minispore/parallel/eager_region.py).
"""
from minispore.ops.operations._base import check_tensor
from minispore.ops.primitive import Aval, Primitive

__all__ = ["SHARD_REGION", "entry_identity", "exit_identities", "exit_cuts", "ScaleGrad"]

SHARD_REGION = "shard_region"


def _identity(strategy, name):
    from minispore.ops.operations.array_ops import Identity
    prim = Identity().shard((strategy,))
    prim.set_prim_instance_name(name)
    return prim


def entry_identity(strategy, index):
    """The entry operator of input `index` (None when its strategy is None)."""
    return None if strategy is None else _identity(strategy, f"shard_in{index}")


def exit_cuts(settings, shape):
    """How the region hands back an output of logical `shape`: replicated under full_batch,
    else dim 0 cut over every device when it divides (a scalar or an undividable dim 0 comes
    back whole)."""
    ndim = len(shape)
    n = settings.device_num
    if settings.dataset_strategy == "full_batch" or not ndim or shape[0] % n:
        return (1,) * ndim
    return (n,) + (1,) * (ndim - 1)


def exit_identities(out_strategy, index, cuts):
    """The exit operators of output `index`: out_strategy's layout first when given."""
    prims = []
    if out_strategy is not None and index < len(out_strategy):
        prims.append(_identity(out_strategy[index], f"shard_out{index}_strategy"))
    prims.append(_identity(cuts, f"shard_out{index}"))
    return prims


class ScaleGrad(Primitive):
    """Forward the identity; backward the cotangent times `scale` (a gradient-convention
    change at a PYNATIVE region's boundary)."""

    def __init__(self, scale):
        super().__init__()
        self.scale = float(scale)
        self.add_prim_attr("scale", self.scale)

    def infer(self, x):
        check_tensor(self, "x", x)
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        return x

    def bprop(self, inputs, out, dout):
        return (dout * self.scale,)
