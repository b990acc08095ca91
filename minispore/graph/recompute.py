"""The recompute pass: marked forward nodes whose outputs the backward reads run again just
before their first backward use, so the forward's copies die after their last forward use.

A node is marked by its ``recompute`` annotation (DESIGN.md "annotation frames"): ``True`` /
``False`` from ``Primitive.recompute(mode)`` (the primitive's own setting wins), or the
`CellRecompute` of a ``Cell.recompute`` cell, shared by every node traced inside it (its
sub-cells and functional ops included, and, after the parallel passes, the collectives inserted
for them). A marked FORWARD node is recomputed unless

- its outputs leave a ``Cell.recompute`` cell (MindSpore's ``output_no_recompute``: the cell's
  outputs are its checkpoint, kept for the backward; a primitive's own ``recompute()`` has no
  such exception);
- it is a collective and the cell's ``mp_comm_recompute`` is False, or a collective of
  parameters only (optimizer parallel's AllGather of a sliced weight) and
  ``parallel_optimizer_comm_recompute`` is False (the defaults of a primitive's own mark are
  True and False);
- running it again would change something (side effects such as in-place updates, random
  draws, point-to-point transfers: ``Primitive.replayable``), or an output must live on anyway
  (a graph output, or read by the optimizer update).

Every BACKWARD node that reads an output of a recomputed node reads a duplicate instead: the
duplicates of the chain of recomputed producers back to kept values are emitted right before
the first backward node that needs them, and shared by later ones. Duplicates are BACKWARD
nodes derived from the forward node they repeat, with the annotation ``duplicated=True`` and
the scope ``recompute_<scope>`` (MindSpore's IR marks). The executor frees a value after its
last reader, so the forward outputs now die at their last forward reader.

A chain of duplicates then moves up past the backward nodes just before it that free nothing
(every value they read is read again later, every value they make is read), stopping at one that
frees a value, at another chain, at a collective or a node with side effects. Such a node only
adds to the live bytes, so running the chain before it never raises the peak, and lowers it
when the chain has intermediates: a block's input gradient (``dx = dout @ W``) no longer sits
beside the recomputed block's pre-activations. The static memory plan (arena.py) then gives
the recomputed activations the slots the forward copies left, so the arena shrinks by every
dropped activation (tests/graph/test_recompute_pass.py).
"""
from dataclasses import dataclass

from minispore.graph.ir import BACKWARD, FORWARD, Node, map_values

__all__ = ["CellRecompute", "recompute"]


@dataclass(frozen=True, eq=False)
class CellRecompute:
    """The ``recompute`` annotation of the nodes traced inside a ``Cell.recompute`` cell: one
    object per configured cell (nodes share it by identity, which is how the pass finds the
    cell's outputs), with the cell's communication settings."""
    cell: str
    mp_comm_recompute: bool = True
    parallel_optimizer_comm_recompute: bool = False

    def __repr__(self):
        return (f"{self.cell}.recompute(mp_comm_recompute={self.mp_comm_recompute}, "
                f"parallel_optimizer_comm_recompute={self.parallel_optimizer_comm_recompute})")


def recompute(program, ctx):
    """Re-emit the recomputed forward nodes before their backward readers (module docstring);
    a program without marks or without a backward is returned unchanged."""
    graph = program.graph
    if not any(n.phase == BACKWARD for n in graph.nodes) or \
            not any(n.annotations.get("recompute") for n in graph.nodes):
        return program
    chosen = _recomputed_nodes(graph)
    if chosen:
        graph.nodes = _hoisted(graph, _with_duplicates(graph, chosen))
    return program


def _recomputed_nodes(graph):
    """ids of the FORWARD nodes to recompute."""
    readers = {}
    for node in graph.nodes:
        for v in node.input_values():
            readers.setdefault(id(v), []).append(node)
    returned = {id(v) for v in graph.output_values()}
    of_parameters = _parameter_derived(graph)
    chosen = set()
    for node in graph.nodes:
        mark = node.annotations.get("recompute")
        if node.phase != FORWARD or not mark or node.side_effect or not node.prim.replayable:
            continue
        if node.prim.communication and not _recomputes_communication(node, mark,
                                                                     of_parameters):
            continue
        if any(_must_keep(v, mark, readers, returned) for v in node.outputs):
            continue
        chosen.add(id(node))
    return chosen


