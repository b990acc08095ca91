"""Distributed graph partition by `place` (mindspore_semantics.md §7): the traced forward
program -> this worker's segment, joined to the other workers' by Send/Receive pairs.

Every rank traces the same program, so every rank derives the same split:

1. Labels. A forward node runs on the worker its ``rank_id`` annotation names (the frame of
   the placed cell it was traced in, or its primitive's own ``place``, which wins); unplaced
   nodes (loss, glue) and the graph inputs belong to worker 0, MindSpore's default label. A
   parameter lives on the worker of the first node that reads it (worker 0 when none does):
   only that worker holds it in its graph, and its optimizer updates it there.
2. Edges. A value that another worker reads -- as a node's input, or as a graph output, which
   every worker returns (so every worker logs the real loss and metrics) -- crosses once per
   reading worker: a Send on its owner right after it is made, a Receive on the reader at the
   same point of the traced order, with one tag per edge, the value's shape (symbolic dims
   too) and dtype. Each worker keeps only its own nodes and its ends of the edges, in the
   traced order, so every pair of blocking calls meets in one global order and nothing
   deadlocks.
3. Backward. The `differentiate` pass runs on the segment: Send's bprop receives the
   gradient that the peer Receive's bprop sends back. An edge carries a gradient iff its value
   depends on a parameter being differentiated (decided on the whole traced graph, so both
   ends agree); both ends of such an edge run their bprop in every backward
   (``backward_always``), the others never. The loss (the gradient's head) seeds the worker
   that owns it; the others get their cotangents through the edges only.
4. Update: minispore/parallel/place/update.py keeps the optimizer's nodes for the parameters
   living here.
"""
import logging
from dataclasses import dataclass

from minispore.common.symbolic import is_symbolic
from minispore.graph.autodiff import differentiable_from
from minispore.graph.ir import FORWARD, Graph, Value, definition_order, map_values
from minispore.graph.program import GradRequest
from minispore.graph.tracer import Tracer
from minispore.ops.operations.comm_ops import Receive, Send, _DynamicReceive
from minispore.ops.primitive import Primitive
from minispore.parallel.place.update import local_update

__all__ = ["partition_by_place"]

logger = logging.getLogger("minispore")

ROLE = "MS_WORKER"
DEFAULT_WORKER = 0      # the label of unplaced nodes and graph inputs (graph_splitter's default)
_BEFORE_NODES = -1      # the position of the edges of graph inputs and parameters


@dataclass
class Edge:
    """``value`` (of the traced graph) made on worker ``src`` and read on worker ``dst``:
    Send on src, Receive on dst, both with ``tag``, at ``position`` in the traced order (the
    index of the node making it; _BEFORE_NODES for inputs and parameters). ``grad``: it
    carries a gradient back (the value depends on a differentiated parameter and a node on
    dst reads it)."""
    value: Value
    src: int
    dst: int
    position: int
    tag: int = 0
    grad: bool = False


def partition_by_place(program, ctx):
    """This worker's segment of a program with placed nodes (see the module docstring); a
    no-op when nothing is placed. Before communication.init() the job is one process and
    `place` has no effect, as in MindSpore (a warning says so)."""
    graph = program.graph
    placed = [n for n in graph.nodes if "rank_id" in n.annotations]
    if not placed:
        return program
    _check_restrictions(placed, ctx)
    if ctx.workers is None:
        logger.warning("Cell.place / Primitive.place is ignored: communication.init() was not "
                       "called, so the network runs whole in this process (as in MindSpore). "
                       "Call init() and launch the workers (mpirun -n N) to partition it.")
        return program
    from minispore.parallel.partition import refuse_control_flow
    refuse_control_flow(graph, "a graph partitioned by place")
    _check_partitionable(placed, program, ctx.workers)
    placement = Placement(graph, ctx.workers, program.grad)
    return _Segment(program, placement, ctx.rank).run()


