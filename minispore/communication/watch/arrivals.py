"""The arrival table: one shared-memory record per rank on this host saying where that rank is
(which collective, on which group, its call number there, its byte count), or that it has
left its script, is handling an exception or is aborting the job, and the signatures of its
last RING calls on each group. Written by each rank at every call, read by the watchdogs of
the others, and by the ranks themselves as they enter a call, without any MPI call.

Why shared memory: a one-sided MPI_Get of a peer's record completes only while that peer is
inside MPI (measured: 29 s, until the sleeping peer reached MPI_Finalize), and the ranks a
watchdog asks about are exactly those that are not. A file mapped by every rank of a host is
plain memory: a record is read even while its rank sleeps, computes or has stopped. It is a
file (in /dev/shm), not an MPI_Win_allocate_shared window, because the workers of a dynamic
cluster are separate MPI jobs and MPICH refuses them a shared window ("processes are not in
the same shared memory domain"); the file is unlinked as soon as every local rank has mapped
it, so nothing is left behind however the job ends. Ranks on other hosts are not visible; for
them only the deadline applies.

A record is int64 words (below) and a short UTF-8 note. Its writer keeps one ordering: the
fields of a call are written before PROGRESS turns odd, and nothing changes while it stays
odd, so a reader that sees the same odd PROGRESS before and after copying the fields has a
consistent call.

The signature rings (one per group, up to MAX_GROUPS): a tag (the group's key and the run's)
and RING slots; call n's signature (collective, attribute, dtype and shape, hashed) goes to
slot n % RING with n's low SEQ_BITS bits and a WRITTEN bit in its own low bits, in one word,
so a reader takes a slot as call n's only when those bits say so (a word is written and read
whole; a cleared slot never does).
"""
import mmap
import os
import tempfile
from collections import namedtuple

from minispore.communication.state import mpi

# Word offsets in a record.
PROGRESS = 0    # 2 * calls entered, + 1 while inside a call
STATUS = 1      # RUNNING, FAILING, EXITED or ABORTING
KIND = 2        # index in CALL_KINDS
GROUP = 3       # group_key() of the call's group
SEQ = 4         # the call's number on its group (1, 2, ...): equal on every member for a call
NBYTES = 5      # bytes this rank passes in (the default desync check compares them)
PEER = 6        # the other world rank of a Send/Receive (see peer_name), else -1
EXIT_CODE = 7
NOTE_LEN = 8
N_GROUPS = 9    # entries in the group table, written when the rank leaves
TABLE = 10      # (group key, calls made on it) pairs
MAX_GROUPS = 32
RINGS = TABLE + 2 * MAX_GROUPS   # MAX_GROUPS rings of RING_WORDS: tag, RING signatures
RING = 16
RING_WORDS = 1 + RING
SEQ_BITS = 16
WRITTEN = 1 << SEQ_BITS
SEQ_MASK = WRITTEN | (WRITTEN - 1)   # the bits of a slot that say which call it holds
WORDS = RINGS + MAX_GROUPS * RING_WORDS
NOTE_BYTES = 256
RECORD_BYTES = 8 * WORDS + NOTE_BYTES

RUNNING, FAILING, EXITED, ABORTING = 0, 1, 2, 3

# The collectives, numbered for the signatures of both mismatch checks: the rings below and the
# full divergence check (_comm.check_same_call).
KINDS = ("AllReduce", "AllGather", "ReduceScatter", "AlltoAll", "Broadcast", "Reduce",
         "Barrier")
_OPS = ("sum", "max", "min", "prod")


def describe_attribute(kind, arg):
    """The attribute code `arg` of a KINDS[kind] call in words ('op=sum', 'root=1', ...)."""
    name = KINDS[kind]
    if name in ("AllReduce", "ReduceScatter"):
        return f"op={_OPS[arg]}" if 0 <= arg < len(_OPS) else f"op={arg}"
    if name == "AlltoAll":
        return f"split_dim={arg // 64}, concat_dim={arg % 64}"
    if name == "Broadcast":
        return f"root={arg}"
    if name == "Reduce":
        return f"dest={arg // 4}, op={_OPS[arg % 4]}"
    return ""


# The collectives keep KINDS' indices; the point-to-point calls, the non-blocking all-reduce
# and group creation follow.
CALL_KINDS = KINDS + ("Send", "Receive", "iallreduce", "create_group")
SEND, RECEIVE, IALLREDUCE, CREATE_GROUP = (CALL_KINDS.index(k) for k in CALL_KINDS[-4:])
POINT_TO_POINT = (SEND, RECEIVE)
# PEER of a receive from any rank; a member of a communicator that is not in this world (a
# parameter server seen from a worker, a worker from a server) is -1 - its rank there.
ANY_PEER = -(1 << 62)


def outside_world(rank):
    """The stand-in world rank of rank `rank` of a communicator reaching beyond this world:
    negative, so no arrival-table record answers for it (only the deadline watches it)."""
    return -1 - rank


def peer_name(peer):
    """'rank 3', 'any rank' or 'job rank 2 (in another world)' for a PEER word."""
    if peer == ANY_PEER:
        return "any rank"
    if peer < 0:
        return f"job rank {-1 - peer} (in another world)"
    return f"rank {peer}"
BARRIER = CALL_KINDS.index("Barrier")


