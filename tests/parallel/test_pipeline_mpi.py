"""Pipeline parallel (mindspore_semantics.md §9): stages from Cell.pipeline_stage, micro-batches
from nn.PipelineCell, 1F1B and GPipe schedules. The last stage's losses and every stage's
parameters equal the single-device run of the same PipelineCell (whose loss is the sum of the
micro-batch losses); each stage's program holds only its parameters, the stages exchange one
activation and one gradient per micro-batch, and 1F1B keeps fewer activations alive than GPipe.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_pipeline_mpi.py
     mpirun -n 4 python -m pytest --with-mpi -m "mpi and mpi4" tests/parallel/test_pipeline_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.communication import get_group_size
from minispore.graph.memory import track_memory
from minispore.parallel import comm_stats, reset_comm_stats
from minispore.parallel.param_slicing import gather_parameter
from minispore.parallel.pipeline.stats import last_step

pytestmark = pytest.mark.mpi(min_size=2)

WIDTH, CLASSES, BATCH = 16, 4, 8


class Chain(nn.Cell):
    """Four Dense layers with ReLUs; layer i runs in stage i * stages // 4."""

    def __init__(self, stages):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(WIDTH, WIDTH) for _ in range(3)] +
                                  [nn.Dense(WIDTH, CLASSES)])
        self.relu = ops.ReLU()      # a primitive: Primitive.recompute() marks every ReLU node
        for i, layer in enumerate(self.layers):
            layer.pipeline_stage = i * stages // 4

    def construct(self, x):
        for layer in self.layers[:-1]:
            x = self.relu(layer(x))
        return self.layers[-1](x)


def _data(steps=3, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((steps, BATCH, WIDTH)).astype(np.float32)
    ys = rng.integers(0, CLASSES, (steps, BATCH)).astype(np.int32)
    return xs, ys


def _setup(stages, parallel, scheduler="1f1b", **context):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    if parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                     device_num=get_group_size(), pipeline_stages=stages,
                                     full_batch=True,
                                     pipeline_config={"pipeline_scheduler": scheduler},
                                     **context)
    ms.set_seed(1)


def train_functional(stages, micro, parallel, scheduler="1f1b", optimizer="sgd", steps=3,
                     memory=False):
    """The tutorial's style: ms.jit step with ops.value_and_grad over a PipelineCell and a
    PipelineGradReducer. Returns (losses, {param name: gathered value}, per-step peaks)."""
    _setup(stages, parallel, scheduler)
    net = Chain(stages)
    params = net.trainable_params()
    opt = {"sgd": lambda: nn.SGD(params, 0.1), "momentum": lambda: nn.Momentum(params, 0.1, 0.9),
           "adam": lambda: nn.Adam(params, 0.01)}[optimizer]()
    with_loss = nn.PipelineCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), micro)
    grad_fn = ops.value_and_grad(with_loss, None, opt.parameters)
    reducer = nn.PipelineGradReducer(opt.parameters) if parallel else None

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        if reducer is not None:
            grads = reducer(grads)
        opt(grads)
        return loss

    xs, ys = _data(steps)
    losses, peaks = [], []
    for x, y in zip(xs, ys):
        with track_memory() as tracker:
            losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        peaks.append(tracker.peak_activation_bytes)
    weights = {p.name: gather_parameter(p) for p in params}
    ms.reset_auto_parallel_context()
    return losses, weights, peaks


def _stage_of(name, stages):
    layer = int(name.split(".")[-2])
    return layer * stages // 4


def _assert_equal_to_single_device(world, stages, micro, scheduler, optimizer="sgd"):
    rank, n = world
    ref_losses, ref_weights, _ = train_functional(stages, micro, False, optimizer=optimizer)
    losses, weights, _ = train_functional(stages, micro, True, scheduler, optimizer)
    stage = rank // (n // stages)
    if stage == stages - 1:
        np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    else:       # the loss is the last stage's: the other stages return a placeholder
        assert losses == [0.0] * len(losses)
    mine = [name for name in weights if _stage_of(name, stages) == stage]
    assert mine
    for name in mine:
        np.testing.assert_allclose(weights[name], ref_weights[name], rtol=1e-5, atol=1e-7,
                                   err_msg=name)
    return losses, weights


@pytest.mark.parametrize("scheduler", ["1f1b", "gpipe"])
@pytest.mark.parametrize("micro", [1, 2, 4])
def test_two_stages_equal_single_device(world, micro, scheduler):
    _assert_equal_to_single_device(world, 2, micro, scheduler)


@pytest.mark.parametrize("optimizer", ["momentum", "adam"])
def test_two_stages_with_optimizer_state_equal_single_device(world, optimizer):
    _assert_equal_to_single_device(world, 2, 2, "1f1b", optimizer)


