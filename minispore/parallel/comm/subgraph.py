"""Communication subgraph extraction and reuse (``MS_COMM_COMPILER_OPT``, mindspore_semantics.md
§11.2): the collectives of a compiled program that are the same operation -- same kind and
attributes (group, reduce op, fusion), same input shapes and dtypes -- share one extracted
subgraph, and each of them becomes a call of it.

``MS_COMM_COMPILER_OPT=-1`` turns it on with MindSpore's default reuse limit of 1000,
a positive int with that limit; unset, it is off, and any other value is off with a warning.
The limit is how many call sites one subgraph serves (MindSpore's MAX_COMM_OP_REUSE_NUM): a
class of k collectives gets ceil(k / limit) subgraphs. A collective with no twin stays as it
is.

A subgraph is a Graph of one input per operand and the class's one collective node (each call
shows ``comm_subgraph=<name>`` in the IR dump, and ``node.prim.subgraph.graph`` is the
subgraph); every call runs that node's primitive -- one kernel object per class instead of one per collective. MindSpore
does this on Ascend to cut the number of communication kernels it compiles and loads; here a
collective is a bound Python call, so the saving is that of binding fewer primitives (measured
in BENCHMARKS.md: compile time and step time with and without, tools/bench_comm_subgraph.py).
Numerics are unchanged: each call runs the same collective on its own operands.
"""
import logging

from minispore.graph.ir import Graph, Node
from minispore.ops.primitive import Primitive

__all__ = ["reuse_communication_subgraphs", "CommSubgraph", "CommSubgraphCall"]

logger = logging.getLogger("minispore")

class CommSubgraph:
    """One extracted collective: ``graph`` (inputs, the one node, its outputs) and the
    primitive every call runs."""

    def __init__(self, name, node):
        self.name = name
        self.prim = node.prim
        self.graph = Graph(name)
        inputs = {}
        for v in node.input_values():
            if id(v) not in inputs:
                inputs[id(v)] = self.graph.new_value(v.aval, name=f"input{len(inputs)}")
        self.graph.inputs = list(inputs.values())
        body = Node(node.prim, [inputs.get(id(x), x) if hasattr(x, "aval") else x
                                for x in node.inputs], [], f"{name}.{node.prim.name}", {},
                    tuple_output=node.tuple_output)
        body.outputs = [self.graph.new_value(v.aval, body, i) for i, v in enumerate(node.outputs)]
        self.graph.nodes = [body]
        self.graph.outputs = tuple(body.outputs) if node.tuple_output else body.outputs[0]
        self.calls = 0


class CommSubgraphCall(Primitive):
    """A call of a CommSubgraph: runs the subgraph's collective on this node's operands."""
    differentiable = False

    def __init__(self, subgraph, like):
        super().__init__(f"CommSubgraphCall[{subgraph.prim.name}]")
        self.subgraph = subgraph
        self.communication = True
        self.side_effect = getattr(like, "side_effect", False)
        for key, value in like.attrs.items():
            self.add_prim_attr(key, value)
        self.add_prim_attr("comm_subgraph", subgraph.name)
        self.impl = subgraph.prim.impl


def _key(node):
    """What makes two collectives the same operation."""
    attrs = tuple(sorted((k, repr(v)) for k, v in node.prim.attrs.items()))
    operands = tuple((tuple(v.shape), str(v.dtype)) for v in node.input_values())
    constants = tuple(repr(x) for x in node.inputs if not hasattr(x, "aval"))
    return type(node.prim).__name__, attrs, operands, constants


def _reusable(node):
    prim = node.prim
    return getattr(prim, "communication", False) and prim.replayable and \
        not isinstance(prim, CommSubgraphCall)


def reuse_communication_subgraphs(program, ctx):
    """Replace the twin collectives of `program` by calls of shared subgraphs (module
    docstring); a no-op unless ctx.comm_reuse_limit is set."""
    limit = ctx.comm_reuse_limit
    if limit is None:
        return program
    graph = program.graph
    logger.info("MAX_COMM_OP_REUSE_NUM: %d", limit)
    classes = {}
    for node in graph.nodes:
        if _reusable(node):
            classes.setdefault(_key(node), []).append(node)
    total = sum(len(members) for members in classes.values())
    subgraphs = []
    for members in classes.values():
        if len(members) < 2:
            continue
        for start in range(0, len(members), limit):
            chunk = members[start:start + limit]
            sub = CommSubgraph(f"{graph.name}_comm_subgraph_{len(subgraphs)}", chunk[0])
            subgraphs.append(sub)
            for node in chunk:
                node.prim = CommSubgraphCall(sub, node.prim)
                node.annotations["comm_subgraph"] = sub.name
                sub.calls += 1
    calls = sum(sub.calls for sub in subgraphs)
    logger.info("Communication subgraph reuse in %s: %d communication nodes, %d of them now "
                "call %d shared subgraphs, %d remain as they were.", graph.name, total, calls,
                len(subgraphs), total - calls)
    return program
