"""What the watchdog and the exit handshake print: where this rank waits (collective, group,
call number, bytes, shape, call site) and where every other rank of the group is, read from
the arrival table. Every line starts with ``[rank r]`` so interleaved reports stay readable."""
import os
import sys
import threading
import time
import traceback

from minispore.communication.watch.arrivals import (ABORTING, BARRIER, CALL_KINDS, CREATE_GROUP,
                                              EXITED, FAILING, POINT_TO_POINT, SEND,
                                              describe_attribute, peer_name)
from minispore.communication.state import STATE

TIMEOUT_ENV = "MS_COMM_TIMEOUT"   # read by watchdog.settings_from_environment

_COMMUNICATION_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE_DIR = os.path.dirname(_COMMUNICATION_DIR)     # minispore/
# The modules whose frames mean "inside a watched MPI call".
_CALL_FILES = tuple(os.path.join(_COMMUNICATION_DIR, name)
                    for name in ("collectives.py", "p2p.py", "_comm.py"))


def write(text):
    rank = STATE.world.rank if STATE.world is not None else "?"
    sys.stderr.write("".join(f"[rank {rank}] {line}\n" for line in text.splitlines()))
    sys.stderr.flush()


# -- where code is -------------------------------------------------------------------------
# Minispore's own code: its package, and the programs the graph executor compiles.
_OWN_CODE = (PACKAGE_DIR, "<graph ")


def _outside_minispore(frame):
    """The innermost frame of `frame`'s stack that is not minispore's own code."""
    while frame is not None and frame.f_code.co_filename.startswith(_OWN_CODE):
        frame = frame.f_back
    return frame


def _site(frame):
    return None if frame is None else \
        f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"


# The names the collectives give the buffer they pass to MPI, most specific first.
_BUFFER_NAMES = ("target", "buf", "buffer", "x", "array", "out")


def current_call():
    """(call site, buffer shape) of the thread inside a minispore MPI call: the first frame
    outside minispore, and the shape of the buffer in the collective's frame (read here so
    the hot path need not store it); (None, None) when no thread is in a call."""
    me = threading.get_ident()
    for ident, frame in sys._current_frames().items():
        while ident != me and frame is not None and frame.f_code.co_filename not in _CALL_FILES:
            frame = frame.f_back
        if ident != me and frame is not None:
            return _site(_outside_minispore(frame)), _buffer_shape(frame)
    return None, None


def _buffer_shape(frame):
    """The shape of the buffer of the watched call `frame` is in: its own, or that of the
    frame that called it inside the communication backend (p2p.receive calls p2p.probe)."""
    while frame is not None and frame.f_code.co_filename in _CALL_FILES:
        buffers = [frame.f_locals.get(name) for name in _BUFFER_NAMES]
        shapes = [b.shape for b in buffers if getattr(b, "shape", None) is not None]
        if shapes:
            return shapes[0]
        frame = frame.f_back
    return None


def caller_site():
    """Where this thread's current minispore call was made from (first frame outside it)."""
    return _site(_outside_minispore(sys._getframe()))


def main_thread_site():
    frame = sys._current_frames().get(threading.main_thread().ident)
    return _site(_outside_minispore(frame))


def exception_note(exception):
    """'ValueError: boom (raised at train.py:12)' for the record's note."""
    where = ""
    tb = exception.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" (raised at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})"
    return f"{type(exception).__name__}: {exception}"[:160] + where


# -- describing calls and ranks ------------------------------------------------------------
def group_name(key, groups):
    entry = groups.get(key)
    return entry[0] if entry is not None else "a group this rank is not in"


def _kind_name(kind):
    return CALL_KINDS[kind] if 0 <= kind < len(CALL_KINDS) else f"call kind {kind}"


def describe_call(p, groups, shape=None):
    """'AllReduce on the world (call #3 there, 4096 bytes, shape (1024,))'."""
    kind = _kind_name(p.kind)
    details = [f"{p.nbytes} bytes"] if p.kind not in (BARRIER, CREATE_GROUP) else []
    if shape is not None and details:
        details.append(f"shape {tuple(shape)}")
    if p.kind in POINT_TO_POINT:
        direction = "to" if p.kind == SEND else "from"
        return f"{kind} {direction} {peer_name(p.peer)} on {group_name(p.group, groups)} " \
               f"({', '.join(details)})"
    return f"{kind} on {group_name(p.group, groups)} " \
           f"({', '.join([f'call #{p.seq} there'] + details)})"


