"""The runs of tests/parallel/test_checkpoint_reshard_mpi.py: the tutorial net trained one
step under the tutorial's strategies on 8 ranks and saved per rank (also run on its own, by
the 2-rank test, as ``python -m minispore.run -n 8 -m tests.parallel.reshard_jobs DIR``), and
the single-device reference of the following step."""
import os
import sys

import numpy as np

import minispore as ms
from minispore import nn
from minispore.communication import _comm
from minispore.parallel.param_slicing import gather_parameter
from minispore.train.serialization import save_checkpoint
from tests.parallel.semi_auto_net import TutorialNet, batches

DIMS = (64, 32, 32, 10)
BATCH = 32
TUTORIAL = (((2, 4), (4, 1)), ((4, 1),), ((1, 8), (8, 1)), ((8, 1),))
UNSHARDED = (None, None, None, None)


def data():
    return batches(2, BATCH, DIMS)


def step_cell(strategies=UNSHARDED):
    """A fresh TrainOneStepCell of the tutorial net (Momentum, the parallel context as set)."""
    ms.set_seed(1)
    net = TutorialNet(strategies, DIMS)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)


def feed(cell, i, rows=slice(None)):
    xs, ys = data()
    return float(cell(ms.Tensor(xs[i, rows]), ms.Tensor(ys[i, rows])).asnumpy())


def files(directory, ranks=8):
    return [os.path.join(directory, f"rank_{r}", "net.ckpt") for r in range(ranks)]


def single_device_second_step():
    """(loss of step 2, {name: value after step 2}) on one device."""
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.GRAPH_MODE)
    cell = step_cell()
    feed(cell, 0)
    loss = feed(cell, 1)
    return loss, {p.name: p.asnumpy() for _, p in cell.parameters_and_names()}


def save_after_one_step(directory):
    """8 ranks: one step under the tutorial's strategies, each rank saves its blocks."""
    rank = _comm.STATE.world.rank
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=8)
    cell = step_cell(TUTORIAL)
    feed(cell, 0, slice(rank * BATCH // 8, (rank + 1) * BATCH // 8))
    save_checkpoint(cell, files(directory)[rank])
    gathered = {p.name: gather_parameter(p) for _, p in cell.parameters_and_names()}
    _comm.STATE.world.comm.Barrier()
    ms.reset_auto_parallel_context()
    return gathered


if __name__ == "__main__":
    from minispore.communication import init
    init()
    save_after_one_step(sys.argv[1])
    np.save(os.path.join(sys.argv[1], f"done_{_comm.STATE.world.rank}.npy"), np.ones(1))
