"""The collective watchdog (the NCCL watchdog / Horovod stall inspector idea, over MPI): every
collective and point-to-point call is watched by a daemon thread that warns when the call waits
long, and aborts the job, saying where each rank of the group is, when the call is past its
deadline or can never complete: a member left its script, or called another collective or a
different number of them. A call entered while handling an exception (an ``except`` or
``finally`` block) is legal: when its peers make the same call it completes, however long they
compute first; the exception only shows in the reports.

Settings (read at init()):
- ``MS_COMM_TIMEOUT``: seconds a call may wait (default 600, 0 turns the deadline off). A stall
  warning comes at each quarter of it, so long but legitimate waits are visible, not fatal.
- ``MS_COMM_WATCHDOG=0``: no watchdog at all (no thread, no arrival table, no exit handshake).

The hot path (``Watch.enter``/``leave`` around every MPI call) writes a few words into this
rank's record of the arrival table (arrivals.py): about 0.2 us, no MPI call, no lock. The
thread wakes every `tick`, reads the records, and does everything else.

The default mismatch check: ``enter`` also writes the call's signature (collective, attribute
such as the reduce op, dtype and shape, hashed) into this rank's ring for the group, and
compares it with the ring of the group's nearest members on this host before and after it in
group order, where they have made that call already (about 0.3 us more per call; groups with
no other member on this host skip it). Whichever of two
neighbours arrives second sees a difference, so a call whose ranks disagree anywhere is
refused (``Mismatch``) before the MPI call, by one rank, which ends the job naming both calls;
MPI would otherwise wait forever (element counts) or return wrong values (dtype, op, shape).
Ranks on other hosts are not compared; the full check (``set_collective_check``) compares
every rank through MPI and replaces this one.

Ranks on other hosts (beacon.py): once a call has waited a sixteenth of MS_COMM_TIMEOUT, the
thread connects every tick to the beacons of the awaited ranks on other hosts; a rank whose
host has not answered for an eighth of it (link or host down), or whose host refuses it (its
process is gone), has vanished, and the job is aborted naming it and its host, within the
first quarter of MS_COMM_TIMEOUT.
"""
import os
import sys
import threading
import time
import traceback
from collections import namedtuple

from minispore.common.environment import environment
from minispore.communication.watch import arrivals, beacon, fault_report
from minispore.communication.watch.arrivals import (ABORTING, ANY_PEER, CREATE_GROUP, EXITED,
                                              FAILING, GROUP, KIND, NBYTES, PEER,
                                              POINT_TO_POINT, PROGRESS, RING, RUNNING, SEQ,
                                              SEQ_MASK, WRITTEN, calls_made, group_key)
from minispore.communication.watch.fault_report import TIMEOUT_ENV
from minispore.communication.state import STATE

WATCHDOG_ENV = "MS_COMM_WATCHDOG"
DEFAULT_TIMEOUT_S = 600.0
# The launcher forwards stderr asynchronously and stops once the job is torn down: a report
# written just before MPI_Abort was sometimes lost without a pause (seen in CI, see _comm).
ABORT_PAUSE_S = 0.5

# sys.exception() (3.11+) is the cheap form: 16 ns against 46 ns for sys.exc_info().
_pending_exception = getattr(sys, "exception", None) or (lambda: sys.exc_info()[1])

Settings = namedtuple("Settings", "enabled timeout stall tick")
# How long a peer in another call number of the group must not move before MISCOUNT is judged
# (capped at a quarter of the stall interval for short test deadlines).
SETTLE_S = 2.0
Settings.__doc__ = """timeout: seconds a call may wait, None for no deadline; stall: seconds
between stall warnings; tick: how often the thread looks."""


def settings_from_environment(environ=None):
    """The watchdog's Settings from MS_COMM_TIMEOUT and MS_COMM_WATCHDOG.

    Raises:
        ValueError: MS_COMM_TIMEOUT is not a non-negative number of seconds.
    """
    environ = environment([TIMEOUT_ENV, WATCHDOG_ENV]) if environ is None else environ
    raw = environ.get(TIMEOUT_ENV, "").strip()
    try:
        timeout = float(raw) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        timeout = -1.0
    if not timeout >= 0:
        raise ValueError(f"{TIMEOUT_ENV} must be a number of seconds >= 0 (0 turns the "
                         f"collective deadline off), but got {raw!r}.")
    stall = (timeout or DEFAULT_TIMEOUT_S) / 4
    enabled = environ.get(WATCHDOG_ENV, "1").strip().lower() not in ("0", "false", "off")
    return Settings(enabled, timeout or None, stall, min(0.25, stall / 4))


