"""The operator-parallel passes: the traced program (logical shapes) -> this rank's program.

`step_parallel_begin` fixes the strategy of every FORWARD node -- the user's ``shard`` or,
without one, the data-parallel default; under auto_parallel, a strategy propagated from the
configured operators (sharding_propagation: minispore/parallel/propagation.py) or searched
(dynamic_programming, recursive_programming: minispore/parallel/search.py) -- and the layouts
its rule derives (RuleResults; errors are StrategyErrors naming the operator's
scope). `partition` then re-traces the forward
graph node by node on local blocks (DESIGN.md "Parallel (SPMD) model"):

1. graph inputs take the dataset layout (settings.input_layout); parameters are sliced to the
   layout their first consumer needs, and a replicated one reads through a `_MirrorOperator`
   whose backward all-reduces its gradient over the replicas;
2. every node goes through `sharded_apply` (minispore/parallel/sharded_apply.py):
   redistribute its arguments, run it on the blocks, complete pending reductions.

The backward is never partitioned node by node: it is derived again from the partitioned
forward by the `differentiate` pass, so each collective's bprop gives the backward
communication. A TrainOneStepCell asks for it with ``program.grad``; a compiled function that
took a gradient itself (``value_and_grad`` inside ``@jit``) left BACKWARD nodes, which are
dropped and replaced by the same request, and its UPDATE nodes (the optimizer) are replayed on
the gradients' blocks: each update node runs on the one layout its sharded operands share
(a parameter's, its gradient's and its optimizer state's), and anything else is refused.

The gradient's seed is divided by the number of ranks that hold the same block of the head (a
replicated loss is computed on every rank, and the collectives' bprops add those copies up),
so the gradients and the update equal the single-device ones.
"""
import logging
from contextlib import contextmanager

from minispore.common.context import context
from minispore.common.layout import TensorLayout
from minispore.ops.sharding import is_tensor_arg
from minispore.graph.ir import BACKWARD, FORWARD, UPDATE, Graph, Value
from minispore.graph.program import GradRequest
from minispore.graph.tracer import Tracer
from minispore.ops.primitive import Aval
from minispore.parallel.parameter_placement import parameter_read_ops, place_parameter
from minispore.parallel.propagation import propagate_strategies
from minispore.parallel.region_boundary import SHARD_REGION
from minispore.parallel.search import SEARCH_MODES, search_strategies
from minispore.parallel.rules import apply_default, apply_strategy
from minispore.parallel.sharded_apply import LocalContext, move, sharded_apply
from minispore.parallel.strategy.ckpt import load_strategies, operator_keys, save_strategies

__all__ = ["step_parallel_begin", "partition", "LocalContext", "annotate_strategy"]

logger = logging.getLogger("minispore")

# Annotations of the cells a node was traced in, kept by the local nodes made from it (the
# collectives inserted for it included) for the passes after partition (recompute …).
_CELL_ANNOTATIONS = ("recompute", "ms_role", "rank_id", "pipeline_stage", "micro_batch")


class _Plan:
    """What step_parallel_begin decided (program.parallel_plan), for partition."""

    def __init__(self, settings):
        self.settings = settings
        self.results = {}


def _arg_avals(node):
    """The node's call arguments with Values as their (logical) Avals."""
    def conv(x):
        if isinstance(x, Value):
            return x.aval
        if isinstance(x, tuple):
            return tuple(conv(y) for y in x)
        if isinstance(x, list):
            return [conv(y) for y in x]
        return x
    return [conv(x) for x in node.inputs]


def _tensor_positions(node):
    """Indices in node.inputs of the tensor arguments the operator's rule sees, in order."""
    return [i for i, x in enumerate(node.inputs)
            if isinstance(x, Value) or (is_tensor_arg(x) and not isinstance(x, (tuple, list)))]


def _rule_result(node, settings):
    args = _arg_avals(node)
    strategy = node.annotations.get("in_strategy")
    if strategy is not None:
        return apply_strategy(node.prim, args, strategy, settings.device_num,
                              node.annotations.get("out_strategy"), scope=node.scope)
    tensors = [node.inputs[i] for i in _tensor_positions(node)]
    params = tuple(k for k, x in enumerate(tensors) if isinstance(x, Value) and x.param is not None)
    return apply_default(node.prim, args, settings.device_num, params, scope=node.scope)


