"""Pipeline parallel (mindspore_semantics.md §9): the world is cut into S stages of
device_num / S ranks; stage k runs only the nodes of the cells with ``pipeline_stage = k``
and holds only their parameters; values cross stages by StageSend / StageReceive.

Three passes (DESIGN.md "Graph mode", parallel passes then scheduling):

1. `assign_pipeline_stages` (logical forward graph): every node gets a stage -- its cell's
   ``pipeline_stage`` (an annotation frame, so functional ops inside the cell have it too); a
   node outside every staged cell runs on the latest stage of its inputs (the loss after
   the last stage's cell), or, reading only graph inputs, on the first stage that uses it (the
   micro-batch slices, a Flatten before the first layer). It checks MindSpore's rules: a
   stage below pipeline_stages, every cell holding trainable parameters staged, stages that
   only increase along the data flow, no parameter read by two stages, every stage used.
2. `split_pipeline_stage` (after the operator-parallel `partition`, which ran on this stage's
   sub-mesh of device_num / S ranks: every stage is partitioned the same way, so the rank at
   position j of one stage holds the same blocks as the rank at position j of another): this
   rank keeps its stage's nodes; a value made on stage a and read on stage b > a is sent by
   each rank of a to the rank at its position in b, right after it is made, and received
   where b would have made it. The gradient request keeps the loss only on the stage that
   computes it (the others get their cotangents from the Receive bprops) and this stage's
   parameters; the optimizer update keeps only their nodes (minispore/parallel/
   place/update.py).
3. `finish_pipeline_stage` (after the update): outputs another stage computes come back as
   zeros placeholders -- or, with ``pipeline_result_broadcast=True``, the last stage's
   results are sent to every stage -- and nodes that read another stage's values (the
   gather of another stage's gradient for the returned grads) are dropped. It also marks
   every parameter one stage holds -- read by that stage's forward nodes, or optimizer state
   updated only by it -- with ``param.pipeline_owner = (stage, this rank's PipelineSpec)``:
   a rank saves in its checkpoint only the parameters of its own stage
   (minispore/parallel/checkpoint.py), the others being never trained here. Values every
   stage keeps in step (the optimizer's step counter) stay unmarked.

The schedule (1F1B or GPipe over the micro-batches of `nn.PipelineCell`) is
minispore/parallel/pipeline/schedule.py.
"""
import logging
from dataclasses import dataclass

from minispore.common.auto_parallel_context import ParallelMode, get_auto_parallel_context
from minispore.common.mesh import DeviceMesh
from minispore.common.symbolic import is_symbolic
from minispore.graph.autodiff import differentiable_from
from minispore.graph.ir import FORWARD, UPDATE, Node, definition_order, map_values
from minispore.graph.program import GradRequest
from minispore.graph.tracer import Tracer
from minispore.parallel.pipeline.ops import StageReceive, StageSend, placeholder
from minispore.parallel.place.update import local_update
from minispore.parallel.settings import get_device_num

logger = logging.getLogger("minispore")

__all__ = ["PipelineSpec", "pipeline_spec", "assign_pipeline_stages", "split_pipeline_stage",
           "finish_pipeline_stage"]

@dataclass(frozen=True)
class PipelineSpec:
    """This rank's place in the pipeline: ``stages`` stages of ``stage_size`` ranks each (world
    ranks ``k * stage_size ...``), this rank in stage ``stage`` at ``position``; the schedule
    (``scheduler``: "1f1b" or "gpipe") and whether the last stage's results are sent to every
    stage (``result_broadcast``)."""
    stages: int
    stage: int
    stage_size: int
    position: int
    scheduler: str = "1f1b"
    result_broadcast: bool = False

    def world_rank(self, stage):
        """The world rank at this rank's position in `stage`."""
        return stage * self.stage_size + self.position

    def stage_mesh(self):
        """The DeviceMesh of this rank's stage (operator parallel within the stage)."""
        first = self.stage * self.stage_size
        return DeviceMesh(range(first, first + self.stage_size))


def pipeline_spec():
    """This process's PipelineSpec from the auto-parallel context, or None without
    pipeline_stages > 1.

    Raises:
        RuntimeError: pipeline_stages > 1 outside semi_auto_parallel / auto_parallel, or
            before communication.init().
        ValueError: pipeline_stages does not divide device_num.
    """
    stages = get_auto_parallel_context("pipeline_stages")
    if stages == 1:
        return None
    mode = get_auto_parallel_context("parallel_mode")
    if mode not in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL):
        raise RuntimeError(f"pipeline_stages={stages} needs parallel_mode "
                           f"'semi_auto_parallel' or 'auto_parallel', but it is {mode!r}.")
    from minispore.communication._comm import STATE
    if not STATE.inited:
        raise RuntimeError(f"pipeline_stages={stages} needs the communication service: call "
                           f"minispore.communication.init() and launch the stages' ranks "
                           f"(mpirun -n N, N a multiple of {stages}).")
    device_num = get_device_num()
    if device_num % stages:
        raise ValueError(f"pipeline_stages={stages} must divide the device number "
                         f"{device_num}: each stage gets device_num / pipeline_stages devices.")
    size = device_num // stages
    config = get_auto_parallel_context("pipeline_config")
    rank = STATE.world.rank
    return PipelineSpec(stages, rank // size, size, rank % size,
                        config.get("pipeline_scheduler", "1f1b"),
                        bool(get_auto_parallel_context("pipeline_result_broadcast")))


