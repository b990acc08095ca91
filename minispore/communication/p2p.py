"""The one point-to-point layer: typed-buffer sends and receives between two ranks of a
Communicator, for the Send/Receive operators, the pipeline stages and the parameter server
(minispore/ps/transport.py). Every wait is watched as the collectives' are (the watchdog sees
it; the arrival table says who waits for whom) and every message is counted in the world's
counters (a Send n bytes, its Receive 0: minispore.parallel.comm_stats).

A pipeline schedule (1F1B) has two neighbouring stages send to each other at the same time
(activations forward, gradients back); with blocking sends of messages above MPICH's eager
limit both would wait for the other's receive. So a stage's sends are started with ``isend``
and completed together by ``wait_sends`` at the end of the step (or earlier by the caller);
only receives block, and a schedule whose every receive follows its send in one global order
cannot deadlock. The time a receive spends waiting for its message, and the time
``wait_sends`` waits, is the stage's idle time (the pipeline bubble: minispore/parallel/
pipeline/stats.py).

A peer of another world (a parameter server seen from a worker, a worker from a server) has no
record in this rank's arrival table: only the deadline watches a wait for it.
"""
import time

import numpy as np

from minispore import device
from minispore.common import profiling
from minispore.communication._comm import STATE, communicator, mpi
from minispore.communication.watch.arrivals import RECEIVE, SEND

__all__ = ["send", "receive", "isend", "wait_sends", "receive_waiting", "start_send",
           "wait_requests", "send_buffer", "probe", "poll", "recv", "drain"]


# -- the watched calls on a Communicator -----------------------------------------------------
def start_send(comm, buffer, dest, tag):
    """Start sending the C-contiguous host array `buffer` to group rank `dest` of Communicator
    `comm` with `tag`; the MPI request (keep `buffer` alive until it completes)."""
    STATE.stats.record("Send", buffer.nbytes, 2)
    return comm.comm.Isend(buffer, dest=dest, tag=tag)


def wait_requests(comm, requests, dest, nbytes):
    """Complete started sends of `nbytes` bytes in all to group rank `dest`, watched."""
    watch = STATE.watch
    watch.enter_point_to_point(comm, SEND, nbytes, dest)
    try:
        mpi().Request.Waitall(requests)
    finally:
        watch.leave()


def send_buffer(comm, buffer, dest, tag):
    """Blocking, watched send of the C-contiguous host `buffer` to group rank `dest`."""
    STATE.stats.record("Send", buffer.nbytes, 2)
    watch = STATE.watch
    watch.enter_point_to_point(comm, SEND, buffer.nbytes, dest)
    try:
        comm.comm.Send(buffer, dest=dest, tag=tag)
    finally:
        watch.leave()


def probe(comm, source, tag, nbytes):
    """Wait, watched, until a message from group rank `source` (None: any) with `tag` (None:
    any) is there; its MPI Status (size, source, tag). `nbytes`: what the caller expects, for
    the reports."""
    MPI = mpi()
    status = MPI.Status()
    watch = STATE.watch
    watch.enter_point_to_point(comm, RECEIVE, nbytes, source)
    try:
        comm.comm.Probe(source=MPI.ANY_SOURCE if source is None else source,
                        tag=MPI.ANY_TAG if tag is None else tag, status=status)
    finally:
        watch.leave()
    return status


def poll(comm, source, tag, abandon, poll_s):
    """Like ``probe``, polling every `poll_s` seconds, so that it can give up: the Status of
    the message, or None once abandon() is true."""
    MPI = mpi()
    status = MPI.Status()
    source_ = MPI.ANY_SOURCE if source is None else source
    tag_ = MPI.ANY_TAG if tag is None else tag
    if comm.comm.Iprobe(source=source_, tag=tag_, status=status):
        return status
    watch = STATE.watch
    watch.enter_point_to_point(comm, RECEIVE, 0, source)
    try:
        while not comm.comm.Iprobe(source=source_, tag=tag_, status=status):
            if abandon():
                return None
            time.sleep(poll_s)
    finally:
        watch.leave()
    return status