def _pin_loaded_strategies(graph, settings):
    """Give the operators named by the strategy checkpoint's load_file their saved strategy
    (as if the script had set it); returns the ids of the pinned nodes."""
    if not settings.strategy_load_file:
        return set()
    saved = load_strategies(settings.strategy_load_file, settings.device_num)
    pinned = set()
    keys = operator_keys(graph)
    for node in graph.nodes:
        key = keys.get(id(node))
        if key not in saved:
            continue
        mine = node.annotations.get("in_strategy")
        if mine is not None and tuple(tuple(s) for s in mine) != saved[key]:
            logger.warning("The strategy checkpoint %s sets %s for '%s' (in %s), which the "
                           "script shards as %s; the checkpoint's strategy is used.",
                           settings.strategy_load_file, saved[key], node.prim.name,
                           node.scope, mine)
        node.annotations["in_strategy"] = saved[key]
        node.annotations["out_strategy"] = None
        pinned.add(id(node))
    return pinned


def annotate_strategy(node, result, origin):
    """Show a node's decided strategy (and its outputs' layouts) in the IR dumps."""
    node.annotations["strategy_from"] = origin
    node.annotations["strategy"] = result.strategy
    node.annotations["dev_matrix"] = result.dev_matrix
    for v, layout in zip(node.outputs, result.out_layouts):
        v.layout = layout


def refuse_control_flow(graph, where):
    """The parallel passes do not see into the subgraphs of control flow nodes (If, While:
    minispore/graph/control_flow.py): such a node is refused by name, never run unsharded."""
    for node in graph.nodes:
        if getattr(node.prim, "subgraphs", None):
            raise NotImplementedError(
                f"The control flow node {node.prim.name} (an if/while on a Tensor value, at "
                f"{node.scope}) in {where} is not supported by minispore's parallel passes; "
                f"express it with operators (ops.select) or run it stand_alone/data_parallel.")


def step_parallel_begin(program, ctx):
    """Fix each forward operator's strategy and layouts (annotated on the nodes and Values, so
    the dump shows them); a no-op unless ctx.parallel says operators are sharded."""
    settings = ctx.parallel
    if settings is None:
        return program
    graph = program.graph
    refuse_control_flow(graph, f"a {ctx.parallel_mode} graph")
    plan = _Plan(settings)
    for i, v in enumerate(graph.inputs):
        v.layout = settings.input_layout(i, len(v.shape))
    loaded = _pin_loaded_strategies(graph, settings)
    decided = None
    if settings.search_mode == "sharding_propagation":
        decided = propagate_strategies(graph, settings, _arg_avals, _tensor_positions)
    elif settings.search_mode in SEARCH_MODES:
        decided = search_strategies(graph, settings, _arg_avals, _tensor_positions, loaded)
    elif any(SHARD_REGION in n.annotations for n in graph.nodes):
        # semi-auto: strategies propagate inside ms.shard / Cell.shard regions only
        decided = propagate_strategies(graph, settings, _arg_avals, _tensor_positions,
                                       within=lambda n: SHARD_REGION in n.annotations)
    origins = {}
    for node in graph.nodes:
        if node.phase != FORWARD:
            continue
        if decided is not None:
            result, origin = decided[id(node)]
        else:
            result = _rule_result(node, settings)
            origin = "user" if node.annotations.get("in_strategy") else \
                "data-parallel default"
        origins[id(node)] = "loaded" if id(node) in loaded else origin
        plan.results[id(node)] = result
        annotate_strategy(node, result, origins[id(node)])
    if settings.search_mode is not None and logger.isEnabledFor(logging.INFO):
        logger.info("Auto parallel (%s) plan of %s on %d devices:\n%s", settings.search_mode,
                    graph.name, settings.device_num, "\n".join(
                        f"  {n.scope} {n.prim.name}: {n.annotations['strategy']} "
                        f"({n.annotations['strategy_from']}){_why(n)}"
                        for n in graph.nodes if "strategy" in n.annotations))
    if settings.strategy_save_file and settings.rank == 0:
        save_strategies(settings.strategy_save_file, graph, plan.results, origins,
                        settings.device_num, _tensor_positions,
                        settings.strategy_trainable_only)
    program.parallel_plan = plan
    return program


def _why(node):
    """', <why propagation chose it>' for a propagated node, else nothing."""
    reason = node.annotations.get("strategy_reason")
    return f", {reason}" if reason else ""


