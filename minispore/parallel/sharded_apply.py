"""`sharded_apply`: one operator on this rank's blocks under a decided strategy.

The per-operator step of operator parallelism (DESIGN.md "Parallel (SPMD) model"), shared by
the graph's `partition` pass and the eager SPMD interpreter of a PYNATIVE `shard` region:

1. every tensor argument is redistributed from the layout it has to the one the strategy
   needs (the planner of minispore/parallel/redistribution.py; each collective has a bprop,
   so the backward communication comes out of autodiff);
2. the operator runs on the blocks through ``prim.local_call(args, ctx)`` (operators whose
   attributes hold logical sizes, or that need more than their kernel on a block, override
   it);
3. pending reductions of each output are completed at once: AllReduce (SUM, MAX or MIN), or
   the ReduceScatter an out_strategy asks for; a mean over a cut dim is rescaled.

It only calls operators, so it runs under whichever interpreter is on top: traced into the
local graph by the partition pass, or eagerly.
"""
from contextlib import nullcontext

from minispore.common.layout import TensorLayout, group_ranks
from minispore.parallel.redistribution import group_name, redistribute
from minispore.parallel.rules import apply_strategy

__all__ = ["LocalContext", "sharded_apply"]


class LocalContext:
    """What ``Primitive.local_call`` may need to run an operator on this rank's blocks.

    in_layouts/out_layouts: the operator's TensorLayouts (outputs before their pending
    reductions are completed); global_in_shapes/global_out_shapes: logical shapes;
    out_shapes: the local shapes the outputs must have; rank: this process's mesh position.
    """

    def __init__(self, result, global_in, global_out, rank):
        self.result = result
        self.in_layouts = result.in_layouts
        self.out_layouts = result.out_layouts
        self.global_in_shapes = global_in
        self.global_out_shapes = global_out
        self.rank = rank
        self.out_shapes = tuple(lay.local_shape(s) for lay, s in zip(result.out_layouts,
                                                                       global_out))

    def block_offset(self, layout, global_shape, dim):
        """Where this rank's block of `dim` starts in the logical tensor."""
        return layout.local_slices(global_shape, self.rank)[dim].start


def _no_scope(where):
    return nullcontext()


def move(t, have, want, global_shape, settings, where=None, scoped=_no_scope):
    """`t` (this rank's block under `have`) as its block under `want`."""
    if have == want:
        return t
    with scoped(where):
        return redistribute(t, have, want, global_shape, settings.rank,
                            settings.enable_alltoall, mesh=settings.mesh)


def sharded_apply(prim, args, layouts, result, avals, global_out, settings, scope,
                  scoped=_no_scope):
    """Run `prim` on this rank's blocks; returns (outputs as a tuple, their layouts).

    args: the call's arguments with tensors as local blocks; layouts: {argument position:
    the layout that block has} for every tensor argument the rule sees, in order; result:
    the RuleResult of the decided strategy; avals: the call's arguments with tensors as their
    logical Avals; global_out: the logical output shapes; settings: the ParallelSettings;
    scope: the operator's scope (names errors and inserted nodes); ``scoped(where)``: a
    context manager under which inserted nodes are named (a no-op when running eagerly).
    """
    args = list(args)
    global_in = []
    for k, (i, want) in enumerate(zip(layouts, result.in_layouts)):
        shape = tuple(avals[i].shape)
        global_in.append(shape)
        args[i] = move(args[i], layouts[i], want, shape, settings,
                       f"{scope}.redistribution{k}", scoped)
    ctx = LocalContext(result, tuple(global_in), tuple(global_out), settings.rank)
    parent = scope.rsplit(".", 1)[0] if "." in scope else None
    with scoped(parent):
        outs = prim.local_call(args, ctx)
    outs = outs if isinstance(outs, tuple) else (outs,)
    done, final = [], []
    for o, t in enumerate(outs):
        t, layout = _complete(prim, scope, result, avals, o, t, global_out[o], settings, scoped)
        want = layout.local_shape(global_out[o])
        if tuple(t.shape) != want:
            raise RuntimeError(
                f"For '{prim.name}' (in {scope}), the local output {o} has shape "
                f"{tuple(t.shape)} but layout {layout} of the logical shape {global_out[o]} "
                f"needs {want}: the operator's attributes hold logical sizes that its "
                f"local_call does not rewrite.")
        done.append(t)
        final.append(layout)
    return tuple(done), tuple(final)


def _complete(prim, scope, result, avals, o, t, global_shape, settings, scoped):
    """Finish output o's pending reductions; returns (tensor, final layout)."""
    layout = result.out_layouts[o]
    ops = result.partial_ops[o]
    scatter = result.reduce_scatter[o]
    if not layout.partial and scatter is None:
        return _scaled(t, result.scales[o], scope, scoped), layout
    from minispore.ops.operations.comm_ops import AllReduce
    where = f"{scope}.reduction{o}"
    if scatter is not None:
        # The unscattered partial layout on the operator's own device matrix; the planner
        # turns partial -> cut into one ReduceScatter (refining the merged axis).
        raw = apply_strategy(prim, avals, result.strategy, settings.device_num,
                             scope=scope).out_layouts[o]
        t = move(t, raw, layout, global_shape, settings, where, scoped)
        return _scaled(t, result.scales[o], scope, scoped), layout
    with scoped(where):
        for axis in layout.partial:
            group = group_ranks(layout.dev_matrix, settings.rank, (layout.axis(axis),))
            t = AllReduce(ops[axis], group_name(settings.world_group(group)))(t)
    done = TensorLayout(layout.dev_matrix, layout.tensor_map)
    return _scaled(t, result.scales[o], scope, scoped), done


def _scaled(t, scale, scope, scoped):
    if scale == 1.0:
        return t
    from minispore.ops import functional as F
    with scoped(f"{scope}.mean"):
        return F.mul(t, scale)
