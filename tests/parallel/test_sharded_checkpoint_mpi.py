"""Sharded checkpoints of a real semi-auto-parallel run, under mpirun: every rank saves its
blocks of the trained tutorial net (weights and Momentum state) into rank_<r>/net.ckpt of a
directory shared by the ranks, rank 0 merges them, the merged values equal the gathered
parameters, and loading the merged file into a fresh parallel net -- before its compile (whole
values, sliced by the pass) or after it (sliced on load) -- reproduces the next step's loss and
update.

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_sharded_checkpoint_mpi.py
     mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_sharded_checkpoint_mpi.py
"""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import communication as comm
from minispore import nn
from minispore.common.layout import TensorLayout
from minispore.communication import _comm
from minispore.parallel.param_slicing import gather_parameter
from minispore.train import serialization
from minispore.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from minispore.train.sharded_checkpoints import merge_sharded_checkpoints
from tests.parallel.semi_auto_net import TutorialNet, batches
from tests.train.test_sharded_checkpoint import rank_net, whole_values

pytestmark = pytest.mark.mpi(min_size=2)

DIMS = (64, 32, 32, 10)
BATCH = 32
STRATEGIES = {
    8: (((2, 4), (4, 1)), ((4, 1),), ((1, 8), (8, 1)), ((8, 1),)),     # the tutorial's
    2: (((1, 2), (2, 1)), ((2, 1),), ((1, 2), (2, 1)), ((1, 2),)),
}


def barrier():
    _comm.STATE.world.comm.Barrier()


def train_step_cell(n):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=n)
    ms.set_seed(1)
    net = TutorialNet(STRATEGIES[n], DIMS)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)


def params_of(cell):
    return {p.name: p for _, p in cell.parameters_and_names()}


@pytest.mark.mpi8
def test_save_merge_load_on_8_ranks(world, shared_dir):
    rank, n = world
    if n != 8:
        pytest.skip("the tutorial's strategies need exactly 8 ranks")
    check_save_merge_load(rank, n, shared_dir)


def test_save_merge_load_on_2_ranks(world, shared_dir):
    rank, n = world
    if n != 2:
        pytest.skip("this strategy set is written for 2 ranks")
    check_save_merge_load(rank, n, shared_dir)


def check_save_merge_load(rank, n, directory, steps=2):
    xs, ys = batches(steps + 2, BATCH, DIMS)
    rows = slice(rank * BATCH // n, (rank + 1) * BATCH // n)

    def feed(cell, i):
        return float(cell(ms.Tensor(xs[i, rows]), ms.Tensor(ys[i, rows])).asnumpy())

    trained = train_step_cell(n)
    for i in range(steps):
        feed(trained, i)
    params = params_of(trained)
    assert {p.layout is not None for p in params.values()} == {True, False}
    save_checkpoint(trained, os.path.join(directory, f"rank_{rank}", "net.ckpt"))
    barrier()
    merged_file = os.path.join(directory, "merged.ckpt")
    if rank == 0:
        merge_sharded_checkpoints([os.path.join(directory, f"rank_{r}", "net.ckpt")
                                   for r in range(n)], merged_file)
    barrier()
    merged = load_checkpoint(merged_file)
    assert set(merged) == set(params)
    for name, param in params.items():
        np.testing.assert_array_equal(merged[name].asnumpy(), gather_parameter(param),
                                      err_msg=name)

    want_loss = feed(trained, steps)
    want_after = {name: gather_parameter(p) for name, p in params.items()}

    before_compile = train_step_cell(n)       # whole parameters: the pass slices them later
    load_param_into_net(before_compile, merged, strict_load=True)
    compiled = train_step_cell(n)
    feed(compiled, steps + 1)                 # compiles: slices parameters and momenta
    assert all(p.layout is not None for p in params_of(compiled).values()
               if params[p.name].layout is not None)
    load_param_into_net(compiled, merged, strict_load=True)
    for cell in (before_compile, compiled):
        np.testing.assert_allclose(feed(cell, steps), want_loss, rtol=1e-6)
        for name, param in params_of(cell).items():
            np.testing.assert_allclose(gather_parameter(param), want_after[name], rtol=1e-6,
                                       atol=1e-7, err_msg=name)


def save_sliced(rank, path):
    """This rank's blocks of the test net (fc.weight cut over the 2 ranks), saved to `path`."""
    net = rank_net(rank, layouts={"fc.weight": TensorLayout((2,), (0, -1))})
    save_checkpoint(net, path)


def test_rank_files_record_one_run_and_merge_refuses_another(world, shared_dir):
    """The ranks of one init() record the same run id (rank 0 draws it); a new init() is a new
    run, and merging one file of each is refused (their values alone would merge)."""
    rank, n = world
    if n != 2:
        pytest.skip("the net's strategy is written for 2 ranks")
    runs = {}
    for run in ("first", "second"):
        if run == "second":
            comm.release()
            comm.init()
        save_sliced(rank, os.path.join(shared_dir, run, f"rank_{rank}", "net.ckpt"))
        runs[run] = [os.path.join(shared_dir, run, f"rank_{r}", "net.ckpt") for r in range(n)]
        barrier()
    if rank == 0:
        ids = {run: {serialization._read_index(f).run["id"] for f in files}
               for run, files in runs.items()}
        assert len(ids["first"]) == 1 and len(ids["second"]) == 1
        assert ids["first"] != ids["second"]
        for files in runs.values():
            np.testing.assert_array_equal(merge_sharded_checkpoints(files)["fc.weight"].asnumpy(),
                                          whole_values()["fc.weight"])
        crossed = [runs["first"][0], runs["second"][1]]
        with pytest.raises(ValueError, match=rf"2 different runs \(run {ids['first'].pop()} "
                                             rf"wrote \['.*first/rank_0/net.ckpt'\]; run "
                                             rf"{ids['second'].pop()} wrote "
                                             rf"\['.*second/rank_1/net.ckpt'\]\)"):
            merge_sharded_checkpoints(crossed)
    barrier()