def _recomputes_communication(node, mark, of_parameters):
    cell = mark if isinstance(mark, CellRecompute) else CellRecompute("")
    if all(id(v) in of_parameters for v in node.input_values()):
        return cell.parallel_optimizer_comm_recompute
    return cell.mp_comm_recompute


def _must_keep(value, mark, readers, returned):
    """Whether `value` lives on whatever recompute does: returned by the graph, read by a node
    of another phase than forward or backward, or an output of `mark`'s cell."""
    if id(value) in returned:
        return True
    for reader in readers.get(id(value), ()):
        if reader.phase not in (FORWARD, BACKWARD):
            return True
        if isinstance(mark, CellRecompute) and reader.phase == FORWARD and \
                reader.annotations.get("recompute") is not mark:
            return True
    return False


def _parameter_derived(graph):
    """ids of the Values computed from parameters only (a weight's reads: mirror, AllGather
    of an optimizer-sliced weight), which parallel_optimizer_comm_recompute governs."""
    derived = {id(v) for v in graph.parameters}
    for node in graph.nodes:
        inputs = node.input_values()
        if inputs and all(id(v) in derived for v in inputs):
            derived.update(id(v) for v in node.outputs)
    return derived


def _with_duplicates(graph, chosen):
    """graph.nodes with each backward reader of a chosen node's output reading a duplicate,
    emitted just before the first such reader."""
    duplicates = {}         # id(forward node) -> its duplicate
    order = []

    def duplicate_of(value):
        producer = value.producer
        if producer is None or id(producer) not in chosen:
            return value
        copy = duplicates.get(id(producer))
        if copy is None:
            copy = _duplicate(graph, producer, map_values(producer.inputs, duplicate_of))
            duplicates[id(producer)] = copy
            order.append(copy)
        return copy.outputs[value.index]

    for node in graph.nodes:
        if node.phase == BACKWARD and any(id(v.producer) in chosen
                                          for v in node.input_values() if v.producer):
            node.inputs = map_values(node.inputs, duplicate_of)
        order.append(node)
    return order


def _hoisted(graph, order):
    """`order` with each run of duplicates moved up past the nodes before it that free nothing
    (module docstring)."""
    order = list(order)
    k = 0
    while k < len(order):
        if not _is_duplicate(order[k]):
            k += 1
            continue
        end = k
        while end < len(order) and _is_duplicate(order[end]):
            end += 1
        last = _last_reads(graph, order, skip=range(k, end))
        start = k
        while start > 0 and _passable(order[start - 1], start - 1, last):
            start -= 1
        order[start:end] = order[k:end] + order[start:k]
        k = end
    return order


def _is_duplicate(node):
    return bool(node.annotations.get("duplicated"))


def _last_reads(graph, order, skip):
    """{id(Value): the last position in `order` reading it, positions in `skip` left out};
    the graph's outputs are read past the end."""
    last = {}
    for k, node in enumerate(order):
        if k not in skip:
            for v in node.input_values():
                last[id(v)] = k
    for v in graph.output_values():
        last[id(v)] = len(order)
    return last


def _passable(node, k, last):
    """Whether a chain of duplicates may run before `node` (at position k): a plain backward
    node that frees nothing -- every Value it reads that a node made is read again after it,
    every Value it makes is read -- and has no effect a move could reorder."""
    if node.phase != BACKWARD or _is_duplicate(node) or node.side_effect or \
            not node.prim.replayable or node.prim.communication:
        return False
    if any(v.producer is not None and last.get(id(v), -1) <= k for v in node.input_values()):
        return False
    return all(id(v) in last for v in node.outputs)


def _duplicate(graph, node, inputs):
    annotations = dict(node.annotations, duplicated=True)
    copy = Node(node.prim, inputs, (), f"recompute_{node.scope}", annotations,
                tuple_output=node.tuple_output, phase=BACKWARD, derived_from=node)
    copy.stage, copy.micro_batch = node.stage, node.micro_batch
    copy.outputs = [graph.new_value(v.aval, copy, v.index) for v in node.outputs]
    for new, old in zip(copy.outputs, node.outputs):
        new.layout = old.layout
    return copy