class Position(namedtuple("Position", "progress status kind group seq nbytes peer exit_code "
                                      "note calls")):
    """A consistent copy of one rank's record. `calls`: {group key: calls made} as the rank
    left its script (empty before; None when it used more groups than the table holds)."""
    __slots__ = ()

    @property
    def in_call(self):
        return self.progress & 1 == 1


def group_key(world_ranks):
    """The key of the communicator over `world_ranks` (in group-rank order): the same on every
    member (tuple-of-int hashes are not randomised), shared by group names over equal ranks,
    which use one MPI communicator and so one call sequence."""
    return hash(tuple(world_ranks))


class ArrivalTable:
    """The records of this host's ranks in one shared mapping.

    ``mine`` is this rank's words (a memoryview of int64), the hot path's only target;
    ``read(world_rank)`` copies any local rank's record; ranks on other hosts read as None.
    """

    def __init__(self, world_comm, world_rank, run_id):
        MPI = mpi()
        self.world_rank = world_rank
        # Ranks of one host, ordered by world rank. The mapping stays for the whole process
        # (a rank that has released the communication service still publishes that it left).
        node = world_comm.Split_type(MPI.COMM_TYPE_SHARED, key=world_rank)
        local_ranks = node.allgather(world_rank)
        try:
            memory = _map_shared(node, f"minispore-arrivals-{run_id}",
                                 RECORD_BYTES * len(local_ranks))
        except OSError:
            # No common file system for the host's ranks (separate containers, say): only
            # this rank's own record, so only the deadline watches the others.
            local_ranks, memory = [world_rank], bytearray(RECORD_BYTES)
        raw = memoryview(memory).cast("B")
        self.words, self.notes = {}, {}
        for slot, world in enumerate(local_ranks):
            record = raw[slot * RECORD_BYTES:(slot + 1) * RECORD_BYTES]
            self.words[world] = record[:8 * WORDS].cast("q")
            self.notes[world] = record[8 * WORDS:]
        self.mine = self.words[world_rank]
        self.mine[PEER] = -1
        node.Barrier()   # no rank reads a record its owner has not initialised yet
        node.Free()

    @property
    def local_ranks(self):
        return sorted(self.words)

    # -- writing (this rank's record) ------------------------------------------------------
    def set_status(self, status, note=None):
        if note is not None:
            self.set_note(note)
        self.mine[STATUS] = status

    def set_note(self, text):
        data = text.encode("utf-8", "replace")[:NOTE_BYTES]
        self.notes[self.world_rank][:len(data)] = data
        self.mine[NOTE_LEN] = len(data)

    def publish_exit(self, code, calls, note):
        """This rank has left its script with exit `code`, after `calls` ({group key: calls
        made}): written before the EXITED status, so a reader that sees it sees them."""
        mine = self.mine
        entries = list(calls.items())[-MAX_GROUPS:]
        for i, (key, count) in enumerate(entries):
            mine[TABLE + 2 * i], mine[TABLE + 2 * i + 1] = key, count
        mine[N_GROUPS] = len(entries) if len(calls) <= MAX_GROUPS else -1
        mine[EXIT_CODE] = code
        self.set_status(EXITED, note)

    def ring(self, world_rank, tag):
        """The offset of `world_rank`'s signature ring tagged `tag` in its words, or None
        (on another host, or it has not made a call on that group yet)."""
        words = self.words.get(world_rank)
        if words is None:
            return None
        for base in range(RINGS, WORDS, RING_WORDS):
            if words[base] == tag:
                return base
        return None

    # -- reading ---------------------------------------------------------------------------
    def read(self, world_rank):
        """A consistent Position of `world_rank`, or None when it runs on another host."""
        words = self.words.get(world_rank)
        if words is None:
            return None
        while True:
            before = words[PROGRESS]
            fields = words.tolist()
            if words[PROGRESS] == before:
                break
        n_groups = fields[N_GROUPS]
        calls = None if n_groups < 0 else {
            fields[TABLE + 2 * i]: fields[TABLE + 2 * i + 1] for i in range(n_groups)}
        note = bytes(self.notes[world_rank][:fields[NOTE_LEN]]).decode("utf-8", "replace")
        return Position(fields[PROGRESS], fields[STATUS], fields[KIND], fields[GROUP],
                        fields[SEQ], fields[NBYTES], fields[PEER], fields[EXIT_CODE], note,
                        calls)


def calls_made(position, key):
    """How many calls a rank that has left made on group `key`: -1 when it never joined the
    group, None when its table could not hold all its groups (unknown)."""
    if position.calls is None:
        return None
    return position.calls.get(key, -1)


def _map_shared(node, name, size):
    """`size` zeroed bytes shared by the ranks of `node` (one host): the lowest rank creates
    the file, everyone maps it, and it is unlinked once all have. Every rank raises OSError
    if any rank could not map it (then no rank uses it)."""
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    path = os.path.join(folder, name)
    error = None
    if node.Get_rank() == 0:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
            os.ftruncate(fd, size)
            os.close(fd)
        except OSError as e:
            error = e
    node.Barrier()
    memory = None
    if error is None:
        try:
            fd = os.open(path, os.O_RDWR)
            try:
                memory = mmap.mmap(fd, size)
            finally:
                os.close(fd)
        except OSError as e:
            error = e
    failed = node.allreduce(error is not None)
    if node.Get_rank() == 0 and os.path.exists(path):
        os.unlink(path)
    if failed:
        raise error or OSError(f"another rank of this host could not map {path}")
    return memory