@dataclass
class StageSplit:
    """What `split_pipeline_stage` leaves for the later pipeline passes (Program.pipeline):
    the stage of every node of the graph it split, and the tags it used."""
    spec: PipelineSpec
    labels: dict                    # id(Node) -> stage
    nodes: list                     # the labelled nodes, kept alive so their ids stay theirs
    next_tag: int = 0
    micro_size: int = 1
    # {id(param): (param, {stages of the nodes reading it})}: the forward's readers, then the
    # optimizer update's (place.update.local_update)
    readers: dict = None


# -- 1. stages on the logical graph -------------------------------------------------------------
def assign_pipeline_stages(program, ctx):
    """Give every forward node its stage (module docstring); without pipeline_stages > 1 the
    stages are ignored (with a warning), as in MindSpore."""
    graph = program.graph
    spec = ctx.pipeline
    if spec is not None:
        from minispore.parallel.partition import refuse_control_flow
        refuse_control_flow(graph, "a pipeline-parallel graph")
    if spec is None:
        staged = next((n for n in graph.nodes if n.annotations.get("pipeline_stage")), None)
        if staged is not None:
            logger.warning("Node '%s' (in %s) is in pipeline stage %s, but pipeline_stages is 1: "
                           "the stages are ignored and the whole network runs on every device "
                           "(set_auto_parallel_context(pipeline_stages=S) in semi_auto_parallel "
                           "or auto_parallel to pipeline it).", staged.prim.name, staged.scope,
                           staged.annotations["pipeline_stage"])
        return program
    for i, v in enumerate(graph.inputs):
        if is_symbolic(v.shape):
            raise NotImplementedError(
                f"Pipeline parallel with a dynamic shape (input {i} has shape {v.shape}) is not "
                f"supported (as in MindSpore, pipeline outputs do not support dynamic shape); "
                f"give the network static input shapes.")
    forward = [n for n in graph.nodes if n.phase == FORWARD]
    _check_staged_parameters(forward, spec)
    labels = label_stages(forward, spec.stages)
    _check_stage_order(forward, labels)
    _check_parameter_stages(forward, labels)
    used = set(labels.values())
    missing = [k for k in range(spec.stages) if k not in used]
    if missing:
        raise ValueError(f"pipeline_stages is {spec.stages}, but no cell of the network is in "
                         f"stage(s) {missing}: set Cell.pipeline_stage so that every stage "
                         f"0..{spec.stages - 1} runs part of the network.")
    for node in forward:
        node.annotations["pipeline_stage"] = node.stage = labels[id(node)]
    return program


def label_stages(nodes, stages):
    """{id(node): stage} for forward `nodes` in traced order (module docstring, step 1)."""
    labels = {}
    for node in nodes:
        stage = node.annotations.get("pipeline_stage")
        if stage is not None and stage >= stages:
            raise ValueError(f"Node '{node.prim.name}' (in {node.scope}) is in pipeline stage "
                             f"{stage}, but pipeline_stages is {stages}: a stage must be in "
                             f"[0, {stages}).")
        if stage is None:
            made = [labels[id(v.producer)] for v in node.input_values()
                    if v.producer is not None and labels.get(id(v.producer)) is not None]
            stage = max(made) if made else None
        labels[id(node)] = stage
    consumers = {}
    for node in nodes:
        for v in node.input_values():
            if v.producer is not None:
                consumers.setdefault(id(v.producer), []).append(node)
    for node in reversed(nodes):
        if labels[id(node)] is None:
            after = [labels[id(c)] for c in consumers.get(id(node), ())
                     if labels[id(c)] is not None]
            labels[id(node)] = min(after) if after else 0
    return labels


def _check_staged_parameters(nodes, spec):
    for node in nodes:
        if node.annotations.get("pipeline_stage") is not None:
            continue
        for v in node.input_values():
            if v.param is not None and v.param.requires_grad:
                raise ValueError(
                    f"Under pipeline parallel (pipeline_stages={spec.stages}) every cell that "
                    f"holds trainable parameters must have a pipeline_stage, but "
                    f"'{node.prim.name}' (in {node.scope}) reads the parameter "
                    f"'{v.param.name}' outside any staged cell; set pipeline_stage on its cell.")


