"""Moving parameter-server buffers over the job's MPI communicator: typed-buffer sends and
receives (no pickling), split into chunks of at most CHUNK_BYTES so that a tensor over MPI's
2 GiB count limit still travels (messages of one source and tag arrive in order)."""
import time

import numpy as np

from minispore.communication._comm import STATE, mpi

__all__ = ["CHUNK_BYTES", "TAG_DONE", "TAG_STEP", "data_tag", "job", "isend", "recv_into",
           "wait_for_message", "discard", "send_done"]

CHUNK_BYTES = 1 << 30
TAG_DONE = 1            # a worker has finished its script
TAG_STEP = 2            # server -> worker, before the initial values: the step training resumes at
_TAG_DATA = 16          # + key: a gradient (worker -> server) or a value (server -> worker)


def data_tag(key):
    return _TAG_DATA + key


def job():
    """The job's communicator (workers, then servers)."""
    if STATE.job is None:
        raise RuntimeError("The parameter server needs a job with MS_SERVER_NUM > 0 parameter "
                           "servers started with MS_ROLE=MS_PSERVER, after init().")
    return STATE.job


def _chunks(array):
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return [flat[i:i + CHUNK_BYTES] for i in range(0, max(flat.size, 1), CHUNK_BYTES)]


def isend(array, dest, tag):
    """Start sending `array` to job rank `dest`; the requests (keep `array` alive until they
    complete)."""
    MPI = mpi()
    return [job().Isend([chunk, MPI.BYTE], dest=dest, tag=tag) for chunk in _chunks(array)]


def recv_into(array, source, tag):
    """Receive into the C-contiguous `array` what job rank `source` sent with `tag`; it must
    have exactly array.nbytes bytes (ValueError naming both sizes otherwise)."""
    MPI = mpi()
    flat = array.reshape(-1).view(np.uint8)
    status = MPI.Status()
    for i in range(0, max(flat.size, 1), CHUNK_BYTES):
        chunk = flat[i:i + CHUNK_BYTES]
        job().Probe(source=source, tag=tag, status=status)
        count = status.Get_count(MPI.BYTE)
        if count != chunk.size:
            raise ValueError(f"The parameter server expected {flat.size} bytes from job rank "
                             f"{source} (tag {tag}), but a message of {count} bytes arrived.")
        job().Recv([chunk, MPI.BYTE], source=source, tag=tag)


def wait_for_message(source, tag, abandon, poll_s=0.0002):
    """Poll until a message from job rank `source` with `tag` is there (True), or abandon()
    is true (False)."""
    while not job().Iprobe(source=source, tag=tag):
        if abandon():
            return False
        time.sleep(poll_s)
    return True


def discard(source, tag):
    """Receive and drop the next message from job rank `source` with `tag`."""
    MPI = mpi()
    status = MPI.Status()
    job().Probe(source=source, tag=tag, status=status)
    job().Recv([np.empty(status.Get_count(MPI.BYTE), np.uint8), MPI.BYTE], source=source,
               tag=tag)


def send_done(dest):
    job().Send([np.empty(0, np.uint8), mpi().BYTE], dest=dest, tag=TAG_DONE)
