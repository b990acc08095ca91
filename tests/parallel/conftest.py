"""The MPI world for the tests run under mpirun (--with-mpi): started once per module and
released after it, unless something earlier in the process already started it."""
import shutil
import tempfile

import pytest

import minispore as ms
from minispore import communication as comm
from minispore.communication import _comm


@pytest.fixture(scope="module")
def world():
    """(rank, world size)."""
    started = not _comm.STATE.inited
    if started:
        comm.init()
    yield comm.get_rank(), comm.get_group_size()
    ms.reset_auto_parallel_context()
    if started and _comm.STATE.inited:
        comm.release()


@pytest.fixture
def shared_dir(world):
    """A fresh directory every rank sees (rank 0 creates it and removes it at the end)."""
    rank, _ = world
    mpi = _comm.STATE.world.comm
    path = mpi.bcast(tempfile.mkdtemp(prefix="minispore_mpi_") if rank == 0 else None, root=0)
    yield path
    mpi.Barrier()
    if rank == 0:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def _start_in_pynative():
    """Every test starts in MindSpore's default mode, PYNATIVE, whatever ran before it (most
    set-up helpers switch to GRAPH_MODE and leave it)."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