def _check_restrictions(placed, ctx):
    """MindSpore's restrictions on `place` (mindspore_semantics.md §7.4), checked again at
    compile time: the settings may have changed since the place() calls."""
    first = placed[0]
    where = f"node '{first.prim.name}' (in {first.scope}) is placed on worker " \
            f"{first.annotations['rank_id']}"
    if ctx.parallel_mode != "stand_alone":
        raise RuntimeError(f"Distributed graph partition (place) cannot be combined with "
                           f"parallel_mode {ctx.parallel_mode!r}, but {where}; use "
                           f"parallel_mode 'stand_alone' or remove the place() calls.")
    if ctx.enable_ps:
        raise RuntimeError(f"Distributed graph partition (place) cannot be combined with the "
                           f"parameter server (enable_ps=True), but {where}.")
    if ctx.role != ROLE:
        raise RuntimeError(f"Distributed graph partition runs on {ROLE} processes, but this "
                           f"process's role is {ctx.role!r}.")
    for node in placed:
        role = node.annotations.get("ms_role")
        if role != ROLE:
            raise ValueError(f"Node '{node.prim.name}' (in {node.scope}) is placed with role "
                             f"{role!r}; place supports only the role {ROLE!r}.")


def _check_partitionable(placed, program, workers):
    """The worker ids exist in this job, and the program is one the partition builds."""
    for node in placed:
        rank_id = node.annotations["rank_id"]
        if not 0 <= rank_id < workers:
            raise ValueError(f"Node '{node.prim.name}' (in {node.scope}) is placed on worker "
                             f"{rank_id}, but the job has {workers} workers: rank_id must be "
                             f"in [0, {workers}).")
    if program.traced_gradients or any(n.phase != FORWARD for n in program.graph.nodes):
        raise NotImplementedError(
            "Distributed graph partition (place) of a compiled function that takes gradients "
            "itself (value_and_grad/grad inside ms.jit) is not implemented in minispore yet; "
            "train through TrainOneStepCell (or Model), whose gradient the partition derives.")
    request = program.grad
    if request is not None and request.return_grads:
        raise NotImplementedError(
            "Distributed graph partition (place) of a program that returns its gradients is "
            "not implemented in minispore yet: each worker holds only its own parameters' "
            "gradients. Train through TrainOneStepCell (or Model).")


class Placement:
    """Where every node, input and parameter of the traced `graph` runs or lives, and the
    edges between `workers` workers, in the order both ends meet them."""

    def __init__(self, graph, workers, request):
        self.graph = graph
        self.workers = workers
        self.node_worker = {id(n): n.annotations.get("rank_id", DEFAULT_WORKER)
                            for n in graph.nodes}
        self.param_owner = {}       # id(Parameter) -> worker
        for node in graph.nodes:
            for v in node.input_values():
                if v.param is not None:
                    self.param_owner.setdefault(id(v.param), self.node_worker[id(node)])
        live = differentiable_from(graph, request.wrt) if request is not None else set()
        self.edges = self._edges(live)
        self.at = {}                # position -> [Edge], in tag order
        for edge in self.edges:
            self.at.setdefault(edge.position, []).append(edge)

    def owner(self, value):
        """The worker that makes (or holds) `value`."""
        if value.param is not None:
            return self.param_owner.get(id(value.param), DEFAULT_WORKER)
        if value.producer is None:
            return DEFAULT_WORKER
        return self.node_worker[id(value.producer)]

    def _edges(self, live):
        found = {}      # (id(value), dst) -> Edge

        def read(value, dst, by_node):
            src = self.owner(value)
            if src == dst:
                return
            edge = found.get((id(value), dst))
            if edge is None:
                position = _BEFORE_NODES if value.producer is None else index[id(value.producer)]
                edge = found[(id(value), dst)] = Edge(value, src, dst, position)
            edge.grad = edge.grad or (by_node and id(value) in live)

        index = {id(n): i for i, n in enumerate(self.graph.nodes)}
        for node in self.graph.nodes:
            for v in node.input_values():
                read(v, self.node_worker[id(node)], True)
        for v in self.graph.output_values():
            if v.param is None:
                for dst in range(self.workers):
                    read(v, dst, False)
        order = definition_order(self.graph)
        edges = sorted(found.values(), key=lambda e: (e.position, order[id(e.value)], e.dst))
        for tag, edge in enumerate(edges):
            edge.tag = tag
        return edges