@pytest.mark.mpi4
@pytest.mark.parametrize("scheduler", ["1f1b", "gpipe"])
@pytest.mark.parametrize("micro", [1, 2, 4])
def test_four_stages_equal_single_device(world, micro, scheduler):
    if world[1] % 4:
        pytest.skip("4 stages need a multiple of 4 ranks")
    _assert_equal_to_single_device(world, 4, micro, scheduler)


def test_schedules_give_bitwise_equal_results(world):
    """1F1B and GPipe run the same nodes in another order."""
    one_f_one_b = train_functional(2, 4, True, "1f1b")
    gpipe = train_functional(2, 4, True, "gpipe")
    assert one_f_one_b[0] == gpipe[0]
    for name, value in one_f_one_b[1].items():
        np.testing.assert_array_equal(value, gpipe[1][name])


def test_stage_holds_only_its_parameters_and_exchanges_one_tensor_per_micro_batch(world):
    rank, n = world
    _setup(2, True)
    net = Chain(2)
    opt = nn.SGD(net.trainable_params(), 0.1)
    train = nn.TrainOneStepCell(nn.PipelineCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), 4),
                                opt)
    xs, ys = _data(2)
    train(Tensor(xs[0]), Tensor(ys[0]))          # compiles
    reset_comm_stats()
    train(Tensor(xs[1]), Tensor(ys[1]))
    stats = comm_stats()
    stage = rank // (n // 2)
    graph = next(iter(train._graph_cache.entries.values())).graph
    program_params = {v.param.name for v in graph.parameters}
    names = {p.name for p in net.trainable_params()}

    def layer(name):        # "2.weight", "layers.3.bias", "accum.layers.3.bias" -> "3.bias"
        return ".".join(name.split(".")[-2:])

    own = {layer(name) for name in names if _stage_of(name, 2) == stage}
    assert {layer(name) for name in program_params & names} == own
    # and the optimizer state of those parameters only (SGD's accum/stat per parameter)
    state = {layer(name) for name in program_params - names - {"global_step"}}
    assert state == own, state
    # 4 micro-batches: stage 0 sends 4 activations of (BATCH / 4, WIDTH) float32 and receives
    # their 4 gradients; stage 1 the other way round. With several devices per stage each
    # sends its rows of the micro-batch.
    block = BATCH // 4 // (n // 2) * WIDTH * 4
    assert stats["Send"] == {"count": 4, "bytes": 4 * block}
    assert stats["Receive"] == {"count": 4, "bytes": 0}      # sent bytes, counted by senders
    step = last_step()
    assert (step.stage, step.stages, step.micro_size) == (stage, 2, 4)
    assert step.busy > 0 and step.idle >= 0
    assert step.analytic == pytest.approx(1 / 5)
    ms.reset_auto_parallel_context()


def test_one_f_one_b_keeps_fewer_activations_than_gpipe(world):
    """Stage 0 of 2 with 4 micro-batches: GPipe holds every micro-batch's activations until the
    backward starts, 1F1B at most two."""
    rank, n = world
    peaks = {s: train_functional(2, 4, True, s, steps=2)[2][-1] for s in ("1f1b", "gpipe")}
    if rank // (n // 2) == 0:
        assert peaks["1f1b"] < peaks["gpipe"], peaks


def train_cell(stages, micro, parallel, model=False, optimizer="sgd", recompute=False,
               steps=3, **context):
    """TrainOneStepCell over a PipelineCell (Model.train's path with `model`): (losses,
    {param name: gathered value}, {param name: the shape this rank stores}, the number of
    recomputed nodes in the compiled step)."""
    if parallel:
        _setup(stages, True, **context)
    else:
        _setup(stages, False)
    net = Chain(stages)
    if recompute:
        net.relu.recompute()
    params = net.trainable_params()
    opt = {"sgd": lambda: nn.SGD(params, 0.1),
           "momentum": lambda: nn.Momentum(params, 0.1, 0.9)}[optimizer]()
    with_loss = nn.PipelineCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), micro)
    xs, ys = _data(steps)
    losses = []
    if model:
        from minispore.dataset import NumpySlicesDataset
        from minispore.train import Callback

        class Record(Callback):
            def on_train_step_end(self, run_context):
                losses.append(float(run_context.original_args().net_outputs.asnumpy()))

        data = NumpySlicesDataset({"x": xs.reshape(-1, WIDTH), "y": ys.reshape(-1)},
                                  shuffle=False).batch(BATCH)
        ms.Model(with_loss, optimizer=opt).train(1, data, callbacks=[Record()])
    else:
        step = nn.TrainOneStepCell(with_loss, opt)
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in zip(xs, ys)]
    duplicated = 0
    if not model:
        graph = next(iter(step._graph_cache.entries.values())).graph
        duplicated = sum(1 for node in graph.nodes if node.annotations.get("duplicated"))
    stored = {p.name: p.asnumpy().shape for p in params}
    weights = {p.name: gather_parameter(p) for p in params}
    ms.reset_auto_parallel_context()
    return losses, weights, stored, duplicated


