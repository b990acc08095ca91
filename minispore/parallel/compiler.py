"""The full pass list (graph's passes and the parallel ones, in DESIGN.md's order) and the
PassContext of a compile; registered with minispore.graph.jit when this package is imported.
"""
import threading
from contextlib import contextmanager

from minispore.common.mesh import DeviceMesh
from minispore.common.registry import REGISTRY
from minispore.communication.state import STATE
from minispore.graph import compile as graph_passes
from minispore.graph.autodiff import differentiate
from minispore.graph.program import PassContext
from minispore.graph.recompute import recompute
from minispore.parallel.comm.fusion import fuse_communication
from minispore.parallel.comm.overlap import overlap_communication
from minispore.parallel.comm.subgraph import reuse_communication_subgraphs
from minispore.parallel.partition import partition, step_parallel_begin
from minispore.parallel.pipeline.stages import (assign_pipeline_stages, finish_pipeline_stage,
                                                pipeline_spec, split_pipeline_stage)
from minispore.parallel.pipeline.schedule import schedule_pipeline
from minispore.parallel.place.partition import partition_by_place
from minispore.parallel.settings import operator_parallel_settings

__all__ = ["PASSES", "pass_context", "on_mesh", "local_program"]

_SCOPED = threading.local()     # on_mesh / local_program, and the last PassContext built


def step_parallel_end(program, ctx):
    """Marker: the program after the parallel passes (this rank's blocks, inserted collectives
    with their groups, every Value's layout), dumped as NN_step_parallel_end.ir."""
    return program


# DESIGN.md "Graph mode": 2. symbolic shapes; 3. parallel passes on the forward graph;
# 4. autodiff; 5. optimizer update; 6. recompute, communication fusion and subgraph reuse;
# the pipeline schedule; 7. elementwise fusion; then validation, and 8. memory planning in the executor.
PASSES = [
    graph_passes.infer_symbolic_shapes,
    assign_pipeline_stages,
    partition_by_place,
    step_parallel_begin,
    partition,
    split_pipeline_stage,
    step_parallel_end,
    differentiate,
    graph_passes.apply_optimizer_update,
    finish_pipeline_stage,
    recompute,
    fuse_communication,
    reuse_communication_subgraphs,
    overlap_communication,
    schedule_pipeline,
    graph_passes.fuse_elementwise,
    graph_passes.eliminate_dead_code,
    graph_passes.validate,
]


@contextmanager
def on_mesh(mesh):
    """Compile (and so run) operator-parallel programs on `mesh` (a DeviceMesh of world ranks)
    inside the block, e.g. the ranks of one pipeline stage; device_num must equal its size.
    Processes outside the mesh must not run the program."""
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"For 'on_mesh', 'mesh' must be a DeviceMesh, but got "
                        f"{type(mesh).__name__}.")
    saved = getattr(_SCOPED, "mesh", None)
    _SCOPED.mesh = mesh
    try:
        yield mesh
    finally:
        _SCOPED.mesh = saved


@contextmanager
def local_program():
    """Compile programs inside the block for this rank alone, on the blocks it holds (no
    operator-parallel or pipeline passes): what an optimizer called on its own, outside a
    compiled step, needs -- its inputs are gradients, not dataset columns, and its updates are
    elementwise on each parameter's block."""
    saved = getattr(_SCOPED, "local", False)
    _SCOPED.local = True
    try:
        yield
    finally:
        _SCOPED.local = saved


def pass_context():
    """The PassContext of a compile started now: the compile-keyed settings, this process's
    rank and role, the mesh, and the operator-parallel settings."""
    options = REGISTRY.compile_options()
    world = STATE.world if STATE.inited else None
    local = getattr(_SCOPED, "local", False)
    scoped_mesh = getattr(_SCOPED, "mesh", None)
    # The registry hands out one CompileOptions object until a setting changes (compared by
    # identity: which options the script set explicitly also shapes the settings).
    key = (world, local, scoped_mesh)
    cached = getattr(_SCOPED, "cached", None)
    if cached is not None and cached[0] is options and cached[1] == key:
        return cached[2]
    ctx = _build_pass_context(options, STATE, local, scoped_mesh)
    _SCOPED.cached = (options, key, ctx)
    return ctx


def _build_pass_context(options, state, local, scoped_mesh):
    rank = state.world.rank if state.inited else 0
    workers = state.world.size if state.inited else None
    if local:
        return PassContext(options, rank=rank, workers=workers)
    pipeline = pipeline_spec()
    if pipeline is not None:
        if scoped_mesh is not None:
            raise NotImplementedError("Pipeline parallel inside on_mesh(...) is not "
                                      "implemented: a pipeline spans the whole world.")
        scoped_mesh = pipeline.stage_mesh()
    settings = operator_parallel_settings(scoped_mesh, stages=pipeline.stages if pipeline
                                          else 1)
    role = getattr(state, "role", None)
    return PassContext(options, rank=rank, role=getattr(role, "value", role) or "MS_WORKER",
                       mesh=settings.mesh if settings is not None else None,
                       parallel=settings, workers=workers, pipeline=pipeline)


REGISTRY.plug("graph.passes", tuple(PASSES))
REGISTRY.plug("graph.pass_context", pass_context)