def _check_stage_order(nodes, labels):
    for node in nodes:
        for v in node.input_values():
            producer = v.producer
            if producer is not None and labels.get(id(producer), 0) > labels[id(node)]:
                raise ValueError(
                    f"Pipeline stages must increase along the execution order, but "
                    f"'{producer.prim.name}' (in {producer.scope}, stage "
                    f"{labels[id(producer)]}) feeds '{node.prim.name}' (in {node.scope}, stage "
                    f"{labels[id(node)]}).")


def _check_parameter_stages(nodes, labels):
    owner = {}
    for node in nodes:
        for v in node.input_values():
            if v.param is None:
                continue
            first = owner.setdefault(id(v.param), (labels[id(node)], node))
            if first[0] != labels[id(node)]:
                raise NotImplementedError(
                    f"Parameter '{v.param.name}' is read in pipeline stage {first[0]} (by "
                    f"{first[1].scope}) and in stage {labels[id(node)]} (by {node.scope}); "
                    f"parameters shared between stages are not implemented in minispore. "
                    f"Keep every reader of a parameter in one stage.")


# -- 2. this stage's segment of the partitioned graph -------------------------------------------
@dataclass
class _Edge:
    value: object
    src: int
    dst: int
    tag: int = 0
    grad: bool = False


def split_pipeline_stage(program, ctx):
    """Keep this stage's nodes and its ends of the edges between stages (module docstring)."""
    spec = ctx.pipeline
    if spec is None:
        return program
    graph = program.graph
    request = program.grad
    if request is not None and request.return_grads:
        raise NotImplementedError(
            "Under pipeline parallel a compiled function that returns its gradients from "
            "the gradient pass is not implemented; take the gradient with value_and_grad inside "
            "the compiled step (as MindSpore's pipeline tutorial does) or train with Model / "
            "TrainOneStepCell.")
    labels = label_stages(graph.nodes, spec.stages)
    live = differentiable_from(graph, request.wrt) if request is not None else set()
    edges = _edges(graph, labels, live)
    mine = spec.stage
    tracer = Tracer.of(graph)
    graph_nodes = list(graph.nodes)
    by_producer = {}
    for edge in edges:
        by_producer.setdefault(id(edge.value.producer), []).append(edge)
    kept = []
    for node in graph.nodes:
        here = labels[id(node)] == mine
        if here:
            node.stage = mine
            node.micro_batch = node.annotations.get("micro_batch")
            kept.append(node)
        for edge in by_producer.get(id(node), ()):
            if here:
                kept.append(_send(tracer, edge, spec, node))
            elif edge.dst == mine:
                kept.append(_receive(edge, spec, node))
    graph.nodes = kept
    split = StageSplit(spec, labels, graph_nodes, next_tag=len(edges))
    split.micro_size = 1 + max((n.micro_batch for n in kept if n.micro_batch is not None),
                               default=0)
    split.readers = _parameter_readers(graph_nodes, labels)
    program.pipeline = split
    if request is not None:
        program.grad, wrt_owners = _local_request(request, labels, split.readers, mine)
        if program.update is not None:
            program.update = local_update(program.update, wrt_owners, mine, tracer,
                                          where="pipeline stage", state_owners=split.readers)
    tracer.drop_unread_parameters()
    return program


def _edges(graph, labels, live):
    found = {}
    for node in graph.nodes:
        dst = labels[id(node)]
        for v in node.input_values():
            if v.producer is None:
                continue        # graph inputs are fed to every stage; parameters live on one
            src = labels[id(v.producer)]
            if src != dst and (id(v), dst) not in found:
                found[(id(v), dst)] = _Edge(v, src, dst, grad=id(v) in live)
    index = {id(n): i for i, n in enumerate(graph.nodes)}
    order = definition_order(graph)
    edges = sorted(found.values(), key=lambda e: (index[id(e.value.producer)],
                                                  order[id(e.value)], e.dst))
    for tag, edge in enumerate(edges):
        edge.tag = tag
    return edges


def _annotate(node, stage, producer, edge, spec):
    node.scope = f"{producer.scope}.{node.prim.name}"
    node.annotations = {"pipeline_stage": stage, "pipeline_edge": f"{edge.src}->{edge.dst}",
                        "carries_gradient": edge.grad}
    micro = producer.annotations.get("micro_batch")
    if micro is not None:
        node.annotations["micro_batch"] = micro
    node.stage, node.micro_batch = stage, micro


