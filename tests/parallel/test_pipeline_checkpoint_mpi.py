"""Checkpoints of a pipeline-parallel run, under mpirun: after one Momentum step of 2 stages
(1 device each on 2 ranks; 2 devices each, operators sharded, on 4 ranks) every rank saves
only its stage's parameters and their momenta, and its file records the stage. Loaded with
load_distributed_checkpoint into one device, or into another layout (operator parallel
without pipeline on 2 ranks, 4 stages on 4), or merged (merge_sharded_checkpoints and
tools/merge_checkpoints.py), the files give the single-device state, and the next step
equals the single-device next step. Files missing a stage, or stages disagreeing, are errors
naming the parameters and ranks.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_pipeline_checkpoint_mpi.py
     mpirun -n 4 python -m pytest --with-mpi -m "mpi and mpi4" tests/parallel/test_pipeline_checkpoint_mpi.py
"""
import os
import shutil
import tempfile
from contextlib import contextmanager

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.communication import _comm
from minispore.parallel.checkpoint import layout_record
from minispore.parallel.param_slicing import gather_parameter
from minispore.train import serialization
from minispore.train.serialization import load_checkpoint, save_checkpoint
from minispore.train.sharded_checkpoints import (load_distributed_checkpoint,
                                                 merge_sharded_checkpoints)
from tests.parallel.test_pipeline_mpi import Chain, ShardedChain, _data, _stage_of
from tools import merge_checkpoints

pytestmark = pytest.mark.mpi(min_size=2)

MICRO = 2


class IndexedChain(Chain):
    """Chain that picks its layers by index: Chain's ``self.layers[:-1]`` builds a CellList,
    which renames the parameters of the cells it holds on the first run ('0.weight'), so a
    fresh net's names would differ from a trained one's."""

    def construct(self, x):
        last = len(self.layers) - 1
        for i in range(last):
            x = self.relu(self.layers[i](x))
        return self.layers[last](x)


class IndexedShardedChain(ShardedChain):
    construct = IndexedChain.construct


def step_cell(net_cls, stages, **context):
    """A TrainOneStepCell (Momentum) over a PipelineCell of `net_cls(stages)`, built under
    `context` (none: one device)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    if context:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                     full_batch=True, **context)
    ms.set_seed(1)
    net = net_cls(stages)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return nn.TrainOneStepCell(
        nn.PipelineCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), MICRO), opt)


def feed(cell, step):
    xs, ys = _data(2)
    return float(cell(Tensor(xs[step]), Tensor(ys[step])).asnumpy())


def state(cell):
    return {p.name: p for _, p in cell.parameters_and_names()}


def barrier():
    _comm.STATE.world.comm.Barrier()


@contextmanager
def on_rank_0(rank):
    """Run the block on rank 0 alone (one device, no collective); the ranks meet after it even
    when it fails (tests/conftest.py then aborts the job with rank 0's traceback)."""
    try:
        yield rank == 0
    finally:
        barrier()


@pytest.fixture(scope="module")
def reference(world):
    """One device: ({name: value after step 1}, loss of step 2, {name: value after step 2})."""
    cell = step_cell(IndexedChain, 2)
    feed(cell, 0)
    after_one = {name: p.asnumpy().copy() for name, p in state(cell).items()}
    loss = feed(cell, 1)
    after_two = {name: p.asnumpy().copy() for name, p in state(cell).items()}
    ms.reset_auto_parallel_context()
    return after_one, loss, after_two


@pytest.fixture(scope="module")
def stage_files(world):
    """After one step of 2 pipeline stages (operators sharded inside each stage on 4 ranks),
    each rank's file rank_<r>/net.ckpt: (directory, [files])."""
    rank, n = world
    if n not in (2, 4):
        pytest.skip("2 stages of 1 device (2 ranks) or of 2 devices (4 ranks)")
    mpi = _comm.STATE.world.comm
    directory = mpi.bcast(tempfile.mkdtemp(prefix="minispore_mpi_") if rank == 0 else None)
    cell = step_cell(IndexedChain if n == 2 else IndexedShardedChain, 2, device_num=n,
                     pipeline_stages=2)
    feed(cell, 0)
    files = [os.path.join(directory, f"rank_{r}", "net.ckpt") for r in range(n)]
    try:
        save_checkpoint(cell, files[rank])
    finally:
        ms.reset_auto_parallel_context()
        barrier()
    yield directory, files
    barrier()
    if rank == 0:
        shutil.rmtree(directory, ignore_errors=True)


def _stage_names(stage):
    layers = [f"layers.{i}.{w}" for i in range(4) for w in ("weight", "bias")
              if _stage_of(f"layers.{i}.{w}", 2) == stage]
    return set(layers) | {f"moments.{name}" for name in layers} | {"global_step"}


def _assert_state(got, want, names=None):
    for name in names if names is not None else want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-7, err_msg=name)


