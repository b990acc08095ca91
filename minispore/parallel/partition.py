"""The semi-auto-parallel passes: the traced forward graph (logical shapes) -> this rank's graph.

`step_parallel_begin` fixes every operator's strategy -- the user's ``shard`` or, without one,
the data-parallel default -- and the layouts its rule derives (RuleResults; errors are
StrategyErrors naming the operator's scope). `partition` then re-traces the graph node by node
on local blocks (DESIGN.md "Parallel (SPMD) model"):

1. graph inputs take the dataset layout (settings.input_layout); parameters are sliced to the
   layout their first consumer needs, and a replicated one reads through a `_MirrorOperator`
   whose backward all-reduces its gradient over the replicas;
2. every tensor argument is redistributed from the layout it has to the one the operator's
   strategy needs (the planner of minispore/parallel/redistribution.py, traced, so each
   collective's bprop gives the backward communication during autodiff);
3. the operator runs on the blocks through ``prim.local_call(args, ctx)`` (operators whose
   attributes hold logical sizes -- Reshape's shape, Conv2D's out_channel -- or that need more
   than their own kernel on a block -- Gather's row split, Dropout's per-slice mask --
   override it);
4. pending reductions of each output are completed right away: AllReduce (SUM, MAX or MIN), or
   the ReduceScatter an out_strategy asks for; a mean over a cut dim is rescaled.

The gradient request's seed is divided by the number of ranks that hold the same block of the
head (a replicated loss is computed on every rank, and the collectives' bprops add those
copies up), so the gradients and the update equal the single-device ones.
"""
from contextlib import contextmanager

from minispore.common.layout import TensorLayout, group_ranks
from minispore.common.sharding_rules import is_tensor_arg
from minispore.graph.ir import Graph, Value
from minispore.graph.tracer import Tracer
from minispore.ops.primitive import Aval
from minispore.parallel.param_slicing import slice_parameter
from minispore.parallel.redistribution import group_name, redistribute
from minispore.parallel.rules import apply_default, apply_strategy
from minispore.parallel.settings import operator_parallel_settings

__all__ = ["step_parallel_begin", "partition", "LocalContext"]


class _Plan:
    """What step_parallel_begin decided, handed to partition on the graph."""

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


def step_parallel_begin(graph):
    """Fix each operator's strategy and layouts (annotated on the nodes and Values, so the
    dump shows them); a no-op outside semi-auto/auto parallel."""
    settings = operator_parallel_settings()
    if settings is None:
        return graph
    plan = _Plan(settings)
    for i, v in enumerate(graph.inputs):
        v.layout = settings.input_layout(i, len(v.shape))
    for node in graph.nodes:
        result = _rule_result(node, settings)
        plan.results[id(node)] = result
        node.annotations["strategy"] = result.strategy
        node.annotations["dev_matrix"] = result.dev_matrix
        for v, layout in zip(node.outputs, result.out_layouts):
            v.layout = layout
    graph.parallel_plan = plan
    return graph


class LocalContext:
    """What ``Primitive.local_call`` may need to run an operator on this rank's blocks.

    in_layouts/out_layouts: the operator's TensorLayouts (outputs before their pending
    reductions are completed); global_in_shapes/global_out_shapes: logical shapes;
    out_shapes: the local shapes the outputs must have; rank: this process's rank.
    """

    def __init__(self, result, global_in, global_out, rank):
        self.result = result
        self.in_layouts = result.in_layouts
        self.out_layouts = result.out_layouts
        self.global_in_shapes = global_in
        self.global_out_shapes = global_out
        self.rank = rank
        self.out_shapes = tuple(lay.local_shape(s) for lay, s in zip(result.out_layouts,
                                                                       global_out))

    def block_offset(self, layout, global_shape, dim):
        """Where this rank's block of `dim` starts in the logical tensor."""
        return layout.local_slices(global_shape, self.rank)[dim].start


