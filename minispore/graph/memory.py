"""Activation memory of compiled graphs: the bytes a schedule keeps live, planned from the
Values' shapes and lifetimes, and measured on the arrays of a run.

Both count what the executor holds between kernel calls -- every Value a node made, from the
node that made it to the ``del`` after its last reader -- and leave out the graph's inputs and
parameters (the caller's buffers). The live bytes at node k are those of every Value made
before k and still read at or after k, plus k's outputs (its inputs and outputs coexist while
its kernel runs); the peak is the largest. The measured count follows the arrays themselves: a
view or an input handed back shares its owner's buffer and costs nothing more, so it can sit
below the plan, which sizes every Value by its shape.

Activations are the part made by forward nodes and by their recomputed copies (``duplicated``
nodes, minispore/graph/recompute.py); the rest are backward temporaries, gradients and the
update's results. A training step's peak of all live bytes can sit where the gradients pile up
before the update, so both peaks are reported.

>>> from minispore.graph.memory import track_memory
>>> with track_memory() as tracker:      # doctest: +SKIP
...     train_step(x, y)                  # any GRAPH-mode cell or ms.jit function
>>> tracker.peak_bytes                    # doctest: +SKIP
"""
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from minispore.graph.ir import FORWARD

__all__ = ["MemoryReport", "MemoryTracker", "track_memory", "plan_memory", "active_tracker",
           "is_activation"]

_ACTIVE = threading.local()


@dataclass
class MemoryReport:
    """One graph's live bytes while each node runs: ``live[k]`` all of them, ``activations[k]``
    the activations among them; ``peak_bytes`` / ``peak_activation_bytes`` their maxima,
    ``peak_node`` the first node where all of them peak (-1 for a graph without nodes)."""
    graph: str
    live: list = field(default_factory=list)
    activations: list = field(default_factory=list)
    # Measured runs only: the intermediate arrays the run allocated (outputs that are neither
    # a planned buffer, a view of a held buffer, nor returned to the caller) and their bytes.
    allocations: int = 0
    allocated_bytes: int = 0

    @property
    def peak_bytes(self):
        return max(self.live, default=0)

    @property
    def peak_activation_bytes(self):
        return max(self.activations, default=0)

    @property
    def peak_node(self):
        return self.live.index(self.peak_bytes) if self.live else -1


class MemoryTracker:
    """The MemoryReports of the graph runs inside a `track_memory` block, in run order."""

    def __init__(self):
        self.reports = []

    @property
    def peak_bytes(self):
        """The largest peak of any graph run in the block."""
        return max((r.peak_bytes for r in self.reports), default=0)

    @property
    def peak_activation_bytes(self):
        """The largest activation peak of any graph run in the block."""
        return max((r.peak_activation_bytes for r in self.reports), default=0)

    @property
    def allocations(self):
        """Intermediate arrays allocated by the graph runs in the block (see MemoryReport)."""
        return sum(r.allocations for r in self.reports)

    @property
    def allocated_bytes(self):
        return sum(r.allocated_bytes for r in self.reports)


@contextmanager
def track_memory():
    """Measure every compiled graph run on this thread inside the block: each run goes through
    an accounted copy of its schedule (same kernels, same frees) that reports its live bytes
    to the yielded MemoryTracker."""
    saved = getattr(_ACTIVE, "tracker", None)
    tracker = _ACTIVE.tracker = MemoryTracker()
    try:
        yield tracker
    finally:
        _ACTIVE.tracker = saved


def active_tracker():
    """The MemoryTracker of the innermost `track_memory` block on this thread, or None."""
    return getattr(_ACTIVE, "tracker", None)


def is_activation(node):
    """Whether `node`'s outputs are activations: a forward node or a recomputed copy of one."""
    return node.phase == FORWARD or bool(node.annotations.get("duplicated"))


