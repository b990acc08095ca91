"""A sharded checkpoint loads into a net under another plan or world size, each rank reading
only the blocks it needs (load_distributed_checkpoint, minispore/train/reshard_load.py): saved
after one step under the tutorial's strategies on 8 ranks, loaded on 8 ranks under a searched
plan (after describe_plan sliced the net) and under other shard strategies (before the
compile, which slices the loaded values), and on 2 ranks under data parallel, the next step
equals the single-device next step. Each rank reads less than one whole copy of the state
where its blocks are smaller, and never a replica twice.

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_checkpoint_reshard_mpi.py
     mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_checkpoint_reshard_mpi.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import minispore as ms
from minispore.communication import _comm
from minispore.parallel import describe_plan
from minispore.parallel.param_slicing import gather_parameter
from minispore.train.reshard_load import last_load_stats
from minispore.train.sharded_checkpoints import load_distributed_checkpoint
from tests.parallel import reshard_jobs as jobs

pytestmark = pytest.mark.mpi(min_size=2)

ROOT = Path(__file__).resolve().parents[2]
# Other strategies for the tutorial net: fc1 cut 2 x 4 (the tutorial cuts its rows 4 ways),
# fc2 by columns 4 ways (the tutorial: rows 8 ways)
OTHER_STRATEGIES = (((1, 2), (2, 4)), ((2, 4),), ((2, 1), (1, 4)), ((2, 4),))


def _state_bytes():
    """The bytes of one whole copy of the saved state (parameters and Momentum state)."""
    return sum(v.nbytes for v in jobs.single_device_second_step.cached[1].values())


def _check_next_step(cell, rows, n):
    """The loaded cell's next step against the single-device one."""
    want_loss, want_after = jobs.single_device_second_step.cached
    loss = jobs.feed(cell, 1, rows)
    losses = _comm.STATE.world.comm.allgather(loss)
    # each rank's loss is its rows' mean (data parallel) or the whole batch's (operators
    # sharded): their mean is the single-device loss either way
    np.testing.assert_allclose(np.mean(losses), want_loss, rtol=1e-5)
    for _, p in cell.parameters_and_names():
        np.testing.assert_allclose(gather_parameter(p), want_after[p.name], rtol=1e-5,
                                   atol=1e-7, err_msg=p.name)


@pytest.fixture(scope="module")
def reference(world):
    parallel = ms.get_auto_parallel_context("parallel_mode")
    jobs.single_device_second_step.cached = jobs.single_device_second_step()
    assert parallel == ms.get_auto_parallel_context("parallel_mode")


@pytest.fixture(scope="module")
def tutorial_files(world):
    """The directory of the 8 per-rank files saved after one step under the tutorial's
    strategies (this module's 8-rank tests share one save)."""
    rank, n = world
    if n != 8:
        pytest.skip("the tutorial's strategies need exactly 8 ranks")
    mpi = _comm.STATE.world.comm
    path = mpi.bcast(tempfile.mkdtemp(prefix="minispore_mpi_") if rank == 0 else None, root=0)
    jobs.save_after_one_step(path)
    yield path
    mpi.Barrier()
    if rank == 0:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.mpi8
def test_tutorial_checkpoint_loads_under_a_searched_plan(world, tutorial_files, reference):
    rank, n = world
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=n,
                                 search_mode="dynamic_programming")
    cell = jobs.step_cell()
    xs, ys = jobs.data()
    describe_plan(cell, ms.Tensor(xs[1, :4]), ms.Tensor(ys[1, :4]))   # slices as planned
    sliced = [p for _, p in cell.parameters_and_names() if p.layout is not None]
    assert sliced, "the searched plan slices some parameters"
    load_distributed_checkpoint(cell, jobs.files(tutorial_files))
    # every parameter is cut, so each rank reads less than one whole copy of the state
    assert last_load_stats()["bytes_read"] < _state_bytes()
    _check_next_step(cell, slice(rank * 4, (rank + 1) * 4), n)
    ms.reset_auto_parallel_context()


@pytest.mark.mpi8
def test_tutorial_checkpoint_loads_before_a_compile_under_other_strategies(world, tutorial_files,
                                                                           reference):
    rank, n = world
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n)
    cell = jobs.step_cell(OTHER_STRATEGIES)
    load_distributed_checkpoint(cell, jobs.files(tutorial_files))
    # not compiled yet: whole values, every block read once though fc3 (replicated under the
    # tutorial's strategies) and its momentum are in all eight files
    assert last_load_stats()["bytes_read"] == _state_bytes()
    batch = jobs.BATCH // n
    _check_next_step(cell, slice(rank * batch, (rank + 1) * batch), n)
    cuts = {p.name: p.layout.cuts() for _, p in cell.parameters_and_names() if p.layout}
    assert cuts["fc1_weight"] == (2, 4) and cuts["fc2_weight"] == (1, 4)
    ms.reset_auto_parallel_context()


def test_tutorial_checkpoint_loads_under_data_parallel(world, shared_dir, reference):
    rank, n = world
    if rank == 0:           # the 8-rank save is its own job, like the run that made it
        drop = ("PMI_", "PMIX_", "MPI_", "MPICH_", "HYDRA_", "MPIR_", "OMPI_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        proc = subprocess.run([sys.executable, "-m", "minispore.run", "-n", "8", "-m",
                               "tests.parallel.reshard_jobs", shared_dir], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    _comm.STATE.world.comm.Barrier()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="data_parallel", device_num=n,
                                 gradients_mean=True)
    cell = jobs.step_cell()
    load_distributed_checkpoint(cell, jobs.files(shared_dir))
    # whole values need every block, but a replicated one (fc3, the replicas of fc1's blocks,
    # their momenta) only once of its copies: one whole copy of the state
    assert last_load_stats()["bytes_read"] == _state_bytes()
    batch = jobs.BATCH // n
    _check_next_step(cell, slice(rank * batch, (rank + 1) * batch), n)
    ms.reset_auto_parallel_context()