def _send(tracer, edge, spec, producer):
    op = StageSend(edge.tag, spec.world_rank(edge.dst))
    op.backward_always = op.differentiable = edge.grad
    with tracer:
        op(tracer.wrap(edge.value))
    node = tracer.graph.nodes.pop()
    _annotate(node, edge.src, producer, edge, spec)
    return node


def _receive(edge, spec, producer):
    """A StageReceive that makes the edge's Value itself here (so everything that refers to
    the Value -- later nodes, the outputs, the gradient request -- reads the received copy)."""
    v = edge.value
    op = StageReceive(edge.tag, spec.world_rank(edge.src), tuple(v.shape), v.dtype)
    op.backward_always = op.differentiable = edge.grad
    op.infer()
    node = Node(op, [], [v], "", {}, side_effect=True, phase=FORWARD)
    v.producer, v.index = node, 0
    _annotate(node, edge.dst, producer, edge, spec)
    return node


def _parameter_readers(nodes, labels):
    """{id(param): (param, {the stage of every node reading it})}."""
    readers = {}
    for node in nodes:
        for v in node.input_values():
            if v.param is not None:
                readers.setdefault(id(v.param), (v.param, set()))[1].add(labels[id(node)])
    return readers


def _local_request(request, labels, readers, mine):
    """The gradient request of this stage: the loss where this stage makes it (else the
    cotangents arrive through the StageReceive bprops), and this stage's parameters; with
    the stage of every wrt entry, for the update. A parameter no node reads is stage 0's.
    (`readers`: _parameter_readers of the forward, where each parameter has one stage.)"""
    head = request.head
    if head is not None and (head.producer is None or labels.get(id(head.producer)) != mine):
        head = None
    param_stage = {key: min(stages) for key, (_, stages) in readers.items()}
    owners = []
    for w in request.wrt:
        if w.param is None:
            raise NotImplementedError(
                f"Under pipeline parallel, gradients are taken with respect to parameters "
                f"only, but %{w.name} is not a parameter (a gradient with respect to a network "
                f"input would add up contributions of several stages).")
        owners.append(param_stage.get(id(w.param), 0))
    wrt = [w for w, owner in zip(request.wrt, owners) if owner == mine]
    return GradRequest(head, wrt, request.sens), list(zip(request.wrt, owners))


# -- 3. outputs -----------------------------------------------------------------------------
def finish_pipeline_stage(program, ctx):
    """Drop the nodes that read another stage's values; return placeholders (or, with
    pipeline_result_broadcast, the last stage's results) for outputs made elsewhere."""
    split = program.pipeline
    if split is None:
        return program
    _mark_owners(split)
    graph = program.graph
    defined = {id(v) for v in graph.inputs} | {id(v) for v in graph.parameters}
    kept = []
    for node in graph.nodes:
        if all(id(v) in defined for v in node.input_values()):
            kept.append(node)
            defined.update(id(v) for v in node.outputs)
    graph.nodes = kept
    broadcast = _ResultBroadcast(split, Tracer.of(graph)) if split.spec.result_broadcast \
        else None

    def output(v):
        if broadcast is not None:
            got = broadcast.value(v, id(v) in defined)
            if got is not None:
                return got
        return v if id(v) in defined or v.param is not None else placeholder(v)

    graph.outputs = map_values(graph.outputs, output)
    return program


def _mark_owners(split):
    """``param.pipeline_owner = (stage, this rank's spec)`` for every parameter that only the
    nodes of one stage read (forward and update); None for those read on several stages or by
    update nodes of no stage (kept in step on every stage)."""
    for param, stages in split.readers.values():
        owner = next(iter(stages)) if len(stages) == 1 else None
        param.pipeline_owner = None if owner is None else (owner, split.spec)


class _ResultBroadcast:
    """pipeline_result_broadcast: each output that a forward node of the last stage made
    (the loss, the logits) goes from every rank of the last stage to the rank at its position
    in every other stage, at the end of the step (phase UPDATE: after the schedule)."""

    def __init__(self, split, tracer):
        self.split, self.tracer = split, tracer
        self.tag = split.next_tag

    def value(self, v, defined_here):
        spec, last = self.split.spec, self.split.spec.stages - 1
        if v.producer is None or self.split.labels.get(id(v.producer)) != last:
            return None
        tracer, tag = self.tracer, self.tag
        self.tag += spec.stages
        with tracer, tracer.in_phase(UPDATE):
            if spec.stage == last:
                if not defined_here:
                    raise RuntimeError(f"pipeline_result_broadcast: output %{v.name} of the last "
                                       f"stage is not defined there.")
                for stage in range(last):
                    StageSend(tag + stage, spec.world_rank(stage))(tracer.wrap(v))
                return v
            got = StageReceive(tag + spec.stage, spec.world_rank(last), tuple(v.shape),
                               v.dtype)()
        return tracer.to_graph(got)