class _Partitioner:
    def __init__(self, graph, plan):
        self.old = graph
        self.plan = plan
        self.settings = plan.settings
        self.rank = plan.settings.rank
        self.graph = Graph(graph.name)
        self.tracer = Tracer.of(self.graph)
        self.tracer.local_shapes = True
        self.env = {}          # id(logical Value) -> (local TracedTensor, its layout)
        self.final = {}        # id(logical output Value) -> (as returned, its layout)

    # -- values ------------------------------------------------------------------------------
    def _param(self, value, want):
        """The local read of parameter `value`, sliced to `want` on its first use."""
        param = value.param
        if param.layout is None:
            layout = TensorLayout(want.dev_matrix, want.tensor_map)
            slice_parameter(param, layout, self.rank)
        layout = param.layout
        value_local = self.tracer.param_value(param)
        value_local.layout = layout
        t = self.tracer.from_graph(value_local)
        replicas = group_ranks(layout.dev_matrix, self.rank, layout.replica_axes())
        if param.requires_grad and len(replicas) > 1:
            from minispore.ops.operations.comm_ops import _MirrorOperator
            mirror = _MirrorOperator(group_name(replicas), len(replicas),
                                     self.settings.gradients_mean)
            with self._scope(f"{param.name}.mirror"):
                t = mirror(t)
        self.env[id(value)] = (t, layout)
        return t, layout

    def _local(self, value, want):
        """`value`'s local TracedTensor and layout (reading a parameter on first use)."""
        if id(value) in self.env:
            return self.env[id(value)]
        if value.param is not None:
            return self._param(value, want)
        raise RuntimeError(f"partition: %{value.name} is read before it is defined.")

    def _moved(self, x, want, global_shape, where):
        """x (a Value or a constant Tensor) as a TracedTensor with layout `want`."""
        if isinstance(x, Value):
            t, have = self._local(x, want)
        else:       # a constant: every rank holds the whole tensor
            t, have = x, TensorLayout(want.dev_matrix, (-1,) * len(global_shape))
        if have == want:
            return t
        with self._scope(where):
            return redistribute(t, have, want, global_shape, self.rank,
                                self.settings.enable_alltoall)

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
        positions = _tensor_positions(node)
        args = list(node.inputs)
        global_in = []
        with self.tracer:
            for k, (i, want) in enumerate(zip(positions, result.in_layouts)):
                x = node.inputs[i]
                shape = tuple(x.shape)
                global_in.append(shape)
                args[i] = self._moved(x, want, shape, f"{node.scope}.redistribution{k}")
            global_out = tuple(tuple(v.shape) for v in node.outputs)
            ctx = LocalContext(result, tuple(global_in), global_out, self.rank)
            start = len(self.graph.nodes)
            parent = node.scope.rsplit(".", 1)[0] if "." in node.scope else None
            with self._scope(parent):
                outs = node.prim.local_call(args, ctx)
            for new in self.graph.nodes[start:]:
                if new.prim is node.prim or type(new.prim) is type(node.prim):
                    new.scope = node.scope
                    new.annotations.update(strategy=result.strategy,
                                           dev_matrix=result.dev_matrix)
            outs = outs if node.tuple_output else (outs,)
            for o, (v, t) in enumerate(zip(node.outputs, outs)):
                t, layout = self._complete(node, result, o, t, global_out[o])
                want = layout.local_shape(global_out[o])
                if tuple(t.shape) != want:
                    raise RuntimeError(
                        f"For '{node.prim.name}' (in {node.scope}), the local output {o} has "
                        f"shape {tuple(t.shape)} but layout {layout} of the logical shape "
                        f"{global_out[o]} needs {want}: the operator's attributes hold logical "
                        f"sizes that its local_call does not rewrite.")
                t._value.layout = layout
                self.env[id(v)] = (t, layout)

    def _complete(self, node, result, o, t, global_shape):
        """Finish output o's pending reductions; returns (tensor, final layout)."""
        layout = result.out_layouts[o]
        ops = result.partial_ops[o]
        scatter = result.reduce_scatter[o]
        if not layout.partial and scatter is None:
            return self._scaled(t, result.scales[o], node), layout
        from minispore.ops.operations.comm_ops import AllReduce
        where = f"{node.scope}.reduction{o}"
        if scatter is not None:
            # The unscattered partial layout on the operator's own device matrix; the planner
            # turns partial -> cut into one ReduceScatter (refining the merged axis).
            raw = apply_strategy(node.prim, _arg_avals(node), result.strategy,
                                 self.settings.device_num, scope=node.scope).out_layouts[o]
            with self._scope(where):
                t = redistribute(t, raw, layout, global_shape, self.rank)
            return self._scaled(t, result.scales[o], node), layout
        with self._scope(where):
            for axis in layout.partial:
                group = group_ranks(layout.dev_matrix, self.rank, (layout.axis(axis),))
                t = AllReduce(ops[axis], group_name(group))(t)
        done = TensorLayout(layout.dev_matrix, layout.tensor_map)
        return self._scaled(t, result.scales[o], node), done

    def _scaled(self, t, scale, node):
        if scale == 1.0:
            return t
        from minispore.ops import functional as F
        with self._scope(f"{node.scope}.mean"):
            return F.mul(t, scale)

    # -- the whole graph -----------------------------------------------------------------------
    def run(self):
        old = self.old
        for v in old.inputs:
            layout = v.layout
            t = self.tracer.add_input(Aval(layout.local_shape(v.shape), v.dtype))
            t._value.layout = layout
            self.env[id(v)] = (t, layout)
        for node in old.nodes:
            self.run_node(node)
        batch = old.inputs[0].shape[0] if old.inputs and old.inputs[0].shape else None
        with self.tracer:
            outputs = self._outputs(old.outputs, batch)
        self.graph.outputs = self.tracer.to_graph(outputs)
        self._requests()
        return self.graph

    def _output_layout(self, v, batch):
        """Returned tensors come back as the user would feed them: under data_parallel a
        tensor with the logical batch as dim 0 is this rank's rows, anything else whole."""
        n = self.settings.device_num
        ndim = len(v.shape)
        if (self.settings.dataset_strategy == "data_parallel" and ndim and batch is not None
                and v.shape[0] == batch):
            return TensorLayout((n,), (0,) + (-1,) * (ndim - 1))
        return TensorLayout((n,), (-1,) * ndim)

    def _outputs(self, obj, batch):
        if isinstance(obj, Value):
            if obj.param is not None:
                return obj.param
            want = self._output_layout(obj, batch)
            t = self._moved(obj, want, tuple(obj.shape), "output")
            self.final[id(obj)] = (t, want)
            return t
        if isinstance(obj, tuple):
            return tuple(self._outputs(x, batch) for x in obj)
        if isinstance(obj, list):
            return [self._outputs(x, batch) for x in obj]
        return obj

    def _requests(self):
        requests = dict(self.old.requests)
        grad = requests.get("grad")
        if grad is not None:
            grad = dict(grad)
            head = grad["head"]
            t, layout = self.final[id(head)]
            replicas = 1
            if self.settings.loss_repeated_mean:
                for a in layout.replica_axes():
                    replicas *= layout.dev_matrix[a]
            grad["head"] = t._value
            grad["sens"] = grad["sens"] / replicas
            grad["wrt"] = [self._wrt(w) for w in grad["wrt"]]
            requests["grad"] = grad
        self.graph.requests = requests

    def _wrt(self, value):
        """The local parameter Value for a gradient target (sliced on first use, so a
        parameter the forward never reads keeps its whole value)."""
        return self.tracer.param_value(value.param)


def partition(graph):
    """This rank's local graph (see the module docstring); a no-op unless
    step_parallel_begin planned the graph."""
    plan = graph.__dict__.pop("parallel_plan", None)
    if plan is None:
        return graph
    return _Partitioner(graph, plan).run()
