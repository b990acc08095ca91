"""The MPI world for the tests run under mpirun (--with-mpi): started once per module and
released after it, unless something earlier in the process already started it."""
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
