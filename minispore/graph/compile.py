"""Graph passes and the compile driver: a Program goes through a list of passes, each
``(program, ctx) -> program``, then becomes an Executable.

The full pass list (these passes and the parallel ones, in DESIGN.md's order) is assembled
above this layer, in minispore/parallel/compiler.py, and handed to `compile_program`; graph
never imports parallel. `GRAPH_PASSES` is the list without the parallel passes.
"""
import time

from minispore import device
from minispore.graph import dump, fusion
from minispore.graph.autodiff import differentiate
from minispore.graph.executor import Executable
from minispore.graph.ir import UPDATE
from minispore.graph.program import PassContext
from minispore.graph.recompute import recompute
from minispore.graph.tracer import Tracer


def infer_symbolic_shapes(program, ctx):
    """Shapes (symbolic where the inputs are) were inferred node by node while tracing, by each
    operator's `infer`; this pass checks that every Value has one."""
    for node in program.graph.nodes:
        for v in node.outputs:
            if v.aval is None or v.aval.shape is None:
                raise RuntimeError(f"Node {node.prim.name} at {node.scope} has no output shape.")
    return program


def apply_optimizer_update(program, ctx):
    """Trace ``program.update(grads)`` (the gradient reducer and the optimizer) onto the
    gradient Values left by `differentiate`, so the update runs in the same graph."""
    update, program.update = program.update, None
    if update is None:
        return program
    tracer = Tracer.of(program.graph)
    grads = tuple(tracer.from_graph(g) for g in program.grads)
    program.grads = None
    with tracer, tracer.in_phase(UPDATE):
        update(grads)
    return program


def fuse_elementwise(program, ctx):
    """Fuse chains of elementwise nodes into generated Numba kernels (graph/fusion.py), unless
    MINISPORE_FUSION=0 turns it off (for A/B measurements). The generated kernels are CPU
    (njit) kernels: on the GPU the unfused CUDA kernels run."""
    if ctx.option("env.MINISPORE_FUSION") and ctx.device == "cpu":
        program.graph = fusion.fuse_elementwise(program.graph)
    return program


def eliminate_dead_code(program, ctx):
    """Drop nodes whose outputs nothing reads; side-effect nodes (in-place updates) stay."""
    graph = program.graph
    needed = {id(v) for v in graph.output_values()}
    kept = []
    for node in reversed(graph.nodes):
        if node.side_effect or any(id(v) in needed for v in node.outputs):
            kept.append(node)
            needed.update(id(v) for v in node.input_values())
    kept.reverse()
    graph.nodes = kept
    return program


def validate(program, ctx):
    """Every Value is defined once, before it is read; outputs are defined; every request
    of the program was consumed."""
    graph = program.graph
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
    if program.pending():
        raise RuntimeError(f"Graph '{graph.name}': requests {program.pending()} were not "
                           f"consumed by any pass.")
    return program


# The graph-only passes in DESIGN.md's order (2. symbolic shapes; 4. autodiff; 5. optimizer
# update; 6. recompute; 7. elementwise fusion; then validation; 8. scheduling happens in the
# executor). minispore/parallel/compiler.py puts the parallel passes between them.
GRAPH_PASSES = [
    infer_symbolic_shapes,
    differentiate,
    apply_optimizer_update,
    recompute,
    fuse_elementwise,
    eliminate_dead_code,
    validate,
]


def compile_program(program, ctx=None, passes=None, dump_dir=None):
    """Run `passes` (default GRAPH_PASSES) over `program` with `ctx` (default: one CPU
    device) and build the Executable of its graph. With `dump_dir`, write the program after
    tracing and after each pass (``NN_<pass>.ir``), the final graph as DOT and the generated
    schedule. Returns (executable, seconds spent)."""
    ctx = ctx if ctx is not None else PassContext()
    passes = passes if passes is not None else GRAPH_PASSES
    start = time.perf_counter()
    if dump_dir is not None:
        dump.write_ir(dump_dir, 0, "trace", program.graph)
    for seq, graph_pass in enumerate(passes, 1):
        program = graph_pass(program, ctx)
        if dump_dir is not None:
            dump.write_ir(dump_dir, seq, graph_pass.__name__, program.graph)
    executable = Executable(program.graph, device.GPU if ctx.device == "cuda" else device.CPU,
                            plan_memory=ctx.option("env.MINISPORE_MEMORY_PLAN"))
    if dump_dir is not None:
        dump.write_final(dump_dir, len(passes) + 1, program.graph, executable.source)
    return executable, time.perf_counter() - start
