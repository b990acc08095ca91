"""The compile pipeline: the passes in DESIGN.md's order, each graph -> graph, then the executor.

Passes marked IDENTITY are named slots that return the graph unchanged until their issue
lands; they are listed so that save_graphs already shows where they will act. The parallel
passes (step_parallel_begin, partition) live in minispore/parallel/partition.py.
"""
import time

from minispore.graph import dump
from minispore.graph.autodiff import differentiate
from minispore.graph.executor import Executable
from minispore.graph.fusion import fuse_elementwise
from minispore.graph.tracer import Tracer
from minispore.parallel.partition import partition, step_parallel_begin


def infer_symbolic_shapes(graph):
    """Shapes (symbolic where the inputs are) were inferred node by node while tracing, by each
    operator's `infer`; this pass checks that every Value has one."""
    for node in graph.nodes:
        for v in node.outputs:
            if v.aval is None or v.aval.shape is None:
                raise RuntimeError(f"Node {node.prim.name} at {node.scope} has no output shape.")
    return graph


def _identity_pass(name, owner):
    def identity(graph):
        return graph
    identity.__name__ = name
    identity.__doc__ = f"IDENTITY until {owner}: returns the graph unchanged."
    return identity


def step_parallel_end(graph):
    """Marker: the graph after the parallel passes (this rank's blocks, inserted collectives
    with their groups, every Value's layout), dumped as NN_step_parallel_end.ir."""
    return graph


partition_by_place = _identity_pass("partition_by_place", "the heterogeneous-placement issue")
assign_pipeline_stages = _identity_pass("assign_pipeline_stages", "the pipeline issue")
recompute = _identity_pass("recompute", "the recompute issue")
fuse_communication = _identity_pass("fuse_communication", "the communication-fusion issue")


def apply_optimizer_update(graph):
    """Trace ``graph.requests['update'](grads)`` (the gradient reducer and the optimizer) onto
    the gradient Values left by `differentiate`, so the update runs in the same graph."""
    update = graph.requests.pop("update", None)
    if update is None:
        return graph
    tracer = Tracer.of(graph)
    grads = tuple(tracer.from_graph(g) for g in graph.requests.pop("grads"))
    with tracer:
        update(grads)
    return graph


def eliminate_dead_code(graph):
    """Drop nodes whose outputs nothing reads; side-effect nodes (in-place updates) stay."""
    needed = {id(v) for v in graph.output_values()}
    kept = []
    for node in reversed(graph.nodes):
        if node.side_effect or any(id(v) in needed for v in node.outputs):
            kept.append(node)
            needed.update(id(v) for v in node.input_values())
    kept.reverse()
    graph.nodes = kept
    return graph


def validate(graph):
    """Every Value is defined once, before it is read; outputs are defined."""
    defined = {id(v) for v in graph.inputs} | {id(v) for v in graph.parameters}
    for k, node in enumerate(graph.nodes):
        for v in node.input_values():
            if id(v) not in defined:
                raise RuntimeError(f"Graph '{graph.name}' is invalid: node {k} ({node.prim.name} "
                                   f"at {node.scope}) reads %{v.name} before it is defined.")
        for v in node.outputs:
            if id(v) in defined:
                raise RuntimeError(f"Graph '{graph.name}' is invalid: %{v.name} is defined twice "
                                   f"(again by node {k}, {node.prim.name}).")
            defined.add(id(v))
    for v in graph.output_values():
        if id(v) not in defined:
            raise RuntimeError(f"Graph '{graph.name}' is invalid: output %{v.name} is undefined.")
    if graph.requests:
        raise RuntimeError(f"Graph '{graph.name}': requests {sorted(graph.requests)} were not "
                           f"consumed by any pass.")
    return graph


# DESIGN.md "Graph mode": 2. symbolic shapes; 3. parallel passes on the forward graph;
# 4. autodiff; 5. optimizer update; 6. recompute, communication fusion; 7. elementwise fusion;
# then validation, and 8. scheduling/memory planning in the executor.
PIPELINE = [
    infer_symbolic_shapes,
    step_parallel_begin,
    partition,
    partition_by_place,
    assign_pipeline_stages,
    step_parallel_end,
    differentiate,
    apply_optimizer_update,
    recompute,
    fuse_communication,
    fuse_elementwise,
    eliminate_dead_code,
    validate,
]


def compile_graph(graph, dump_dir=None):
    """Run the pipeline on a traced graph and build its Executable. With `dump_dir`, write
    the graph after tracing and after each pass (``NN_<pass>.ir``), the final graph as DOT and
    the generated schedule. Returns (executable, seconds spent)."""
    start = time.perf_counter()
    if dump_dir is not None:
        dump.write_ir(dump_dir, 0, "trace", graph)
    for seq, graph_pass in enumerate(PIPELINE, 1):
        graph = graph_pass(graph)
        if dump_dir is not None:
            dump.write_ir(dump_dir, seq, graph_pass.__name__, graph)
    executable = Executable(graph)
    if dump_dir is not None:
        dump.write_final(dump_dir, len(PIPELINE) + 1, graph, executable.source)
    return executable, time.perf_counter() - start
