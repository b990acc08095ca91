"""The management API (MindSpore's mindspore.communication.management): init, ranks, groups, release.

All backends run on MPI (mpi4py). The names "hccl" and "nccl" are accepted so MindSpore scripts
run unchanged; "mccl" (MindSpore's CPU backend) and "mpi" are the native names. Start the
processes with ``mpirun -n N python script.py``, or as MindSpore's dynamic cluster (one
MS_ROLE=MS_SCHED process and N MS_ROLE=MS_WORKER processes started any way, or ``msrun``);
a script started alone runs as a one-rank world.
"""
import logging

from minispore.common.auto_parallel_context import set_auto_parallel_context
from minispore.common.context import get_context
from minispore.common.registry import REGISTRY
from minispore.communication import _comm
from minispore.communication._comm import (HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP,
                                           NCCL_WORLD_COMM_GROUP, STATE, WORLD_NAMES,
                                           check_group_type, communicator, require_init)

logger = logging.getLogger("minispore")

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_local_rank", "get_group_size",
           "get_local_rank_size", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "create_group", "destroy_group",
           "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP"]

_BACKENDS = {"hccl": HCCL_WORLD_COMM_GROUP, "nccl": NCCL_WORLD_COMM_GROUP,
             "mccl": MCCL_WORLD_COMM_GROUP, "mpi": MCCL_WORLD_COMM_GROUP}
_DEVICE_BACKEND = {"CPU": "mccl", "GPU": "nccl", "Ascend": "hccl"}


class _WorldValues(type):
    """GlobalComm's BACKEND, WORLD_COMM_GROUP and INITED read as class attributes, as in
    MindSpore, from the world object (init() records the backend there)."""

    @property
    def BACKEND(cls):
        return STATE.backend or "hccl"

    @property
    def WORLD_COMM_GROUP(cls):
        return _BACKENDS[STATE.backend] if STATE.backend else HCCL_WORLD_COMM_GROUP

    @property
    def INITED(cls):
        return STATE.inited


class GlobalComm(metaclass=_WorldValues):
    """The communication settings init() fills in (class attributes, as in MindSpore)."""
    CHECK_ENVS = True


def init(backend_name=None):
    """Join the MPI world. `backend_name` None is inferred from ``device_target`` (CPU -> "mccl",
    GPU -> "nccl"); "hccl"/"nccl" run on MPI too (with a warning), "mpi" means "mccl".

    Sets GlobalComm.BACKEND/WORLD_COMM_GROUP/INITED, the auto-parallel ``device_num`` and
    ``global_rank``, and installs the abort-on-exception hooks: from here on an uncaught
    exception on any rank prints its traceback and aborts the whole job (non-zero exit).

    In a dynamic cluster (MS_ROLE set) a worker first registers with the scheduler at
    MS_SCHED_HOST:MS_SCHED_PORT and joins the other workers' MPI communicator, its rank
    MS_NODE_ID when that is an integer, else by arrival; the scheduler process does not return
    from init(): it serves the job until every worker has ended and exits with the job's status
    (0 when all finished their script).

    Raises:
        TypeError: `backend_name` is not a str.
        RuntimeError: unknown backend name (as MindSpore); in a dynamic cluster, the
            scheduler unreachable within MS_TOPO_TIMEOUT, this worker refused by it (wrong
            token, one worker too many), or the scheduler's port already in use.
        ValueError, NotImplementedError: a malformed or unbuilt MS_ variable (roles.py).
    """
    if backend_name is None:
        backend_name = _DEVICE_BACKEND[get_context("device_target")]
    if not isinstance(backend_name, str):
        raise TypeError(f"For 'init', the argument 'backend_name' must be a string, but got "
                        f"the type : {type(backend_name).__name__}.")
    if backend_name not in _BACKENDS:
        raise RuntimeError(f"For 'init', the argument 'backend_name' must be one of 'hccl', "
                           f"'nccl', 'mccl' or 'mpi', but got 'backend_name' : {backend_name}.")
    if backend_name in ("hccl", "nccl"):
        logger.warning("Backend '%s' is served by MPI in minispore; collectives run on the "
                       "CPU through mpi4py.", backend_name)
    if not STATE.inited:
        _comm.start(get_context("runtime_num_threads"))
    for hook in REGISTRY.plugged("communication.after_init", ()):
        hook()
    STATE.backend = "mccl" if backend_name == "mpi" else backend_name
    set_auto_parallel_context(device_num=STATE.world.size, global_rank=STATE.world.rank)


def release():
    """Free the sub-communicators and uninstall the abort hooks; init() may be called again."""
    require_init("release")
    _comm.stop()


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank within `group` (any world-group name means the world)."""
    check_group_type("get_rank", group)
    return communicator(group, "get_rank").rank


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks in `group`."""
    check_group_type("get_group_size", group)
    return communicator(group, "get_group_size").size


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank among the world's ranks on the same host."""
    _check_world_only("get_local_rank", group)
    return STATE.local_rank


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of the world's ranks on this host."""
    _check_world_only("get_local_rank_size", group)
    return STATE.local_size


