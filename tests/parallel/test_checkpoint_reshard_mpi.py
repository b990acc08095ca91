"""A sharded checkpoint loads into a net under another plan or world size, each rank reading
only the blocks it needs (load_distributed_checkpoint, minispore/train/reshard_load.py): saved
after one step under the tutorial's strategies on 8 ranks, loaded under a searched plan on 8
ranks and under data parallel on 2, the next step equals the single-device next step.

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_checkpoint_reshard_mpi.py
     mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_checkpoint_reshard_mpi.py
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minispore as ms
from minispore.communication import _comm
from minispore.parallel import describe_plan
from minispore.parallel.param_slicing import gather_parameter
from minispore.train.reshard_load import last_load_stats
from minispore.train.serialization import load_distributed_checkpoint
from tests.parallel import reshard_jobs as jobs

pytestmark = pytest.mark.mpi(min_size=2)

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.mpi8
def test_tutorial_checkpoint_loads_under_a_searched_plan(world, shared_dir, reference):
    rank, n = world
    if n != 8:
        pytest.skip("the tutorial's strategies need exactly 8 ranks")
    jobs.save_after_one_step(shared_dir)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=n,
                                 search_mode="dynamic_programming")
    cell = jobs.step_cell()
    xs, ys = jobs.data()
    describe_plan(cell, ms.Tensor(xs[1, :4]), ms.Tensor(ys[1, :4]))   # slices as planned
    sliced = [p for _, p in cell.parameters_and_names() if p.layout is not None]
    assert sliced, "the searched plan slices some parameters"
    load_distributed_checkpoint(cell, jobs.files(shared_dir))
    stats = last_load_stats()
    assert stats["bytes_read"] < stats["bytes_in_files"] / 2
    _check_next_step(cell, slice(rank * 4, (rank + 1) * 4), n)
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
    stats = last_load_stats()
    # whole values need every block, but a replicated one (fc3 and the Momentum state of
    # replicated blocks) only once of the eight copies
    assert stats["bytes_read"] < stats["bytes_in_files"]
    batch = jobs.BATCH // n
    _check_next_step(cell, slice(rank * batch, (rank + 1) * batch), n)
    ms.reset_auto_parallel_context()
