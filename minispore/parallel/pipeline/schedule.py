"""The pipeline schedule of one stage's program: the order of its micro-batches' forward and
backward work (mindspore_semantics.md §9.3), as an order of the graph's nodes.

The traced step holds every micro-batch of `nn.PipelineCell`: each forward node carries its
micro-batch i (an annotation frame), each backward node derives from a forward node (so it
belongs to i's backward). A schedule is a sequence of slots F(i) / B(i) for this stage:

- GPipe: F(0) … F(m-1), then B(0) … B(m-1);
- 1F1B (the default, MindSpore's): stage k of S first runs min(S-k-1, m) warm-up forwards,
  then alternates one forward with one backward, then the remaining backwards; the
  activations of micro-batch i die after B(i), so at most S-k micro-batches' activations are
  alive, instead of m under GPipe.

Every node goes to the latest of its own slot and its inputs' slots (a node outside the
micro-batches -- the sum of the micro-batch losses, the gradient accumulation that waits for
every micro-batch, a collective of the summed gradient -- as early as its inputs allow); nodes
are then ordered by (slot, traced position), which keeps every value made before it is read.
The optimizer update runs last, in its traced order. The schedule changes only the order of
the same nodes, so the numbers do not depend on it.

A `PipelineStepBegin` node starts the step clock and a `PipelineStepEnd` node completes the
step's sends and records its busy and idle time (minispore/parallel/pipeline/stats.py).
"""
import logging

from minispore.graph.ir import FORWARD, UPDATE, Node
from minispore.parallel.pipeline.ops import PipelineStepBegin, PipelineStepEnd

__all__ = ["schedule_pipeline", "stage_slots"]

logger = logging.getLogger("minispore")


def stage_slots(scheduler, stage, stages, micro_size):
    """The slots of `stage` in order: ("F" | "B", micro-batch) pairs."""
    m = micro_size
    if scheduler == "gpipe":
        return [("F", i) for i in range(m)] + [("B", i) for i in range(m)]
    warm = min(stages - stage - 1, m)
    slots = [("F", i) for i in range(warm)]
    for i in range(m - warm):
        slots += [("F", warm + i), ("B", i)]
    return slots + [("B", i) for i in range(m - warm, m)]


def _micro_batch(node):
    if node.micro_batch is not None:
        return node.micro_batch
    origin = node.derived_from
    if origin is not None:
        return origin.micro_batch if origin.micro_batch is not None else \
            origin.annotations.get("micro_batch")
    return node.annotations.get("micro_batch")


def schedule_pipeline(program, ctx):
    """Order this stage's nodes by its schedule and add the step clock (module docstring)."""
    split, program.pipeline = program.pipeline, None
    if split is None:
        return program
    spec = split.spec
    graph = program.graph
    m = split.micro_size
    if m < spec.stages:
        logger.warning("Pipeline parallel with %d micro-batches on %d stages: micro_size should "
                       "be at least pipeline_stages, or stages sit idle most of the step "
                       "(analytic bubble %.0f%%).", m, spec.stages,
                       100 * (spec.stages - 1) / (m + spec.stages - 1))
    slots = {s: k for k, s in enumerate(stage_slots(spec.scheduler, spec.stage, spec.stages, m))}
    last = len(slots)
    slot_of = {}        # id(Value) -> slot of the node making it
    keyed, update = [], []
    for index, node in enumerate(graph.nodes):
        if node.phase == UPDATE:
            update.append(node)
            continue
        micro = _micro_batch(node)
        own = -1
        if micro is not None:
            own = slots.get(("F" if node.phase == FORWARD else "B", micro), -1)
        slot = max([own] + [slot_of.get(id(v), -1) for v in node.input_values()])
        if slot >= last:
            raise RuntimeError(f"pipeline schedule: node {node} is placed after the step.")
        for v in node.outputs:
            slot_of[id(v)] = slot
        keyed.append((slot, index, node))
    keyed.sort(key=lambda item: item[:2])
    begin = _marker(graph, PipelineStepBegin(), "pipeline.step_begin", FORWARD)
    end = _marker(graph, PipelineStepEnd(spec.stage, spec.stages, m), "pipeline.step_end",
                  UPDATE)
    graph.nodes = [begin] + [node for _, _, node in keyed] + update + [end]
    for node in graph.nodes:
        node.annotations.setdefault("pipeline_stage", spec.stage)
    return program



def _marker(graph, prim, scope, phase):
    node = Node(prim, [], [], scope, {}, side_effect=True, phase=phase)
    node.outputs = [graph.new_value(prim.infer(), node)]
    return node
