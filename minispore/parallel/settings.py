"""What operator parallelism needs from the auto-parallel context, read once per compile: the
mode, the mesh of devices the program runs on (the whole world of workers, or a sub-mesh),
this rank's position in it, and how dataset inputs lie over the devices.

Logical vs local inputs (mindspore_semantics.md §2.5): under ``dataset_strategy=
"data_parallel"`` each rank feeds its own local batch and the graph sees the logical batch
local x devices (dim 0 cut over all devices); under ``"full_batch"`` every rank feeds the whole
logical input; with a tuple, dim d of input i is cut ``dataset_strategy[i][d]`` ways and the
rank feeds its block.
"""
from dataclasses import dataclass

from minispore.common.auto_parallel_context import (ParallelMode, get_auto_parallel_context,
                                                    optimizer_shard_settings,
                                                    strategy_ckpt_files, user_set)
from minispore.common.layout import TensorLayout
from minispore.common.mesh import DeviceMesh
from minispore.common.registry import REGISTRY

__all__ = ["ParallelSettings", "get_device_num", "layout_of_cuts", "operator_parallel_settings"]

_OPERATOR_PARALLEL = (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL)


@dataclass(frozen=True)
class ParallelSettings:
    """``device_num`` devices of ``mesh``; ``rank`` is this process's position in the mesh
    (layouts and blocks are computed with positions; groups map to world ranks through the
    mesh)."""
    device_num: int
    rank: int
    dataset_strategy: object          # "data_parallel" | "full_batch" | tuple of tuples
    enable_alltoall: bool
    gradients_mean: bool
    loss_repeated_mean: bool = True
    mesh: DeviceMesh = None
    search_mode: str = None           # auto_parallel's search_mode, else None
    strategy_load_file: str = ""      # strategy checkpoints (minispore/parallel/strategy/ckpt.py)
    strategy_save_file: str = ""
    strategy_trainable_only: bool = True
    optimizer_shard: bool = False     # optimizer parallel (parameter_placement.py)
    optimizer_threshold_kb: int = 64
    optimizer_shard_size: int = -1
    # each micro-batch gathers the sliced weights again, so its gradient is reduce-scattered
    # at once and only slices are summed over the micro-batches
    gradient_accumulation_shard: bool = False
    # Data parallel (with optimizer parallel) runs through these passes; without
    # gradients_mean it sums the ranks' gradients of their own batch's mean loss: device_num
    # times the logical batch's, so the gradient's seed is scaled by this.
    gradient_seed_scale: int = 1
    # MS_INTERFERED_SAPP=1: recursive_programming keeps the user's strategies (search.py)
    interfered_sapp: bool = False

    def world_group(self, positions):
        """The world ranks of a group given as mesh positions."""
        return self.mesh.world_ranks(positions) if self.mesh is not None else tuple(positions)

    def input_cuts(self, index, ndim):
        """How many ways each dim of graph input `index` (rank `ndim`) is cut."""
        if ndim == 0 or self.dataset_strategy == "full_batch":
            return (1,) * ndim
        if self.dataset_strategy == "data_parallel":
            return (self.device_num,) + (1,) * (ndim - 1)
        if index >= len(self.dataset_strategy):
            raise ValueError(f"dataset_strategy {self.dataset_strategy} has "
                             f"{len(self.dataset_strategy)} entries, but the network has an "
                             f"input {index}; give one strategy per dataset column.")
        cuts = tuple(self.dataset_strategy[index])
        if len(cuts) != ndim:
            raise ValueError(f"dataset_strategy[{index}] = {cuts} has {len(cuts)} values, but "
                             f"input {index} has rank {ndim}.")
        return cuts

    def input_layout(self, index, ndim):
        """The layout of graph input `index` (see `layout_of_cuts`). When the cuts use fewer
        devices than there are, the blocks repeat over the ranks outermost, as MindSpore lays
        out a dataset strategy: rank r feeds block r mod (number of blocks), which is what the
        dataset_slice tutorial's ``img_cols[get_rank() % (h * w)]`` picks."""
        cuts = self.input_cuts(index, ndim)
        try:
            return layout_of_cuts(cuts, self.device_num, repeat_outermost=True)
        except ValueError as e:
            raise ValueError(f"dataset_strategy for input {index}: {e}") from None

    def output_layout(self, shape, batch):
        """The layout a returned tensor of logical `shape` comes back in, as the user would
        feed it: under data_parallel one whose dim 0 is the logical `batch` is this rank's
        rows, anything else whole."""
        n, ndim = self.device_num, len(shape)
        if (self.dataset_strategy == "data_parallel" and ndim and batch is not None
                and shape[0] == batch):
            return TensorLayout((n,), (0,) + (-1,) * (ndim - 1))
        return TensorLayout((n,), (-1,) * ndim)

    def logical_shape(self, index, local_shape):
        """The logical shape of input `index` whose block on this rank has `local_shape`."""
        return tuple(d * c for d, c in zip(local_shape, self.input_cuts(index, len(local_shape))))

    def check_fed_blocks(self, local_shapes, who):
        """Raise ValueError on every rank when the mesh's ranks were fed inputs of different
        shapes. The cuts are even, so equal blocks of one logical input have one shape; a rank
        fed another (a smaller last batch on one rank, say) would run a graph of another logical
        shape whose collectives still match in size: wrong numbers and no error. One AllGather
        of the shapes (a fingerprint and the first dims) per call, about 5 us on 2 ranks."""
        import zlib

        import numpy as np

        from minispore.communication.collectives import all_gather_control
        from minispore.parallel.redistribution import group_name
        if self.device_num == 1:      # a pipeline stage of one device
            return
        flat = [len(local_shapes)]
        for shape in local_shapes:
            flat += [len(shape), *shape]
        row = np.zeros(_FED_SLOTS, np.int64)
        row[0] = zlib.crc32(np.asarray(flat, np.int64).tobytes())
        head = flat[:_FED_SLOTS - 1]
        row[1:1 + len(head)] = head
        ranks = self.world_group(range(self.device_num))
        rows = all_gather_control(row[None], group_name(ranks))
        if (rows[:, 0] == row[0]).all():
            return
        fed = "; ".join(f"rank {r}: {_shapes_text(list(x[1:]))}" for r, x in zip(ranks, rows))
        raise ValueError(f"For '{who}', the ranks were fed inputs of different shapes ({fed}). "
                         f"Under {self.dataset_strategy!r} every rank feeds an equal block of "
                         f"each logical input (dataset_strategy cuts evenly); give every rank "
                         f"batches of one size, e.g. batch(..., drop_remainder=True).")


