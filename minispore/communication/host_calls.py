"""Prepared collectives: one collective on host arrays of one shape and dtype over one group,
with what every call would look up again (the communicator, the MPI op and bound method, the
output shape, the counted bytes) looked up once.

The eager AllReduce, AllGather and ReduceScatter primitives take this path once their infer
has accepted an input signature (comm_ops._Collective.__call__). Through the generic
collective (collectives.all_reduce: _checked, communicator, the stats and MPI op lookups) an
eager 4 KB AllReduce cost 3.8 us on one rank against 1.1 us for mpi4py into a new array; this
path keeps only what must happen per call (the counters, the watch's enter and leave with its
mismatch check, the divergence check when on, the MPI call): 2.8 us. On two ranks see the
collective table of BENCHMARKS.md (make bench).
"""
import numpy as np

from minispore.communication.collectives import _OP_CODE, mpi_op
from minispore.communication.state import STATE
from minispore.communication.stats import sent_bytes
from minispore.communication._comm import WORLD_NAMES, check_same_call, communicator
from minispore.communication.watch.arrivals import KINDS
from minispore.communication.watch.watchdog import Mismatch

ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER = 0, 1, 2


class HostCall:
    """``call(x)``: the collective `kind` (ALL_REDUCE, ALL_GATHER or REDUCE_SCATTER, with
    ReduceOp name `op` for the reductions) of the C-contiguous host array x, which must have
    the `shape` and `dtype` this was prepared for; a new output array. Returns None instead
    when the group it was prepared for is gone or was made again (release, destroy_group,
    init): the caller then takes the generic path, which raises as it always does. With the
    full divergence check on (set_collective_check) the ranks' calls are compared first, as
    on the generic path."""

    __slots__ = ("shape", "dtype", "comm", "group", "world", "kind", "arg", "name", "nbytes",
                 "sent", "out_shape", "mpi_call", "op")

    def __init__(self, kind, shape, dtype, group, api, op=None):
        self.comm = comm = communicator(group, api)
        self.shape, self.dtype, self.group, self.kind = tuple(shape), np.dtype(dtype), group, kind
        self.world = group in WORLD_NAMES
        self.name = KINDS[kind]
        self.arg = 0 if op is None else _OP_CODE[op]
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        self.sent = sent_bytes(self.name, self.nbytes, comm.size)
        k = comm.size
        if kind == ALL_REDUCE:
            self.out_shape, self.mpi_call = self.shape, comm.comm.Allreduce
        elif kind == ALL_GATHER:
            self.out_shape = (k * self.shape[0],) + self.shape[1:]
            self.mpi_call = comm.comm.Allgather
        else:
            self.out_shape = (self.shape[0] // k,) + self.shape[1:]
            self.mpi_call = comm.comm.Reduce_scatter_block
        self.op = None if op is None else mpi_op(op, self.dtype)

    def __call__(self, x):
        comm = self.comm
        if (STATE.world if self.world else STATE.groups.get(self.group)) is not comm:
            return None
        out = np.empty(self.out_shape, self.dtype)
        STATE.stats.add(self.name, self.sent)
        watch = STATE.watch
        try:
            watch.enter(comm, self.kind, self.nbytes, x, self.arg)
        except Mismatch as mismatch:
            watch.refuse(mismatch, self.kind, self.arg, x)
        try:
            if STATE.check:
                check_same_call(comm, self.kind, self.arg, x)
            if self.op is None:
                self.mpi_call(x, out)
            else:
                self.mpi_call(x, out, self.op)
        finally:
            watch.leave()
        return out
