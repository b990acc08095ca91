"""Joining and leaving the MPI world (its run id, its cached sub-communicators), the
abort-on-exception hooks and the divergence check. What it sets up lives in state.STATE
(re-exported here with mpi() and Communicator for the modules outside communication).

Only minispore/communication imports mpi4py, and lazily (state.mpi()): importing ``mpi4py.MPI``
initialises MPI, so single-process scripts that never call ``init()`` never start it.

The world is MPI_COMM_WORLD under mpirun, and in a dynamic cluster (MS_ROLE) the communicator
the workers built through the scheduler (cluster_worker.py); the scheduler process never gets
here: it serves the job and exits (scheduler.py).
"""
import sys
import threading
import time
import traceback
import uuid

import numpy as np

from minispore.common.environment import environment
from minispore.communication.cluster import cluster_worker, scheduler
from minispore.communication.cluster.roles import ENVIRONMENT_VARS, Role, \
    cluster_config_from_environment
from minispore.communication.watch import exits, watchdog
from minispore.communication.watch.arrivals import KINDS, describe_attribute, outside_world
from minispore.communication.watch.fault_report import caller_site
from minispore.communication.state import STATE, Communicator, mpi  # noqa: F401 - re-exported
from minispore.communication.threads import limit_threads

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
WORLD_NAMES = (HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP)

CHECK_ENV = "MINISPORE_CHECK_COLLECTIVES"


def require_init(api):
    if not STATE.inited:
        raise RuntimeError(f"For '{api}', the communication service is not initialized: call "
                           f"minispore.communication.init() first (and launch the script with "
                           f"mpirun -n N, or msrun).")


def check_group_type(api, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{api}', the argument 'group' must be type of string, but got "
                        f"'group' type : {type(group).__name__}.")


def communicator(group, api="communication"):
    """The Communicator of `group` (any of the world names means the world) for this rank."""
    require_init(api)
    if group in WORLD_NAMES:
        return STATE.world
    comm = STATE.groups.get(group)
    if comm is None:
        raise ValueError(f"For '{api}', the group {group!r} does not exist; create it with "
                         f"create_group({group!r}, rank_ids) on its member ranks first.")
    if comm.comm is None:
        raise ValueError(f"For '{api}', rank {STATE.world.rank} is not a member of group "
                         f"{group!r} (ranks {list(comm.world_ranks)}).")
    return comm


def start(runtime_num_threads=0):
    """Join the MPI world once as a worker: the world (the workers) and node-local
    communicators, this rank's thread pools sized for the ranks sharing its host, and the
    abort hooks. In a dynamic cluster the scheduler process serves the job here and exits
    with its status; a worker joins the other workers the first time (release() keeps them)."""
    config = cluster_config_from_environment(environment(ENVIRONMENT_VARS))
    if config is not None and config.role is Role.SCHEDULER:
        from minispore.common.ps_context import get_ps_context
        scheduler.serve_and_exit(config, drop_lost_workers=bool(
            config.server_num and get_ps_context("enable_ps")
            and not get_ps_context("sync_mode")))
    MPI = mpi()
    if config is None:
        world = MPI.COMM_WORLD
    else:
        if STATE.cluster is None:
            STATE.cluster = cluster_worker.join(config)
        world = STATE.cluster[0]
        if config.server_num:
            # The workers' world and the servers' own: collectives never mix them; the
            # parameter server talks to the workers point-to-point on the job's comm.
            job, STATE.worker_num, STATE.server_num = world, config.worker_num, \
                config.server_num
            world = world.Split(int(config.role is Role.SERVER), world.Get_rank())
            STATE.job = _job_communicator(job, world, config.role is Role.SERVER)
    STATE.world = Communicator("world", world, range(world.Get_size()), world.Get_rank())
    STATE.by_ranks[STATE.world.world_ranks] = world
    local = world.Split_type(MPI.COMM_TYPE_SHARED, key=world.Get_rank())
    STATE.local_rank, STATE.local_size = local.Get_rank(), local.Get_size()
    local.Free()
    STATE.role = Role.WORKER if config is None else config.role
    if STATE.local_size > 1 or runtime_num_threads:
        limit_threads(STATE.local_size, runtime_num_threads)
    STATE.check = environment([CHECK_ENV]).get(CHECK_ENV, "0") not in ("", "0", "false",
                                                                       "False")
    STATE.run_id = _shared_run_id(world)
    install_abort_hooks()
    if watchdog.start():    # the first start opened the arrival table the exits publish in
        exits.install(STATE.watch, STATE.watchdog.table, STATE.watchdog.settings)
    STATE.inited = True