class Watch:
    """This rank's side of the watch: ``enter``/``leave`` around every MPI call, the calls made
    on each group, and what the thread and the reports need about the current call.

    The hot path stores kind, group, call number and bytes, then PROGRESS; the buffer's shape
    and the call site are read from the calling frame only when a report needs them."""

    # Slots keep attribute access fast after ``set_hot_path`` switches the class (an instance
    # dict is materialised by a __class__ switch: +110 ns per call measured).
    __slots__ = ("words", "progress", "tracks", "groups", "exception", "table", "epoch")

    def __init__(self):
        self.words = memoryview(bytearray(8 * arrivals.WORDS)).cast("q")
        self.progress = 0          # even; the record's PROGRESS is progress + 1 inside a call
        # Communicator -> [group key, calls made on it, offset of its signature ring's first
        # slot, [[neighbour, its words (None until its ring is found), its first slot]]]
        self.tracks = {}
        self.groups = {}           # group key -> (display name, world ranks)
        self.exception = None      # the exception being handled when the current call began
        self.table = None
        self.epoch = 0             # of this init(): tags its rings (arrivals.ArrivalTable.ring)

    def enter(self, comm, kind, nbytes, x=None, arg=0):
        """A collective call `kind` on Communicator `comm` begins; returns its number there.
        `x`, `arg`: its buffer and attribute code, for the mismatch check (None: not checked).

        Raises:
            Mismatch: a neighbour on this host made this call with another collective,
                attribute, dtype or shape.
        """
        track = self.tracks.get(comm)
        if track is None:
            track = self.track(comm)
        track[1] = seq = track[1] + 1
        words = self.words
        words[KIND] = kind
        words[GROUP] = track[0]
        words[SEQ] = seq
        words[NBYTES] = nbytes
        exception = _pending_exception()
        if exception is not self.exception:
            self.exception_changed(exception)
        words[PROGRESS] = self.progress + 1
        neighbours = track[3]
        if neighbours and x is not None and not STATE.check:
            # Ints and tuples of ints hash alike in every process (str hashes are salted).
            low = seq & SEQ_MASK | WRITTEN
            entry = hash((kind, arg, x.dtype.num, x.shape)) & ~SEQ_MASK | low
            slot = seq % RING
            words[track[2] + slot] = entry
            for neighbour in neighbours:
                theirs = neighbour[1]
                if theirs is None:
                    theirs = self.find_ring(neighbour, track[0])
                    if theirs is None:
                        continue
                found = theirs[neighbour[2] + slot]
                if found != entry and found & SEQ_MASK == low:
                    raise Mismatch(neighbour[0], seq)
        return seq

    def leave(self):
        self.progress = progress = self.progress + 2
        self.words[PROGRESS] = progress

    def enter_point_to_point(self, comm, kind, nbytes, peer_group_rank):
        """A Send or Receive with group rank `peer_group_rank` of `comm` (None: a receive from
        any) begins; it takes no number in the group's collective sequence (the other members
        do not join it)."""
        track = self.tracks.get(comm) or self.track(comm)
        self.words[PEER] = ANY_PEER if peer_group_rank is None else \
            comm.world_ranks[peer_group_rank]
        self._publish(kind, track[0], track[1], nbytes)

    def resume(self, comm, kind, seq, nbytes):
        """Wait again for call `seq` of `comm` (a started non-blocking collective)."""
        track = self.tracks.get(comm) or self.track(comm)
        self._publish(kind, track[0], seq, nbytes)

    def enter_group_creation(self, world_ranks):
        """MPI_Comm_create_group over `world_ranks` begins: call #0 of the new group."""
        key = group_key(world_ranks)
        self.groups.setdefault(key, ("(being created)", tuple(world_ranks)))
        self._publish(CREATE_GROUP, key, 0, 0)

    def _publish(self, kind, key, seq, nbytes):
        words = self.words
        words[KIND], words[GROUP], words[SEQ], words[NBYTES] = kind, key, seq, nbytes
        words[PROGRESS] = self.progress + 1

    def track(self, comm):
        """The entry of `comm` (see ``tracks``), shared by every Communicator over the same
        ranks (they share one MPI communicator, hence one call sequence)."""
        key = group_key(comm.world_ranks)
        for track in self.tracks.values():
            if track[0] == key:
                break
        else:
            ring = self.claim_ring(key)
            track = [key, 0, ring, [[peer, None, 0] for peer in
                                    self.neighbours(comm.world_ranks)] if ring else []]
            self.groups[key] = (_display_name(comm), comm.world_ranks)
        self.tracks[comm] = track
        return track

    def claim_ring(self, key):
        """The offset of the first slot of a fresh signature ring for group `key` in this
        rank's words (0 when all MAX_GROUPS are taken: that group's calls are not compared)."""
        used = len({track[0] for track in self.tracks.values()})
        if self.table is None or used >= arrivals.MAX_GROUPS:
            return 0
        base = arrivals.RINGS + used * arrivals.RING_WORDS
        self.words[base + 1:base + arrivals.RING_WORDS] = \
            memoryview(bytes(8 * RING)).cast("q")
        self.words[base] = key ^ self.epoch       # tagged once its slots are clear
        return base + 1

    def neighbours(self, world_ranks):
        """The members of the group on this host just before and after this rank in group
        order (cyclically), whose rings ``enter`` compares with."""
        if self.table is None:
            return []
        local = [r for r in world_ranks if r in self.table.words]
        if len(local) < 2:
            return []
        at = local.index(self.table.world_rank)
        return sorted({local[at - 1], local[(at + 1) % len(local)]} - {self.table.world_rank})

    def find_ring(self, neighbour, key):
        """The words of `neighbour` ([rank, None, 0]) once its ring for group `key` exists
        (then also stored in it, with the ring's first slot), else None."""
        base = self.table.ring(neighbour[0], key ^ self.epoch)
        if base is None:
            return None
        neighbour[1], neighbour[2] = self.table.words[neighbour[0]], base + 1
        return neighbour[1]

    def refuse(self, mismatch, kind, arg, x):
        """End the job: this rank's call (collective `kind`, attribute code `arg`, buffer `x`)
        differs from the one `mismatch.peer` made with the same number (Mismatch)."""
        me = self.table.read(self.table.world_rank)
        abort_job(fault_report.mismatch_report(me, mismatch.peer,
                                               self.table.read(mismatch.peer), kind, arg, x,
                                               self))

    def exception_changed(self, exception):
        """The calls now begin while handling `exception` (None: no longer): a rank that
        enters a collective from an ``except``/``finally`` block or an ``__exit__`` during an
        exception is on a path its peers may never take; its record says so."""
        self.exception = exception
        if self.table is None or self.words[arrivals.STATUS] in (EXITED, ABORTING):
            return
        if exception is None:
            self.table.set_status(RUNNING, "")
        else:
            self.table.set_status(FAILING, fault_report.exception_note(exception))

    def calls_by_group(self):
        return {track[0]: track[1] for track in self.tracks.values()}


