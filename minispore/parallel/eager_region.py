"""A PYNATIVE `shard` region, run eagerly operator by operator on this rank's blocks.

MindSpore compiles a shard region as a graph; minispore runs it eagerly (DESIGN.md "Parallel
(SPMD) model"):

1. Plan (once per input signature): the region's body is traced on the logical input shapes
   and sharding propagation fixes every operator's strategy from the boundary operators' (and
   the ``parameter_plan`` layouts, and any Primitive.shard inside) -- `plan_region`.
2. Run: `EagerSpmdInterpreter` goes on top of the interpreter stack and the body runs for
   real. Each primitive call is matched with the next operator of the trace (same type: a
   region's operators must not depend on tensor values) and goes through `sharded_apply` with
   that operator's strategy: arguments are redistributed, the operator runs on the blocks, its
   pending reductions complete. Those inner calls run on the eager interpreter below, so the
   autodiff tapes record them, collectives included, and ``ms.grad`` / ``value_and_grad``
   differentiate through the region; the region's own call is not recorded.
3. Parameters are sliced on first use to their ``parameter_plan`` layout or the one their
   first consumer wants; a replicated one reads through a `_MirrorOperator`.

Gradient conventions at the boundary (see minispore/parallel/region_boundary.py): inputs enter
through a `_MirrorOperator` over every device (full_batch: the eager code's whole gradient is
the sum of the region's partial ones) or a ``ScaleGrad(n)`` (data parallel: each rank's rows
are its own; the global loss is the mean of the ranks' losses); outputs leave through a
``ScaleGrad(1/n)``, which turns the eager code's gradient into that convention.
"""
from minispore.common.context import Interpreter, context
from minispore.common.layout import TensorLayout
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.graph.ir import FORWARD
from minispore.graph.tracer import trace
from minispore.ops.operations.comm_ops import _MirrorOperator
from minispore.ops.primitive import Aval
from minispore.parallel.parameter_placement import parameter_read_ops, place_parameter
from minispore.graph.dump import dump_dir_for, write_ir
from minispore.parallel.partition import _arg_avals, _tensor_positions, annotate_strategy
from minispore.parallel.propagation import propagate_strategies
from minispore.parallel.redistribution import group_name
from minispore.parallel.region_boundary import ScaleGrad
from minispore.parallel.sharded_apply import sharded_apply

__all__ = ["RegionPlan", "plan_region", "EagerSpmdInterpreter", "run_eager_region"]

_CTX = context()


class RegionPlan:
    """The forward operators a region's body calls, in call order, with their strategies
    ({id(node): (RuleResult, origin)}) and the traced graph (for describe_plan-like reads)."""

    def __init__(self, graph, results):
        self.graph = graph
        self.nodes = [n for n in graph.nodes if n.phase == FORWARD]
        self.results = results


def plan_region(body, args, logical_avals, settings, name):
    """Trace `body` on the logical input Avals and propagate strategies through it (the
    tracer hands nothing to the tapes below it: a trace is not a computation to
    differentiate)."""
    graph, _ = trace(body, args, name, logical_avals)
    results = propagate_strategies(graph, settings, _arg_avals, _tensor_positions)
    for i, v in enumerate(graph.inputs):
        v.layout = settings.input_layout(i, len(v.shape))
    for node in graph.nodes:
        annotate_strategy(node, *results[id(node)])
    folder = dump_dir_for(f"shard_{name}")
    if folder is not None:
        write_ir(folder, 0, "shard_region_plan", graph)
    return RegionPlan(graph, results)


