"""The management API: errors before init, argument validation, world-group names per backend,
and (under MPI) ranks, sizes and the group <-> world rank mappings."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore import communication as comm
from minispore.common.auto_parallel_context import get_auto_parallel_context


@pytest.mark.parametrize("call", [
    lambda: comm.get_rank(), lambda: comm.get_group_size(), lambda: comm.get_local_rank(),
    lambda: comm.create_group("g", [0, 1]), lambda: comm.release(),
    lambda: ops.AllReduce()(Tensor(np.ones(2, np.float32))),
    lambda: comm.iallreduce(np.ones(2, np.float32)),
])
def test_calls_before_init_raise_runtime_error(not_inited, call):
    with pytest.raises(RuntimeError, match=r"not initialized: call minispore.communication"):
        call()


def test_non_str_group_raises_type_error_even_before_init(not_inited):
    for fn in (comm.get_rank, comm.get_group_size, comm.destroy_group):
        with pytest.raises(TypeError, match="'group' must be type of string, but got 'group' "
                                            "type : int"):
            fn(1)


def test_init_backend_name_errors(not_inited):
    with pytest.raises(TypeError, match="'backend_name' must be a string"):
        comm.init(3)
    with pytest.raises(RuntimeError, match="must be one of 'hccl', 'nccl', 'mccl' or 'mpi', but "
                                           "got 'backend_name' : gloo"):
        comm.init("gloo")
    assert not comm.GlobalComm.INITED


@pytest.mark.parametrize("backend,world", [(None, "mccl_world_group"),
                                           ("mpi", "mccl_world_group"),
                                           ("nccl", "nccl_world_group"),
                                           ("hccl", "hccl_world_group")])
def test_init_sets_global_comm_and_parallel_context(not_inited, backend, world):
    comm.init(backend)
    try:
        assert comm.GlobalComm.INITED and comm.GlobalComm.WORLD_COMM_GROUP == world
        assert comm.GlobalComm.BACKEND == (backend or "mccl").replace("mpi", "mccl")
        size = comm.get_group_size()
        # every world-group name is the world, whatever the backend
        for name in (comm.HCCL_WORLD_COMM_GROUP, comm.NCCL_WORLD_COMM_GROUP,
                     comm.MCCL_WORLD_COMM_GROUP):
            assert comm.get_group_size(name) == size
            assert comm.get_rank(name) == comm.get_rank()
        assert get_auto_parallel_context("device_num") == size
        assert get_auto_parallel_context("global_rank") == comm.get_rank()
        assert 0 <= comm.get_local_rank() < comm.get_local_rank_size() <= size
    finally:
        comm.release()
    assert not comm.GlobalComm.INITED


def test_create_group_validation(world):
    with pytest.raises(TypeError, match="'group' must be type of string"):
        comm.create_group(5, [0, 1])
    with pytest.raises(TypeError, match="'rank_ids' must be type of list, but got 'rank_ids' "
                                        "type : tuple"):
        comm.create_group("g", (0, 1))
    with pytest.raises(ValueError, match=r"length of 'rank_ids' must be greater than 1, but got "
                                         r"1 \(\[0\]\)"):
        comm.create_group("g", [0])
    with pytest.raises(ValueError, match=r"has duplicate data: \[0, 0\]"):
        comm.create_group("g", [0, 0])
    with pytest.raises(ValueError, match=r"rank ids \[100000\] are outside the world"):
        comm.create_group("g", [0, 100000])
    with pytest.raises(ValueError, match="must not be a world group name"):
        comm.create_group("nccl_world_group", [0, 1])
    with pytest.raises(ValueError, match="must not be the world group"):
        comm.get_world_rank_from_group_rank("hccl_world_group", 0)
    with pytest.raises(ValueError, match="cannot be destroyed"):
        comm.destroy_group(comm.GlobalComm.WORLD_COMM_GROUP)
    with pytest.raises(ValueError, match="'nope' does not exist"):
        comm.destroy_group("nope")
    with pytest.raises(ValueError, match="'nope' does not exist"):
        ops.AllReduce(group="nope")(Tensor(np.ones(2, np.float32)))


def test_operator_argument_validation():
    x = Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="For 'AllReduce', the argument 'op' must be a ReduceOp"):
        ops.AllReduce(op=1)
    with pytest.raises(ValueError, match=r"'op' must be one of \['sum', 'max', 'min', 'prod'\], "
                                         r"but got 'avg'"):
        ops.ReduceScatter("avg")
    with pytest.raises(TypeError, match="For 'AllGather', the argument 'group' must be a str"):
        ops.AllGather(group=0)
    with pytest.raises(TypeError, match="'split_dim' must be an int, but got float"):
        ops.AlltoAll(2, 0.0, 1)
    with pytest.raises(TypeError, match="'root_rank' must be an int"):
        ops.Broadcast("0")
    with pytest.raises(TypeError, match="For 'Broadcast', the input must be a tuple of Tensors, "
                                        "but got Tensor"):
        ops.Broadcast(0)(x)
    with pytest.raises(TypeError, match="'shape' must be a tuple of non-negative ints"):
        ops.Receive(0, 1, (2, -1), ms.float32)
    with pytest.raises(ValueError, match="'dest_rank' must be >= 0"):
        ops.Send(0, -1)


@pytest.mark.mpi(min_size=2)
@pytest.mark.mpi8
def test_group_rank_mappings(world):
    n, me = comm.get_group_size(), comm.get_rank()
    ranks = list(range(n))[::-1]
    comm.create_group("mgmt_reversed", ranks)
    comm.create_group("mgmt_reversed", ranks)   # same ranks again: a no-op
    with pytest.raises(ValueError, match="already exists with ranks"):
        comm.create_group("mgmt_reversed", list(range(n)))
    assert comm.get_rank("mgmt_reversed") == n - 1 - me
    assert comm.get_group_size("mgmt_reversed") == n
    assert [comm.get_world_rank_from_group_rank("mgmt_reversed", g) for g in range(n)] == ranks
    assert [comm.get_group_rank_from_world_rank(w, "mgmt_reversed") for w in range(n)] == \
        [n - 1 - w for w in range(n)]
    with pytest.raises(ValueError, match=r"'group_rank_id' must be in \[0, "):
        comm.get_world_rank_from_group_rank("mgmt_reversed", n)
    comm.create_group("mgmt_pair", [0, 1])
    if me > 1:
        with pytest.raises(ValueError, match=f"rank {me} is not a member of group 'mgmt_pair'"):
            comm.get_rank("mgmt_pair")
        with pytest.raises(ValueError, match="world rank 5 is not a member"):
            comm.get_group_rank_from_world_rank(5, "mgmt_pair")
    else:
        assert comm.get_rank("mgmt_pair") == me
    comm.destroy_group("mgmt_pair")
    comm.destroy_group("mgmt_reversed")
    with pytest.raises(ValueError, match="does not exist"):
        comm.get_rank("mgmt_reversed")
