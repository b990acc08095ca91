"""Data parallel (mpirun -n 2 / -n 8): training with gradient all-reduce equals single-process
training on the full batch; fused and unfused reduction agree; every rank ends equal.

Every rank computes the single-process reference itself (same seed, the whole global batch),
so the comparison needs no communication beyond what is under test.
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore import communication as comm
from minispore import dataset as ds
from minispore.communication.collectives import all_gather
from minispore.ops.operations import bucket_ops

pytestmark = pytest.mark.mpi(min_size=2)

IN, HIDDEN, OUT = 12, 16, 5
LOCAL_BATCH = 4
STEPS = 3
RTOL = 1e-5


@pytest.fixture
def world():
    if not comm.GlobalComm.INITED:
        comm.init()
    comm.set_collective_check(True)
    yield comm.get_rank(), comm.get_group_size()
    comm.set_collective_check(False)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(IN, HIDDEN, weight_init="normal", bias_init="normal")
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(HIDDEN, HIDDEN, weight_init="normal", bias_init="normal")
        self.fc3 = nn.Dense(HIDDEN, OUT, weight_init="normal", bias_init="normal")

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def global_batches(size, steps=STEPS):
    """The same global batches on every rank: (x, label) of size * LOCAL_BATCH rows each."""
    rng = np.random.default_rng(2024)
    n = size * LOCAL_BATCH
    return [(rng.standard_normal((n, IN)).astype(np.float32),
             rng.integers(0, OUT, n).astype(np.int32)) for _ in range(steps)]


def build(sens=1.0):
    ms.set_seed(1)
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt, sens=sens)


def train_reference(batches, sens=1.0):
    """Single-process training on the full batches: (losses, {name: final value})."""
    ms.reset_auto_parallel_context()
    net, step = build(sens)
    losses = [step(Tensor(x), Tensor(y)).asnumpy().item() for x, y in batches]
    return losses, {p.name: p.asnumpy().copy() for p in net.trainable_params()}


def build_data_parallel(gradients_mean=True, comm_fusion=None):
    """build() under DATA_PARALLEL (with `comm_fusion` when given): (net, step)."""
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=gradients_mean)
    if comm_fusion is not None:
        ms.set_auto_parallel_context(comm_fusion=comm_fusion)
    return build()


def train_data_parallel(batches, rank, size, gradients_mean=True, comm_fusion=None):
    """Each rank trains on its contiguous slice of every global batch; returns (global mean
    losses, {name: final value}, the net)."""
    net, step = build_data_parallel(gradients_mean, comm_fusion)
    losses = []
    rows = slice(rank * LOCAL_BATCH, (rank + 1) * LOCAL_BATCH)
    for x, y in batches:
        local = step(Tensor(x[rows]), Tensor(y[rows])).asnumpy().reshape(1)
        losses.append(float(all_gather(local).mean()))
    return losses, {p.name: p.asnumpy().copy() for p in net.trainable_params()}, net


def assert_same_on_all_ranks(params):
    for name, value in params.items():
        gathered = all_gather(value[None])
        for r in range(1, gathered.shape[0]):
            np.testing.assert_array_equal(gathered[r], gathered[0],
                                          err_msg=f"{name}: rank {r} differs from rank 0")


def assert_close(params, ref, rtol=RTOL, atol=1e-6):
    assert params.keys() == ref.keys()
    for name in ref:
        np.testing.assert_allclose(params[name], ref[name], rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.mpi8
def test_data_parallel_equals_full_batch_training(world):
    rank, size = world
    batches = global_batches(size)
    ref_losses, ref_params = train_reference(batches)
    losses, params, _ = train_data_parallel(batches, rank, size, gradients_mean=True)
    np.testing.assert_allclose(losses, ref_losses, rtol=RTOL)
    assert_close(params, ref_params)
    assert_same_on_all_ranks(params)


def test_gradients_sum_equals_full_batch_with_scaled_sens(world):
    """gradients_mean=False sums the ranks' mean-loss gradients: the single-process step with
    sens = group size takes the same steps."""
    rank, size = world
    batches = global_batches(size)
    ref_losses, ref_params = train_reference(batches, sens=float(size))
    losses, params, _ = train_data_parallel(batches, rank, size, gradients_mean=False)
    np.testing.assert_allclose(losses, ref_losses, rtol=RTOL)
    assert_close(params, ref_params)


@pytest.mark.parametrize("comm_fusion", [
    {"openstate": False},
    {"allreduce": {"mode": "size", "config": 0}},
    {"allreduce": {"mode": "size", "config": 1}},
    pytest.param({"allreduce": {"mode": "index", "config": [2, 4]}}, marks=pytest.mark.mpi8),
    {"allreduce": {"mode": "index", "config": [1]}},
], ids=["unfused", "size0", "size1MB", "index2-4", "index1"])
def test_fused_and_unfused_reduction_agree(world, comm_fusion):
    rank, size = world
    batches = global_batches(size, steps=2)
    fused_losses, fused, _ = train_data_parallel(batches, rank, size)   # auto: one bucket
    losses, params, _ = train_data_parallel(batches, rank, size, comm_fusion=comm_fusion)
    np.testing.assert_allclose(losses, fused_losses, rtol=1e-6)
    assert_close(params, fused, rtol=1e-6, atol=1e-7)
    assert_same_on_all_ranks(params)


def test_buckets_start_during_backward(world, monkeypatch):
    """With one bucket per gradient, the last layer's all-reduce starts before the backward
    reaches the first layer (communication overlaps the rest of the backward)."""
    rank, size = world
    events = []
    real = bucket_ops.iallreduce

    def recording_iallreduce(buf, *args, **kwargs):
        events.append(("start", buf.size))
        return real(buf, *args, **kwargs)

    monkeypatch.setattr(bucket_ops, "iallreduce", recording_iallreduce)
    ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True,
                                 comm_fusion={"allreduce": {"mode": "size", "config": 0}})
    net, step = build()
    first_weight = net.fc1.weight
    hooks = step.grad_reducer.ready_hooks()
    real_hook = hooks[id(first_weight)]
    hooks[id(first_weight)] = lambda g: (events.append(("fc1.weight final", g.size)),
                                         real_hook(g))
    x, y = global_batches(size, steps=1)[0]
    step(Tensor(x[:LOCAL_BATCH]), Tensor(y[:LOCAL_BATCH]))
    names = [e[0] for e in events]
    assert names.index("start") < names.index("fc1.weight final"), events
    assert names.count("start") == 6
    assert events[0] == ("start", OUT), events       # fc3.bias is final first


def test_parameters_start_equal_across_ranks(world):
    """Different seeds per rank: the broadcast at TrainOneStepCell construction gives every
    rank rank 0's initial values."""
    rank, size = world
    ms.set_auto_parallel_context(parallel_mode="data_parallel")
    ms.set_seed(100 + rank)
    net = MLP()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    assert_same_on_all_ranks({p.name: p.asnumpy() for p in net.trainable_params()})