def _job_communicator(job, world, server):
    """The Communicator of a parameter-server job: workers first, then servers. Its members in
    the other world (the servers seen from a worker, the workers from a server) have no world
    rank here: they stand as arrivals.outside_world(job rank)."""
    mine = list(range(world.Get_size()))
    others = [outside_world(r) for r in range(job.Get_size())]
    ranks = others[:len(others) - len(mine)] + mine if server else \
        mine + others[len(mine):]
    return Communicator("parameter-server job", job, ranks, world.Get_rank())


def _shared_run_id(world):
    """A random id drawn by rank 0 and broadcast, so every rank of this run holds the same one
    and another run a different one (sharded checkpoints record it; merging refuses files of
    different runs)."""
    run_id = np.frombuffer(uuid.uuid4().bytes, np.uint8).copy()
    world.Bcast(run_id, root=0)
    return run_id.tobytes().hex()


def stop():
    """Free every sub-communicator and restore the excepthooks. MPI itself stays initialised
    (MPI cannot be restarted once finalised; mpi4py finalises it at exit), so init() may run again."""
    for ranks, comm in list(STATE.by_ranks.items()):
        if comm is not STATE.world.comm:
            comm.Free()
    STATE.by_ranks.clear()
    STATE.groups.clear()
    restore_abort_hooks()
    STATE.inited = False


def create(name, world_ranks):
    """Register group `name`; members build (or reuse) the MPI communicator for the rank list.

    MPI_Comm_create_group is collective over the members only, so only the ranks in
    `world_ranks` take part (in the same order of create_group calls on every member);
    non-members just record the name, so scripts that call create_group on every rank work.
    """
    ranks = tuple(world_ranks)
    me = STATE.world.rank
    comm = None
    if me in ranks:
        comm = STATE.by_ranks.get(ranks)
        if comm is None:
            world = STATE.world.comm
            group = world.Get_group().Incl(list(ranks))
            STATE.watch.enter_group_creation(ranks)
            try:
                comm = world.Create_group(group, tag=_tag_of(ranks))
            finally:
                STATE.watch.leave()
            group.Free()
            STATE.by_ranks[ranks] = comm
    STATE.groups[name] = Communicator(name, comm, ranks, me)


def _tag_of(ranks):
    # Concurrent creations of different groups that share members must not match each other.
    return hash(ranks) & 0x7FFF


def destroy(name):
    comm = STATE.groups.pop(name)
    still_used = any(c.world_ranks == comm.world_ranks for c in STATE.groups.values())
    if comm.comm is not None and not still_used and comm.comm is not STATE.world.comm:
        STATE.by_ranks.pop(comm.world_ranks).Free()


# -- fault behaviour -----------------------------------------------------------------------
def _report_and_abort(exc_type, exc, tb, where=""):
    failed = _failed_mpi_call(exc)
    if failed and STATE.cluster is not None:
        # MPI saw a peer's connection break; the scheduler's word says which worker and host
        # was lost (MPI's own error names neither), so it gets the first say.
        STATE.cluster[1].await_reason(failed)
    rank = STATE.world.rank if STATE.world else "?"
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    prefix = f"[rank {rank}{where}] "
    sys.stderr.write("".join(prefix + line for line in text.splitlines(True)))
    sys.stderr.write(f"[rank {rank}] aborting the MPI job (MPI_Abort, error code 1) so that "
                     f"the other ranks do not wait forever in a collective.\n")
    sys.stderr.flush()
    watchdog.announce_abort()   # the other ranks' watchdogs say where they are
    if STATE.cluster is not None:
        # MPI_Abort ends only this worker's own one-rank job; the scheduler ends the others.
        STATE.cluster[1].report_failure(f"{exc_type.__name__}: {exc}")
    # The launcher forwards our stderr pipe asynchronously and stops forwarding once the job
    # is torn down; without a pause the traceback was sometimes lost (seen in CI).
    time.sleep(0.5)
    STATE.abort(1)


