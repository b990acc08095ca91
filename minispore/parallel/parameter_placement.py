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
all-reduces its gradient over the replicas -- only those of its server when an AdaSum wrap cell
(minispore/nn/optim/adasum.py) combines the servers' results itself.
"""
import logging
import math

from minispore.common.layout import TensorLayout, group_ranks
from minispore.parallel.param_slicing import fixed_layout, global_shape_of, slice_parameter

__all__ = ["place_parameter", "parameter_read_ops", "optimizer_shard_layout", "mark_adasum"]

logger = logging.getLogger("minispore")


def optimizer_shard_layout(layout, param, settings):
    """(`layout` with dim 0 also cut over s of the k devices `param` is replicated on, s), or
    None when optimizer parallel leaves it as it is (off, not trainable, not replicated, under
    parallel_optimizer_threshold, or a dim 0 the shard group does not divide -- logged).

    s is k, or ``optimizer_weight_shard_size`` when that is set (> 1): the replicas then form
    k / s groups of s consecutive positions (the innermost replica axes, an axis split in two
    where needed), each group holding one copy of the parameter cut s ways; the groups keep
    their copies equal through the mirror over the remaining replicas.
    """
    if not settings.optimizer_shard or not param.requires_grad or not param.parallel_optimizer:
        return None
    shape = global_shape_of(param)
    axes = layout.replica_axes()
    k = math.prod(layout.dev_matrix[a] for a in axes)
    if k == 1 or not shape:
        return None
    s = _shard_size(settings.optimizer_shard_size, k, param)
    nbytes = math.prod(shape) * param.dtype.np_dtype.itemsize
    if nbytes < settings.optimizer_threshold_kb * 1024:
        return None
    rows = layout.local_shape(shape)[0]
    if rows % s:
        logger.warning("Optimizer parallel: parameter '%s' is not sharded: dim 0 of its block "
                       "(%d rows) is not divisible by its %d-way shard group.", param.name, rows,
                       s)
        return None
    layout, cutters = _shard_group_axes(layout, sorted(axes, reverse=True), s)
    last = len(layout.dev_matrix) - 1
    first = layout.tensor_map[0]
    first = first if isinstance(first, tuple) else (() if first == -1 else (first,))
    cut = first + tuple(last - a for a in sorted(cutters))     # outermost first
    return TensorLayout(layout.dev_matrix, (cut if len(cut) > 1 else cut[0],)
                        + layout.tensor_map[1:]), s


def _shard_size(size, k, param):
    """The shard group size from optimizer_weight_shard_size (-1: every replica)."""
    if size in (-1, k):
        return k
    if size <= 1:
        if size != -1:
            logger.warning("parallel_optimizer_config optimizer_weight_shard_size=%d is ignored "
                           "(it must be > 1): parameter '%s' is sharded over all its %d "
                           "replicas.", size, param.name, k)
        return k
    if k % size:
        raise ValueError(f"parallel_optimizer_config optimizer_weight_shard_size={size} must "
                         f"divide the {k} devices parameter '{param.name}' is replicated on.")
    return size


def _shard_group_axes(layout, inner_first, s):
    """(layout, axes): the replica axes (left-counted) of size product s that cut dim 0,
    innermost first, splitting one replica axis (outer part, inner part) where s needs part
    of it; the returned layout is on the refined device matrix."""
    dev = list(layout.dev_matrix)
    tensor_map = layout.tensor_map
    chosen = []
    need = s
    for a in inner_first:
        if need == 1:
            break
        size = dev[a]
        if need % size == 0:
            chosen.append(a)
            need //= size
            continue
        if size % need:
            raise NotImplementedError(
                f"optimizer_weight_shard_size={s} does not fit the device matrix "
                f"{layout.dev_matrix} of the parameter (replica axis of size {size}).")
        # split axis a into (size // need, need): axes left of it move one place right-counted
        n = len(dev)
        dev[a:a + 1] = [size // need, need]
        pivot = n - 1 - a       # right-counted index of axis a before the split

        def shift(m):
            if isinstance(m, tuple):
                return tuple(shift(x) for x in m)
            return m + 1 if m != -1 and m >= pivot else m

        tensor_map = tuple(shift(m) for m in tensor_map)
        partial = tuple(p + 1 if p >= pivot else p for p in layout.partial)
        layout = TensorLayout(tuple(dev), tensor_map, partial)
        chosen = [c + 1 if c > a else c for c in chosen] + [a + 1]
        need = 1
    return layout, chosen


def place_parameter(param, want, settings):
    """Slice `param` on its first use (see the module docstring); returns its layout."""
    if param.layout is None:
        layout = fixed_layout(param, settings.device_num) or \
            TensorLayout(want.dev_matrix, want.tensor_map)
        sharded = None if param.is_param_ps else optimizer_shard_layout(layout, param, settings)
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
    server = getattr(param, "adasum_server_size", None)
    if server is not None:
        replicas = _adasum_mirror_group(param, sorted(replicas), settings, server)
    if len(replicas) > 1:
        ops.append(_MirrorOperator(group_name(settings.world_group(replicas)), len(replicas),
                                   settings.gradients_mean))
    k = getattr(param, "optimizer_shards", 1)
    if k > 1 and settings.gradients_mean:
        ops.append(ScaleGrad(1.0 / k))
    return ops


def mark_adasum(param, server_size):
    """An AdaSum wrap cell combines `param`'s gradient or update over the servers (of
    `server_size` devices) itself: its mirror then sums within its server only."""
    param.adasum_server_size = server_size


def _adasum_mirror_group(param, replicas, settings, server):
    """The replicas of `param` in this rank's server, as MindSpore's HandleMirrorInAdaSum cuts
    the mirror group: replicas `step` apart form groups of server / step. AdaSum then exchanges
    with the ranks a multiple of `server` away, which must hold the same block: a parameter
    whose replicas do not span every server at a spacing dividing `server` is refused."""
    step = (replicas[-1] - replicas[0]) // (len(replicas) - 1) if len(replicas) > 1 else 0
    regular = replicas == list(range(replicas[0], replicas[-1] + 1, step or 1))
    if not (0 < step < server and server % step == 0 and regular and
            len(replicas) * step == settings.device_num):
        raise NotImplementedError(
            f"AdaSum over parameter {param.name!r}: its replicas are positions {replicas} of "
            f"{settings.device_num} devices; minispore's AdaSum needs every parameter "
            f"replicated across all servers of {server} devices at a spacing dividing {server} "
            f"(MindSpore also handles a parameter sliced across servers).")
    size = server // step
    start = replicas.index(settings.rank) // size * size
    return replicas[start:start + size]
