"""Recompute under semi-auto parallel: the collectives inserted inside a recomputed cell run
again in the backward with mp_comm_recompute=True (the default) and keep their outputs with
False; the AllGather of an optimizer-sliced weight runs again only with
parallel_optimizer_comm_recompute=True. Training is bit-identical with and without, and equals
the single-device run; the recomputed collectives show in save_graphs and in comm_stats.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_recompute_mpi.py
     mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_recompute_mpi.py
"""
import glob
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, nn, ops
from minispore.common.initializer import initializer
from tests.parallel.semi_auto_net import batches, train_cell

pytestmark = pytest.mark.mpi(min_size=2)

DIMS = (24, 32, 24, 10)     # 24: not a square, so batches() gives (batch, 24) rows


class ShardedBlock(nn.Cell):
    """MatMul split along its reduction dim (a partial sum: an AllReduce inside the block),
    ReLU, then a data-parallel MatMul whose input comes back from the batch split."""

    def __init__(self, width, hidden, n, parallel):
        super().__init__()
        self.w1 = Parameter(initializer("normal", [width, hidden], ms.float32), name="w1")
        self.w2 = Parameter(initializer("normal", [hidden, width], ms.float32), name="w2")
        self.matmul1 = ops.MatMul()
        self.relu = ops.ReLU()
        self.matmul2 = ops.MatMul()
        if parallel:
            self.matmul1.shard(((1, n), (n, 1)))

    def construct(self, x):
        return self.matmul2(self.relu(self.matmul1(x, self.w1)), self.w2)


def make_net(parallel, n, recompute=None):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block1 = ShardedBlock(DIMS[0], DIMS[1], n, parallel)
            self.block2 = ShardedBlock(DIMS[0], DIMS[1], n, parallel)
            self.head = nn.Dense(DIMS[0], DIMS[3])
            if recompute is not None:
                self.block1.recompute(**recompute)
                self.block2.recompute(**recompute)

        def construct(self, x):
            return self.head(self.block2(self.block1(x)))
    return Net()


def _train(world, parallel, recompute=None, dump=None, **context):
    rank, n = world
    if dump is not None:
        ms.set_context(save_graphs=True, save_graphs_path=dump)
    xs, ys = batches(3, 16, DIMS)
    losses, weights, step, stats = train_cell(lambda: make_net(parallel, n, recompute), xs, ys,
                                              parallel, rank, n, count_comm=True, **context)
    ms.set_context(save_graphs=False)
    return losses, weights, stats


def _duplicated(dump, rank, after="recompute"):
    """(operator, scope, node index) of the duplicated nodes in this rank's dump of the program
    after pass `after`."""
    path, = glob.glob(os.path.join(dump, f"rank_{rank}", "TrainOneStepCell_*",
                                   f"*_{after}.ir"))
    lines = open(path).read().splitlines()
    found = []
    for call, note in zip(lines, lines[1:]):
        if "duplicated=True" in note:
            found.append((call.split("Prim[")[1].split("]")[0],
                          note.split("scope=")[1].split()[0], _index(note)))
    return found


def _first_backward(dump, rank):
    path, = glob.glob(os.path.join(dump, f"rank_{rank}", "TrainOneStepCell_*",
                                   "*_validate.ir"))
    return min(_index(line) for line in open(path) if "phase=backward" in line)


def _index(note):
    return int(note.split("# ")[1].split(":")[0])


def _count(stats, kind):
    return stats.get(kind, {}).get("count", 0)


@pytest.mark.mpi8
def test_recomputed_collectives_follow_mp_comm_recompute(world, tmp_path):
    rank, n = world
    single = _train(world, parallel=False)
    plain = _train(world, parallel=True)
    runs = {flag: _train(world, True, {"mp_comm_recompute": flag}, str(tmp_path / str(flag)))
            for flag in (True, False)}
    for losses, weights, _ in (plain,) + tuple(runs.values()):
        assert losses == plain[0]
        for got, want in zip(weights, plain[1]):
            np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(plain[0], single[0], rtol=1e-5)
    # With True each block's chain runs again from the block's input before the backward reads
    # its ReLU: the AllGather that regathers the input's batch rows for matmul1's column split,
    # matmul1, its partial-sum AllReduce, the ReLU. With False the AllReduce's output is kept
    # and only what follows it runs again.
    with_comm = _duplicated(str(tmp_path / "True"), rank)
    without_comm = _duplicated(str(tmp_path / "False"), rank)
    assert sum(op == "AllReduce" for op, _, _ in with_comm) == 2
    assert sum(op == "AllGather" for op, _, _ in with_comm) == 2
    assert not any(op in ("AllReduce", "AllGather", "AlltoAll") for op, _, _ in without_comm)
    assert {op for op, _, _ in without_comm} >= {"ReLU"}
    assert all(scope.startswith("recompute_") for _, scope, _ in with_comm + without_comm)
    for kind in ("AllReduce", "AllGather"):
        assert _count(runs[True][2], kind) == _count(plain[2], kind) + 2
    assert runs[False][2] == plain[2]


def test_optimizer_sliced_weights_are_gathered_again_only_when_asked(world, tmp_path):
    """Optimizer parallel stores each replicated weight 1/n per rank and gathers it before use:
    with parallel_optimizer_comm_recompute=True the backward gathers the block weight again
    (the forward's whole copy dies early), with False it keeps the forward's. (The activations'
    collectives are kept here, mp_comm_recompute=False, to see the weights' alone.)"""
    context = {"enable_parallel_optimizer": True,
               "parallel_optimizer_config": {"parallel_optimizer_threshold": 0}}
    plain = _train(world, True, **context)
    runs = {flag: _train(world, True, {"mp_comm_recompute": False,
                                       "parallel_optimizer_comm_recompute": flag},
                         str(tmp_path / str(flag)), **context) for flag in (True, False)}
    for losses, weights, _ in runs.values():
        assert losses == plain[0]
        for got, want in zip(weights, plain[1]):
            np.testing.assert_array_equal(got, want)
    rank, _ = world
    gathered = {flag: [scope for op, scope, _ in _duplicated(str(tmp_path / str(flag)), rank)
                       if op == "AllGather"] for flag in (True, False)}
    # matmul2's weight (w2: replicated by the data-parallel default, so sliced) in each block
    assert len(gathered[True]) == 2 and all(".matmul2." in s for s in gathered[True])
    assert gathered[False] == []
    # Communication fusion leaves the recomputed gathers unfused in the backward (fused, they
    # would run where the weights exist: at the start of the step).
    final = _duplicated(str(tmp_path / "True"), rank, after="validate")
    backward = _first_backward(str(tmp_path / "True"), rank)
    assert [op for op, _, at in final if at > backward].count("AllGather") == 2
    assert _count(runs[True][2], "AllGather") == _count(plain[2], "AllGather") + 2
    assert _count(runs[False][2], "AllGather") == _count(plain[2], "AllGather")