def _check_against(world, stages, got, want):
    rank, n = world
    stage = rank // (n // stages)
    if stage == stages - 1:
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for name, value in got[1].items():
        if _stage_of(name, stages) == stage:
            np.testing.assert_allclose(value, want[1][name], rtol=1e-5, atol=1e-7,
                                       err_msg=name)


@pytest.mark.parametrize("model", [False, True])
def test_train_one_step_cell_and_model_train_equal_single_device(world, model):
    want = train_cell(2, 2, False, model=model, optimizer="momentum")
    got = train_cell(2, 2, True, model=model, optimizer="momentum")
    assert len(got[0]) == 3
    _check_against(world, 2, got, want)


def test_result_broadcast_returns_the_last_stage_loss_on_every_stage(world):
    want = train_cell(2, 2, False)
    got = train_cell(2, 2, True, pipeline_result_broadcast=True)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)


def test_dynamic_batch_is_refused_clearly(world):
    _setup(2, True)
    net = Chain(2)
    step = nn.TrainOneStepCell(nn.PipelineCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), 2),
                               nn.SGD(net.trainable_params(), 0.1))
    step.set_inputs(Tensor(shape=[ms.Symbol(divisor=2), WIDTH], dtype=ms.float32),
                    Tensor(shape=[ms.Symbol(divisor=2)], dtype=ms.int32))
    xs, ys = _data(1)
    with pytest.raises(NotImplementedError, match="pipeline outputs do not support dynamic"):
        step(Tensor(xs[0]), Tensor(ys[0]))
    ms.reset_auto_parallel_context()


class ShardedChain(Chain):
    """Chain whose MatMuls are cut over the 2 devices of each stage: layer 0 and 2 by rows of
    the batch and columns of the weight, layers 1 and 3 along the reduced dim (an AllReduce)."""

    def __init__(self, stages):
        super().__init__(stages)
        for i, layer in enumerate(self.layers):
            layer.matmul.shard(((2, 1), (1, 1)) if i % 2 == 0 else ((1, 2), (1, 2)))


@pytest.mark.mpi4
def test_operator_sharding_inside_each_stage_equals_single_device(world):
    rank, n = world
    if n != 4:
        pytest.skip("two stages of two devices need 4 ranks")

    def run(parallel):
        _setup(2, parallel)
        net = ShardedChain(2)
        opt = nn.SGD(net.trainable_params(), 0.1)
        step = nn.TrainOneStepCell(
            nn.PipelineCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), 2), opt)
        xs, ys = _data(2)
        reset_comm_stats()
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in zip(xs, ys)]
        stats = comm_stats()
        weights = {p.name: gather_parameter(p) for p in net.trainable_params()}
        ms.reset_auto_parallel_context()
        return (losses, weights), stats

    want, _ = run(False)
    got, stats = run(True)
    _check_against(world, 2, got, want)
    # the strategies acted inside the stage: the row-cut layer 1 / 3 MatMuls all-reduce
    assert stats["AllReduce"]["count"] >= 2 * 2


@pytest.mark.mpi8
@pytest.mark.parametrize("recompute, optimizer_parallel", [(True, False), (False, True),
                                                           (True, True)])
def test_pipeline_composes_with_recompute_and_optimizer_parallel(world, recompute,
                                                                 optimizer_parallel):
    """8 ranks: 2 stages of 4, each stage data parallel; recompute re-runs the Dense cells in
    the backward, optimizer parallel stores each stage's weights and momenta 1/4 per rank."""
    rank, n = world
    if n != 8:
        pytest.skip("the composition runs 2 stages of 4 ranks")
    want = train_cell(2, 2, False, optimizer="momentum", steps=2)
    context = {"enable_parallel_optimizer": True,
               "parallel_optimizer_config": {"parallel_optimizer_threshold": 0}} \
        if optimizer_parallel else {}
    got = train_cell(2, 2, True, optimizer="momentum", recompute=recompute, steps=2, **context)
    _check_against(world, 2, got, want)
    stage = rank // 4
    mine = [name for name in got[2] if _stage_of(name, 2) == stage and "weight" in name]
    shards = 4 if optimizer_parallel else 1
    for name in mine:       # each stage's weights (and momenta) 1/4 per rank
        assert got[2][name][0] == got[1][name].shape[0] // shards, (name, got[2][name])
    assert (got[3] > 0) == recompute
