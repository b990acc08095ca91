"""Optimizer parallel (enable_parallel_optimizer=True) under semi-auto parallel: each trainable
parameter replicated over devices is stored 1/k per rank along dim 0 with its optimizer state,
gathered before use (AllGather) and its gradient reduce-scattered; training equals the
single-device run with SGD, Momentum and Adam, and the bytes each rank holds shrink.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_optimizer_parallel_mpi.py
     mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_optimizer_parallel_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import nn
from tests.parallel.semi_auto_net import batches, train_cell

pytestmark = pytest.mark.mpi(min_size=2)

DIMS = (32, 64, 16, 10)


class MLP(nn.Cell):
    """The optimizer-parallel tutorial's network, small."""

    def __init__(self, dims=DIMS):
        super().__init__()
        self.flatten = nn.Flatten()
        self.layer1 = nn.Dense(dims[0], dims[1])
        self.layer2 = nn.Dense(dims[1], dims[2])
        self.layer3 = nn.Dense(dims[2], dims[3])
        self.relu = nn.ReLU()

    def construct(self, x):
        x = self.relu(self.layer1(self.flatten(x)))
        return self.layer3(self.relu(self.layer2(x)))


def _train(parallel, rank, n, optimizer, **context):
    xs, ys = batches(3, 16, DIMS)
    return train_cell(MLP, xs, ys, parallel, rank, n, optimizer=optimizer, count_comm=True,
                      **context)


def _state_bytes(step):
    """Bytes of parameters and optimizer state this rank holds."""
    return sum(p.asnumpy().nbytes for p in step.optimizer.get_parameters()) + \
        sum(p.asnumpy().nbytes for p in step.network.trainable_params())


