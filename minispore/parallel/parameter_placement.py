"""Where a parameter's block lives under operator parallelism, and what a read of it goes
through; shared by the partition pass and the eager shard regions.

A parameter is sliced on its first use (minispore/parallel/param_slicing.py) to its fixed
layout (a shard ``parameter_plan``), else to the layout its first consumer wants. Under
optimizer parallel (``enable_parallel_optimizer=True``, mindspore_semantics.md §10) a
trainable parameter replicated over some devices is also cut along dim 0 over those devices:
each rank then stores (and updates, with its optimizer state) 1/k of it. Its reads go back to
the consumers' layout through the redistribution planner -- an AllGather, whose bprop
ReduceScatters the gradient, so each rank receives the summed gradient of its own slice.

A parameter still replicated over devices reads through a `_MirrorOperator`, whose bprop
all-reduces its gradient over the replicas.
"""
import logging
import math

from minispore.common.layout import TensorLayout, group_ranks
from minispore.parallel.param_slicing import fixed_layout, global_shape_of, slice_parameter

__all__ = ["place_parameter", "parameter_read_ops", "optimizer_shard_layout"]

logger = logging.getLogger("minispore")


def optimizer_shard_layout(layout, param, settings):
    """(`layout` with dim 0 also cut over the k devices `param` is replicated on, k), or None
    when optimizer parallel leaves it as it is (off, not trainable, not replicated, under
    parallel_optimizer_threshold, or a dim 0 the replicas do not divide -- logged)."""
    if not settings.optimizer_shard or not param.requires_grad or not param.parallel_optimizer:
        return None
    shape = global_shape_of(param)
    axes = layout.replica_axes()
    k = math.prod(layout.dev_matrix[a] for a in axes)
    if k == 1 or not shape:
        return None
    if settings.optimizer_shard_size not in (-1, k):
        raise NotImplementedError(
            f"parallel_optimizer_config optimizer_weight_shard_size="
            f"{settings.optimizer_shard_size} is not implemented in minispore: parameter "
            f"'{param.name}' is replicated over {k} devices and is sharded over all of them; "
            f"use -1 (the default) or {k}.")
    nbytes = math.prod(shape) * param.dtype.np_dtype.itemsize
    if nbytes < settings.optimizer_threshold_kb * 1024:
        return None
    rows = layout.local_shape(shape)[0]
    if rows % k:
        logger.warning("Optimizer parallel: parameter '%s' is not sharded: dim 0 of its block "
                       "(%d rows) is not divisible by its %d replicas.", param.name, rows, k)
        return None
    last = len(layout.dev_matrix) - 1
    first = layout.tensor_map[0]
    first = first if isinstance(first, tuple) else (() if first == -1 else (first,))
    cut = first + tuple(last - a for a in axes)      # the replicas cut inside the block
    return TensorLayout(layout.dev_matrix, (cut if len(cut) > 1 else cut[0],)
                        + layout.tensor_map[1:]), k


def place_parameter(param, want, settings):
    """Slice `param` on its first use (see the module docstring); returns its layout."""
    if param.layout is None:
        layout = fixed_layout(param, settings.device_num) or \
            TensorLayout(want.dev_matrix, want.tensor_map)
        sharded = optimizer_shard_layout(layout, param, settings)
        if sharded is not None:
            layout, param.optimizer_shards = sharded
        slice_parameter(param, layout, settings.rank, settings.mesh)
    return param.layout


def parameter_read_ops(param, settings):
    """The operators a read of `param` goes through, in order: a mirror over the devices it
    is still replicated on, and under gradients_mean the 1/k gradient scale of an optimizer
    sharded one (as the mirror's mean does for the replicas it replaces)."""
    from minispore.ops.operations.comm_ops import _MirrorOperator
    from minispore.parallel.redistribution import group_name
    from minispore.parallel.region_boundary import ScaleGrad
    if not param.requires_grad:
        return []
    layout = param.layout
    ops = []
    replicas = group_ranks(layout.dev_matrix, settings.rank, layout.replica_axes())
    if len(replicas) > 1:
        ops.append(_MirrorOperator(group_name(settings.world_group(replicas)), len(replicas),
                                   settings.gradients_mean))
    k = getattr(param, "optimizer_shards", 1)
    if k > 1 and settings.gradients_mean:
        ops.append(ScaleGrad(1.0 / k))
    return ops
