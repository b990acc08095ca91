"""The server's side of parameter-server training: hold this server's keys, apply the
workers' gradients with the script's optimizer, send the new values back, until every worker
has finished.

Synchronous (``sync_mode=True``, MindSpore's synchronous SGD): per step, one push of every
key of this server from each worker still training; the update uses their mean (summed in
worker order), once; each of those workers then gets the new values. So the run equals
single-process training on the global batch. A worker that has finished (`TAG_DONE`) leaves
the count.

Asynchronous (``sync_mode=False``): the first worker whose push arrives has it applied at once,
scaled by 1/MS_WORKER_NUM (so W pushes move the parameters as far as one synchronous step),
and gets the new values back; every push is applied exactly once (the server counts them per
worker and logs the counts at the end).

The update is the optimizer's own call, run eagerly on this server's copies with a zero
gradient for the parameters it does not own (their values here are never sent anywhere).
"""
import os
import sys
import time

import numpy as np

from minispore.common import context as ms_context
from minispore.common.auto_parallel_context import reset_auto_parallel_context
from minispore.common.ps_context import get_ps_context
from minispore.common.tensor import Tensor
from minispore.communication._comm import STATE
from minispore.ps import placement, transport
from minispore.ps.log import logger, start_logging
from minispore.ps.recovery import ServerCheckpoints, recovery_settings

__all__ = ["serve", "serving"]

POLL_S = 0.0002      # the asynchronous server's wait between polls for a message


def serving():
    return STATE.ps.serving


class _Keys:
    """This server's keys: their parameters and a receive buffer per worker."""

    def __init__(self, optimizer, server):
        params = placement.ps_parameters(optimizer)
        if not params:
            raise RuntimeError(f"The parameter server found no set_param_ps parameter in "
                               f"{type(optimizer).__name__}'s parameters.")
        owners = placement.assign_servers([p.nbytes for p in params], STATE.server_num)
        self.keys = [k for k, s in enumerate(owners) if s == server]
        self.params = [params[k] for k in self.keys]
        workers = STATE.worker_num
        self.buffers = {w: [np.empty(p.shape, p.dtype.np_dtype) for p in self.params]
                        for w in range(workers)}
        self.nbytes = sum(p.nbytes for p in self.params)
        index = {id(p): i for i, p in enumerate(optimizer.parameters)}
        self.slots = [index[id(p)] for p in self.params]

    def receive(self, worker, abandon=None):
        """Receive `worker`'s push of every key; with `abandon`, poll and give up (False)
        once abandon() is true."""
        for key, buf in zip(self.keys, self.buffers[worker]):
            tag = transport.data_tag(key)
            if abandon is not None and not transport.wait_for_message(worker, tag, abandon,
                                                                      POLL_S):
                return False
            transport.recv_into(buf, worker, tag)
        return True

    def send(self, worker):
        requests = []
        values = [np.ascontiguousarray(p.asnumpy()) for p in self.params]
        for key, value in zip(self.keys, values):
            requests += transport.isend(value, worker, transport.data_tag(key))
        transport.wait_sends(requests, worker, sum(v.nbytes for v in values))


class _Updater:
    """Runs the optimizer on gradient buffers: this server's slots filled, the others zero."""

    def __init__(self, optimizer, keys):
        self.optimizer, self.keys = optimizer, keys
        self.grads = [Tensor(np.zeros(p.shape, p.dtype.np_dtype)) for p in optimizer.parameters]

    def apply(self, arrays, scale):
        for slot, array in zip(self.keys.slots, arrays):
            self.grads[slot] = Tensor(array * array.dtype.type(scale))
        self.optimizer(tuple(self.grads))


