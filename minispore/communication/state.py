"""The communication state: one CommState object per process (there is one MPI world) holding the
world, its groups, this process's role, the watch and watchdog, the exit handshake, the
collective counters, the pipeline's pending sends, the ranks a dynamic cluster lost and the
parameter server's progress, and the Communicator it names groups by. The only module-level
mutable state of communication (and of minispore/ps, whose state it holds) is STATE.

A leaf (it imports only stats.py and the registry, where it hooks its reset into the
context's restore): the modules that watch, report on and end the world (watchdog,
fault_report, arrivals, exits, cluster_worker) read it from here, and _comm, which sets it up
in init(), imports them.

Importing ``mpi4py.MPI`` initialises MPI, so `mpi()` imports it on first use: single-process
scripts that never call ``init()`` never start it.
"""
from minispore.common.registry import REGISTRY
from minispore.communication.stats import CommStats


def mpi():
    """The mpi4py.MPI module (importing it initialises MPI; MPICH runs a singleton without mpirun)."""
    from mpi4py import MPI
    return MPI


class Communicator:
    """One MPI communicator and the world ranks of its members, in group-rank order."""

    __slots__ = ("name", "comm", "world_ranks", "rank", "size", "_group_rank")

    def __init__(self, name, comm, world_ranks, world_rank):
        self.name = name
        self.comm = comm                       # None on ranks that are not members
        self.world_ranks = tuple(world_ranks)
        self._group_rank = {w: g for g, w in enumerate(self.world_ranks)}
        self.size = len(self.world_ranks)
        self.rank = self._group_rank.get(world_rank, -1)

    def group_rank(self, world_rank):
        return self._group_rank.get(world_rank)


class ParameterServerState:
    """What parameter-server training (minispore/ps) has done in this process."""

    def __init__(self):
        self.started = False    # runtime.start ran in a job with servers
        self.optimizers = []    # weak references to the optimizers made while enable_ps is on
        self.pulled = False     # this worker has taken the servers' initial values
        self.resumed = 0        # the step the servers resumed at (worker.pull_initial)
        self.serving = False    # this process is a server serving its keys (never returns)
        self.pushes = []        # (requests, gradient, server) of the pushes not yet completed
        self.update_batch = None  # the optimizer call being run (ps/worker.py UpdateBatch)


class CommState:
    """Everything init() sets up and the communication run-time state; one per process (there
    is one MPI world)."""

    def __init__(self):
        self.inited = False
        self.backend = None           # init()'s backend ("mccl", "nccl", "hccl"): GlobalComm
        self.role = None              # this process's Role (roles.py): a worker, here
        self.world = None             # Communicator of the workers (MPI.COMM_WORLD, or built)
        self.cluster = None           # dynamic cluster: (the job's MPI comm, SchedulerLink), once
        self.job = None               # Communicator of the job when it has parameter servers
        self.worker_num = None        # ... and its first worker_num ranks are the workers'
        self.server_num = 0
        self.local_rank = 0
        self.local_size = 1
        self.groups = {}              # user group name -> Communicator
        self.by_ranks = {}            # tuple of world ranks -> MPI communicator (created once)
        self.check = False            # the collective divergence check
        self.hooks = None             # the (sys, threading) excepthooks init() replaced
        self.run_id = None            # shared by all ranks of this init(); checkpoints record it
        self.watch = None             # the Watch every MPI call enters (watchdog.py), from init()
        self.watchdog = None          # the watchdog thread, once started (it outlives stop())
        self.exits = None             # the exit handshake (exits.py), installed with the watchdog
        self.stats = CommStats()      # collective counters (minispore.parallel.comm_stats)
        self.pending_sends = []       # pipeline sends started, not yet completed (p2p.py)
        self.lost_ranks = set()       # job ranks a dynamic cluster dropped (cluster_worker.py)
        self.ps = ParameterServerState()

    def reset_run_state(self):
        """Forget what one run did but the world keeps: the collective counters and the
        parameter server's progress (the test suite calls it after every test)."""
        self.stats.clear()
        self.ps = ParameterServerState()

    def abort(self, code=1):
        """MPI_Abort this process's job. A dynamic-cluster worker aborts its own one-rank job
        (COMM_WORLD, through its launcher), and the scheduler ends the others: MPICH's abort on
        the merged communicator also messages every member over the network, and spun forever
        on one whose host was unreachable (found across namespace hosts, tests/multihost)."""
        comm = mpi().COMM_WORLD if self.cluster is not None else self.world.comm
        comm.Abort(code)


STATE = CommState()
REGISTRY.add_hook("common.after_restore", STATE.reset_run_state)