def _check_world_only(api, group):
    check_group_type(api, group)
    require_init(api)
    if group not in WORLD_NAMES:
        raise ValueError(f"For '{api}', only the world group is supported, but got {group!r}.")


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of `group`'s rank `group_rank_id`."""
    comm = _user_group("get_world_rank_from_group_rank", group)
    _check_rank_id("get_world_rank_from_group_rank", "group_rank_id", group_rank_id)
    if not group_rank_id < comm.size:
        raise ValueError(f"For 'get_world_rank_from_group_rank', 'group_rank_id' must be in "
                         f"[0, {comm.size}) for group {group!r}, but got {group_rank_id}.")
    return comm.world_ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank within `group` of world rank `world_rank_id` (ValueError if not a member)."""
    comm = _user_group("get_group_rank_from_world_rank", group)
    _check_rank_id("get_group_rank_from_world_rank", "world_rank_id", world_rank_id)
    rank = comm.group_rank(world_rank_id)
    if rank is None:
        raise ValueError(f"For 'get_group_rank_from_world_rank', world rank {world_rank_id} is "
                         f"not a member of group {group!r} (ranks {list(comm.world_ranks)}).")
    return rank


def _user_group(api, group):
    check_group_type(api, group)
    require_init(api)
    if group in WORLD_NAMES:
        raise ValueError(f"For '{api}', the group must not be the world group "
                         f"'{GlobalComm.WORLD_COMM_GROUP}'; pass a group made by create_group.")
    comm = STATE.groups.get(group)
    if comm is None:
        raise ValueError(f"For '{api}', the group {group!r} does not exist.")
    return comm


def _check_rank_id(api, name, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For '{api}', the argument '{name}' must be an int, but got "
                        f"{type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For '{api}', the argument '{name}' must be >= 0, but got {value}.")


def create_group(group, rank_ids, options=None):
    """Create the user group `group` over the world ranks `rank_ids` (group rank = position).

    Collective over the member ranks: every rank in `rank_ids` must call it, with groups
    created in the same order on all members (MPI_Comm_create_group). Ranks outside
    `rank_ids` may call it too; they only record the name. A rank list already in use reuses
    its communicator. `options` is accepted for compatibility and ignored.

    Raises:
        TypeError: `group` not a str, `rank_ids` not a list of ints.
        ValueError: fewer than 2 ranks, duplicates, ranks outside the world, a world-group
            name, an empty name, or an existing name with other ranks.
    """
    check_group_type("create_group", group)
    require_init("create_group")
    if not group:
        raise ValueError("For 'create_group', the group name must be a non-empty string.")
    if group in WORLD_NAMES:
        raise ValueError(f"For 'create_group', the group name must not be a world group name "
                         f"{list(WORLD_NAMES)}, but got {group!r}.")
    if not isinstance(rank_ids, list):
        raise TypeError(f"For 'create_group', the argument 'rank_ids' must be type of list, "
                        f"but got 'rank_ids' type : {type(rank_ids).__name__}.")
    if any(not isinstance(r, int) or isinstance(r, bool) for r in rank_ids):
        raise TypeError(f"For 'create_group', every rank id must be an int, but got "
                        f"{rank_ids}.")
    if len(rank_ids) < 2:
        raise ValueError(f"For 'create_group', the length of 'rank_ids' must be greater than "
                         f"1, but got {len(rank_ids)} ({rank_ids}).")
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError(f"For 'create_group', the list 'rank_ids' in group {group!r} has "
                         f"duplicate data: {rank_ids}.")
    size = STATE.world.size
    bad = [r for r in rank_ids if not 0 <= r < size]
    if bad:
        raise ValueError(f"For 'create_group', rank ids {bad} are outside the world "
                         f"[0, {size}).")
    existing = STATE.groups.get(group)
    if existing is not None:
        if existing.world_ranks == tuple(rank_ids):
            return
        raise ValueError(f"For 'create_group', the group {group!r} already exists with ranks "
                         f"{list(existing.world_ranks)}; destroy it first.")
    _comm.create(group, rank_ids)


def destroy_group(group):
    """Forget the user group `group`, freeing its communicator when no other group uses it."""
    check_group_type("destroy_group", group)
    require_init("destroy_group")
    if group in WORLD_NAMES:
        raise ValueError(f"For 'destroy_group', the world group {group!r} cannot be "
                         f"destroyed.")
    if group not in STATE.groups:
        raise ValueError(f"For 'destroy_group', the group {group!r} does not exist.")
    _comm.destroy(group)
