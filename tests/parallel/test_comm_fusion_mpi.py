"""Communication fusion in compiled semi-auto programs: the collectives of parameters that
share a ``comm_fusion`` id run as one collective on a flat buffer (minispore/parallel/
comm_fusion.py), with results bitwise equal to the unfused run's and equal to the single-
device run.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_comm_fusion_mpi.py
     mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_comm_fusion_mpi.py
"""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.parallel import comm_stats, reset_comm_stats
from tests.parallel.semi_auto_net import _block, batches, setup_training, train_cell

pytestmark = pytest.mark.mpi(min_size=2)


class DenseLayer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.input_mapping = nn.Dense(10, 32)
        self.output_mapping = nn.Dense(32, 10)

    def construct(self, x):
        return self.output_mapping(self.input_mapping(x))


class Net(nn.Cell):
    """The comm-fusion tutorial's network, small: a head and three two-Dense layers."""

    def __init__(self, fusion_ids=None):
        super().__init__()
        self.flatten = nn.Flatten()
        self.head = nn.Dense(24, 10)
        self.layer1 = DenseLayer()
        self.layer2 = DenseLayer()
        self.layer3 = DenseLayer()
        for cell, fid in zip((self.head, self.layer1, self.layer2, self.layer3),
                             fusion_ids or ()):
            cell.set_comm_fusion(fid)

    def construct(self, x):
        x = self.head(self.flatten(x))
        return self.layer3(self.layer2(self.layer1(x)))


def _run(world, fusion_ids=None, **context):
    rank, n = world
    xs, ys = batches(3, 8 * n, (24, 10, 10, 10))
    make = lambda: Net(fusion_ids)      # noqa: E731
    return train_cell(make, xs, ys, True, rank, n, count_comm=True, **context)


@pytest.mark.mpi8
def test_fusion_ids_make_one_allreduce_per_id_bitwise_equal_to_unfused(world):
    rank, n = world
    xs, ys = batches(3, 8 * n, (24, 10, 10, 10))
    reference = train_cell(Net, xs, ys, False)
    fused = _run(world, (0, 1, 2, 3))
    unfused = _run(world, (0, 1, 2, 3), comm_fusion={"openstate": False})
    np.testing.assert_array_equal(fused[0], unfused[0])
    for a, b in zip(fused[1], unfused[1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(fused[0], reference[0], rtol=1e-5)
    for a, b in zip(fused[1], reference[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    # Each layer's four gradient AllReduces (ids 1, 2, 3) became one; the head (id 0) keeps
    # its two; the bytes are the same.
    got, plain = fused[3]["AllReduce"], unfused[3]["AllReduce"]
    assert plain["count"] - got["count"] == 3 * (4 - 1)
    assert got["bytes"] == plain["bytes"]


def test_default_id_fuses_everything_and_a_size_cap_splits(world):
    default = _run(world)
    unfused = _run(world, comm_fusion={"openstate": False})
    capped = _run(world, comm_fusion={"allreduce": {"mode": "size", "config": 0}})
    # id 1 everywhere: the 14 gradients share one AllReduce; a 0 MB cap fuses nothing
    assert unfused[3]["AllReduce"]["count"] - default[3]["AllReduce"]["count"] == 14 - 1
    assert capped[3]["AllReduce"] == unfused[3]["AllReduce"]
    np.testing.assert_array_equal(default[0], unfused[0])


def test_optimizer_parallel_gathers_fuse_by_id(world):
    """AllGathers of optimizer-sharded weights and their gradients' ReduceScatters fuse by
    id too: with every id 0 each sharded parameter has its own pair."""
    config = dict(enable_parallel_optimizer=True,
                  parallel_optimizer_config={"parallel_optimizer_threshold": 0})
    fused = _run(world, (1, 1, 1, 1), **config)
    apart = _run(world, (0, 0, 0, 0), **config)
    sharded = [p for p in fused[2].network.trainable_params()
               if getattr(p, "optimizer_shards", 1) > 1]
    assert len(sharded) >= 4
    for kind in ("AllGather", "ReduceScatter"):
        assert fused[3][kind]["count"] == 1 and apart[3][kind]["count"] == len(sharded)
        assert fused[3][kind]["bytes"] == apart[3][kind]["bytes"]
    np.testing.assert_array_equal(fused[0], apart[0])


@pytest.mark.parametrize("parallel_mode", ["data_parallel", "semi_auto_parallel"])
def test_comm_fusion_set_after_a_compile_applies_to_the_same_step_cell(world, parallel_mode,
                                                                         caplog):
    """The setting keys the compile cache: the TrainOneStepCell compiled with the default
    fusion compiles again under a 0 MB cap (it kept its one fused AllReduce on the previous
    main), says so, and its numbers do not change."""
    rank, n = world
    xs, ys = batches(3, 8 * n, (24, 10, 10, 10))
    net, loss_fn, _, opt = setup_training(Net, True, n, parallel_mode=parallel_mode)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)

    def run(k):
        x, y = (_block(a, i, rank, n, "data_parallel") for i, a in enumerate((xs[k], ys[k])))
        reset_comm_stats()
        loss = float(step(ms.Tensor(x), ms.Tensor(y)).asnumpy())
        return loss, comm_stats()["AllReduce"]["count"]

    fused = run(0)[1]
    with caplog.at_level(logging.WARNING, logger="minispore"):
        ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 0}})
    assert "'comm_fusion' changed" in caplog.text
    losses = [run(1)[0]]
    unfused = run(2)[1]
    assert unfused - fused == 14 - 1            # the 14 gradients, one AllReduce each
    reference = train_cell(Net, xs, ys, True, rank, n, parallel_mode=parallel_mode)[0]
    np.testing.assert_allclose(losses, reference[1:2], rtol=1e-6)
