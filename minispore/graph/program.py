"""What a compile works on: the Program (its graphs and the work left for later passes) and the
PassContext every pass reads (DESIGN.md "Graph mode: a Program, passes with a context").

A pass is a function ``(program, ctx) -> program``. Passes read nothing from module globals:
the parallel settings, the device mesh, this process's rank and role, and the device come in
the PassContext; what one pass leaves for a later one (the gradient to take, the update to
trace onto the gradients) is a typed field of the Program.
"""
from dataclasses import dataclass, field

from minispore.common.registry import REGISTRY, CompileOptions

__all__ = ["GradRequest", "TracedGradient", "Program", "PassContext"]


@dataclass
class GradRequest:
    """Differentiate ``sens * head`` w.r.t. each Value of ``wrt`` (the `differentiate` pass).

    The gradients (one Value per wrt entry, zeros where the head does not depend on it) go to
    ``Program.update`` when one is set, else with ``return_grads`` the graph returns
    ``(outputs, grads)``. ``head`` is None on a graph that holds no loss and gets its
    cotangents only from communication pairs (a `place` segment of another worker).
    """
    head: object
    wrt: list
    sens: float = 1.0
    return_grads: bool = False


@dataclass
class TracedGradient:
    """A gradient taken while tracing (``ms.value_and_grad`` / ``ms.grad`` inside a compiled
    function): its backward nodes are already in the graph (phase BACKWARD) and ``grads``
    are their results, one per ``wrt`` Value. Passes that rewrite the forward graph (the
    parallel passes) derive the backward again from ``heads`` instead of keeping those nodes.
    ``seeded`` is True when the user gave the output sensitivity (not the default ones).
    """
    heads: list
    wrt: list
    grads: list
    seeded: bool = False


@dataclass
class Program:
    """One or more graphs compiled together (the SPMD graph, or this rank's pipeline stage or
    placed segment), and what later passes still have to do.

    ``grad``: the gradient the `differentiate` pass appends; ``grads``: its result, left for
    ``update(grads)``, which `apply_optimizer_update` traces onto them (the gradient reducer
    and the optimizer; under operator parallel, the traced step's update nodes replayed on
    this rank's blocks). ``traced_gradients``: gradients taken while tracing.
    ``parallel_plan``: what `step_parallel_begin` decided, for `partition`.
    ``pipeline``: this stage's split (minispore/parallel/pipeline/stages.py), for the passes that
    finish and schedule the stage's program.
    """
    graphs: list
    grad: GradRequest = None
    grads: list = None
    update: object = None
    traced_gradients: list = field(default_factory=list)
    parallel_plan: object = None
    pipeline: object = None

    @property
    def graph(self):
        """The main graph (the only one unless the program was split into segments)."""
        return self.graphs[0]

    @graph.setter
    def graph(self, graph):
        self.graphs[0] = graph

    def pending(self):
        """Names of the requests no pass has consumed (a compile that ends with some is a bug)."""
        return [name for name in ("grad", "grads", "update", "parallel_plan", "pipeline")
                if getattr(self, name) is not None]


@dataclass(frozen=True)
class PassContext:
    """Everything a pass may read. Hashable: it is the compile cache's key besides the input
    signature, so a change of any compile-keyed setting, of the device or of the mesh
    compiles anew.

    ``options``: the compile-keyed settings of the registry (minispore/common/registry.py
    CompileOptions), read with `option`; ``rank``: this process's world rank; ``role``: its
    role in the job (a minispore.communication Role name); ``mesh``: the DeviceMesh the
    program runs on (None for one device); ``parallel``: the operator-parallel settings
    (minispore/parallel/settings.py) or None when operators are not sharded. Graph passes
    treat ``parallel`` as opaque; only parallel passes read it. ``workers``: the job's worker
    count (None before communication.init()); ``pipeline``: this rank's place in the pipeline
    (a minispore.parallel.pipeline.stages PipelineSpec) when pipeline_stages > 1, else None.
    """
    options: CompileOptions = field(default_factory=REGISTRY.compile_options)
    rank: int = 0
    role: str = "MS_WORKER"
    mesh: object = None
    parallel: object = None
    workers: int = None
    pipeline: object = None

    def option(self, qualname):
        """A compile-keyed setting by qualified name ("auto_parallel.comm_fusion")."""
        return self.options[qualname]

    @property
    def device(self):
        """"cpu" or "cuda": where the graph's constants and kernels live."""
        return "cuda" if self.options["context.device_target"] == "GPU" else "cpu"

    @property
    def parallel_mode(self):
        return self.options["auto_parallel.parallel_mode"]

    @property
    def enable_ps(self):
        return self.options["ps.enable_ps"]

    @property
    def comm_reuse_limit(self):
        """The reuse limit of communication subgraphs (MS_COMM_COMPILER_OPT), None when off."""
        return self.options["env.MS_COMM_COMPILER_OPT"]

    def check_fed_blocks(self, local_shapes, who):
        """Under operator parallelism: every rank fed blocks of one shape (ValueError else)."""
        if self.parallel is not None:
            self.parallel.check_fed_blocks(local_shapes, who)

    def logical_shape(self, index, local_shape):
        """The logical shape of graph input `index` whose block this rank feeds."""
        if self.parallel is None:
            return tuple(local_shape)
        return self.parallel.logical_shape(index, tuple(local_shape))
