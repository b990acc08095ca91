"""Training wrappers: WithLossCell, WithEvalCell and TrainOneStepCell (forward, grads, update)."""
from minispore.common import dtype as mstype
from minispore.common.auto_parallel_context import get_auto_parallel_context
from minispore.graph.program import GradRequest
from minispore.nn.cell import Cell
from minispore.nn.optim.adasum import SERVER_SIZE, AdaSumWrapCell
from minispore.nn.optim.optimizer import Optimizer
from minispore.nn.wrap.grad_reducer import (DistributedGradReducer, broadcast_parameters,
                                            is_data_parallel)
from minispore.ops import functional as F
from minispore.ops.autodiff import Tape


__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell", "VirtualDatasetCellTriple"]


def _check_cell(name, arg_name, value, cls=Cell):
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise TypeError(f"For '{name}', '{arg_name}' must be a {names}, but got "
                        f"{type(value).__name__}.")


class WithLossCell(Cell):
    """loss = loss_fn(backbone(data), label). Parameter names stay the backbone's."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        _check_cell("WithLossCell", "backbone", backbone)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    """Returns (loss, outputs, label) for evaluation; ``add_cast_fp32`` casts both to float32."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        _check_cell("WithEvalCell", "network", network)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = F.cast(label, mstype.float32)
            outputs = F.cast(outputs, mstype.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class TrainOneStepCell(Cell):
    """One training step: loss = network(*inputs); grads of loss * sens w.r.t.
    optimizer.parameters; grad_reducer(grads) (identity outside data parallel); optimizer(grads).
    Returns the loss.

    The forward runs once, on a tape, and the backward walks that tape (what GradOperation with
    get_by_list and sens_param computes, without a second forward pass).
    """

    def __init__(self, network, optimizer, sens=1.0):
        super().__init__(auto_prefix=False)
        _check_cell("TrainOneStepCell", "network", network)
        _check_cell("TrainOneStepCell", "optimizer", optimizer, (Optimizer, AdaSumWrapCell))
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = 1.0 if sens is None else sens
        self.grad_reducer = _identity
        self.reducer_flag = is_data_parallel()
        # Data parallel with optimizer parallel compiles through the operator-parallel passes
        # (minispore/parallel/settings.py), whose gathers and reduce-scatters reduce the
        # gradients: no reducer, and no eager path.
        self._sharded_optimizer = self.reducer_flag and \
            get_auto_parallel_context("enable_parallel_optimizer")
        if self.reducer_flag:
            broadcast_parameters(network.get_parameters())
        if self.reducer_flag and not self._sharded_optimizer:
            # AdaSum combines the servers itself: the reducer averages within the server.
            self.grad_reducer = DistributedGradReducer(
                self.weights, degree=SERVER_SIZE, group=optimizer.server_group) \
                if isinstance(optimizer, AdaSumWrapCell) else DistributedGradReducer(self.weights)

    def forward_and_grads(self, *inputs):
        """(loss, gradients of sens * loss w.r.t. self.weights)."""
        from minispore.nn.wrap.micro_batch import GradAccumulationCell
        if isinstance(self.network, GradAccumulationCell):
            return self._accumulated(self.network, inputs)
        return self._forward_and_grads(self.network, inputs, self.reducer_flag)

    def _accumulated(self, accumulation, inputs):
        """Each micro-batch's forward and backward in turn, gradients added up (only one
        micro-batch's activations alive at a time); the reducer runs once, on the sums."""
        loss = grads = None
        for i in range(accumulation.micro_size):
            micro_loss, micro_grads = self._forward_and_grads(
                accumulation.network, accumulation.micro_inputs(i, inputs), False)
            loss = micro_loss if loss is None else loss + micro_loss
            grads = micro_grads if grads is None else tuple(
                F.add(a, b) for a, b in zip(grads, micro_grads))
        return loss, grads

    def _forward_and_grads(self, network, inputs, overlap_reduction):
        with Tape() as tape:
            for w in self.weights:
                tape.watch(w)
            loss = network(*inputs)
        sens = F.fill(loss.dtype, loss.shape, self.sens)
        # Data parallel: each gradient bucket starts its all-reduce once the backward is done
        # with it (see DistributedGradReducer).
        cot = tape.backward((loss,), (sens,),
                            self.grad_reducer.ready_hooks() if overlap_reduction else None)
        grads = tuple(cot[id(w)] if id(w) in cot else F.zeros_like(w) for w in self.weights)
        return loss, grads

    def construct(self, *inputs):
        if self._sharded_optimizer and not any(getattr(x, "traced", False) for x in inputs):
            raise NotImplementedError(
                "enable_parallel_optimizer=True under parallel_mode='data_parallel' runs in "
                "GRAPH_MODE only in minispore (the compiled step gathers the sliced weights "
                "and reduce-scatters their gradients); call set_context(mode=GRAPH_MODE).")
        loss, grads = self.forward_and_grads(*inputs)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        return loss

    def _compile_target(self):
        """GRAPH mode compiles the whole step as one graph: the forward is traced, the graph's
        `differentiate` pass appends the backward of sens * loss w.r.t. the weights, and
        `apply_optimizer_update` traces grad_reducer + optimizer on those gradients."""
        def prepare(program):
            graph = program.graph
            program.grad = GradRequest(graph.outputs,
                                       [graph.tracer.param_value(w) for w in self.weights],
                                       self.sens)
            program.update = lambda grads: self.optimizer(self.grad_reducer(grads))
        return self.network, prepare


def _identity(grads):
    return grads


class VirtualDatasetCellTriple(Cell):
    """``VirtualDatasetCellTriple(backbone)(a, b, c)`` = backbone(a, b, c). MindSpore marks
    three inputs as data-parallel with it for its auto-parallel passes (deprecated there);
    minispore's parallel passes take the inputs' layout from dataset_strategy / full_batch,
    so it only forwards them."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        _check_cell("VirtualDatasetCellTriple", "backbone", backbone)
        self._backbone = backbone

    def construct(self, a, b, c):
        return self._backbone(a, b, c)