class Mismatch(Exception):
    """Call `seq` of a group differs from the one neighbour `peer` made (Watch.enter)."""

    def __init__(self, peer, seq):
        super().__init__(peer, seq)
        self.peer, self.seq = peer, seq


class _IdleWatch(Watch):
    """The watch under MS_COMM_WATCHDOG=0 (``STATE.watch.__class__`` is switched, so the watch
    keeps its call counts and table): the hooks do nothing."""

    __slots__ = ()

    def enter(self, comm, kind, nbytes, x=None, arg=0):
        return 0

    def leave(self):
        pass

    def enter_point_to_point(self, comm, kind, nbytes, peer_group_rank):
        pass

    def resume(self, comm, kind, seq, nbytes):
        pass

    def enter_group_creation(self, world_ranks):
        pass


def _display_name(comm):
    return "the world" if comm.name == "world" else repr(comm.name)


def start(settings=None):
    """At init(): make the watch (STATE.watch, once per process), open the arrival table (once
    per process) and start the thread (kept in STATE.watchdog), or, with MS_COMM_WATCHDOG=0,
    make the hot path a no-op. True when this call started the thread: the caller then
    installs the exit handshake (exits.install)."""
    settings = settings or settings_from_environment()
    if STATE.watch is None:
        STATE.watch = Watch()
    watch = STATE.watch
    watch.tracks.clear()     # a new init() starts every group's call sequence afresh
    # ... and its rings: tagged by the run (the same on every rank), so a neighbour's rings of
    # an earlier init() are never compared with this one's calls.
    watch.epoch = int(STATE.run_id[:15], 16)
    set_hot_path(settings.enabled)
    if not settings.enabled:
        return False
    if STATE.watchdog is not None:
        STATE.watchdog.settings = settings
        return False
    table = arrivals.ArrivalTable(STATE.world.comm, STATE.world.rank, STATE.run_id)
    watch.table, watch.words = table, table.mine
    STATE.watchdog = Watchdog(table, settings,
                              beacon.Beacons(STATE.world.comm, table.local_ranks))
    STATE.watchdog.start()
    return True


