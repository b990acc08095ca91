"""Collective backend: numpy arrays in, numpy arrays out, through mpi4py's buffer (upper-case) API.

These play the role kernels play for compute operators: the primitives in
minispore/ops/operations/comm_ops.py validate shapes and call these. Buffers are C-contiguous
numpy arrays handed to MPI as ``[array, datatype]`` (no pickling, no 2 GB limit). MPI datatypes
come from numpy's type codes (MPICH has native float16); bool reductions map to logical ops.

Ordering rule: every rank of a group must call the same collectives in the same order. Every
MPI call here runs under the watchdog (watchdog.py): its entry and exit are published in the
arrival table, so a call that waits past MS_COMM_TIMEOUT, or can never complete (a member left,
called another collective or byte count), aborts the job with a report instead of hanging.
By default each call's signature (collective, attribute, dtype, shape) is also compared with
the other ranks' of this host as they arrive (watchdog.py), so a call whose ranks disagree is
refused before MPI would hang or return wrong values. The full divergence check
(``set_collective_check``) compares every rank's through MPI, raising on every rank.

Device (GPU) arrays stage through host memory: copied to the host, reduced there, and the
result copied back to the device, since the MPI in use is not assumed CUDA-aware. When the MPI
library says it is (`cuda_aware_mpi`: MPIX_Query_cuda_support, which Open MPI and MPICH >= 4
export), the all-reduces hand it the device buffers directly after a device synchronise.
"""
import ctypes
import functools

import numpy as np

from minispore import device
from minispore.common import profiling
from minispore.common.registry import REGISTRY
from minispore.communication._comm import (KINDS, STATE, check_same_call, communicator, mpi)
from minispore.communication.watch.arrivals import IALLREDUCE
from minispore.communication.watch.watchdog import Mismatch

SUM, MAX, MIN, PROD = "sum", "max", "min", "prod"
_OP_CODE = {SUM: 0, MAX: 1, MIN: 2, PROD: 3}
_BOOL_OP = {SUM: "LOR", MAX: "LOR", MIN: "LAND", PROD: "LAND"}
_ops = REGISTRY.owned("communication.mpi_ops", dict)   # (op, dtype char) -> MPI.Op


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


def _checked(group, kind, arg, x, api, comm=None, counted=True):
    """The Communicator of `group`, once collective `kind` (an index in KINDS) on buffer `x`
    has entered the watch; the caller runs the MPI call and then ``STATE.watch.leave()`` in a
    ``finally``. With the full check on, the ranks' signatures are compared first."""
    comm = comm or communicator(group, api)
    if counted:
        _notify(KINDS[kind], x.nbytes, comm.size)
    try:
        STATE.watch.enter(comm, kind, x.nbytes, x, arg)
    except Mismatch as mismatch:
        STATE.watch.refuse(mismatch, kind, arg, x)
    if STATE.check:
        try:
            check_same_call(comm, kind, arg, x)
        except BaseException:
            STATE.watch.leave()
            raise
    return comm


def _notify(collective, nbytes, k):
    """Count `collective` over k ranks with an nbytes-byte input in the world's counters
    (minispore.parallel.comm_stats reads them)."""
    STATE.stats.record(collective, nbytes, k)


@profiling.collective("AllReduce")
def all_reduce(x, op=SUM, group="hccl_world_group", out=None):
    """out = op over the group's ranks of x (a new array, or `out`, C-contiguous, when given;
    x is unchanged)."""
    if type(x) is not np.ndarray:
        return _all_reduce_other(x, op, group, out)
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    return _reduce_into(x, np.empty_like(x) if out is None else out, op, group)


def _reduce_into(x, out, op, group):
    comm = _checked(group, 0, _OP_CODE[op], x, "AllReduce")
    try:
        comm.comm.Allreduce(x, out, mpi_op(op, x.dtype))
    finally:
        STATE.watch.leave()
    return out


def _all_reduce_other(x, op, group, out):
    """all_reduce of a device array (or a numpy subclass, reduced as a plain host array)."""
    if not device.is_device_array(x):
        return all_reduce(np.asarray(x), op, group, out)
    if _direct(x):
        return _reduce_into(x, device.empty_like(x) if out is None else out, op, group)
    host = all_reduce(x.copy_to_host(), op, group)
    if out is None:
        return device.like(x, host)
    out.copy_to_device(host)
    return out


@profiling.collective("AllReduce")
def all_reduce_(buf, op=SUM, group="hccl_world_group"):
    """In place: buf = op over the group of buf (buf must be C-contiguous)."""
    if device.is_device_array(buf) and not _direct(buf):
        buf.copy_to_device(all_reduce_(buf.copy_to_host(), op, group))
        return buf
    comm = _checked(group, 0, _OP_CODE[op], buf, "AllReduce")
    try:
        comm.comm.Allreduce(mpi().IN_PLACE, buf, mpi_op(op, buf.dtype))
    finally:
        STATE.watch.leave()
    return buf


class CommHandle:
    """A started non-blocking collective; ``wait()`` completes it and returns its buffer."""

    __slots__ = ("request", "buffer", "staged", "comm", "seq")

    def __init__(self, request, buffer, staged=None, comm=None, seq=0):
        # staged: the host copy MPI reduces when `buffer` is a device array (copied back on
        # completion); comm and seq: the group and call number the watchdog shows a wait as.
        self.request, self.buffer, self.staged = request, buffer, staged
        self.comm, self.seq = comm, seq

    @profiling.collective("Wait")
    def wait(self):
        if self.request is not None:
            target = self.buffer if self.staged is None else self.staged
            STATE.watch.resume(self.comm, IALLREDUCE, self.seq, target.nbytes)
            try:
                self.request.Wait()
            finally:
                STATE.watch.leave()
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