def test_model_train_data_parallel_equals_single_process(world):
    rank, size = world
    n = size * LOCAL_BATCH * STEPS
    rng = np.random.default_rng(7)
    x = rng.standard_normal((n, IN)).astype(np.float32)
    y = rng.integers(0, OUT, n).astype(np.int32)

    def run(parallel):
        ms.reset_auto_parallel_context()
        if parallel:
            ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
            data = ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False,
                                                 num_shards=size, shard_id=rank)
            data = data.batch(LOCAL_BATCH)
        else:
            data = ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False)
            data = data.batch(size * LOCAL_BATCH)
        ms.set_seed(1)
        net = MLP()
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                         nn.Momentum(net.trainable_params(), 0.1, 0.9))
        model.train(2, data)
        return {p.name: p.asnumpy().copy() for p in net.trainable_params()}

    ref = run(parallel=False)
    params = run(parallel=True)
    assert_close(params, ref)
    assert_same_on_all_ranks(params)


def test_reducer_rejects_bad_degree(world):
    with pytest.raises(ValueError, match="'degree' must be an int greater than 0"):
        nn.DistributedGradReducer([nn.Dense(2, 2).weight], degree=0)
    with pytest.raises(TypeError, match="'mean' must be a bool"):
        nn.DistributedGradReducer([nn.Dense(2, 2).weight], mean="yes")


