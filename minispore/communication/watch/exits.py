"""How a rank leaves its script under MPI: when it ends (falls off the end, sys.exit, os._exit
or an uncaught exception after release()), it publishes in the arrival table that it has left,
with its exit code, where it left and how many calls it made on each group, then waits until
every rank of its host has left too, and only then lets MPI_Finalize (or os._exit) end it.

Why: MPI_Finalize waits for every rank, so a rank that left early hung the job while the
others waited in a collective for it; and a rank leaving with os._exit(0) made the launcher
end the whole job at once with status 0. Now a rank waiting for the leaver sees it in the
table and aborts the job naming it (watchdog.judge: LEFT), and a rank whose peers never end
aborts after MS_COMM_TIMEOUT. A normal end of all ranks stays exit 0.

``install`` registers the atexit hook and wraps ``sys.exit`` (to learn the code and the call
site) and ``os._exit`` (which skips atexit: with status 0 it waits for the others like a
normal end; with a failure status it only publishes and goes, the job failing anyway); both
wrappers act only in the process that joined MPI, never in a forked child (dataset workers
leave with os._exit).
"""
import atexit
import os
import sys
import time

from minispore.communication.watch import fault_report, watchdog
from minispore.communication.watch.arrivals import ABORTING, EXITED
from minispore.communication.state import STATE

PROGRESS_INTERVAL_S = 0.005     # between MPI progress calls while waiting for the others


class _Exits:
    """What this process's exit needs: the watch, the table, the settings, the real exits."""

    def __init__(self, watch, table, settings):
        self.watch, self.table, self.settings = watch, table, settings
        self.pid = os.getpid()
        self.left = False
        self.requested = None         # (status, call site) of the last sys.exit call
        self.sys_exit, self.os_exit = sys.exit, os._exit

    def leave(self, code, note):
        """Publish that this rank has left, then wait for the other ranks of the host."""
        self.left = True
        self.table.publish_exit(code, self.watch.calls_by_group(), note)
        self.wait_for_the_others()

    def wait_for_the_others(self):
        settings, table = self.settings, self.table
        others = [r for r in table.local_ranks if r != table.world_rank]
        left_at, warnings = time.monotonic(), 0
        while True:
            statuses = {r: table.read(r).status for r in others}
            pending = [r for r, status in statuses.items()
                       if status != EXITED and r not in STATE.lost_ranks]
            if not pending:
                return
            waited = time.monotonic() - left_at
            if settings.timeout is not None and waited >= settings.timeout:
                watchdog.abort_job(fault_report.exit_report(
                    left_at, pending, table, self.watch.groups, settings, fatal=True))
            # No warning while a rank is aborting: it ends the job (and this process) itself.
            if ABORTING not in statuses.values() and waited >= settings.stall * (warnings + 1):
                warnings += 1
                fault_report.write(fault_report.exit_report(
                    left_at, pending, table, self.watch.groups, settings, fatal=False))
            _progress_for(settings.tick)


def _progress_for(seconds):
    """Drive MPI's progress engine for `seconds`: a send this rank made may still be on its way
    (libfabric's netmod, the dynamic cluster's, moves data only inside MPI calls: a message to
    a peer not yet connected waits in this rank), and the receiver must get it."""
    comm = STATE.world.comm if STATE.world is not None else None
    until = time.monotonic() + seconds
    while True:
        if comm is not None:
            comm.Iprobe()
        if time.monotonic() >= until:
            return
        time.sleep(PROGRESS_INTERVAL_S)


def install(watch, table, settings):
    """Once per process, when the watchdog starts (the handshake is STATE.exits)."""
    STATE.exits = _Exits(watch, table, settings)
    atexit.register(_at_exit)
    sys.exit = _sys_exit
    os._exit = _os_exit


def _ours():
    exits = STATE.exits
    return exits is not None and os.getpid() == exits.pid and not exits.left


def _caller():
    frame = sys._getframe(2)
    return frame.f_code.co_filename, f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _sys_exit(status=None):
    exits = STATE.exits
    if _ours():
        exits.requested = (status, _caller()[1])
    exits.sys_exit(status)


def _os_exit(code):
    exits = STATE.exits
    if _ours():
        filename, site = _caller()
        note = f"os._exit({code}) at {site}"
        if code == 0 and not filename.startswith(fault_report.PACKAGE_DIR):
            # Leaving with 0 would make the launcher end the whole job with 0 at once.
            exits.leave(code, note)
        else:
            # A failure status ends the job non-zero anyway, and minispore's own exits (the
            # dynamic cluster's watcher ending a failed job) must not wait: say so and go.
            exits.left = True
            exits.table.publish_exit(code, exits.watch.calls_by_group(), note)
    exits.os_exit(code)


def _exit_code(status):
    """The process exit status Python gives SystemExit(status)."""
    if status is None:
        return 0
    return status if isinstance(status, int) else 1


def _at_exit():
    if not _ours():
        return
    exits = STATE.exits
    uncaught = getattr(sys, "last_value", None)
    if uncaught is not None:
        # Only without the abort hook (after release()): Python printed it and exits 1.
        code, note = 1, f"uncaught {fault_report.exception_note(uncaught)}"
    elif exits.requested is not None:
        status, site = exits.requested
        code, note = _exit_code(status), f"sys.exit({status!r}) at {site}"
    else:
        code, note = 0, "reached the end of its script"
    exits.leave(code, note)
