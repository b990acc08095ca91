"""The graph IR: Graph (inputs, parameters, ordered nodes, outputs), Node, Value; the text dump."""
from minispore.common.tensor import Tensor

# Primitive attributes that are annotations for the parallel and memory passes, copied to nodes
# (over the annotations of the cells the node was traced in: a primitive's own wins).
ANNOTATION_KEYS = ("in_strategy", "out_strategy", "ms_role", "rank_id", "pipeline_stage",
                   "recompute")

# Node.phase values: which part of a training step a node belongs to.
FORWARD, BACKWARD, UPDATE = "forward", "backward", "update"


class Value:
    """One tensor flowing through the graph: its abstract value (shape, dtype), the node that
    produces it (None for graph inputs and parameters), and a `layout` slot that the parallel
    pass fills (None until then)."""

    __slots__ = ("aval", "producer", "index", "name", "layout", "param")

    def __init__(self, aval, name, producer=None, index=0, param=None):
        self.aval = aval
        self.name = name
        self.producer = producer
        self.index = index
        self.layout = None
        self.param = param      # the live Parameter for parameter inputs, else None

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    def __repr__(self):
        return f"%{self.name}"


class Node:
    """One primitive application: ``outputs = prim(*inputs)``, where each input is a Value or a
    constant (a data Tensor, a number, an axis tuple, …) passed through unchanged.

    ``scope`` is the cell path the primitive was called from (``Net.fc1.matmul``);
    ``annotations`` holds the parallel/memory annotations (strategy, place, stage, recompute)
    of the cells it was traced in and of the primitive itself, for the passes.
    ``side_effect`` nodes write into an input in place (optimizer updates, Assign) and are
    never removed or reordered before their inputs' producers.

    Provenance: ``phase`` (FORWARD, BACKWARD or UPDATE), ``derived_from`` (for a backward
    node, the forward node whose bprop made it), ``stage`` and ``micro_batch`` (pipeline
    slots; None outside a pipeline).
    """

    __slots__ = ("prim", "inputs", "outputs", "scope", "annotations", "side_effect",
                 "tuple_output", "phase", "derived_from", "stage", "micro_batch")

    def __init__(self, prim, inputs, outputs, scope, annotations, side_effect=False,
                 tuple_output=False, phase=FORWARD, derived_from=None):
        self.prim = prim
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.tuple_output = tuple_output    # impl returns a tuple (even of one array)
        self.scope = scope
        self.annotations = annotations
        self.side_effect = side_effect
        self.phase = phase
        self.derived_from = derived_from
        self.stage = annotations.get("pipeline_stage")
        self.micro_batch = annotations.get("micro_batch")

    def input_values(self):
        """The Values read (also inside tuple/list arguments), in argument order."""
        return [v for v in flatten(self.inputs) if isinstance(v, Value)]

    def __repr__(self):
        return f"Node({self.prim.name} @ {self.scope})"


class Graph:
    """A traced function: ``inputs`` (Values of the call's tensor arguments, in order),
    ``parameters`` (Values read from live Parameters at every run), ``nodes`` in execution
    order, and ``outputs``: the Python structure returned, with Values where tensors were.
    What later passes must do with it (the gradient to take, the update to apply) is held by
    the Program (minispore/graph/program.py) that owns the graph.
    """

    def __init__(self, name):
        self.name = name
        self.inputs = []
        self.parameters = []
        self.nodes = []
        self.outputs = None
        self.tracer = None      # the Tracer recording into this graph (graph/tracer.py)
        self._count = 0

    def new_value(self, aval, producer=None, index=0, param=None, name=None):
        if name is None:
            name = str(self._count)
            self._count += 1
        return Value(aval, name, producer, index, param)

    def output_values(self):
        """Every Value in the output structure, in order."""
        return [v for v in flatten(self.outputs) if isinstance(v, Value)]

    def dump(self):
        """A readable text form: one line per input, parameter and node, then the outputs."""
        lines = [f"graph {self.name}("]
        for v in self.inputs:
            lines.append(f"    {v!r}: {format_aval(v)}  # input")
        for v in self.parameters:
            lines.append(f"    {v!r}: {format_aval(v)}  # parameter {v.param.name}")
        lines.append(") {")
        for i, node in enumerate(self.nodes):
            lines.append("  " + format_node(node, i))
        lines.append(f"  return {format_const(self.outputs)}")
        lines.append("}")
        text = "\n".join(lines) + "\n"
        # Control-flow nodes (If, While) hold their branches and bodies as graphs of their own
        # (minispore/graph/control_flow.py): listed after, each with the nodes it holds.
        for i, node in enumerate(self.nodes):
            for label, sub in (getattr(node.prim, "subgraphs", None) or {}).items():
                text += f"\n# node {i} ({node.prim.name}), {label}:\n" + sub.dump()
        return text


def format_aval(v):
    layout = f" layout={v.layout}" if v.layout is not None else ""
    return f"<{v.dtype}, {list(v.shape)}>{layout}"


def format_const(c):
    if isinstance(c, Value):
        return repr(c)
    if isinstance(c, Tensor):
        return f"Tensor<{c.dtype}, {list(c.shape)}>"
    if isinstance(c, tuple):
        return "(" + ", ".join(format_const(x) for x in c) + ("," if len(c) == 1 else "") + ")"
    if isinstance(c, list):
        return "[" + ", ".join(format_const(x) for x in c) + "]"
    return repr(c)


def format_node(node, index):
    outs = ", ".join(repr(v) for v in node.outputs)
    args = ", ".join(format_const(a) for a in node.inputs)
    shapes_in = ", ".join(format_aval(v) for v in node.input_values())
    shapes_out = ", ".join(format_aval(v) for v in node.outputs)
    notes = "".join(f" {k}={v}" for k, v in node.annotations.items())
    effect = " side_effect" if node.side_effect else ""
    phase = "" if node.phase == FORWARD else f" phase={node.phase}"
    return (f"{outs} = {node.prim!r}({args})\n"
            f"      # {index}: scope={node.scope} in=({shapes_in}) out=({shapes_out})"
            f"{phase}{notes}{effect}")


def flatten(obj):
    """The leaves of a nested tuple/list structure, in order."""
    if isinstance(obj, (tuple, list)):
        for x in obj:
            yield from flatten(x)
    else:
        yield obj


def map_values(obj, fn):
    """`obj` (a Value, a constant, or nested tuples/lists of them) with fn(Value) for each
    Value."""
    if isinstance(obj, Value):
        return fn(obj)
    if isinstance(obj, tuple):
        return tuple(map_values(x, fn) for x in obj)
    if isinstance(obj, list):
        return [map_values(x, fn) for x in obj]
    return obj


def definition_order(graph):
    """{id(Value): its rank in definition order} for inputs, parameters and node outputs."""
    values = list(graph.inputs) + list(graph.parameters) + \
        [v for n in graph.nodes for v in n.outputs]
    return {id(v): k for k, v in enumerate(values)}


def annotations_of(prim, frames=None):
    """A node's annotations: those of the enclosing cells' frames (outermost first, inner
    ones override), then the primitive's own attributes, which win for its node."""
    merged = {}
    for frame in frames or ():
        merged.update(frame)
    merged.update((k, prim.attrs[k]) for k in ANNOTATION_KEYS if k in prim.attrs)
    return merged