def test_graph_mode_data_parallel_equals_full_batch_training(world):
    """GRAPH_MODE traces the reducer's buckets (the eager path's) as fused AllReduce nodes."""
    rank, size = world
    batches = global_batches(size, steps=2)
    ref_losses, ref_params = train_reference(batches)
    ms.set_context(mode=ms.GRAPH_MODE)
    losses, params, _ = train_data_parallel(batches, rank, size, gradients_mean=True)
    np.testing.assert_allclose(losses, ref_losses, rtol=RTOL)
    assert_close(params, ref_params)
    assert_same_on_all_ranks(params)


@pytest.mark.parametrize("fusion, buckets", [
    (None, 1),                                                      # 64 MB: one bucket
    ({"allreduce": {"mode": "size", "config": 0}}, 6),              # one per gradient
    ({"allreduce": {"mode": "index", "config": [2, 4]}}, 3),
])
def test_graph_and_pynative_reduce_the_same_buckets_bitwise(world, fusion, buckets):
    """One mechanism in both modes: the same bucket plan (so comm_fusion acts in GRAPH_MODE
    too), one AllReduce per bucket per step, and bitwise-equal parameters."""
    from minispore.parallel import comm_stats, reset_comm_stats
    rank, size = world
    batches = global_batches(size, steps=2)
    results, counts = {}, {}
    rows = slice(rank * LOCAL_BATCH, (rank + 1) * LOCAL_BATCH)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net, step = build_data_parallel(comm_fusion=fusion)
            assert len(step.grad_reducer.bucket_sizes) == buckets
            for x, y in batches:
                reset_comm_stats()
                step(Tensor(x[rows]), Tensor(y[rows]))
            counts[mode] = comm_stats().get("AllReduce", {}).get("count", 0)
            results[mode] = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
            ms.reset_auto_parallel_context()
    assert counts[ms.GRAPH_MODE] == buckets
    for name, value in results[ms.GRAPH_MODE].items():
        np.testing.assert_array_equal(value, results[ms.PYNATIVE_MODE][name], err_msg=name)


def test_graph_mode_step_allocates_no_intermediate(world, monkeypatch):
    """The static memory plan covers the data-parallel step too: the bucket's packing and its
    AllReduce write into reused buffers and the gradients are views of it, so a steady-state
    step allocates no intermediate array, and the parameters equal the unplanned run's
    bitwise."""
    from minispore.graph.memory import track_memory
    rank, size = world
    batches = global_batches(size, steps=3)
    rows = slice(rank * LOCAL_BATCH, (rank + 1) * LOCAL_BATCH)
    results, allocations, planned = {}, {}, {}
    for plan in ("1", "0"):
        monkeypatch.setenv("MINISPORE_MEMORY_PLAN", plan)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            net, step = build_data_parallel()
            allocations[plan] = []
            for x, y in batches:
                with track_memory() as tracker:
                    step(Tensor(x[rows]), Tensor(y[rows]))
                allocations[plan].append(tracker.allocations)
            executable = list(step._graph_cache.entries.values())[0]
            planned[plan] = {executable.graph.nodes[k].prim.name
                             for k in executable.plan.planned_nodes}
            results[plan] = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
            ms.reset_auto_parallel_context()
    assert allocations["1"] == [0, 0, 0] and min(allocations["0"]) > 10
    assert {"AllReduce", "PackBucket"} <= planned["1"]
    for name, value in results["1"].items():
        np.testing.assert_array_equal(value, results["0"][name], err_msg=name)