class EagerSpmdInterpreter(Interpreter):
    """The interpreter on top while a PYNATIVE region runs: every primitive call runs sharded
    (see the module docstring), as calls on the levels below it (``expands``: the tapes sit
    beneath it and record those). ``blocks`` maps id(tensor) -> (tensor, layout, logical
    shape) for the tensors the region made or received."""
    expands = True

    def __init__(self, plan, settings, name):
        super().__init__()
        self.plan = plan
        self.settings = settings
        self.name = name
        self.position = 0
        self.blocks = {}
        self.params = {}

    # -- tensors -----------------------------------------------------------------------------
    def receive(self, t, layout, shape):
        self.blocks[id(t)] = (t, layout, tuple(shape))

    def _replicated(self, like, ndim):
        return TensorLayout(like.dev_matrix, (-1,) * ndim)

    def _param(self, param, want):
        """This rank's read of `param` (sliced on its first use; see
        minispore/parallel/parameter_placement.py)."""
        if id(param) not in self.params:
            layout = place_parameter(param, want, self.settings)
            t = param
            for op in parameter_read_ops(param, self.settings):
                t = op(t)
            self.params[id(param)] = (t, layout)
        return self.params[id(param)]

    def _argument(self, arg, value, want, scope):
        """(block, layout) of the tensor argument `arg` the trace recorded as `value`."""
        if isinstance(arg, Parameter):
            t, layout = self._param(arg, want)
        elif id(arg) in self.blocks:
            t, layout, _ = self.blocks[id(arg)]
        else:       # made outside the region's operators (a constant): whole on every rank
            t, layout = arg, self._replicated(want, len(arg.shape))
        shape = tuple(getattr(value, "shape", arg.shape))
        if tuple(t.shape) != layout.local_shape(shape):
            raise RuntimeError(
                f"In the shard region '{self.name}', an argument of {scope} has shape "
                f"{tuple(t.shape)} where its block under {layout} of the traced shape {shape} "
                f"is {layout.local_shape(shape)}: the region's code must reach tensors only "
                f"through operators (no numpy round trips) and must not depend on their "
                f"values.")
        return t, layout

    # -- the interpreter ---------------------------------------------------------------------
    def _next_node(self, prim):
        nodes = self.plan.nodes
        if self.position >= len(nodes) or type(nodes[self.position].prim) is not type(prim):
            traced = nodes[self.position].prim.name if self.position < len(nodes) else "nothing"
            raise RuntimeError(
                f"The shard region '{self.name}' called '{prim.name}' as its operator "
                f"{self.position}, where its trace called {traced}: the operators a region "
                f"runs must not depend on tensor values or on block shapes.")
        node = nodes[self.position]
        self.position += 1
        return node

    def apply(self, prim, args):
        node = self._next_node(prim)
        result = self.plan.results[id(node)][0]
        call = list(node.inputs)
        layouts = {}
        global_out = tuple(tuple(v.shape) for v in node.outputs)
        top = _CTX.interpreter
        _CTX.interpreter = self.below      # what runs now runs on the blocks
        try:
            for i, want in zip(_tensor_positions(node), result.in_layouts):
                call[i], layouts[i] = self._argument(args[i], node.inputs[i], want, node.scope)
            outs, out_layouts = sharded_apply(prim, call, layouts, result, _arg_avals(node),
                                              global_out, self.settings, node.scope)
        finally:
            _CTX.interpreter = top
        for t, layout, shape in zip(outs, out_layouts, global_out):
            self.receive(t, layout, shape)
        return outs if node.tuple_output else outs[0]



def _entry_conversion(settings):
    """The op each region input passes before the region (see the module docstring)."""
    n = settings.device_num
    if settings.dataset_strategy == "full_batch":
        return _MirrorOperator(group_name(settings.world_group(tuple(range(n)))), n)
    return ScaleGrad(n)


def _map_tensors(obj, fn):
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, tuple):
        return tuple(_map_tensors(x, fn) for x in obj)
    if isinstance(obj, list):
        return [_map_tensors(x, fn) for x in obj]
    return obj


def _with_parameters(body, args):
    """(`body` as a function of the arguments that are not Parameters, those arguments, the
    Parameters).
    A Parameter passed to a region is one of its weights, not a dataset input: the trace reads
    it as a graph parameter and the run reads it as `EagerSpmdInterpreter._param` does (sliced,
    mirrored), so no dataset strategy cuts its dim 0."""
    free = [i for i, a in enumerate(args) if not isinstance(a, Parameter)]

    def free_body(*values):
        call = list(args)
        for i, v in zip(free, values):
            call[i] = v
        return body(*call)
    return free_body, [args[i] for i in free], [a for a in args if isinstance(a, Parameter)]


def run_eager_region(region, settings, args):
    """Run the ShardFunction `region` eagerly on `args` (each rank's local inputs)."""
    body, args, params = _with_parameters(region.body, args)
    avals = [Aval(settings.logical_shape(i, tuple(a.shape)), a.dtype)
             for i, a in enumerate(a for a in args if isinstance(a, Tensor))]
    key = (tuple((tuple(av.shape), av.dtype) for av in avals),
           tuple(id(p) for p in params))    # the trace holds them
    plan = region.plans.get(key)
    if plan is None:
        plan = region.plans[key] = plan_region(body, args, avals, settings, region.name)
    entry = _entry_conversion(settings)
    inputs = [entry(a) if isinstance(a, Tensor) else a for a in args]
    interpreter = EagerSpmdInterpreter(plan, settings, region.name)
    for i, (a, av) in enumerate(zip([x for x in inputs if isinstance(x, Tensor)], avals)):
        interpreter.receive(a, settings.input_layout(i, len(av.shape)), av.shape)
    with interpreter:
        out = body(*inputs)
    if interpreter.position != len(plan.nodes):
        raise RuntimeError(
            f"The shard region '{region.name}' ran {interpreter.position} of the "
            f"{len(plan.nodes)} operators its trace has: the operators a region runs must not "
            f"depend on tensor values.")
    leave = ScaleGrad(1.0 / settings.device_num)
    return _map_tensors(out, leave)
