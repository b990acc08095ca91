"""Static memory plan of a compiled graph: the buffers its kernels write into, assigned once
from the Values' lifetimes and reused by every run, so a steady-state step allocates no
intermediate array.

A node is *planned* when its primitive's ``impl`` takes ``out=`` (``Primitive.writes_out``)
and every output has a non-scalar shape (the executor boxes 0-d results) and, for an operator
that runs float16 through its float32 kernel, no float16 operand. Each planned output gets a
*slot*: one preallocated array of its shape and dtype, shared with other planned outputs of
the same shape and dtype whose lifetimes do not overlap.

A slot is busy from the node writing it to the last read of anything that may alias it. A
planned output is a fresh buffer; an unplanned node's outputs are assumed to alias every array
it reads (a Reshape's view, an Identity's input, a handle holding a buffer for a later wait),
so the alias set is the conservative closure. A planned output that may reach the graph's
outputs is not planned at all: the caller keeps what a run returns, and a reused buffer would
change under it.

The schedule also guards each slot at run time (executor.py): before a kernel writes into a
slot, ``sys.getrefcount`` must show no holder besides the slot list, or the slot is replaced
by a new buffer and the old one left to its holder (an op that stashed its input, a caller
that kept a view). The plan makes this never happen in a graph of minispore's operators; the
guard makes a missed case cost an allocation instead of a wrong value. Device arrays' views do
not reference their base array, so on the GPU only the plan holds.

Symbolic shapes are sized when a run's symbol bindings are known: one set of slots per
binding, the last one kept. ``MINISPORE_MEMORY_PLAN=0`` in the environment turns planning
off when a graph is compiled (for A/B measurements).
"""
import math
from dataclasses import dataclass, field

import numpy as np

from minispore import device
from minispore.graph.memory import plan_memory

__all__ = ["MemoryPlan", "plan_buffers", "describe_memory"]


@dataclass
class MemoryPlan:
    """Which slot each planned output writes (``slot_of``: id(Value) -> slot index) and each
    slot's (shape, dtype); ``planned_nodes`` the indices of nodes given ``out=``."""
    slot_of: dict = field(default_factory=dict)
    slots: list = field(default_factory=list)          # [(shape, numpy dtype)]
    planned_nodes: set = field(default_factory=set)
    symbolic: bool = False                              # a slot's shape has a SymDim
    _buffers: tuple = (None, None)                      # (bindings key, [arrays])

    @property
    def n_slots(self):
        return len(self.slots)

    def nbytes(self, bindings=None):
        """The bytes of every slot (the arena's size) for `bindings`."""
        return sum(math.prod(_bound(shape, bindings)) * dtype.itemsize
                   for shape, dtype in self.slots)

    def buffers(self, bindings=None):
        """The slots' arrays for `bindings` (allocated on first use, reallocated when the
        bindings change)."""
        key = tuple(bindings.items()) if self.symbolic and bindings is not None else None
        held_key, held = self._buffers
        if held is None or held_key != key:
            held = self.allocate(bindings)
            self._buffers = (key, held)
        return held

    def allocate(self, bindings=None):
        """New arrays for every slot (a run that cannot use the shared ones)."""
        return [device.empty(_bound(shape, bindings), dtype) for shape, dtype in self.slots]


def plan_buffers(graph, enabled=True):
    """The MemoryPlan of `graph`'s schedule (empty when planning is not `enabled`)."""
    plan = MemoryPlan()
    if not enabled:
        return plan
    eligible = {k for k, node in enumerate(graph.nodes) if _plannable(node)}
    outputs = graph.output_values()
    while True:
        roots = _alias_roots(graph, eligible)
        escaped = {k for v in outputs for k in roots.get(id(v), ())}
        if not escaped & eligible:
            break
        eligible -= escaped
    busy_until = _busy_until(graph, roots)
    free = {}           # (shape, dtype) -> [(busy until, slot)]
    for k in sorted(eligible):
        for v in graph.nodes[k].outputs:
            key = (tuple(v.shape), np.dtype(v.dtype.np_dtype))
            candidates = free.setdefault(key, [])
            slot = next((s for until, s in candidates if until < k), None)
            if slot is None:
                slot = len(plan.slots)
                plan.slots.append(key)
            else:
                candidates[:] = [(u, s) for u, s in candidates if s != slot]
            candidates.append((busy_until[id(v)], slot))
            plan.slot_of[id(v)] = slot
        plan.planned_nodes.add(k)
    plan.symbolic = any(not isinstance(d, int) for shape, _ in plan.slots for d in shape)
    return plan


def _plannable(node):
    prim = node.prim
    if not prim.writes_out or node.side_effect or not node.outputs:
        return False
    if any(len(v.shape) == 0 for v in node.outputs):
        return False
    if prim.float16_in_float32:
        operands = list(node.input_values()) + list(node.outputs)
        if any(np.dtype(v.dtype.np_dtype) == np.float16 for v in operands):
            return False
    return True


def _alias_roots(graph, planned):
    """{id(Value): the indices of planned nodes whose buffers the Value may be or view}."""
    roots = {}
    for k, node in enumerate(graph.nodes):
        if k in planned:
            for v in node.outputs:
                roots[id(v)] = frozenset((k,))
            continue
        if node.prim.writes_out or node.prim.fresh_outputs:
            reads = frozenset()
        else:
            reads = frozenset().union(*(roots.get(id(v), frozenset())
                                        for v in node.input_values()))
        for v in node.outputs:
            roots[id(v)] = reads
    return roots


def _busy_until(graph, roots):
    """{id(planned Value): the last node index at which its buffer may still be read}."""
    last = {}
    for k, node in enumerate(graph.nodes):
        for v in node.input_values():
            last[id(v)] = k
    until = {}
    for k, node in enumerate(graph.nodes):
        for v in node.outputs:
            end = last.get(id(v), k)
            for root in roots.get(id(v), ()):
                for out in graph.nodes[root].outputs:
                    until[id(out)] = max(until.get(id(out), root), end)
    return until


def _bound(shape, bindings):
    if bindings is None:
        return shape
    from minispore.common import symbolic
    return tuple(int(d) for d in symbolic.substitute(shape, bindings))


def describe_memory(graph, plan):
    """The comment lines heading a schedule (save_graphs' ``*_schedule.py``): the static plan's
    planned nodes, buffers and bytes, and the peak live bytes of plan_memory."""
    size = "sized at bind time" if plan.symbolic else f"{plan.nbytes()} bytes"
    report = plan_memory(graph)
    peak = ("symbolic" if report is None else
            f"{report.peak_bytes} bytes at node {report.peak_node}, activations "
            f"{report.peak_activation_bytes} bytes")
    return [f"# memory plan: {len(plan.planned_nodes)} of {len(graph.nodes)} nodes write into "
            f"{plan.n_slots} reused buffers ({size})",
            f"# peak live intermediates: {peak}"]