def arrived(p, me):
    """Whether Position `p` of a peer is in this rank's call `me`."""
    if p is None or not p.in_call or p.status == EXITED:
        return False
    if me.kind in POINT_TO_POINT:
        return p.kind in POINT_TO_POINT and p.peer == STATE.world.rank
    return (p.group, p.seq, p.kind, p.nbytes) == (me.group, me.seq, me.kind, me.nbytes)


def describe_rank(rank, p, me, groups):
    """One line on world rank `rank` as seen from this rank's call `me`."""
    if p is None and rank < 0:
        return f"{peer_name(rank)}: its state is not visible from here"
    if p is None:
        host = _host_of(rank)
        return f"rank {rank}: on another host{f' {host}' if host else ''} (its state is not " \
               f"visible from here)"
    if p.status == EXITED:
        note = f" ({p.note})" if p.note else ""
        return f"rank {rank}: has left its script{note}, exit code {p.exit_code}"
    if p.status == ABORTING:
        return f"rank {rank}: is aborting the job"
    failing = f", while handling {p.note}" if p.status == FAILING and p.note else ""
    if p.in_call:
        state = "has arrived: waits in" if arrived(p, me) else "waits in"
        return f"rank {rank}: {state} {describe_call(p, groups)}{failing}"
    last = f"; its last call: {describe_call(p, groups)}" if p.progress else \
        "; it has made no call yet"
    return f"rank {rank}: is not in a collective (running Python){last}"


def _host_of(rank):
    """`name (address)` of world rank `rank` on another host, when its beacon says."""
    beacons = getattr(STATE.watchdog, "beacons", None)
    return beacons.host_of(rank) if beacons is not None else None


def _members(me, peers, groups):
    lines = [describe_rank(r, p, me, groups) for r, p in sorted(peers.items())]
    return "\n".join("  " + line for line in lines)


def this_call(me, watch):
    site, shape = current_call()
    return f"{describe_call(me, watch.groups, shape)}" + (f" at {site}" if site else "")


# -- reports -------------------------------------------------------------------------------
def _signature(p):
    return f"{_kind_name(p.kind)} ({p.nbytes} bytes)"


def headline(verdict, me, peers, groups, settings, waited):
    """Why the job is aborted, in one sentence naming the ranks and their calls."""
    ranks = ", ".join(map(str, verdict.ranks)) or "-"
    group = group_name(me.group, groups)
    if verdict.reason == "left":
        return f"rank(s) {ranks} left the script without making this call, so it can never " \
               f"complete"
    if verdict.reason == "desync":
        theirs = "; ".join(f"rank {r}: {_signature(peers[r])}" for r in verdict.ranks)
        return f"the ranks called different collectives as call #{me.seq} on {group} (the " \
               f"desync check compares each call's collective and byte count): this rank: " \
               f"{_signature(me)}; {theirs}"
    if verdict.reason == "vanished":
        return "; ".join(f"rank {r} vanished: {why}" for r, why in verdict.why.items())
    if verdict.reason == "miscount":
        theirs = ", ".join(f"rank {r} in call #{peers[r].seq}" for r in verdict.ranks)
        return f"the ranks have made a different number of collectives on {group}: this " \
               f"rank waits in call #{me.seq}, {theirs}"
    return f"the call has waited {waited:.1f} s, past {TIMEOUT_ENV}={settings.timeout:g}; " \
           f"not arrived: rank(s) {ranks}"


def fatal_report(verdict, me, peers, waited, watch, settings):
    text = [f"minispore watchdog: {this_call(me, watch)}: "
            f"{headline(verdict, me, peers, watch.groups, settings, waited)}.",
            f"  this rank: has waited {waited:.1f} s" +
            (f", while handling {me.note}" if me.status == FAILING and me.note else ""),
            _members(me, peers, watch.groups)]
    text += _exception_handled(me, watch)
    text.append("aborting the MPI job (MPI_Abort, error code 1) so that no rank waits "
                "forever.")
    return "\n".join(text)