def _failed_mpi_call(exc):
    """'MPI <call> failed (<MPI's error class>)' when `exc` is, or was raised while handling
    or from, an MPI error (mpi4py raises them: its communicators return errors rather than
    abort); None otherwise."""
    error_type = mpi().Exception
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, error_type):
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            call = tb.tb_frame.f_code.co_name.rsplit(".", 1)[-1] if tb else "call"
            reason = exc.Get_error_string().split(",", 1)[0].splitlines()[0]
            return f"MPI {call} failed ({reason})"
        exc = exc.__cause__ or exc.__context__
    return None


def install_abort_hooks():
    """An uncaught exception on any rank (main thread or another thread) prints the rank's
    traceback and calls MPI_Abort, so mpirun exits non-zero instead of hanging."""
    if STATE.hooks is not None:
        return
    STATE.hooks = (sys.excepthook, threading.excepthook)

    def thread_hook(args):
        if args.exc_type is SystemExit:
            return
        _report_and_abort(args.exc_type, args.exc_value, args.exc_traceback,
                          f", thread {args.thread.name if args.thread else '?'}")

    sys.excepthook = _report_and_abort
    threading.excepthook = thread_hook


def restore_abort_hooks():
    if STATE.hooks is not None:
        sys.excepthook, threading.excepthook = STATE.hooks
        STATE.hooks = None


# -- divergence check ----------------------------------------------------------------------
_MAX_DIMS = 8
_SIG_LEN = 5 + _MAX_DIMS


def set_collective_check(enabled=True):
    """Turn the collective divergence check on or off (also env MINISPORE_CHECK_COLLECTIVES=1).

    When on, every collective first all-gathers a small signature (collective, attribute,
    dtype, shape) over its group and raises RuntimeError on every rank, listing each rank's
    call, when the ranks disagree, instead of letting MPI hang or corrupt data.
    """
    STATE.check = bool(enabled)


def collective_check_enabled():
    return STATE.check


def check_same_call(comm, kind, arg, array):
    """All ranks of `comm` are calling collective `kind` (an index in KINDS) with the same
    attribute code, dtype and shape; otherwise RuntimeError on every rank, naming each rank's
    call and where it was made."""
    sig = np.zeros(_SIG_LEN, np.int64)
    shape = array.shape
    sig[0], sig[1], sig[2], sig[3], sig[4] = kind, arg, ord(array.dtype.char), len(shape), \
        array.size
    sig[5:5 + min(len(shape), _MAX_DIMS)] = shape[:_MAX_DIMS]
    table = np.empty((comm.size, _SIG_LEN), np.int64)
    comm.comm.Allgather(sig, table)
    if (table == table[0]).all():
        return
    # Slow path, every rank takes it: the call sites travel pickled.
    sites = comm.comm.allgather(caller_site())
    lines = [f"rank {comm.world_ranks[g]}: {describe(row)} at {site}"
             for g, (row, site) in enumerate(zip(table, sites))]
    raise RuntimeError(f"Collective mismatch in group {comm.name!r}: the ranks called different "
                       f"collectives or passed different shapes/dtypes/attributes (MPI would "
                       f"hang or corrupt data):\n  " + "\n  ".join(lines))


def describe(row):
    kind, arg, char, ndim = (int(v) for v in row[:4])
    shape = tuple(int(d) for d in row[5:5 + min(ndim, _MAX_DIMS)])
    return f"{KINDS[kind]}({describe_attribute(kind, arg)}) {np.dtype(chr(char))} " \
           f"shape={shape}"