def plan_memory(graph):
    """The MemoryReport of `graph`'s schedule from its Values' shapes (None when a shape is
    symbolic): a Value is live from its node to its last reader, to the end when returned, and
    only while its node runs when nothing reads it."""
    last = {}
    for k, node in enumerate(graph.nodes):
        for v in node.input_values():
            last[id(v)] = k
    for v in graph.output_values():
        last[id(v)] = len(graph.nodes)
    report = MemoryReport(graph.name)
    live = activations = 0
    freed_after = {}        # node index -> [bytes, activation bytes] freed after it
    for k, node in enumerate(graph.nodes):
        activation = is_activation(node)
        for v in node.outputs:
            size = _planned_bytes(v)
            if size is None:
                return None
            live += size
            freed = freed_after.setdefault(last.get(id(v), k), [0, 0])
            freed[0] += size
            if activation:
                activations += size
                freed[1] += size
        report.live.append(live)
        report.activations.append(activations)
        freed = freed_after.pop(k, (0, 0))
        live -= freed[0]
        activations -= freed[1]
    return report


def _planned_bytes(value):
    size = np.dtype(value.dtype.np_dtype).itemsize
    for d in value.shape:
        if not isinstance(d, int):
            return None
        size *= d
    return size


class Accountant:
    """Counts the bytes of the arrays an accounted schedule holds (see executor.py): each
    buffer once, however many Values view it; the caller's buffers not at all."""

    def __init__(self, name, reused=()):
        self.report = MemoryReport(name)
        self.owners = {}            # id(owner) -> [owner, references, bytes, is activation]
        self.bytes = 0
        self.activation_bytes = 0
        self.reused = {id(_owner(a)) for a in reused}      # the memory plan's buffers
        self.allocated = {}         # id(owner) -> bytes, of the arrays this run allocated

    def external(self, *arrays):
        """The graph's inputs and parameters: views of them cost nothing."""
        for a in arrays:
            self._hold(a, 0, False)

    def made(self, activation, *arrays):
        """A node made `arrays` (activations when `activation`); its kernel has run."""
        for a in arrays:
            self._hold(a, None, activation)
        self.report.live.append(self.bytes)
        self.report.activations.append(self.activation_bytes)

    def returned(self, *arrays):
        """The run hands `arrays` to its caller: those it allocated are the caller's now."""
        for a in arrays:
            size = self.allocated.pop(id(_owner(a)), None)
            if size is not None:
                self.report.allocations -= 1
                self.report.allocated_bytes -= size

    def dropped(self, *arrays):
        for a in arrays:
            entry = self.owners.get(id(_owner(a)))
            if entry is None:
                continue
            entry[1] -= 1
            if entry[1] == 0:
                self.bytes -= entry[2]
                if entry[3]:
                    self.activation_bytes -= entry[2]
                del self.owners[id(entry[0])]
                self.allocated.pop(id(entry[0]), None)     # its id may be reused

    def _hold(self, a, size, activation):
        if not hasattr(a, "nbytes"):
            return
        owner = _owner(a)
        entry = self.owners.get(id(owner))
        if entry is None:
            if size is None:
                size = _nbytes(owner)
                if id(owner) not in self.reused:
                    self.allocated[id(owner)] = size
                    self.report.allocations += 1
                    self.report.allocated_bytes += size
            entry = self.owners[id(owner)] = [owner, 0, size, activation]
            self.bytes += size
            if activation:
                self.activation_bytes += size
        entry[1] += 1


def _owner(a):
    """The object owning `a`'s buffer: the base of a numpy view, the allocation of a device
    array's memory pointer."""
    if isinstance(a, np.ndarray):
        while isinstance(a.base, np.ndarray):
            a = a.base
        return a
    data = getattr(a, "gpu_data", None)
    return getattr(data, "owner", a) if data is not None else a


def _nbytes(owner):
    size = getattr(owner, "nbytes", None)
    return size if size is not None else getattr(owner, "size", 0)
