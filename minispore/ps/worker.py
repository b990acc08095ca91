"""The worker's side of parameter-server training: an optimizer update of a set_param_ps
parameter becomes a push of its gradient (`PSPush`) and a pull of its new value (`PSPull`).

Inside an optimizer call (`UpdateBatch`), the registry's "ops.update_redirect" point hands each PS parameter's
(parameter, gradient) here instead of updating it; the batch emits one `PSPush` per parameter
at once (traced into the compiled step like any update) and, when the optimizer returns, one
`PSPull` per pushed parameter, so every gradient is on its way before the first value is
awaited. Both are update primitives (side effects, the parameter's own layout), so the graph
passes keep and order them as they do the optimizer's nodes.
"""
import numpy as np

from minispore import device
from minispore.communication._comm import STATE
from minispore.ops.operations.optim_ops import _ApplyUpdate
from minispore.ps import placement, transport
from minispore.ps.log import logger, start_logging

__all__ = ["PSPush", "PSPull", "UpdateBatch", "pull_initial", "redirect", "finish", "STATS"]


class _Stats:
    """What this worker moved in its steps: pushes, pulls and their bytes, and the bytes of
    the initial values (tools/bench_ps.py reads it)."""

    def __init__(self):
        self.pushes = self.pulls = self.pushed_bytes = self.pulled_bytes = 0
        self.initial_bytes = 0


STATS = _Stats()


class _Transfer(_ApplyUpdate):
    """Shared: the key, the owning server (a job rank) and the parameter's whole shape."""
    redirectable = False

    def __init__(self, key, server, param):
        super().__init__()
        self.key, self.server, self.param_name = key, server, param.name
        self.whole_shape = tuple(param.global_shape or param.shape)
        for k in ("key", "server", "param_name"):
            self.add_prim_attr(k, getattr(self, k))

    def _check_whole(self, parameters):
        if tuple(parameters.shape) != self.whole_shape:
            raise NotImplementedError(
                f"For '{self.name}', the parameter-server parameter {self.param_name!r} is held "
                f"as a block {tuple(parameters.shape)} of {self.whole_shape} on this worker "
                f"(operator parallel sliced it); set_param_ps parameters must stay whole on the "
                f"workers: give their operators a strategy that does not split them.")
        if device.is_device_array(parameters):
            raise NotImplementedError(
                f"For '{self.name}', parameter-server training with device_target='GPU' is not "
                f"implemented in minispore ({self.param_name!r} is on the device); use "
                f"device_target='CPU'.")


class PSPush(_Transfer):
    """Start sending the gradient of key `key` to job rank `server`; the parameter is unchanged.
    (parameters, gradient) -> parameters."""
    tensor_args = ("parameters", "gradient")

    def impl(self, parameters, gradient):
        self._check_whole(parameters)
        g = np.ascontiguousarray(device.to_host(gradient), dtype=parameters.dtype)
        requests = transport.isend(g, self.server, transport.data_tag(self.key))
        STATE.ps.pushes.append((requests, g, self.server))
        STATS.pushes += 1
        STATS.pushed_bytes += g.nbytes
        return parameters


class PSPull(_Transfer):
    """Complete this step's pushes, then receive the new value of key `key` from job rank
    `server` into the parameter. (parameters) -> parameters."""
    tensor_args = ("parameters",)

    def impl(self, parameters):
        self._check_whole(parameters)
        wait_pushes()
        transport.recv_into(self._views(parameters)[0], self.server,
                            transport.data_tag(self.key))
        STATS.pulls += 1
        STATS.pulled_bytes += parameters.nbytes
        return parameters


def wait_pushes():
    for requests, gradient, server in STATE.ps.pushes:
        transport.wait_sends(requests, server, gradient.nbytes)
    STATE.ps.pushes.clear()


class UpdateBatch:
    """One optimizer call on a worker: its PS parameters' keys and servers, the pushes made.
    The one being run is ``STATE.ps.update_batch``."""

    def __init__(self, optimizer):
        params = placement.ps_parameters(optimizer)
        owners = placement.assign_servers([p.nbytes for p in params], STATE.server_num)
        self.where = {id(p): (k, STATE.worker_num + s) for k, (p, s) in
                      enumerate(zip(params, owners))}
        self.pushed = []

    def __enter__(self):
        self.outer, STATE.ps.update_batch = STATE.ps.update_batch, self
        return self

    def __exit__(self, *exc):
        STATE.ps.update_batch = self.outer
        if exc[0] is None:
            for param in self.pushed:
                PSPull(*self.where[id(param)], param)(param)

    def push(self, param, grad):
        if id(param) not in self.where:
            raise RuntimeError(f"The parameter-server parameter {param.name!r} is updated by an "
                               f"optimizer that does not list it.")
        PSPush(*self.where[id(param)], param)(param, grad)
        self.pushed.append(param)


def pull_initial(optimizer):
    """Before this worker's first step: take the step training resumes at and every PS
    parameter's value from the servers (they send theirs first: step 0 and values drawn from
    the global seed, or those of the checkpoint they restored); that step, logged when not 0."""
    step = _resume_step_of_servers()
    batch = UpdateBatch(optimizer)
    for param in placement.ps_parameters(optimizer):
        key, server = batch.where[id(param)]
        data = param._require_data()
        PSPull(key, server, param)._check_whole(data)
        transport.recv_into(data, server, transport.data_tag(key))
        STATS.initial_bytes += data.nbytes
    if step:
        start_logging("MS_WORKER", STATE.job.rank)
        logger.info("Resuming at step %d (0-based; the parameter servers restored their "
                    "checkpoint of step %d from MS_RECOVERY_PATH): steps 0 to %d are done, so "
                    "Model.train skips their %d batches, and a hand-written loop starts at "
                    "minispore.ps.resume_step() = %d.", step, step, step - 1, step, step)
    return step


def _resume_step_of_servers():
    """The step every server sent (they restore the same one); RuntimeError when they differ."""
    steps = []
    for server in range(STATE.worker_num, STATE.worker_num + STATE.server_num):
        step = np.empty(1, np.int64)
        transport.recv_into(step, server, transport.TAG_STEP)
        steps.append(int(step[0]))
    if len(set(steps)) != 1:
        raise RuntimeError(f"The parameter servers resume at different steps ({steps}, server "
                           f"0 first); they must restore the same checkpoint step.")
    return steps[0]


def redirect(param, grad):
    """The "ops.update_redirect" plug point on a worker: push instead of updating a PS parameter."""
    if not param.is_param_ps:
        return False
    if STATE.ps.update_batch is None:
        raise RuntimeError(f"The parameter-server parameter {param.name!r} is updated outside "
                           f"an optimizer call; only an optimizer's update can be sent to the "
                           f"servers.")
    STATE.ps.update_batch.push(param, grad)
    return True


def finish():
    """At exit: complete the pushes and tell every server this worker has finished."""
    wait_pushes()
    for server in range(STATE.worker_num, STATE.worker_num + STATE.server_num):
        transport.send_done(server)