def set_hot_path(enabled):
    """Whether collectives publish their calls (the benchmark compares both in one job)."""
    STATE.watch.__class__ = Watch if enabled else _IdleWatch


def announce_abort():
    """This rank is about to call MPI_Abort: the others' watchdogs say where they are."""
    if STATE.watch is not None and STATE.watch.table is not None:
        STATE.watch.table.set_status(ABORTING)


def abort_job(text):
    """Print `text` (this rank's report), tell the other ranks, and abort the whole job."""
    fault_report.write(text)
    announce_abort()
    if STATE.cluster is not None:
        # MPI_Abort ends only this worker's own one-rank job; the scheduler ends the others.
        STATE.cluster[1].report_failure(text.splitlines()[0])
    time.sleep(ABORT_PAUSE_S)
    STATE.abort(1)
    # Called from a thread, MPICH's MPI_Abort sometimes returns once the launcher has the
    # request (seen here: the thread went on printing); this rank must not go on.
    _exit_now(1)


_exit_now = os._exit    # the real one: exits.py wraps os._exit once the watchdog starts


Waiting = namedtuple("Waiting", "position since")


class Watchdog(threading.Thread):
    """Looks at this rank's record every tick: a call seen on two ticks is waiting; its
    group's records then decide (``judge``) whether it warns, waits on or aborts the job."""

    def __init__(self, table, settings, beacons):
        super().__init__(name="minispore-comm-watchdog", daemon=True)
        self.table, self.settings, self.beacons = table, settings, beacons
        self.waiting = None         # the Waiting call, once seen on two ticks
        self.seen = {}              # peer world rank -> (PROGRESS, when first seen at it)
        self.warnings = 0           # stall warnings given for the current call
        self.told_abort = False     # this rank has said where it is as another aborts

    def run(self):
        while True:
            time.sleep(self.settings.tick)
            try:
                self.look()
            except Exception:   # a watchdog that died would let the next hang go unseen
                fault_report.write("minispore watchdog: internal error (watching goes on):\n"
                                   + traceback.format_exc())

    def look(self):
        position = self.table.read(self.table.world_rank)
        if position.status == ABORTING:
            return
        aborting = self.another_aborting()
        if aborting is not None:
            # One full report (the aborting rank's) is enough: this rank only says where it
            # is, and what it was handling if it was failing.
            if not self.told_abort:
                self.told_abort = True
                fault_report.write(fault_report.where_this_rank_is(aborting, position,
                                                                 STATE.watch))
            return
        if not position.in_call:
            self.waiting = None
            return
        now = time.monotonic()
        if self.waiting is None or self.waiting.position.progress != position.progress:
            self.waiting, self.seen, self.warnings = Waiting(position, now), {}, 0
            self.beacons.reset()
            return
        self.check(position, now - self.waiting.since)

    def check(self, me, waited):
        peers = {m: self.table.read(m) for m in members_awaited(me, STATE.watch.groups)}
        now = time.monotonic()
        seen = {m: (p.progress, self.seen[m][1] if self.seen.get(m, (None,))[0] == p.progress
                    else now) for m, p in peers.items() if p is not None}
        stable = {m for m, (progress, since) in seen.items()
                  if peers[m].in_call and m in self.seen and self.seen[m][0] == progress}
        # A rank starved of CPU on a loaded machine can sit in the call before this one (which
        # every rank has entered, so it will return) for more than a tick: a call-number
        # difference is judged only once the peer has not moved for SETTLE_S.
        settle = min(SETTLE_S, self.settings.stall / 4)
        settled = {m for m in stable if now - seen[m][1] >= settle}
        self.seen = seen
        verdict = judge(me, peers, stable, waited, self.settings, settled) or \
            self.vanished(peers, waited)
        if verdict is not None:
            try:
                report = fault_report.fatal_report(verdict, me, peers, waited, STATE.watch,
                                                   self.settings)
            except Exception:   # the job must end even if describing it fails
                report = f"minispore watchdog: {verdict} (the report failed:\n" \
                         f"{traceback.format_exc()})"
            abort_job(report)
        if waited >= self.settings.stall * (self.warnings + 1):
            self.warnings += 1
            fault_report.write(fault_report.stall_warning(me, peers, waited, STATE.watch,
                                                          self.settings))

    def vanished(self, peers, waited):
        """A VANISHED verdict naming the awaited ranks on other hosts (peers read as None)
        whose beacons have stopped answering, once the call has waited a sixteenth of the
        deadline (of 600 s without one); else None."""
        quarter = self.settings.stall
        if waited < quarter / 4:
            return None
        gone = self.beacons.vanished([r for r, p in peers.items() if p is None], quarter / 2)
        if not gone:
            return None
        return Verdict(VANISHED, [rank for rank, _ in gone], dict(gone))

    def another_aborting(self):
        """A local rank that is aborting the job, or None."""
        for rank in self.table.local_ranks:
            if rank != self.table.world_rank and \
                    self.table.words[rank][arrivals.STATUS] == ABORTING:
                return rank
        return None