@pytest.mark.mpi8
@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam"])
def test_optimizer_parallel_equals_single_device_and_shards_the_state(world, optimizer):
    rank, n = world
    config = {"parallel_optimizer_threshold": 0}
    ref_losses, ref_weights, _, _ = _train(False, rank, n, optimizer)
    plain = _train(True, rank, n, optimizer)
    losses, weights, step, stats = _train(True, rank, n, optimizer,
                                          enable_parallel_optimizer=True,
                                          parallel_optimizer_config=config)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for got, want in zip(weights, ref_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    # Data-parallel defaults replicate every parameter over all n ranks: now each holds 1/n
    # of every parameter whose dim 0 n divides, and the same share of its optimizer state.
    w1 = {p.name: p for p in step.network.trainable_params()}["layer1.weight"]
    assert w1.shape == (DIMS[1] // n, DIMS[0]) and w1.global_shape == (DIMS[1], DIMS[0])
    assert w1.optimizer_shards == n
    assert _state_bytes(step) < _state_bytes(plain[2]) / n * 1.5
    # Every sharded parameter is gathered before use and its gradient reduce-scattered (no
    # mirror AllReduce): each rank sends its slice to the n - 1 others both ways (one fused
    # collective each way: every parameter has the default fusion id 1).
    sharded = [p for p in step.network.trainable_params()
               if getattr(p, "optimizer_shards", 1) > 1]
    shard_bytes = sum(p.asnumpy().nbytes for p in sharded)
    assert len(sharded) >= 3
    assert stats["AllGather"] == {"count": 1, "bytes": (n - 1) * shard_bytes}
    assert stats["ReduceScatter"] == {"count": 1, "bytes": (n - 1) * shard_bytes}


def test_threshold_keeps_small_parameters_whole(world):
    rank, n = world
    losses, _, step, _ = _train(True, rank, n, "sgd", enable_parallel_optimizer=True)
    # the default threshold is 64 KB: every parameter of this small MLP is below it
    assert all(p.layout is None or getattr(p, "optimizer_shards", 1) == 1
               for p in step.network.trainable_params())


@pytest.mark.parametrize("gradients_mean", [False, True])
def test_gradients_mean_matches_the_mirror(world, gradients_mean):
    rank, n = world
    config = {"parallel_optimizer_threshold": 0}
    plain = _train(True, rank, n, "sgd", gradients_mean=gradients_mean)
    sharded = _train(True, rank, n, "sgd", gradients_mean=gradients_mean,
                     enable_parallel_optimizer=True, parallel_optimizer_config=config)
    np.testing.assert_allclose(sharded[0], plain[0], rtol=1e-5)
    for got, want in zip(sharded[1], plain[1]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.mpi8
@pytest.mark.parametrize("shard_size", [2, 4])
def test_a_shard_group_smaller_than_the_replicas_equals_single_device(world, shard_size):
    """optimizer_weight_shard_size=s on 8 replicas: 8 / s groups of s consecutive ranks, each
    group holding one copy cut s ways, kept equal through a mirror over the groups."""
    rank, n = world
    if shard_size >= n:
        pytest.skip(f"a shard group of {shard_size} needs more than {shard_size} ranks")
    config = {"parallel_optimizer_threshold": 0, "optimizer_weight_shard_size": shard_size}
    ref_losses, ref_weights, _, _ = _train(False, rank, n, "momentum")
    losses, weights, step, stats = _train(True, rank, n, "momentum",
                                          enable_parallel_optimizer=True,
                                          parallel_optimizer_config=config)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for got, want in zip(weights, ref_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    w1 = {p.name: p for p in step.network.trainable_params()}["layer1.weight"]
    assert w1.shape == (DIMS[1] // shard_size, DIMS[0]) and w1.optimizer_shards == shard_size
    # the gathers run within a group of shard_size ranks; the groups' copies meet in a mirror
    assert stats["AllGather"]["count"] >= 1 and stats["AllReduce"]["count"] >= 1


@pytest.mark.parametrize("size, error, match", [
    (3, ValueError, "optimizer_weight_shard_size=3 must divide"),
])
def test_a_shard_size_that_does_not_divide_the_replicas_is_refused(world, size, error, match):
    rank, n = world
    if n % 3 == 0:
        pytest.skip("3 divides this world size")
    config = {"parallel_optimizer_threshold": 0, "optimizer_weight_shard_size": size}
    with pytest.raises(error, match=match):
        _train(True, rank, n, "sgd", enable_parallel_optimizer=True,
               parallel_optimizer_config=config)
    ms.reset_auto_parallel_context()


def test_a_shard_size_of_one_is_ignored_with_a_warning(world, caplog):
    rank, n = world
    config = {"parallel_optimizer_threshold": 0, "optimizer_weight_shard_size": 1}
    _, _, step, _ = _train(True, rank, n, "sgd", enable_parallel_optimizer=True,
                           parallel_optimizer_config=config)
    assert "optimizer_weight_shard_size=1 is ignored" in caplog.text
    w1 = {p.name: p for p in step.network.trainable_params()}["layer1.weight"]
    assert w1.optimizer_shards == n


@pytest.mark.parametrize("optimizer, gradients_mean", [("sgd", False), ("momentum", True),
                                                       ("adam", True)])
def test_data_parallel_mode_shards_the_optimizer_like_semi_auto(world, optimizer,
                                                                gradients_mean):
    """parallel_mode='data_parallel' + enable_parallel_optimizer (GRAPH): the step compiles
    through the operator-parallel passes with every operator's data-parallel default; the
    parameters equal plain data parallel's (which all-reduces whole gradients), the loss is
    the mean of the ranks' losses (the logical batch's), and each rank stores 1/n."""
    rank, n = world
    context = dict(parallel_mode="data_parallel", gradients_mean=gradients_mean)
    plain_losses, plain_weights, _, _ = _train(True, rank, n, optimizer, **context)
    losses, weights, step, stats = _train(
        True, rank, n, optimizer, enable_parallel_optimizer=True,
        parallel_optimizer_config={"parallel_optimizer_threshold": 0}, **context)
    for got, want in zip(weights, plain_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    mean_of_ranks = np.array(plain_losses)
    from mpi4py import MPI
    mean_of_ranks = MPI.COMM_WORLD.allreduce(mean_of_ranks) / n
    np.testing.assert_allclose(losses, mean_of_ranks, rtol=1e-5)
    w1 = {p.name: p for p in step.network.trainable_params()}["layer1.weight"]
    assert w1.shape == (DIMS[1] // n, DIMS[0]) and w1.optimizer_shards == n
    assert stats["ReduceScatter"]["count"] >= 1 and "AllGather" in stats


def test_data_parallel_mode_with_the_optimizer_sharded_refuses_pynative(world):
    rank, n = world
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode="data_parallel", enable_parallel_optimizer=True)
    net = MLP()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    xs, ys = batches(1, 4, DIMS)
    with pytest.raises(NotImplementedError, match="GRAPH_MODE only"):
        step(ms.Tensor(xs[0]), ms.Tensor(ys[0]))
    ms.reset_auto_parallel_context()