@pytest.mark.mpi4
def test_each_rank_saves_only_its_stage_and_records_it(world, stage_files):
    rank, n = world
    stage = rank // (n // 2)
    path = stage_files[1][rank]
    saved = load_checkpoint(path)
    assert set(saved) == _stage_names(stage)
    assert serialization._read_index(path).pipeline == {"stages": 2, "stage": stage,
                                                        "stage_size": n // 2, "rank": rank}
    if n == 4:      # layers 1 and 3 cut their weight over the stage's 2 devices
        assert saved[f"layers.{2 * stage + 1}.weight"].layout.cuts() == (1, 2)


@pytest.mark.mpi4
def test_stage_files_load_into_one_device_and_the_next_step_equals(world, stage_files,
                                                                   reference):
    rank, _ = world
    with on_rank_0(rank) as here:
        if not here:
            return
        after_one, loss, after_two = reference
        cell = step_cell(IndexedChain, 2)
        load_distributed_checkpoint(cell, stage_files[1], strict_load=True)
        _assert_state({name: p.asnumpy() for name, p in state(cell).items()}, after_one)
        np.testing.assert_allclose(feed(cell, 1), loss, rtol=1e-6)
        _assert_state({name: p.asnumpy() for name, p in state(cell).items()}, after_two)


@pytest.mark.mpi4
def test_stage_files_merge_into_the_single_device_state(world, stage_files, reference):
    rank, n = world
    directory, files = stage_files
    with on_rank_0(rank) as here:
        if not here:
            return
        merged = merge_sharded_checkpoints(files[::-1])
        assert set(merged) == set(reference[0])
        _assert_state({name: p.asnumpy() for name, p in merged.items()}, reference[0])
        out = os.path.join(directory, "merged.ckpt")
        assert merge_checkpoints.main(["-o", out, "--dir", directory]) == 0
        _assert_state({name: p.asnumpy() for name, p in load_checkpoint(out).items()},
                      reference[0])
        if n == 4:      # rank 2's file twice: device 0 of stage 1, not "rank 0"
            with pytest.raises(ValueError, match=r"rank_2/net.ckpt' and .*rank_2/net.ckpt' "
                                                 r"both hold device 0 of pipeline stage 1 "
                                                 r"\(world rank 2\)'s blocks"):
                merge_sharded_checkpoints(files + files[2:3])


@pytest.mark.mpi4
def test_stage_files_load_under_another_layout_and_the_next_step_equals(world, stage_files,
                                                                        reference):
    """2 ranks: operator parallel without pipeline (ShardedChain's strategies over both);
    4 ranks: 4 stages of one device, whose files (saved after the step) merge into the
    single-device state."""
    rank, n = world
    _, loss, after_two = reference
    if n == 2:
        cell = step_cell(IndexedShardedChain, 2, device_num=2)
    else:
        cell = step_cell(IndexedChain, 4, device_num=4, pipeline_stages=4)
    load_distributed_checkpoint(cell, stage_files[1], strict_load=True)
    got = feed(cell, 1)
    params = state(cell)
    if n == 2:
        np.testing.assert_allclose(got, loss, rtol=1e-6)
        _assert_state({name: gather_parameter(p) for name, p in params.items()}, after_two)
    else:
        path = os.path.join(os.path.dirname(os.path.dirname(stage_files[1][0])), "four",
                            f"rank_{rank}", "net.ckpt")
        save_checkpoint(cell, path)
        barrier()       # every stage's file is written before rank 0 merges them
        merged = None
        with on_rank_0(rank) as here:
            if here:
                merged = merge_sharded_checkpoints(
                    [path.replace(f"rank_{rank}", f"rank_{r}") for r in range(4)])
        if rank == 3:           # the loss is the last stage's
            np.testing.assert_allclose(got, loss, rtol=1e-6)
        mine = _stage_names_of_four(rank)
        _assert_state({name: params[name].asnumpy() for name in mine}, after_two, mine)
        assert set(load_checkpoint(path)) == mine
        if merged is not None:
            _assert_state({name: p.asnumpy() for name, p in merged.items()}, after_two)


def _stage_names_of_four(stage):
    layers = [f"layers.{stage}.weight", f"layers.{stage}.bias"]
    return set(layers) | {f"moments.{name}" for name in layers} | {"global_step"}


def test_missing_stage_and_disagreeing_stages_are_errors(world, stage_files, reference):
    rank, n = world
    if n != 2:
        pytest.skip("written for the 2-rank files")
    directory, files = stage_files
    with on_rank_0(rank) as here:
        if not here:
            return
        cell = step_cell(IndexedChain, 2)
        before = {name: p.asnumpy().copy() for name, p in state(cell).items()}
        with pytest.raises(ValueError, match=r"none from stage 1 \(rank\(s\) \[1\]\); the "
                                             r"net's parameter\(s\) \['layers.2.weight', "
                                             r"'layers.2.bias', 'layers.3.weight'"):
            load_distributed_checkpoint(cell, files[:1])
        _assert_state({name: p.asnumpy() for name, p in state(cell).items()}, before)
        with pytest.raises(ValueError, match=r"none from stage 1 \(rank\(s\) \[1\]\)"):
            merge_sharded_checkpoints(files[:1])
        # stage 1's step counter off by one: both stages hold it, and they disagree
        values = load_checkpoint(files[1])
        values["global_step"] = ms.Parameter(values["global_step"].asnumpy() + 1,
                                             name="global_step")
        skewed = os.path.join(directory, "skewed", "net.ckpt")
        serialization._write(skewed, [(name, p.asnumpy(), layout_record(p))
                                      for name, p in values.items()],
                             serialization._read_index(files[1]).pipeline)
        disagree = (r"'global_step' is held by several pipeline stages, which disagree: "
                    r".*rank_0/net.ckpt' \(rank 0, stage 0\) and .*skewed/net.ckpt' "
                    r"\(rank 1, stage 1\)")
        with pytest.raises(ValueError, match=disagree):
            load_distributed_checkpoint(cell, [files[0], skewed])
        with pytest.raises(ValueError, match=disagree):
            merge_sharded_checkpoints([files[0], skewed])