class _Partitioner:
    def __init__(self, program, plan):
        self.program = program
        self.old = program.graph
        self.plan = plan
        self.settings = plan.settings
        self.rank = plan.settings.rank
        self.graph = Graph(self.old.name)
        self.tracer = Tracer.of(self.graph)
        self.tracer.local_shapes = True
        self.env = {}          # id(logical Value) -> (local TracedTensor, its layout)
        self.final = {}        # id(logical output Value) -> (as returned, its layout)
        self.moved = {}        # (id(logical Value), layout) -> its redistributed TracedTensor

    # -- values ------------------------------------------------------------------------------
    def _param(self, value, want, key):
        """The local read of parameter `value` (sliced on its first use), cached under `key`."""
        param = value.param
        layout = place_parameter(param, want, self.settings)
        value_local = self.tracer.param_value(param)
        value_local.layout = layout
        t = self.tracer.from_graph(value_local)
        with self.tracer, self._scope(f"{param.name}.mirror"), _param_fusion(param):
            for op in parameter_read_ops(param, self.settings):
                t = op(t)
        self.env[key] = (t, layout)
        return t, layout

    def _local(self, value, want, key=None):
        """`value`'s local TracedTensor and layout (reading a parameter on first use); `key`:
        the cache entry of a parameter read (default: one read per parameter)."""
        key = id(value) if key is None else key
        if key in self.env:
            return self.env[key]
        if value.param is not None:
            return self._param(value, want, key)
        producer = value.producer
        if producer is not None and producer.phase == BACKWARD:
            raise NotImplementedError(
                f"Under operator parallel, %{value.name} (made by {producer.prim.name} at "
                f"{producer.scope} while taking a gradient) is used, but only the gradients "
                f"themselves may be read after value_and_grad/grad in a compiled step.")
        raise RuntimeError(f"partition: %{value.name} is read before it is defined.")

    def _redistributed(self, value, want, where, consumer):
        """`value` in layout `want`: redistributed once, and shared by every consumer that
        wants that layout (one collective forward; backward, one whose input cotangent
        sums theirs). The redistribution carries the cell annotations of the consumer it was
        made for. Under gradient_accumulation_shard each micro-batch reads an optimizer-
        sharded parameter anew (its own AllGather, whose bprop reduce-scatters that
        micro-batch's gradient)."""
        if value.param is not None and "manual_split" in consumer.prim.attrs and \
                consumer.inputs and consumer.inputs[0] is value:
            self._split_manually(value, want, consumer)
        read = id(value)
        micro = consumer.annotations.get("micro_batch")
        if self.settings.gradient_accumulation_shard and value.param is not None and \
                micro is not None:
            place_parameter(value.param, want, self.settings)      # sliced on the first read
            if getattr(value.param, "optimizer_shards", 1) > 1:
                read = (id(value), micro)
        t, have = self._local(value, want, read)
        if have == want:
            return t, have
        key = (read, want)
        if key not in self.moved:
            start = len(self.graph.nodes)
            with self.tracer, _param_fusion(value.param):
                self.moved[key] = move(t, have, want, tuple(value.shape), self.settings, where,
                                       self._scope)
            _inherit_cell_annotations(self.graph.nodes[start:], consumer)
        return self.moved[key], want

    def _split_manually(self, value, want, consumer):
        """Slice the table of a Gather with ``manual_split`` into its non-uniform row blocks
        (mindspore_semantics.md §2.4): checked as MindSpore does, then each rank keeps its
        rows (minispore/parallel/param_slicing.py)."""
        splits = consumer.prim.attrs["manual_split"]
        shape = tuple(value.shape)
        where = f"For 'Gather' (in {consumer.scope}), manual_split {splits}"
        axis = consumer.inputs[2] if len(consumer.inputs) > 2 else 0
        if not isinstance(axis, int) or axis % len(shape) != 0:
            raise ValueError(f"{where} needs axis 0, but the gather is along axis {axis}.")
        if not isinstance(splits, (tuple, list)) or not all(
                isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in splits):
            raise ValueError(f"{where} must be a tuple of positive ints.")
        cuts = want.cuts()
        if cuts[0] != len(splits) or any(c != 1 for c in cuts[1:]):
            raise ValueError(f"{where} has {len(splits)} sizes, but the strategy cuts the "
                             f"table {shape} {cuts}: give one size per cut of dim 0 and cut no "
                             f"other dim.")
        if sum(splits) != shape[0]:
            raise ValueError(f"{where} sums to {sum(splits)}, but the table has {shape[0]} "
                             f"rows.")
        strategy = consumer.annotations.get("strategy") or ()
        used = 1
        for dims in strategy:
            for d in dims:
                used *= d
        if used != self.settings.device_num:
            raise ValueError(f"{where}: the strategy {strategy} uses {used} of the "
                             f"{self.settings.device_num} devices; a manual split allows no "
                             f"repeated calculation.")
        from minispore.parallel.param_slicing import slice_rows_manually
        slice_rows_manually(value.param, want, splits, self.settings.rank, self.settings.mesh)

    def _moved(self, x, want, global_shape, where):
        """x (a Value or a constant Tensor) as a TracedTensor with layout `want`."""
        if isinstance(x, Value):
            t, have = self._local(x, want)
        else:       # a constant: every rank holds the whole tensor
            t, have = x, TensorLayout(want.dev_matrix, (-1,) * len(global_shape))
        with self.tracer:
            return move(t, have, want, global_shape, self.settings, where, self._scope)

    @contextmanager
    def _scope(self, scope):
        """Nodes traced inside are scoped ``<scope>.<op>`` (None: the operator's own scope)."""
        saved, self.tracer.scope_override = self.tracer.scope_override, scope
        try:
            yield
        finally:
            self.tracer.scope_override = saved

    # -- nodes -------------------------------------------------------------------------------
    def run_node(self, node):
        result = self.plan.results[id(node)]
        args = list(node.inputs)
        layouts = {}
        for k, (i, want) in enumerate(zip(_tensor_positions(node), result.in_layouts)):
            x = node.inputs[i]
            if isinstance(x, Value):
                args[i], layouts[i] = self._redistributed(x, want,
                                                          f"{node.scope}.redistribution{k}", node)
            else:       # a constant: every rank holds the whole tensor
                layouts[i] = TensorLayout(want.dev_matrix, (-1,) * len(x.shape))
        global_out = tuple(tuple(v.shape) for v in node.outputs)
        start = len(self.graph.nodes)
        with self.tracer:
            outs, out_layouts = sharded_apply(node.prim, args, layouts, result,
                                              _arg_avals(node), global_out, self.settings,
                                              node.scope, self._scope)
        _inherit_cell_annotations(self.graph.nodes[start:], node)
        for new in self.graph.nodes[start:]:
            if new.prim is node.prim or type(new.prim) is type(node.prim):
                new.scope = node.scope
                new.annotations.update(strategy=result.strategy, dev_matrix=result.dev_matrix)
        for v, t, layout in zip(node.outputs, outs, out_layouts):
            t._value.layout = layout
            self.env[id(v)] = (t, layout)

    def run_update_node(self, node):
        """Replay an UPDATE node (the optimizer of a compiled step) on local blocks: its sharded
        operands must share one layout, which its outputs of the same shape keep."""
        args = list(node.inputs)
        shared = None
        for i, x in enumerate(node.inputs):
            if not isinstance(x, Value):
                continue
            if x.param is not None:     # the parameter itself (written in place), not a read
                param = x.param
                args[i] = param
                layout = param.layout or TensorLayout((self.settings.device_num,),
                                                      (-1,) * len(x.shape))
            else:
                args[i], layout = self._local(x, None)
            if len(x.shape) and (layout.partial or any(m != -1 for m in layout.tensor_map)):
                if shared is not None and (layout, tuple(x.shape)) != shared:
                    raise NotImplementedError(
                        f"Under operator parallel, the update operator '{node.prim.name}' (in "
                        f"{node.scope}) mixes operands of layouts {shared[0]} and {layout}; "
                        f"only elementwise updates of a parameter, its gradient and its "
                        f"optimizer state are supported after value_and_grad in a compiled "
                        f"step.")
                shared = (layout, tuple(x.shape))
        with self.tracer, self.tracer.in_phase(UPDATE), self._scope(None):
            outs = _call(node.prim, args)
        outs = outs if node.tuple_output else (outs,)
        for v, t in zip(node.outputs, outs):
            if shared is not None and tuple(v.shape) == shared[1]:
                layout = shared[0]
            elif shared is None or not len(v.shape):
                layout = TensorLayout((self.settings.device_num,), (-1,) * len(v.shape))
            else:
                raise NotImplementedError(
                    f"Under operator parallel, the update operator '{node.prim.name}' (in "
                    f"{node.scope}) changes the shape of a sharded operand ({shared[1]} -> "
                    f"{tuple(v.shape)}); only elementwise updates are supported after "
                    f"value_and_grad in a compiled step.")
            t._value.layout = layout
            self.env[id(v)] = (t, layout)

    # -- the whole program ---------------------------------------------------------------------
    def run(self):
        old = self.old
        for v in old.inputs:
            layout = v.layout
            t = self.tracer.add_input(Aval(layout.local_shape(v.shape), v.dtype))
            t._value.layout = layout
            self.env[id(v)] = (t, layout)
        for node in old.nodes:
            if node.phase == FORWARD:
                self.run_node(node)
        program = self.program
        program.graph = self.graph
        traced = program.traced_gradients
        if traced:
            self._lift_traced_gradient(traced)
        else:
            self._set_outputs()
            if program.grad is not None:
                program.grad = self._local_grad_request(program.grad)
        return program

    def _set_outputs(self):
        old = self.old
        batch = old.inputs[0].shape[0] if old.inputs and old.inputs[0].shape else None
        outputs = self._outputs(old.outputs, batch)
        self.graph.outputs = self.tracer.to_graph(outputs)

    def _outputs(self, obj, batch):
        if isinstance(obj, Value):
            if obj.param is not None:
                return obj.param
            if id(obj) not in self.final:
                want = self.settings.output_layout(tuple(obj.shape), batch)
                t = self._moved(obj, want, tuple(obj.shape), "output")
                self.final[id(obj)] = (t, want)
            return self.final[id(obj)][0]
        if isinstance(obj, tuple):
            return tuple(self._outputs(x, batch) for x in obj)
        if isinstance(obj, list):
            return [self._outputs(x, batch) for x in obj]
        return obj

    def _local_grad_request(self, request, head=None):
        """The request on the local graph: the head as returned, its seed divided by the ranks
        that hold copies of it, and the local parameter Values (sliced on first use, so a
        parameter the forward never reads keeps its whole value)."""
        head = request.head if head is None else head
        batch = self.old.inputs[0].shape[0] if self.old.inputs and \
            self.old.inputs[0].shape else None
        self._outputs(head, batch)
        t, layout = self.final[id(head)]
        replicas = 1
        if self.settings.loss_repeated_mean:
            for a in layout.replica_axes():
                replicas *= layout.dev_matrix[a]
        sens = request.sens / replicas * self.settings.gradient_seed_scale
        return GradRequest(t._value, [self._wrt(w) for w in request.wrt], sens,
                           request.return_grads)

    def _wrt(self, value):
        if value.param is not None:
            return self.tracer.param_value(value.param)
        return self.env[id(value)][0]._value

    def _wrt_layout(self, value):
        if value.param is not None:
            return value.param.layout or TensorLayout((self.settings.device_num,),
                                                      (-1,) * len(value.shape))
        return self.env[id(value)][1]

    def _lift_traced_gradient(self, traced):
        """Replace the BACKWARD nodes of a gradient taken while tracing by a GradRequest on
        the local forward graph; its UPDATE nodes and the outputs follow once the
        `differentiate` pass has made the local gradients."""
        program = self.program
        if len(traced) > 1 or program.grad is not None or program.update is not None:
            raise NotImplementedError(
                "Under operator parallel, a compiled step may take one gradient (one "
                "value_and_grad/grad call, or a TrainOneStepCell); this one takes "
                f"{len(traced) + (program.grad is not None)}.")
        gradient = traced[0]
        if gradient.seeded or len(gradient.heads) != 1:
            raise NotImplementedError(
                "Under operator parallel, value_and_grad/grad in a compiled step must "
                "differentiate one output with the default sensitivity (ones); use has_aux=True "
                "to return more outputs.")
        program.traced_gradients = []
        request = GradRequest(gradient.heads[0], gradient.wrt)
        program.grad = self._local_grad_request(request)
        update_nodes = [n for n in self.old.nodes if n.phase == UPDATE]

        def finish(grads):
            for g_old, w, g in zip(gradient.grads, gradient.wrt, grads):
                self.env[id(g_old)] = (g, self._wrt_layout(w))
            for node in update_nodes:
                self.run_update_node(node)
            self._set_outputs()

        program.update = finish


def _inherit_cell_annotations(nodes, node):
    """Give the local `nodes` made for `node` its cell annotations (their own win)."""
    inherited = {k: v for k, v in node.annotations.items() if k in _CELL_ANNOTATIONS}
    for new in nodes:
        for key, value in inherited.items():
            new.annotations.setdefault(key, value)


@contextmanager
def _param_fusion(param):
    """Collectives traced inside (and the backward ones derived from them) carry the
    parameter's communication fusion id (minispore/parallel/comm/fusion.py)."""
    if param is None:
        yield
        return
    frames = context().annotation_frames
    frames.append({"param_fusion": param.comm_fusion})
    try:
        yield
    finally:
        frames.pop()


def _call(prim, args):
    """Call the primitive itself (not an override of __call__ that reshapes its arguments:
    a node's inputs are already normalised)."""
    from minispore.ops.primitive import Primitive
    return Primitive.__call__(prim, *args)


def partition(program, ctx):
    """This rank's local program (see the module docstring); a no-op unless
    step_parallel_begin planned it."""
    plan, program.parallel_plan = program.parallel_plan, None
    if plan is None:
        return program
    return _Partitioner(program, plan).run()
