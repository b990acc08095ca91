"""A sharding plan you can read before anything runs (DESIGN.md "Where we aim past MindSpore").

``describe_plan(net_or_step, *inputs)`` compiles the step as its first call would (same pass
list, same PassContext) without running it, and returns a `ShardingPlan`: per forward operator
its strategy and where it came from (user, propagated, searched, data-parallel default), its
device matrix and which block of each input every rank holds; then every collective of the
compiled step (forward, backward and update) with its scope, group and the bytes this rank is
predicted to send, priced as `comm_stats` prices what it measures. After a step,
``plan.compare(comm_stats())`` puts the measured bytes beside the predicted ones.

Describing compiles the parallel passes, which slice the network's parameters exactly as the
first step would (same layouts), so describing and then training is the normal order.
"""
from dataclasses import dataclass

from minispore.graph.jit import current_pass_context, logical_args
from minispore.graph.tracer import to_program, trace
from minispore.ops.operations.bucket_ops import AllReduceStart
from minispore.ops.operations import comm_ops
from minispore.ops.primitive import Aval
from minispore.parallel.comm.fusion import FusedCollective
from minispore.parallel.comm.stats import sent_bytes
from minispore.parallel.compiler import PASSES
from minispore.parallel.partition import _arg_avals, _tensor_positions, step_parallel_begin

__all__ = ["describe_plan", "ShardingPlan", "OperatorPlan", "CollectivePlan"]

# Collective classes as comm_stats names them (the mirror's forward is the identity: its
# gradient's AllReduce is a node of the backward).
_KINDS = {comm_ops.AllReduce: "AllReduce", comm_ops.AllGather: "AllGather",
          comm_ops.ReduceScatter: "ReduceScatter", comm_ops.AlltoAll: "AlltoAll",
          comm_ops.Broadcast: "Broadcast", comm_ops.Reduce: "Reduce"}


@dataclass
class OperatorPlan:
    scope: str
    name: str
    strategy: tuple
    origin: str                 # "user" | "propagated" | "searched" | "loaded" |
                                # "data-parallel default"
    dev_matrix: tuple
    inputs: list                # per tensor input: (logical shape, block shape, {ranks: slices})
    reason: str = ""            # why propagation chose the strategy (propagated only)


@dataclass
class CollectivePlan:
    scope: str
    kind: str
    ranks: tuple                # the world ranks of its group
    shape: tuple                # this rank's input block
    predicted_bytes: int


class ShardingPlan:
    """What `describe_plan` found; ``str(plan)`` is the readable form."""

    def __init__(self, name, device_num, search_mode, operators, collectives):
        self.name = name
        self.device_num = device_num
        self.search_mode = search_mode
        self.operators = operators
        self.collectives = collectives

    def predicted(self):
        """{collective: {'count': n, 'bytes': b}} for one step on this rank."""
        totals = {}
        for c in self.collectives:
            entry = totals.setdefault(c.kind, {"count": 0, "bytes": 0})
            entry["count"] += 1
            entry["bytes"] += c.predicted_bytes
        return totals

    def compare(self, measured):
        """Predicted beside measured (``comm_stats()`` after one step), one line per type."""
        predicted = self.predicted()
        lines = [f"{'collective':<14}{'predicted':>22}{'measured':>22}"]
        for kind in sorted(set(predicted) | set(measured)):
            p = predicted.get(kind, {"count": 0, "bytes": 0})
            m = measured.get(kind, {"count": 0, "bytes": 0})
            lines.append(f"{kind:<14}{p['count']:>6} x {p['bytes']:>11,} B"
                         f"{m['count']:>6} x {m['bytes']:>11,} B")
        return "\n".join(lines)

    def __str__(self):
        mode = self.search_mode or "semi_auto_parallel"
        lines = [f"Sharding plan of {self.name} on {self.device_num} devices ({mode})", "",
                 "operators (forward):"]
        for op in self.operators:
            lines.append(f"  {op.scope} {op.name}: strategy {op.strategy} ({op.origin}), "
                         f"device matrix {op.dev_matrix}")
            if op.reason:
                lines.append(f"      chosen as the {op.reason}")
            for k, (shape, block, blocks) in enumerate(op.inputs):
                where = "; ".join(f"r{_ranks(r)} {s}" for r, s in blocks.items())
                lines.append(f"      input {k} {shape} -> blocks {block}: {where}")
        lines += ["", "collectives per step (this rank):"]
        for c in self.collectives:
            lines.append(f"  {c.scope}: {c.kind} over ranks {_ranks(c.ranks)} of a {c.shape} "
                         f"block, {c.predicted_bytes:,} B")
        totals = ", ".join(f"{k} x{v['count']} {v['bytes']:,} B"
                           for k, v in sorted(self.predicted().items()))
        lines += ["", f"predicted per step: {totals or 'no communication'}"]
        return "\n".join(lines)


