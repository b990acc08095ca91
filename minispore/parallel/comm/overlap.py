"""Overlap of gradient all-reduces with computation in compiled programs: each gradient bucket
(a gradient bucket of data parallel, a fused collective of mirrors' reductions) starts as soon
as its input exists and is waited where its result is first needed.

For every such node the pass

1. hoists it, with the pure nodes that only feed it (data parallel's bucket: the scale by
   1/degree and the packing into one buffer, which the reducer traces after the whole
   backward), to just after the last node making one of their outside inputs;
2. splits it into an `AllReduceStart` there (MPI's non-blocking Iallreduce on a packed copy of
   its inputs) and an `AllReduceWait` just before the first node reading a result, unless
   that node comes right after it.

Between the two, the rest of the backward runs. MPICH moves a non-blocking collective forward
only inside MPI calls (any call: the other buckets' starts and waits, the point-to-point
transfers), unless its progress thread is on (``MPIR_CVAR_ASYNC_PROGRESS=1`` in the environment
of the job; mpi4py initialises MPI with MPI_THREAD_MULTIPLE, which it needs). BENCHMARKS.md
measures both. The numbers do not change: the same reduction runs on the same values.
"""
from minispore.graph.ir import UPDATE, Node
from minispore.ops.operations.bucket_ops import AllReduceStart, AllReduceWait, BucketView
from minispore.ops.operations.comm_ops import AllReduce
from minispore.parallel.comm.fusion import FusedCollective

__all__ = ["overlap_communication"]


def _worth_overlapping(node):
    """A gradient bucket: a FusedCollective of all-reduces, or data parallel's bucket (an
    AllReduce the reducer marks `gradient_bucket`, traced in the update after the backward).
    A forward all-reduce completes a partial sum that the next operator reads, and a lone
    gradient's costs more started and waited than run at once (measured:
    tools/bench_comm_graph.py). Other all-reduces of the update stay where they are: hoisting
    moves each to its own inputs, so ranks whose graphs differ (AdaSum's left and right ranks)
    would start them in different orders, and MPI matches collectives by order."""
    prim = node.prim
    if node.side_effect:
        return False
    if isinstance(prim, FusedCollective):
        return prim.kind == "AllReduce"
    return type(prim) is AllReduce and node.phase == UPDATE and \
        bool(prim.attrs.get("gradient_bucket"))


def overlap_communication(program, ctx):
    """Hoist and split the program's all-reduces (module docstring)."""
    graph = program.graph
    targets = [n for n in graph.nodes if _worth_overlapping(n)]
    for node in targets:
        nodes = graph.nodes
        _hoist(nodes, node)
        _sink_views(nodes, node)
        graph.nodes = _split(graph, nodes, node)
    return program


def _sink_views(nodes, node):
    """Move the BucketViews of `node`'s result to just before their first readers (in place),
    so that its wait lands before the first update needing one of its gradients rather than
    before the views, which the reducer traces all together."""
    outs = {id(v) for v in node.outputs}
    views = [n for n in nodes if isinstance(n.prim, BucketView)
             and any(id(v) in outs for v in n.input_values())]
    for view in views:
        nodes.remove(view)
        result = id(view.outputs[0])
        first = next((i for i, n in enumerate(nodes)
                      if any(id(v) == result for v in n.input_values())), len(nodes))
        nodes.insert(first, view)


def _hoist(nodes, node):
    """Move `node` and the pure nodes feeding only it right after their latest outside
    producer (in place)."""
    position = {id(n): k for k, n in enumerate(nodes)}
    readers = {}
    for n in nodes:
        for v in n.input_values():
            readers.setdefault(id(v), set()).add(id(n))
    group = {id(node): node}
    frontier = [node]
    while frontier:
        current = frontier.pop()
        for v in current.input_values():
            producer = v.producer
            if producer is None or id(producer) in group or id(producer) not in position:
                continue
            if producer.side_effect or getattr(producer.prim, "communication", False) or \
                    producer.phase != node.phase or producer.tuple_output:
                continue
            if all(readers.get(id(o), set()) <= set(group) for o in producer.outputs):
                group[id(producer)] = producer
                frontier.append(producer)
    members = sorted(group.values(), key=lambda n: position[id(n)])
    outside = [position[id(v.producer)] for m in members for v in m.input_values()
               if v.producer is not None and id(v.producer) not in group
               and id(v.producer) in position]
    after = max(outside, default=-1)        # the last outside producer (old position)
    if after + 1 >= position[id(node)] - (len(members) - 1):
        return      # already right behind its inputs
    rest = [n for n in nodes if id(n) not in group]
    at = 0 if after < 0 else rest.index(nodes[after]) + 1
    nodes[:] = rest[:at] + members + rest[at:]


def _split(graph, nodes, node):
    """`nodes` with `node` replaced by its start and, before the first reader, its wait (left
    as it is when its first reader follows it at once)."""
    k = next(i for i, n in enumerate(nodes) if n is node)
    outs = set(id(v) for v in node.outputs)
    first = next((i for i in range(k + 1, len(nodes))
                  if any(id(v) in outs for v in nodes[i].input_values())), len(nodes))
    if first == k + 1:
        return nodes
    count = len(node.outputs)
    start_prim = AllReduceStart(node.prim.op, node.prim.group, count)
    start = Node(start_prim, list(node.inputs), [], node.scope + ".start",
                 dict(node.annotations), phase=node.phase, derived_from=node.derived_from)
    start.micro_batch = node.micro_batch
    start.outputs = [graph.new_value(start_prim.infer(), start)]
    wait_prim = AllReduceWait([v.aval for v in node.outputs])
    wait = Node(wait_prim, [start.outputs[0]], list(node.outputs), node.scope + ".wait",
                dict(node.annotations), tuple_output=node.tuple_output, phase=node.phase,
                derived_from=node.derived_from)
    wait.micro_batch = node.micro_batch
    for i, v in enumerate(node.outputs):
        v.producer, v.index = wait, i
    return nodes[:k] + [start] + nodes[k + 1:first] + [wait] + nodes[first:]
