"""Moving parameter-server buffers over the job's communicator (workers, then servers) through
the watched point-to-point layer (minispore/communication/p2p.py): typed-buffer sends and
receives (no pickling), split into chunks of at most CHUNK_BYTES so that a tensor over MPI's
2 GiB count limit still travels (messages of one source and tag arrive in order)."""
import numpy as np

from minispore.communication import p2p
from minispore.communication._comm import STATE, mpi

__all__ = ["CHUNK_BYTES", "TAG_DONE", "TAG_STEP", "data_tag", "job", "isend", "wait_sends",
           "send", "recv_into", "next_message", "wait_for_message", "discard", "send_done",
           "take_done"]

CHUNK_BYTES = 1 << 30
TAG_DONE = 1            # a worker has finished its script
TAG_STEP = 2            # server -> worker, before the initial values: the step training resumes at
_TAG_DATA = 16          # + key: a gradient (worker -> server) or a value (server -> worker)
_NOTHING = np.empty(0, np.uint8)


def data_tag(key):
    return _TAG_DATA + key


def job():
    """The job's Communicator (workers, then servers)."""
    if STATE.job is None:
        raise RuntimeError("The parameter server needs a job with MS_SERVER_NUM > 0 parameter "
                           "servers started with MS_ROLE=MS_PSERVER, after init().")
    return STATE.job


def _chunks(array):
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return [flat[i:i + CHUNK_BYTES] for i in range(0, max(flat.size, 1), CHUNK_BYTES)]


def isend(array, dest, tag):
    """Start sending `array` to job rank `dest`; the requests (keep `array` alive until
    ``wait_sends`` completes them)."""
    return [p2p.start_send(job(), chunk, dest, tag) for chunk in _chunks(array)]


def wait_sends(requests, dest, nbytes):
    """Complete the started sends (`nbytes` in all) to job rank `dest`."""
    p2p.wait_requests(job(), requests, dest, nbytes)


def send(array, dest, tag):
    """Send `array` to job rank `dest` and wait until it is sent."""
    for chunk in _chunks(array):
        p2p.send_buffer(job(), chunk, dest, tag)


def recv_into(array, source, tag):
    """Receive into the C-contiguous `array` what job rank `source` sent with `tag`; it must
    have exactly array.nbytes bytes (ValueError naming both sizes otherwise)."""
    flat = array.reshape(-1).view(np.uint8)
    for i in range(0, max(flat.size, 1), CHUNK_BYTES):
        chunk = flat[i:i + CHUNK_BYTES]
        count = p2p.probe(job(), source, tag, chunk.size).Get_count(mpi().BYTE)
        if count != chunk.size:
            raise ValueError(f"The parameter server expected {flat.size} bytes from job rank "
                             f"{source} (tag {tag}), but a message of {count} bytes arrived.")
        p2p.recv(job(), chunk, source, tag)


def next_message(source=None, abandon=None, poll_s=0.0002):
    """(source, tag) of the next message to this process from job rank `source` (None: any);
    with `abandon`, poll every `poll_s` seconds and give up (None) once abandon() is true."""
    if abandon is None:
        status = p2p.probe(job(), source, None, 0)
    else:
        status = p2p.poll(job(), source, None, abandon, poll_s)
        if status is None:
            return None
    return status.Get_source(), status.Get_tag()


def wait_for_message(source, tag, abandon, poll_s=0.0002):
    """Poll until a message from job rank `source` with `tag` is there (True), or abandon()
    is true (False)."""
    return p2p.poll(job(), source, tag, abandon, poll_s) is not None


def discard(source, tag):
    """Receive and drop the next message from job rank `source` with `tag`."""
    status = p2p.probe(job(), source, tag, 0)
    p2p.drain(job(), status.Get_count(mpi().BYTE), source, tag)


def send_done(dest):
    p2p.send_buffer(job(), _NOTHING, dest, TAG_DONE)


def take_done(source):
    """Receive job rank `source`'s TAG_DONE (probed already)."""
    p2p.recv(job(), np.empty(0, np.uint8), source, TAG_DONE)