def serve(optimizer):
    """Serve this process's keys of `optimizer` until every worker has finished, then end the
    process with status 0 (never returns)."""
    workers = STATE.worker_num
    server = STATE.job.rank - workers
    start_logging("MS_PSERVER", server)
    STATE.ps.serving = True
    ms_context.set_context(mode=ms_context.PYNATIVE_MODE)
    reset_auto_parallel_context()
    keys = _Keys(optimizer, server)
    sync = get_ps_context("sync_mode")
    logger.info("Serving %d parameter(s) (%s; %d bytes) for %d workers, %s.", len(keys.keys),
                ", ".join(p.name for p in keys.params) or "none", keys.nbytes, workers,
                "synchronous" if sync else "asynchronous")
    recovery = recovery_settings(os.environ)
    checkpoints = None
    step = 0
    if recovery is not None:
        if not sync:
            raise NotImplementedError(
                "MS_ENABLE_RECOVERY=1 with an asynchronous parameter server (sync_mode=False) "
                "is not implemented in minispore: the servers checkpoint at common steps, "
                "which only synchronous training has.")
        checkpoints = ServerCheckpoints(recovery, server, optimizer, keys.params)
        step = checkpoints.restore()
        if step:
            logger.info("Restored from step %d (MS_RECOVERY_PATH=%s).", step, recovery.path)
    # Every worker starts from the servers' step and values (worker.pull_initial): the
    # restored ones, or step 0 and the initial values this process drew from the global seed.
    # The workers skip the batches of the steps already applied, so that a restarted job ends
    # at the same step with the same values as one never interrupted.
    for worker in range(workers):
        transport.send(np.array([step], np.int64), worker, transport.TAG_STEP)
        keys.send(worker)
    updater = _Updater(optimizer, keys)
    if sync:
        pushes = _serve_sync(keys, updater, workers, step, checkpoints)
    else:
        pushes = _serve_async(keys, updater, workers)
    logger.info("All %d workers finished; pushes applied per worker: %s.", workers,
                ", ".join(f"worker {w}: {n}" for w, n in enumerate(pushes)))
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(0)



def _serve_sync(keys, updater, workers, step, checkpoints):
    live, pushes = list(range(workers)), [0] * workers
    while live:
        start = time.perf_counter()
        pushed = []
        for worker in list(live):
            _, tag = transport.next_message(worker)
            if tag == transport.TAG_DONE:
                transport.take_done(worker)
                live.remove(worker)
                continue
            keys.receive(worker)
            pushed.append(worker)
        if not pushed:
            break
        total = [buf.copy() for buf in keys.buffers[pushed[0]]]
        for worker in pushed[1:]:
            for acc, buf in zip(total, keys.buffers[worker]):
                acc += buf
        updater.apply(total, 1.0 / len(pushed))
        for worker in pushed:
            keys.send(worker)
            pushes[worker] += 1
        step += 1
        logger.info("step %d: %d pushes in, update applied, %d pulls out (%d bytes each way, "
                    "%.1f ms).", step, len(pushed), len(pushed), keys.nbytes * len(pushed),
                    1e3 * (time.perf_counter() - start))
        if checkpoints is not None and checkpoints.after_step(step):
            logger.info("Checkpoint of step %d saved.", step)
    return pushes


def _serve_async(keys, updater, workers):
    """Apply each push as it arrives. MPI_Probe would wait forever for a worker that died, so
    this polls: a worker the scheduler reports lost (an asynchronous job goes on without it)
    leaves the live set, and a push it left half sent is dropped."""
    live, pushes = set(range(workers)), [0] * workers
    while live:
        _forget_lost(live)
        message = transport.next_message(abandon=lambda: bool(live & STATE.lost_ranks),
                                         poll_s=POLL_S)
        if message is None:
            continue
        worker, tag = message
        if worker not in live:
            transport.discard(worker, tag)       # what a dropped worker had sent
            continue
        if tag == transport.TAG_DONE:
            transport.take_done(worker)
            live.discard(worker)
            continue
        if not keys.receive(worker, abandon=lambda: worker in STATE.lost_ranks):
            continue
        updater.apply(keys.buffers[worker], 1.0 / workers)
        keys.send(worker)
        pushes[worker] += 1
        logger.info("push %d of worker %d applied, pulled back (%d bytes each way).",
                    pushes[worker], worker, keys.nbytes)
    return pushes


def _forget_lost(live):
    for worker in sorted(live & STATE.lost_ranks):
        live.discard(worker)
        logger.warning("Worker %d was lost (the scheduler dropped it); serving the other %d.",
                       worker, len(live))
