"""Collective backend: numpy arrays in, numpy arrays out, through mpi4py's buffer (upper-case) API.

These play the role kernels play for compute operators: the primitives in
minispore/ops/operations/comm_ops.py validate shapes and call these. Buffers are C-contiguous
numpy arrays handed to MPI as ``[array, datatype]`` (no pickling, no 2 GB limit). MPI datatypes
come from numpy's type codes (MPICH has native float16); bool reductions map to logical ops.

Ordering rule: every rank of a group must call the same collectives in the same order; with
the divergence check on (``set_collective_check``) a mismatch is reported instead of hanging.

Device (GPU) arrays stage through host memory: copied to the host, reduced there, and the
result copied back to the device, since the MPI in use is not assumed CUDA-aware. When the MPI
library says it is (`cuda_aware_mpi`: MPIX_Query_cuda_support, which Open MPI and MPICH >= 4
export), the all-reduces hand it the device buffers directly after a device synchronise.
"""
import ctypes
import functools

import numpy as np

from minispore import device
from minispore.communication._comm import (KINDS, STATE, check_same_call, communicator, mpi)

SUM, MAX, MIN, PROD = "sum", "max", "min", "prod"
_OP_CODE = {SUM: 0, MAX: 1, MIN: 2, PROD: 3}
_BOOL_OP = {SUM: "LOR", MAX: "LOR", MIN: "LAND", PROD: "LAND"}
_ops = {}
_listeners = []   # fn(collective name, input bytes, group size), e.g. parallel.comm_stats


def add_listener(fn):
    """Call fn(collective, nbytes, group_size) before every collective this rank runs."""
    _listeners.append(fn)


def mpi_op(op, dtype):
    """The MPI.Op for ReduceOp name `op` on `dtype` (cached)."""
    key = (op, dtype.char)
    found = _ops.get(key)
    if found is None:
        MPI = mpi()
        name = _BOOL_OP[op] if dtype == np.bool_ else op.upper()
        found = _ops[key] = getattr(MPI, name)
    return found


def _contig(x):
    return x if x.flags.c_contiguous else np.ascontiguousarray(x)


@functools.lru_cache(maxsize=None)
def cuda_aware_mpi():
    """Whether the MPI library takes CUDA device buffers: MPIX_Query_cuda_support() of the
    loaded library (False where the symbol is missing: plain MPICH wheels, most builds)."""
    MPI = mpi()
    try:
        query = ctypes.CDLL(MPI.__file__).MPIX_Query_cuda_support
    except (OSError, AttributeError):
        return False
    query.restype = ctypes.c_int
    return bool(query())


def _direct(x):
    """Whether device array x goes to MPI as it is (CUDA-aware MPI, real device memory)."""
    if not cuda_aware_mpi() or device.is_simulated():
        return False
    device.synchronize()   # kernels writing x have finished before MPI reads it
    return True


def _staged(fn):
    """Run collective `fn(x, ...)` on a host copy of a device array x and return its result
    on the device (host arrays pass straight through)."""
    @functools.wraps(fn)
    def run(x, *args, **kwargs):
        if not device.is_device_array(x):
            return fn(x, *args, **kwargs)
        out = fn(x.copy_to_host(), *args, **kwargs)
        return None if out is None else device.like(x, out)
    return run


def _checked(group, kind, arg, x, api):
    comm = communicator(group, api)
    if STATE.check:
        check_same_call(comm, kind, arg, x)
    _notify(KINDS[kind], x.nbytes, comm.size)
    return comm


def _notify(collective, nbytes, k):
    for fn in _listeners:
        fn(collective, nbytes, k)


def all_reduce(x, op=SUM, group="hccl_world_group"):
    """out = op over the group's ranks of x (a new array; x is unchanged)."""
    if device.is_device_array(x):
        if _direct(x):
            comm = _checked(group, 0, _OP_CODE[op], x, "AllReduce")
            out = device.empty_like(x)
            comm.comm.Allreduce(x, out, mpi_op(op, x.dtype))
            return out
        return device.like(x, all_reduce(x.copy_to_host(), op, group))
    x = _contig(x)
    comm = _checked(group, 0, _OP_CODE[op], x, "AllReduce")
    out = np.empty_like(x)
    comm.comm.Allreduce(x, out, mpi_op(op, x.dtype))
    return out


def all_reduce_(buf, op=SUM, group="hccl_world_group"):
    """In place: buf = op over the group of buf (buf must be C-contiguous)."""
    if device.is_device_array(buf) and not _direct(buf):
        buf.copy_to_device(all_reduce_(buf.copy_to_host(), op, group))
        return buf
    comm = _checked(group, 0, _OP_CODE[op], buf, "AllReduce")
    comm.comm.Allreduce(mpi().IN_PLACE, buf, mpi_op(op, buf.dtype))
    return buf


class CommHandle:
    """A started non-blocking collective; ``wait()`` completes it and returns its buffer."""

    __slots__ = ("request", "buffer", "staged")

    def __init__(self, request, buffer, staged=None):
        # staged: the host copy MPI reduces when `buffer` is a device array (copied back on
        # completion).
        self.request, self.buffer, self.staged = request, buffer, staged

    def wait(self):
        if self.request is not None:
            self.request.Wait()
            self.request = None
        if self.staged is not None:
            self.buffer.copy_to_device(self.staged)
            self.staged = None
        return self.buffer

    def test(self):
        """True when the collective has completed (then ``wait()`` returns at once)."""
        if self.request is None or self.request.Test():
            self.request = None
            return True
        return False


