"""The communication state: one CommState object per process (there is one MPI world) holding the
world, its groups, this process's role and the watchdog, and the Communicator it names groups
by. A leaf: the modules that watch, report on and end the world (watchdog, fault_report,
arrivals, exits, cluster_worker) read it from here, and _comm, which sets it up in init(),
imports them.

Importing ``mpi4py.MPI`` initialises MPI, so `mpi()` imports it on first use: single-process
scripts that never call ``init()`` never start it.
"""


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


class CommState:
    """Everything init() sets up; one per process (there is one MPI world)."""

    def __init__(self):
        self.inited = False
        self.role = None              # this process's Role (roles.py): a worker, here
        self.world = None             # Communicator of the workers (MPI.COMM_WORLD, or built)
        self.cluster = None           # dynamic cluster: (the job's MPI comm, SchedulerLink), once
        self.job = None               # the job's comm when it has parameter servers (minispore/ps)
        self.worker_num = None        # ... and its first worker_num ranks are the workers'
        self.server_num = 0
        self.local_rank = 0
        self.local_size = 1
        self.groups = {}              # user group name -> Communicator
        self.by_ranks = {}            # tuple of world ranks -> MPI communicator (created once)
        self.check = False            # the collective divergence check
        self.hooks = None             # the (sys, threading) excepthooks init() replaced
        self.run_id = None            # shared by all ranks of this init(); checkpoints record it
        self.watchdog = None          # the watchdog thread, once started (it outlives stop())

    def abort(self, code=1):
        """MPI_Abort this process's job. A dynamic-cluster worker aborts its own one-rank job
        (COMM_WORLD, through its launcher), and the scheduler ends the others: MPICH's abort on
        the merged communicator also messages every member over the network, and spun forever
        on one whose host was unreachable (found across namespace hosts, tests/multihost)."""
        comm = mpi().COMM_WORLD if self.cluster is not None else self.world.comm
        comm.Abort(code)


STATE = CommState()
