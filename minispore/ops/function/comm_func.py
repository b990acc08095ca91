"""Functional collectives (MindSpore's mindspore.communication.comm_func, 2.4 signatures):
synchronous, Tensor in and Tensor out, differentiable through the comm_ops primitives.

`src`/`dst` are world ranks, as in MindSpore; they are mapped to group ranks for sub-groups.
"""
from minispore.communication import GlobalComm, get_group_rank_from_world_rank
from minispore.communication._comm import WORLD_NAMES
from minispore.ops.operations import comm_ops as _C
from minispore.ops.operations._base import cached_op

__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single",
           "broadcast", "reduce", "barrier", "send", "recv"]

def _group_rank(world_rank, group):
    return world_rank if group in WORLD_NAMES else get_group_rank_from_world_rank(world_rank,
                                                                                  group)


def all_reduce(tensor, op=_C.ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
    """op over the group's ranks of `tensor`, on every rank (ops.AllReduce)."""
    return cached_op(_C.AllReduce, op, group)(tensor)


def all_gather_into_tensor(tensor, group=GlobalComm.WORLD_COMM_GROUP):
    """The ranks' tensors concatenated along dim 0 (ops.AllGather)."""
    return cached_op(_C.AllGather, group)(tensor)


def reduce_scatter_tensor(tensor, op=_C.ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
    """This rank's dim-0 block of the reduction over the group (ops.ReduceScatter)."""
    return cached_op(_C.ReduceScatter, op, group)(tensor)


def all_to_all_single(tensor, group=GlobalComm.WORLD_COMM_GROUP):
    """Equal dim-0 blocks exchanged: block j goes to group rank j, received blocks stacked on
    dim 0 (ops.AlltoAll(k, 0, 0))."""
    from minispore.communication import get_group_size
    return cached_op(_C.AlltoAll, get_group_size(group), 0, 0, group)(tensor)


def broadcast(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """World rank `src`'s tensor on every rank of the group (ops.Broadcast)."""
    return cached_op(_C.Broadcast, _group_rank(src, group), group)((tensor,))[0]


def reduce(tensor, dst, op=_C.ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
    """The reduction on world rank `dst`; zeros on the other ranks (ops.Reduce)."""
    return cached_op(_C.Reduce, _group_rank(dst, group), op, group)(tensor)


def barrier(group=GlobalComm.WORLD_COMM_GROUP):
    """Wait for every rank of the group."""
    cached_op(_C.Barrier, group)()


def send(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Send `tensor` to world rank `dst` (blocking)."""
    cached_op(_C.Send, tag, _group_rank(dst, group), group)(tensor)


def recv(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Receive from world rank `src` a tensor of `tensor`'s shape and dtype."""
    return cached_op(_C.Receive, tag, _group_rank(src, group), tuple(tensor.shape), tensor.dtype,
               group)()
