"""Fixtures for communication tests: the MPI world (with the divergence check on), test groups
(world, the world in reverse order, even ranks), per-rank reproducible data, and the
environment of the jobs the fault tests launch."""
import os
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

from minispore import communication as comm
from minispore.communication import _comm

Group = namedtuple("Group", "name ranks member")

# name -> world ranks in group-rank order, as a function of the world size.
GROUP_RANKS = {
    "world": lambda n: list(range(n)),
    "reversed": lambda n: list(range(n))[::-1],
    "even": lambda n: list(range(0, n, 2)),
}


@pytest.fixture
def world():
    """An initialised world with the collective divergence check on (every test runs the same
    fixtures in the same order on every rank, so the collective parts of init line up).

    Released after the test, so the abort-on-exception hooks never outlive it: a later test
    elsewhere that lets a thread die on purpose must not MPI_Abort the whole pytest process.
    """
    started = not _comm.STATE.inited
    if started:
        comm.init()
    comm.set_collective_check(True)
    yield comm
    comm.set_collective_check(False)
    if started and _comm.STATE.inited:
        comm.release()


@pytest.fixture(params=sorted(GROUP_RANKS))
def group(request, world):
    n = comm.get_group_size()
    ranks = GROUP_RANKS[request.param](n)
    if len(ranks) < 2:
        pytest.skip(f"group '{request.param}' needs at least 4 ranks (world has {n})")
    if request.param == "world":
        name = comm.GlobalComm.WORLD_COMM_GROUP
    else:
        name = f"test_{request.param}"
        comm.create_group(name, ranks)
    return Group(name, ranks, comm.get_rank() in ranks)


@pytest.fixture
def not_inited():
    """No communication service during the test; the previous state is restored after."""
    was = _comm.STATE.inited
    if was:
        comm.release()
    yield
    if was and not _comm.STATE.inited:
        comm.init()


def data(world_rank, shape, dtype, salt=0, low=-1.0, high=1.0):
    """The array world rank `world_rank` feeds a test: every rank can rebuild every other
    rank's input, so references need no communication."""
    rng = np.random.default_rng(10_000 * salt + world_rank)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(low, high, shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(-5, 6, shape).astype(dtype)


ROOT = Path(__file__).resolve().parents[2]


def job_environment(**settings):
    """os.environ for a job a test launches, with `settings` added: none of this process's
    launcher variables (a test run under mpirun must not leak them into the child job), the
    repository on PYTHONPATH."""
    drop = ("PMI_", "PMIX_", "MPI_", "MPICH_", "HYDRA_", "MPIR_", "OMPI_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(settings)
    return env


def alive(pid):
    """Whether process `pid` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