_FED_SLOTS = 16    # check_fed_blocks: a fingerprint and the first 15 numbers of the shapes


def _shapes_text(flat):
    """The input shapes from check_fed_blocks' row (count, then rank and dims of each), as far
    as the row holds them."""
    count, rest, shapes = flat[0], flat[1:], []
    while rest and len(shapes) < count:
        ndim = rest[0]
        if len(rest) < 1 + ndim:
            shapes.append("...")
            break
        shapes.append(str(tuple(int(d) for d in rest[1:1 + ndim])))
        rest = rest[1 + ndim:]
    return ", ".join(shapes) if shapes else "..."


def layout_of_cuts(cuts, device_num, repeat_outermost=False):
    """The layout of a tensor whose dim d is cut ``cuts[d]`` ways over `device_num` devices:
    its cut dims on device-matrix axes in dim order (outermost first), and a repeat axis for
    the devices the cuts do not use, innermost (consecutive ranks hold the same block) or,
    with `repeat_outermost`, outermost (rank r holds block r mod the number of blocks)."""
    used = 1
    for c in cuts:
        used *= c
    if used > device_num or device_num % used:
        raise ValueError(f"the cuts {tuple(cuts)} make {used} blocks, which does not divide "
                         f"device_num {device_num}.")
    dev = [c for c in cuts if c > 1]
    first = 0       # the left-counted device-matrix axis of the first cut
    if device_num // used > 1:
        if repeat_outermost:
            dev.insert(0, device_num // used)
            first = 1
        else:
            dev.append(device_num // used)
    dev = tuple(dev) or (device_num,)
    tmap, axis = [], first
    for c in cuts:
        if c > 1:
            tmap.append(len(dev) - 1 - axis)
            axis += 1
        else:
            tmap.append(-1)
    return TensorLayout(dev, tuple(tmap))


def get_device_num():
    """The number of devices the parallel features use, as MindSpore's _get_device_num
    (parallel/_utils.py) gives it: 1 under stand_alone; the device_num the script set; else,
    once init() ran, the world's size (so init(), reset_auto_parallel_context() and then a
    parallel_mode without device_num still shards over every rank); else 1."""
    if get_auto_parallel_context("parallel_mode") == ParallelMode.STAND_ALONE:
        return 1
    if user_set("device_num"):
        return get_auto_parallel_context("device_num")
    from minispore.communication._comm import STATE
    return STATE.world.size if STATE.inited else get_auto_parallel_context("device_num")


def _optimizer_sharded_data_parallel():
    """Data parallel with optimizer parallel compiles through the operator-parallel passes with
    every operator's data-parallel default strategy (the replicated parameters are what
    optimizer parallel slices)."""
    return get_auto_parallel_context("parallel_mode") == ParallelMode.DATA_PARALLEL and \
        get_auto_parallel_context("enable_parallel_optimizer")


def operator_parallel_settings(mesh=None, stages=1):
    """The settings when operators are sharded (semi-auto or auto parallel on more than one
    device), else None. `mesh`: the DeviceMesh the program runs on (default: every worker of
    the world); its size must equal device_num, or device_num / `stages` for the mesh of one
    pipeline stage (which gets settings even with one device: the stage's program is
    partitioned like every other stage's).

    Raises:
        RuntimeError: an operator-parallel mode with device_num > 1 but no init(), a
            device_num that differs from the mesh's size, or a process outside the mesh.
    """
    data_parallel = _optimizer_sharded_data_parallel()
    if get_auto_parallel_context("parallel_mode") not in _OPERATOR_PARALLEL and \
            not data_parallel:
        return None
    device_num = get_device_num() // stages
    if device_num <= 1 and stages == 1:
        return None
    from minispore.communication._comm import STATE
    if not STATE.inited:
        raise RuntimeError(f"parallel_mode {get_auto_parallel_context('parallel_mode')!r} with "
                           f"device_num={device_num} needs the communication service: call "
                           f"minispore.communication.init() first (and launch with mpirun -n "
                           f"{device_num}).")
    if mesh is None:
        mesh = DeviceMesh(range(STATE.world.size))
        if mesh.size != device_num:
            raise RuntimeError(f"device_num={device_num} in set_auto_parallel_context, but the "
                               f"job has {STATE.world.size} ranks; they must be equal (launch "
                               f"with mpirun -n {device_num}).")
    elif mesh.size != device_num:
        raise RuntimeError(f"device_num={device_num} in set_auto_parallel_context, but the "
                           f"device mesh {mesh.ranks} has {mesh.size} ranks; they must be "
                           f"equal.")
    strategy = get_auto_parallel_context("dataset_strategy")
    if get_auto_parallel_context("full_batch"):
        strategy = "full_batch"
    search = None
    if get_auto_parallel_context("parallel_mode") == ParallelMode.AUTO_PARALLEL:
        search = get_auto_parallel_context("search_mode")
    # Under data parallel the loss is the logical batch's mean, whose gradient is what
    # gradients_mean=True gives; the mirrors therefore only sum (see partition's gradient seed).
    gradients_mean = bool(get_auto_parallel_context("gradients_mean")) and not data_parallel
    return ParallelSettings(device_num, mesh.position(STATE.world.rank), strategy,
                            bool(get_auto_parallel_context("enable_alltoall")), gradients_mean,
                            bool(get_auto_parallel_context("loss_repeated_mean")), mesh,
                            search, *strategy_ckpt_files(), *optimizer_shard_settings(),
                            gradient_seed_scale=device_num if data_parallel and not
                            get_auto_parallel_context("gradients_mean") else 1,
                            interfered_sapp=REGISTRY.env("MS_INTERFERED_SAPP"))