def _exception_handled(me, watch):
    """The report lines showing the exception this rank was handling when it entered the call
    (none when it was not handling one)."""
    if me.status != FAILING or watch.exception is None:
        return []
    return ["  the exception this rank was handling when it entered the call:",
            "".join(traceback.format_exception(watch.exception)).rstrip()]


def stall_warning(me, peers, waited, watch, settings):
    deadline = f"; the job is aborted at {settings.timeout:g} s ({TIMEOUT_ENV})" \
        if settings.timeout else f" ({TIMEOUT_ENV}=0: no deadline)"
    late = [r for r, p in peers.items() if not arrived(p, me)]
    return (f"minispore watchdog warning: {this_call(me, watch)} has waited {waited:.1f} s"
            f"{deadline}; not arrived: rank(s) {', '.join(map(str, late)) or '-'}\n"
            + _members(me, peers, watch.groups))


def mismatch_report(me, peer, them, kind, arg, x, watch):
    """The report of a call refused by the default mismatch check (watchdog.Watch.enter): this
    rank's call `me` (collective `kind`, attribute code `arg`, buffer `x`) and what rank `peer`
    (Position `them`) did with the same call number, with the exception either was handling."""
    group = group_name(me.group, watch.groups)
    mine = _kind_name(kind) if kind == BARRIER else \
        (f"{_kind_name(kind)}({describe_attribute(kind, arg)}) {x.dtype}, {x.size} elements, "
         f"shape {tuple(x.shape)}")
    if them is not None and (them.group, them.seq) == (me.group, me.seq):
        theirs = f"{'waits in' if them.in_call else 'made'} {describe_call(them, watch.groups)}"
        if them.status == FAILING and them.note:
            theirs += f", while handling {them.note}"
    else:
        theirs = f"made call #{me.seq} on {group} and has gone on"
    site = caller_site()
    text = [f"minispore watchdog: {_kind_name(kind)} on {group} (call #{me.seq} there)"
            f"{f' at {site}' if site else ''}: rank {peer} made call #{me.seq} on {group} with "
            f"another collective, element count, dtype, reduce op or shape (compared by default "
            f"as each rank arrives; MPI would wait forever or return wrong values).",
            f"  this rank: {mine}" + (f", while handling {me.note}"
                                      if me.status == FAILING and me.note else ""),
            f"  rank {peer}: {theirs}"]
    text += _exception_handled(me, watch)
    text.append("aborting the MPI job (MPI_Abort, error code 1) so that no rank waits forever "
                "or goes on with wrong values.")
    return "\n".join(text)


def where_this_rank_is(aborting_rank, position, watch):
    """What this rank says when another aborts the job: where it is, and the exception it was
    handling when it entered its call, if any."""
    if position.status == EXITED:
        where = "has left its script and waits for the other ranks to end"
    elif position.in_call:
        where = f"waits in {this_call(position, watch)}"
    else:
        site = main_thread_site()
        where = "is not in a collective: running" + (f" at {site}" if site else "")
    text = [f"minispore: rank {aborting_rank} is aborting the job; this rank {where}."]
    if position.in_call and position.status == FAILING and watch.exception is not None:
        text.append("  it entered that call while handling:")
        text.append("".join(traceback.format_exception(watch.exception)).rstrip())
    return "\n".join(text)


def exit_report(left_at, pending, table, groups, settings, fatal):
    """The exit handshake's warning (fatal=False) or abort report about the ranks that have
    not ended their script `time.monotonic() - left_at` s after this one did."""
    waited = time.monotonic() - left_at
    lines = []
    for rank in pending:
        p = table.read(rank)
        if p.in_call:
            lines.append(f"  rank {rank}: waits in {describe_call(p, groups)}")
        else:
            lines.append(f"  rank {rank}: is running (not in a collective)")
    head = (f"minispore: this rank left its script {waited:.1f} s ago and rank(s) "
            f"{', '.join(map(str, pending))} have not ended theirs")
    if fatal:
        return "\n".join([head + f" within {TIMEOUT_ENV}={settings.timeout:g}.", *lines,
                          "aborting the MPI job (MPI_Abort, error code 1)."])
    deadline = f"the job is aborted at {settings.timeout:g} s" if settings.timeout else \
        "no deadline"
    return "\n".join([f"{head} (waiting; {deadline}, {TIMEOUT_ENV})", *lines])
