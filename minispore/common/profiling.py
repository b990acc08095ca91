"""The event recorder behind ``ms.Profiler`` (minispore/train/profiler.py): while one is active,
the profiled eager interpreter (then the base of every interpreter stack, common/context.py)
and compiled schedules time every kernel call (category "kernel", or "communication" for a
communication primitive), and the MPI entry points every collective, point-to-point call and
wait (category "mpi", also those outside any primitive: gradient buckets, pipeline
Send/Receive), each as a span (name, category, start, duration, bytes). When none is active
eager calls run on the plain base and a compiled graph its unprofiled schedule: no cost."""
import functools
import threading
import time

from minispore.common.context import BASE
from minispore.common.registry import REGISTRY

__all__ = ["Recorder", "active", "start", "stop", "timed", "collective"]

# [the active Recorder or None, inside a collective (one calling another: staging, broadcast's
# per-array calls)]
ACTIVE = REGISTRY.owned("profiling.active", lambda: [None, False])


class Recorder:
    """Spans as (name, category, start_ns, duration_ns, nbytes, thread id)."""

    def __init__(self):
        self.spans = []
        self.origin = time.perf_counter_ns()
        self._lock = threading.Lock()

    def add(self, name, category, start, duration, nbytes):
        with self._lock:
            self.spans.append((name, category, start - self.origin, duration, nbytes,
                               threading.get_ident()))


def active():
    return ACTIVE[0]


def start(recorder):
    """Record into `recorder`: eager calls run on the profiled base interpreter."""
    ACTIVE[0] = recorder
    BASE[0] = BASE[2]


def stop():
    ACTIVE[0] = None
    BASE[0] = BASE[1]


def category_of(prim):
    return "communication" if getattr(prim, "communication", False) else "kernel"


def nbytes_of(arrays):
    return sum(getattr(a, "nbytes", 0) for a in arrays)


def _bytes_moved(args, out):
    """The bytes a collective was given, or for a receive (no array in) the bytes it got."""
    given = sum(nbytes_of(a) if isinstance(a, (tuple, list)) else getattr(a, "nbytes", 0)
                for a in args)
    return given or nbytes_of(out if isinstance(out, (tuple, list)) else (out,))


def collective(name):
    """Decorator for the MPI entry points of communication/collectives.py: while a recorder is
    active each outermost call records a span of category "mpi" (its wait for the other ranks
    included, so a straggler shows as long spans on the others)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            recorder = ACTIVE[0]
            if recorder is None or ACTIVE[1]:
                return fn(*args, **kwargs)
            ACTIVE[1] = True
            t0 = time.perf_counter_ns()
            try:
                out = fn(*args, **kwargs)
            finally:
                ACTIVE[1] = False
            recorder.add(name, "mpi", t0, time.perf_counter_ns() - t0, _bytes_moved(args, out))
            return out
        return call
    return wrap


def timed(fn, name, category):
    """`fn` wrapped to record a span per call in the active recorder (compiled schedules bind
    this in their profiled variant)."""
    def call(*arrays, **out):
        recorder = ACTIVE[0]
        if recorder is None:
            return fn(*arrays, **out)
        t0 = time.perf_counter_ns()
        out = fn(*arrays, **out)
        recorder.add(name, category, t0, time.perf_counter_ns() - t0, nbytes_of(arrays))
        return out
    return call