def describe_plan(net_or_step, *inputs):
    """The ShardingPlan of `net_or_step` (a Cell in GRAPH mode, e.g. a TrainOneStepCell, or an
    ``@ms.jit`` function) called on `inputs` (this rank's blocks, as it would be fed).

    Raises:
        ValueError: operators are not sharded (parallel_mode is not semi_auto_parallel or
            auto_parallel, or device_num is 1).
    """
    ctx = current_pass_context()
    if ctx.parallel is None:
        raise ValueError("describe_plan describes operator parallelism: set parallel_mode to "
                         "'semi_auto_parallel' or 'auto_parallel' on more than one device "
                         "after init().")
    fn, prepare, name = _compile_target(net_or_step)
    avals = [Aval(a.shape, a.dtype) for a in logical_args(inputs, ctx)]
    graph, tracer = trace(fn, inputs, name, avals)
    program = to_program(graph, tracer)
    if prepare is not None:
        prepare(program)
    operators = []
    for graph_pass in PASSES:
        program = graph_pass(program, ctx)
        if graph_pass is step_parallel_begin:
            operators = _operator_rows(program.graph, program.parallel_plan.results,
                                       ctx.parallel.mesh)
    return ShardingPlan(name, ctx.parallel.device_num, ctx.parallel.search_mode, operators,
                        _collective_rows(program.graph))


def _compile_target(target):
    # A Cell says what its GRAPH-mode compile traces (parallel sits below nn: no import).
    if hasattr(target, "_compile_target"):
        fn, prepare = target._compile_target()
        return fn, prepare, type(target).__name__
    function = getattr(target, "__wrapped__", target)
    if not callable(function):
        raise TypeError(f"describe_plan takes a Cell or an ms.jit function, but got "
                        f"{type(target).__name__}.")
    return function, None, getattr(function, "__name__", type(function).__name__)


def _operator_rows(graph, results, mesh):
    """One OperatorPlan per planned node; an input's blocks are those the operator's strategy
    needs it in (the partition pass redistributes to them)."""
    rows = []
    for node in graph.nodes:
        result = results.get(id(node))
        if result is None:
            continue
        inputs = []
        for layout, aval in zip(result.in_layouts, _tensor_avals(node)):
            shape = tuple(aval.shape)
            blocks = {}
            for r in range(layout.device_num):
                cut = layout.local_slices(shape, r)
                text = "[" + ", ".join(f"{s.start}:{s.stop}" for s in cut) + "]"
                blocks.setdefault(text, []).append(mesh.ranks[r] if mesh is not None else r)
            inputs.append((shape, layout.local_shape(shape),
                           {tuple(ranks): text for text, ranks in blocks.items()}))
        origin = node.annotations.get("strategy_from") or \
            ("user" if node.annotations.get("in_strategy") else "data-parallel default")
        rows.append(OperatorPlan(node.scope, node.prim.name, result.strategy, origin,
                                 result.dev_matrix, inputs,
                                 node.annotations.get("strategy_reason", "")))
    return rows


def _tensor_avals(node):
    """The Avals of the tensor arguments the operator's rule sees, in order."""
    args = _arg_avals(node)
    return [args[i] for i in _tensor_positions(node)]


def _collective_rows(graph):
    from minispore.communication import _comm
    rows = []
    for node in graph.nodes:
        kind, fused = _collective_kind(node.prim)
        if kind is None:
            continue
        ranks = _comm.communicator(node.prim.group, "describe_plan").world_ranks
        # a fused collective sends its inputs' flat concatenation
        xs = node.input_values() if fused else node.input_values()[:1]
        nbytes = sum(_nbytes(x) for x in xs)
        shape = (sum(_nbytes(x) // x.dtype.np_dtype.itemsize for x in xs),) if fused \
            else tuple(xs[0].shape)
        rows.append(CollectivePlan(node.scope, kind, tuple(ranks), shape,
                                   sent_bytes(kind, nbytes, len(ranks))))
    return rows


def _collective_kind(prim):
    """(the collective `prim` runs, whether it sends its inputs' flat concatenation), or
    (None, False) for an operator that is no collective (an AllReduceWait completes a started
    one: it is counted at its start)."""
    from minispore.parallel.comm.subgraph import CommSubgraphCall
    if isinstance(prim, CommSubgraphCall):
        prim = prim.subgraph.prim
    if isinstance(prim, FusedCollective):
        return prim.kind, True
    if isinstance(prim, AllReduceStart):
        return "AllReduce", True
    return _KINDS.get(type(prim)), False


def _nbytes(x):
    n = x.dtype.np_dtype.itemsize
    for d in x.shape:
        n *= int(d)
    return n


def _ranks(ranks):
    """'0-3' for a run of consecutive ranks, else '0,2,4'."""
    ranks = list(ranks)
    if len(ranks) > 2 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}-{ranks[-1]}"
    return ",".join(str(r) for r in ranks)