def iallreduce(buf, op=SUM, group="hccl_world_group"):
    """Start an in-place all-reduce of the C-contiguous array `buf`; returns a CommHandle.

    The buffer must not be read or written until ``wait()``. Used by the fused gradient
    buckets: each bucket is one flat buffer reduced while backward continues.
    """
    if not device.is_contiguous(buf):
        raise ValueError("For 'iallreduce', the buffer must be C-contiguous (it is reduced in "
                         "place), but got a strided view.")
    staged = None
    if device.is_device_array(buf) and not _direct(buf):
        staged = buf.copy_to_host()
    target = buf if staged is None else staged
    comm = _checked(group, 0, _OP_CODE[op], target, "iallreduce")
    return CommHandle(comm.comm.Iallreduce(mpi().IN_PLACE, target, mpi_op(op, target.dtype)),
                      buf, staged)


@_staged
def all_gather(x, group="hccl_world_group"):
    """out = the ranks' x concatenated along dim 0, in group-rank order: (k*x0, ...)."""
    x = _contig(x)
    comm = _checked(group, 1, 0, x, "AllGather")
    out = np.empty((comm.size * x.shape[0],) + x.shape[1:], x.dtype)
    comm.comm.Allgather(x, out)
    return out


@_staged
def reduce_scatter(x, op=SUM, group="hccl_world_group"):
    """out = block r (of k along dim 0) of op over the ranks' x, on group rank r."""
    x = _contig(x)
    comm = _checked(group, 2, _OP_CODE[op], x, "ReduceScatter")
    out = np.empty((x.shape[0] // comm.size,) + x.shape[1:], x.dtype)
    comm.comm.Reduce_scatter_block(x, out, mpi_op(op, x.dtype))
    return out


@_staged
def all_to_all(x, split_count, split_dim, concat_dim, group="hccl_world_group"):
    """Split x into `split_count` blocks along split_dim, send block j to group rank j, and
    concatenate the received blocks along concat_dim in group-rank order."""
    k = split_count
    comm = _checked(group, 3, split_dim * 64 + concat_dim, x, "AlltoAll")
    shape = x.shape
    # (pre, k, chunk, post) view; moving the k axis first makes block j contiguous for rank j.
    blocks = x.reshape(shape[:split_dim] + (k, shape[split_dim] // k) + shape[split_dim + 1:])
    send = np.ascontiguousarray(np.moveaxis(blocks, split_dim, 0))
    recv = np.empty_like(send)
    comm.comm.Alltoall(send, recv)
    # recv is (k, *block); put the k axis just before concat_dim and merge the two.
    merged = np.moveaxis(recv, 0, concat_dim)
    out_shape = list(send.shape[1:])
    out_shape[concat_dim] *= k
    return np.ascontiguousarray(merged).reshape(out_shape)


def broadcast(arrays, root_rank, group="hccl_world_group"):
    """Each array replaced by root's (group rank `root_rank`); a tuple of new arrays."""
    outs = []
    for x in arrays:
        if device.is_device_array(x):
            outs.append(device.like(x, broadcast((x.copy_to_host(),), root_rank, group)[0]))
            continue
        comm = _checked(group, 4, root_rank, x, "Broadcast")
        out = np.array(x, order="C", copy=True) if comm.rank == root_rank else \
            np.empty(x.shape, x.dtype)
        comm.comm.Bcast(out, root=root_rank)
        outs.append(out)
    return tuple(outs)


@_staged
def reduce(x, dest_rank, op=SUM, group="hccl_world_group"):
    """op over the ranks' x on group rank `dest_rank`; zeros of x's shape on the others."""
    x = _contig(x)
    comm = _checked(group, 5, dest_rank * 4 + _OP_CODE[op], x, "Reduce")
    if comm.rank == dest_rank:
        out = np.empty_like(x)
        comm.comm.Reduce(x, out, mpi_op(op, x.dtype), root=dest_rank)
        return out
    comm.comm.Reduce(x, None, mpi_op(op, x.dtype), root=dest_rank)
    return np.zeros_like(x)


@_staged
def send(x, dest_rank, sr_tag, group="hccl_world_group"):
    """Blocking send of x to group rank `dest_rank` with tag `sr_tag`."""
    comm = communicator(group, "Send")
    # A point-to-point pair is not a group call: the divergence check does not apply, but
    # the listeners count it (two ranks take part).
    _notify("Send", x.nbytes, 2)
    comm.comm.Send(_contig(x), dest=dest_rank, tag=sr_tag)


def receive(shape, dtype, src_rank, sr_tag, group="hccl_world_group"):
    """Blocking receive of an array of `shape`/`dtype` from group rank `src_rank`, returned
    on the active device.

    The incoming message's size is probed first, so a sender whose array has another size
    gives a clear error naming both sizes instead of MPI's truncation error.
    """
    comm = communicator(group, "Receive")
    MPI = mpi()
    out = np.empty(shape, dtype)
    status = MPI.Status()
    comm.comm.Probe(source=src_rank, tag=sr_tag, status=status)
    nbytes = status.Get_count(MPI.BYTE)
    if nbytes != out.nbytes:
        # Drain the message so the peer's Send completes before this rank raises.
        comm.comm.Recv(np.empty(nbytes, np.uint8), source=src_rank, tag=sr_tag)
        raise RuntimeError(f"For 'Receive', the message from rank {src_rank} (tag {sr_tag}) "
                           f"has {nbytes} bytes, but the declared shape {tuple(shape)} and "
                           f"dtype {np.dtype(dtype)} need {out.nbytes} bytes.")
    _notify("Receive", out.nbytes, 2)
    comm.comm.Recv(out, source=src_rank, tag=sr_tag)
    return device.asarray(out)


def barrier(group="hccl_world_group"):
    comm = _checked(group, 6, 0, np.empty(0, np.int8), "Barrier")
    comm.comm.Barrier()
