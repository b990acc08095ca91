"""GradAccumulationCell under semi-auto parallel with optimizer parallel (the gradient
accumulation sample's settings) and under data parallel: each rank's micro-batches come from
its own rows (no redistribution of the batch), the gradients are reduced once per step, and
training equals the single-device accumulated run.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_grad_accumulation_mpi.py
     mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_grad_accumulation_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.communication import _comm
from minispore.parallel import comm_stats, reset_comm_stats
from minispore.parallel.param_slicing import gather_parameter
from tests.parallel.semi_auto_net import _block, batches, setup_training

pytestmark = pytest.mark.mpi(min_size=2)

DIMS = (32, 64, 16, 10)
MICRO = 4
BATCH_BYTES = 8 * DIMS[0] * 4 + 8 * 4   # a rank's rows of one step: 8 float32 x, 8 int32 y


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.seq = nn.SequentialCell([nn.Dense(DIMS[0], DIMS[1]), nn.ReLU(),
                                      nn.Dense(DIMS[1], DIMS[2]), nn.ReLU(),
                                      nn.Dense(DIMS[2], DIMS[3])])

    def construct(self, x):
        return self.seq(self.flatten(x))


def _train_semi_auto(parallel, rank, n, **context):
    net, loss_fn, params, opt = setup_training(MLP, parallel, n, **context)
    step = nn.TrainOneStepCell(nn.GradAccumulationCell(nn.WithLossCell(net, loss_fn), MICRO),
                               opt)
    xs, ys = batches(2, 8 * n, DIMS)
    losses, stats = [], None
    for x, y in zip(xs, ys):
        if parallel:
            x, y = (_block(a, i, rank, n, "data_parallel") for i, a in enumerate((x, y)))
        reset_comm_stats()
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        stats = comm_stats()
    weights = [gather_parameter(p) for p in params]
    shards = [p for p in params if getattr(p, "optimizer_shards", 1) > 1]
    sharded = (len(shards), sum(p.asnumpy().nbytes for p in shards))   # count, bytes per rank
    ms.reset_auto_parallel_context()
    return losses, weights, stats, sharded


@pytest.mark.mpi8
def test_semi_auto_with_optimizer_parallel_equals_single_device(world):
    rank, n = world
    ref_losses, ref_weights, _, _ = _train_semi_auto(False, rank, n)
    losses, weights, stats, sharded = _train_semi_auto(
        True, rank, n, enable_parallel_optimizer=True,
        parallel_optimizer_config={"parallel_optimizer_threshold": 0})
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for got, want in zip(weights, ref_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    # Each input's batch is gathered once (micro-batch i is the contiguous rows [i*N/m,
    # (i+1)*N/m) of the whole batch, as in MindSpore) and sliced for every micro-batch; the
    # optimizer-sharded parameters are gathered once for all micro-batches, and each gradient
    # reduce-scattered once.
    assert sharded[0] >= 3
    # (the default fusion id 1 makes them one AllGather and one ReduceScatter per step)
    assert stats["AllGather"] == {"count": 1 + 2,
                                  "bytes": (n - 1) * (sharded[1] + BATCH_BYTES)}
    assert stats["ReduceScatter"] == {"count": 1, "bytes": (n - 1) * sharded[1]}


def test_gradient_accumulation_shard_reduce_scatters_each_micro_batch(world):
    """parallel_optimizer_config gradient_accumulation_shard=True: each micro-batch gathers
    the sliced weights and reduce-scatters its own gradient, so only slices are summed over
    the micro-batches; training is unchanged."""
    rank, n = world
    ref_losses, ref_weights, _, _ = _train_semi_auto(False, rank, n)
    config = {"parallel_optimizer_threshold": 0, "gradient_accumulation_shard": True}
    losses, weights, stats, sharded = _train_semi_auto(
        True, rank, n, enable_parallel_optimizer=True, parallel_optimizer_config=config,
        comm_fusion={"openstate": False})
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for got, want in zip(weights, ref_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    # one gather and one reduce-scatter per sharded parameter and micro-batch (and one gather
    # of each input's batch)
    assert stats["AllGather"] == {"count": MICRO * sharded[0] + 2,
                                  "bytes": (n - 1) * (MICRO * sharded[1] + BATCH_BYTES)}
    assert stats["ReduceScatter"] == {"count": MICRO * sharded[0],
                                      "bytes": MICRO * (n - 1) * sharded[1]}


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_data_parallel_accumulation_reduces_once_and_equals_single_device(world, mode):
    rank, n = world
    xs, ys = batches(2, 8 * n, DIMS)

    def run(parallel):
        ms.reset_auto_parallel_context()
        ms.set_context(mode=mode)
        if parallel:
            ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True,
                                         device_num=n)
        ms.set_seed(1)
        net = MLP()
        step = nn.TrainOneStepCell(
            nn.GradAccumulationCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), MICRO),
            nn.SGD(net.trainable_params(), 0.05))
        losses = []
        for x, y in zip(xs, ys):
            if parallel:
                x, y = x[rank::n], y[rank::n]     # any split: the summed means do not care
            reset_comm_stats()
            losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        stats = comm_stats()
        ms.reset_auto_parallel_context()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        return losses, [p.asnumpy() for p in net.trainable_params()], stats

    ref_losses, ref_weights, _ = run(False)
    losses, weights, stats = run(True)
    # each rank's loss is its own rows' (as in data parallel); the mean over ranks is the
    # single-device loss of the whole batch
    total = _comm.STATE.world.comm.allreduce(np.array(losses, np.float64))
    np.testing.assert_allclose(total / n, ref_losses, rtol=1e-5)
    for got, want in zip(weights, ref_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    assert stats["AllReduce"]["count"] == 1      # one fused bucket, once per step