@profiling.collective("Iallreduce")
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
    comm = communicator(group, "iallreduce")
    _notify(KINDS[0], target.nbytes, comm.size)
    try:
        seq = STATE.watch.enter(comm, IALLREDUCE, target.nbytes, target, _OP_CODE[op])
    except Mismatch as mismatch:
        STATE.watch.refuse(mismatch, 0, _OP_CODE[op], target)
    try:
        if STATE.check:
            check_same_call(comm, 0, _OP_CODE[op], target)
        request = comm.comm.Iallreduce(mpi().IN_PLACE, target, mpi_op(op, target.dtype))
    finally:
        STATE.watch.leave()
    return CommHandle(request, buf, staged, comm, seq)


@profiling.collective("AllGather")
@_staged
def all_gather(x, group="hccl_world_group"):
    """out = the ranks' x concatenated along dim 0, in group-rank order: (k*x0, ...)."""
    return _all_gather(x, group, True)


def all_gather_control(x, group="hccl_world_group"):
    """all_gather of control data (e.g. the shapes the ranks were fed): watched like every
    collective, so a missing rank ends the job, but left out of comm_stats and the profiler,
    which count the model's communication."""
    return _all_gather(np.asarray(x), group, False)


def _all_gather(x, group, counted):
    x = _contig(x)
    comm = communicator(group, "AllGather")
    out = np.empty((comm.size * x.shape[0],) + x.shape[1:], x.dtype)
    _checked(group, 1, 0, x, "AllGather", comm, counted)
    try:
        comm.comm.Allgather(x, out)
    finally:
        STATE.watch.leave()
    return out


@profiling.collective("ReduceScatter")
@_staged
def reduce_scatter(x, op=SUM, group="hccl_world_group"):
    """out = block r (of k along dim 0) of op over the ranks' x, on group rank r."""
    x = _contig(x)
    comm = communicator(group, "ReduceScatter")
    out = np.empty((x.shape[0] // comm.size,) + x.shape[1:], x.dtype)
    _checked(group, 2, _OP_CODE[op], x, "ReduceScatter", comm)
    try:
        comm.comm.Reduce_scatter_block(x, out, mpi_op(op, x.dtype))
    finally:
        STATE.watch.leave()
    return out


@profiling.collective("AlltoAll")
@_staged
def all_to_all(x, split_count, split_dim, concat_dim, group="hccl_world_group"):
    """Split x into `split_count` blocks along split_dim, send block j to group rank j, and
    concatenate the received blocks along concat_dim in group-rank order."""
    k = split_count
    shape = x.shape
    # (pre, k, chunk, post) view; moving the k axis first makes block j contiguous for rank j.
    blocks = x.reshape(shape[:split_dim] + (k, shape[split_dim] // k) + shape[split_dim + 1:])
    send = np.ascontiguousarray(np.moveaxis(blocks, split_dim, 0))
    recv = np.empty_like(send)
    comm = _checked(group, 3, split_dim * 64 + concat_dim, x, "AlltoAll")
    try:
        comm.comm.Alltoall(send, recv)
    finally:
        STATE.watch.leave()
    # recv is (k, *block); put the k axis just before concat_dim and merge the two.
    merged = np.moveaxis(recv, 0, concat_dim)
    out_shape = list(send.shape[1:])
    out_shape[concat_dim] *= k
    return np.ascontiguousarray(merged).reshape(out_shape)


@profiling.collective("Broadcast")
def broadcast(arrays, root_rank, group="hccl_world_group"):
    """Each array replaced by root's (group rank `root_rank`); a tuple of new arrays."""
    outs = []
    for x in arrays:
        if device.is_device_array(x):
            outs.append(device.like(x, broadcast((x.copy_to_host(),), root_rank, group)[0]))
            continue
        comm = communicator(group, "Broadcast")
        out = np.array(x, order="C", copy=True) if comm.rank == root_rank else \
            np.empty(x.shape, x.dtype)
        _checked(group, 4, root_rank, x, "Broadcast", comm)
        try:
            comm.comm.Bcast(out, root=root_rank)
        finally:
            STATE.watch.leave()
        outs.append(out)
    return tuple(outs)


@profiling.collective("Reduce")
@_staged
def reduce(x, dest_rank, op=SUM, group="hccl_world_group"):
    """op over the ranks' x on group rank `dest_rank`; zeros of x's shape on the others."""
    x = _contig(x)
    comm = communicator(group, "Reduce")
    out = np.empty_like(x) if comm.rank == dest_rank else None
    _checked(group, 5, dest_rank * 4 + _OP_CODE[op], x, "Reduce", comm)
    try:
        comm.comm.Reduce(x, out, mpi_op(op, x.dtype), root=dest_rank)
    finally:
        STATE.watch.leave()
    return np.zeros_like(x) if out is None else out


_NOTHING = np.empty(0, np.int8)


@profiling.collective("Barrier")
def barrier(group="hccl_world_group"):
    comm = _checked(group, 6, 0, _NOTHING, "Barrier")
    try:
        comm.comm.Barrier()
    finally:
        STATE.watch.leave()