def recv(comm, buffer, source, tag):
    """Receive into the C-contiguous host array `buffer` the message ``probe`` found (its size
    is buffer.nbytes, so this does not wait)."""
    STATE.stats.record("Receive", buffer.nbytes, 2)
    comm.comm.Recv(buffer, source=source, tag=tag)


def drain(comm, nbytes, source, tag):
    """Receive and drop a probed message of `nbytes` bytes (so its sender's send completes)."""
    comm.comm.Recv(np.empty(nbytes, np.uint8), source=source, tag=tag)


# -- the Send/Receive operators' backend ------------------------------------------------------
@profiling.collective("Send")
def send(x, dest_rank, sr_tag, group="hccl_world_group"):
    """Blocking send of x to group rank `dest_rank` with tag `sr_tag` (a device array travels
    through a host copy)."""
    comm = communicator(group, "Send")
    if device.is_device_array(x):
        x = x.copy_to_host()
    # A point-to-point pair is not a group call: the divergence check does not apply, but
    # the counters count it (two ranks take part) and the watchdog watches it.
    send_buffer(comm, np.ascontiguousarray(x), dest_rank, sr_tag)


@profiling.collective("Receive")
def receive(shape, dtype, src_rank, sr_tag, group="hccl_world_group", waited=None):
    """Blocking receive of an array of `shape`/`dtype` from group rank `src_rank`, returned
    on the active device; `waited(seconds)`, when given, learns how long the message took to
    arrive (a pipeline stage's idle time).

    The incoming message's size is probed first, so a sender whose array has another size
    gives a clear error naming both sizes instead of MPI's truncation error.
    """
    comm = communicator(group, "Receive")
    out = np.empty(shape, dtype)
    start = time.perf_counter()
    status = probe(comm, src_rank, sr_tag, out.nbytes)
    if waited is not None:
        waited(time.perf_counter() - start)
    nbytes = status.Get_count(mpi().BYTE)
    if nbytes != out.nbytes:
        drain(comm, nbytes, src_rank, sr_tag)
        raise RuntimeError(f"For 'Receive', the message from rank {src_rank} (tag {sr_tag}) "
                           f"has {nbytes} bytes, but the declared shape {tuple(shape)} and "
                           f"dtype {np.dtype(dtype)} need {out.nbytes} bytes.")
    recv(comm, out, src_rank, sr_tag)
    return device.asarray(out)


# -- pipeline stages ---------------------------------------------------------------------------
def isend(x, dest_rank, sr_tag, group="hccl_world_group"):
    """Start sending x (a copy of it) to group rank `dest_rank` with tag `sr_tag`; completed
    by ``wait_sends``."""
    comm = communicator(group, "Send")
    host = np.array(device.to_host(x), copy=True, order="C")
    request = start_send(comm, host, dest_rank, sr_tag)
    # The host copy stays alive in STATE.pending_sends until the send completes.
    STATE.pending_sends.append((request, host, comm, dest_rank))


def wait_sends():
    """Complete every started send; returns the seconds spent waiting for them."""
    pending = STATE.pending_sends
    if not pending:
        return 0.0
    start = time.perf_counter()
    while pending:
        request, host, comm, peer = pending[0]
        wait_requests(comm, [request], peer, host.nbytes)
        pending.pop(0)
    return time.perf_counter() - start


def receive_waiting(shape, dtype, src_rank, sr_tag, group="hccl_world_group"):
    """(the array of `shape`/`dtype` that group rank `src_rank` sent with `sr_tag`, on the
    active device; the seconds spent waiting for it to arrive)."""
    waits = []
    out = receive(shape, dtype, src_rank, sr_tag, group, waited=waits.append)
    return out, waits[0]