class _Segment:
    """Re-traces this worker's part of the program into a new graph (see the module
    docstring): its nodes, its ends of the edges, its outputs and gradient request."""

    def __init__(self, program, placement, worker):
        self.program = program
        self.old = program.graph
        self.placement = placement
        self.worker = worker
        self.graph = Graph(self.old.name)
        self.tracer = Tracer.of(self.graph)
        self.env = {}       # id(traced Value) -> its TracedTensor here (made or received)

    def run(self):
        for v in self.old.inputs:       # every worker keeps the call's signature
            self.env[id(v)] = self.tracer.add_input(v.aval)
        for edge in self.placement.at.get(_BEFORE_NODES, ()):
            self._communicate(edge)
        for position, node in enumerate(self.old.nodes):
            if self.placement.node_worker[id(node)] == self.worker:
                self._run(node)
            for edge in self.placement.at.get(position, ()):
                self._communicate(edge)
        # A returned Parameter is the live object on every worker (not a value to receive).
        outputs = map_values(self.old.outputs, lambda v: v.param if v.param is not None
                              else self.env[id(v)])
        self.graph.outputs = self.tracer.to_graph(outputs)
        program = self.program
        program.graph = self.graph
        if program.grad is not None:
            program.grad, wrt_owners = self._local_grad_request(program.grad)
            if program.update is not None:
                program.update = local_update(program.update, wrt_owners, self.worker,
                                              self.tracer)
        return program

    # -- values ------------------------------------------------------------------------------
    def _here(self, x):
        """A traced argument as this worker holds it: made or received here (a parameter
        living here is the Parameter itself); constants unchanged."""
        def local(v):
            if v.param is not None and self.placement.owner(v) == self.worker:
                return v.param
            return self.env[id(v)]
        return map_values(x, local)

    def _run(self, node):
        args = [self._here(x) for x in node.inputs]
        start = len(self.graph.nodes)
        with self.tracer:
            outs = Primitive.__call__(node.prim, *args)
        new, = self.graph.nodes[start:]
        new.scope = node.scope
        new.annotations = dict(node.annotations)
        for v, t in zip(node.outputs, outs if node.tuple_output else (outs,)):
            self.env[id(v)] = t

    def _communicate(self, edge):
        """This worker's end of `edge`, if it has one."""
        v = edge.value
        if edge.src == self.worker:
            op, args = Send(edge.tag, edge.dst), (self._here(v),)
        elif edge.dst == self.worker:
            if is_symbolic(v.shape):
                op, args = _DynamicReceive(edge.tag, edge.src, v.dtype), (tuple(v.shape),)
            else:
                op, args = Receive(edge.tag, edge.src, tuple(v.shape), v.dtype), ()
        else:
            return
        # Both ends of a gradient-carrying edge run their bprop in every backward; neither
        # end of another edge ever does (the peers must agree: see the module docstring).
        op.backward_always = edge.grad
        op.differentiable = edge.grad
        with self.tracer:
            out = op(*args)
        node = self.graph.nodes[-1]
        node.scope = f"{_maker(v)}.{op.name}"
        node.annotations = {"ms_role": ROLE, "rank_id": self.worker,
                            "place_edge": f"{edge.src}->{edge.dst}",
                            "carries_gradient": edge.grad}
        if edge.dst == self.worker:
            self.env[id(v)] = out

    # -- the gradient ------------------------------------------------------------------------
    def _local_grad_request(self, request):
        """The request on this segment: the head where it is made here (else none: the
        cotangents arrive through the edges), and the wrt Values living here; with the owner
        of every wrt entry, for the update."""
        placement = self.placement
        head = None
        if placement.owner(request.head) == self.worker:
            head = self.tracer.to_graph(self._here(request.head))
        owners = [placement.owner(w) for w in request.wrt]
        wrt = [self.tracer.to_graph(self._here(w)) for w, o in zip(request.wrt, owners)
               if o == self.worker]
        return GradRequest(head, wrt, request.sens), list(zip(request.wrt, owners))


def _maker(value):
    """What made `value`, for the scope of its Send/Receive."""
    if value.param is not None:
        return value.param.name
    if value.producer is None:
        return value.name       # input<i>
    return value.producer.scope
