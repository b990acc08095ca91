"""Point-to-point transfers between pipeline stages: non-blocking sends, receives that count
how long they waited.

A pipeline schedule (1F1B) has two neighbouring stages send to each other at the same time
(activations forward, gradients back); with blocking sends of messages above MPICH's eager
limit both would wait for the other's receive. So a stage's sends are started with ``Isend``
and completed together by ``wait_sends`` at the end of the step (or earlier by the caller);
only receives block, and a schedule whose every receive follows its send in one global order
cannot deadlock. The time a receive spends waiting for its message, and the time
``wait_sends`` waits, is the stage's idle time (the pipeline bubble: minispore/parallel/
pipeline_stats.py).
"""
import time

import numpy as np

from minispore import device
from minispore.communication._comm import communicator
from minispore.communication.arrivals import SEND
from minispore.communication.collectives import _notify, receive
from minispore.communication.watchdog import WATCH

__all__ = ["isend", "wait_sends", "receive_waiting"]

_PENDING = []       # (request, host buffer kept alive until the send completes, comm, peer)


def isend(x, dest_rank, sr_tag, group="hccl_world_group"):
    """Start sending x (a copy of it) to group rank `dest_rank` with tag `sr_tag`."""
    comm = communicator(group, "Send")
    host = np.array(device.to_host(x), copy=True, order="C")
    _notify("Send", host.nbytes, 2)
    request = comm.comm.Isend(host, dest=dest_rank, tag=sr_tag)
    _PENDING.append((request, host, comm, dest_rank))


def wait_sends():
    """Complete every started send; returns the seconds spent waiting for them."""
    if not _PENDING:
        return 0.0
    start = time.perf_counter()
    while _PENDING:
        request, host, comm, peer = _PENDING[0]
        WATCH.enter_point_to_point(comm, SEND, host.nbytes, peer)
        try:
            request.Wait()
        finally:
            WATCH.leave()
        _PENDING.pop(0)
    return time.perf_counter() - start


def receive_waiting(shape, dtype, src_rank, sr_tag, group="hccl_world_group"):
    """(the array of `shape`/`dtype` that group rank `src_rank` sent with `sr_tag`, on the
    active device; the seconds spent waiting for it to arrive)."""
    waits = []
    out = receive(shape, dtype, src_rank, sr_tag, group, waited=waits.append)
    return out, waits[0]