def members_awaited(me, groups):
    """The world ranks call `me` waits for: the peer of a Send/Receive (none for a receive from
    any rank), else the group's other members."""
    if me.kind in POINT_TO_POINT:
        return [] if me.peer == ANY_PEER else [me.peer]
    _, world_ranks = groups.get(me.group, (None, ()))
    return [r for r in world_ranks if r != STATE.world.rank]


Verdict = namedtuple("Verdict", "reason ranks why", defaults=(None,))
Verdict.__doc__ = "why: {rank: why it counts} where the reason needs it (VANISHED)."
LEFT, DESYNC, MISCOUNT, DEADLINE, VANISHED = "left", "desync", "miscount", "deadline", "vanished"


def judge(me, peers, stable, waited, settings, settled=None):
    """Why the call `me` (this rank's Position, waiting for `waited` s) will never complete,
    as a Verdict, or None while it may still complete.

    - LEFT: a member has left its script before making this call (MPI would wait forever, or
      the launcher would end the job silently with the leaver's exit code); for a Send or
      Receive, once it has waited SETTLE_S (a message sent just before leaving may still
      arrive);
    - DESYNC: a member waits in the same call of the group (same number there) with another
      collective or byte count (the default desync check: MPICH gives each collective its own
      tags, so such calls never match and wait forever);
    - MISCOUNT: a member waits in another call number of the group: the ranks have made a
      different number of collectives on it;
    - DEADLINE: the call has waited MS_COMM_TIMEOUT.
    `stable`: the members whose call has not changed since the previous tick; `settled`: those
    unchanged for SETTLE_S (default: the stable ones), which MISCOUNT needs.
    """
    settled = stable if settled is None else settled
    point_to_point = me.kind in POINT_TO_POINT
    for rank, p in peers.items():
        if p is None:
            continue
        if p.status == EXITED:
            made = calls_made(p, me.group)
            # A message the peer sent just before it left may still be on its way (the exit
            # drives MPI progress until every rank has left): a receive waits SETTLE_S first.
            if (point_to_point and waited >= min(SETTLE_S, settings.stall / 4)) or \
                    (made is not None and made < me.seq):
                return Verdict(LEFT, [rank])
    if not point_to_point:
        same_group = [r for r in stable if peers[r].group == me.group]
        other_call = [r for r in same_group if peers[r].seq == me.seq
                      and (peers[r].kind, peers[r].nbytes) != (me.kind, me.nbytes)]
        if other_call:
            return Verdict(DESYNC, other_call)
        other_number = [r for r in same_group if peers[r].seq != me.seq and r in settled]
        if other_number:
            return Verdict(MISCOUNT, other_number)
    if settings.timeout is not None and waited >= settings.timeout:
        return Verdict(DEADLINE, [r for r, p in peers.items()
                                  if not fault_report.arrived(p, me)])
    return None
