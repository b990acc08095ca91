"""Turning parameter-server training on in a process. `install` (at ``import minispore``) hooks
it into the layers below, which do not import it: ``init()`` calls `start`, which acts when
the job has MS_SERVER_NUM > 0 servers; every optimizer registers and calls through
`register_optimizer` / `optimizer_call`; the graph compiler calls `before_compile`."""
import atexit
import sys
import weakref

from minispore.common.context import PYNATIVE_MODE, context
from minispore.common.ps_context import get_ps_context
from minispore.common.registry import REGISTRY
from minispore.communication._comm import STATE
from minispore.communication.cluster.roles import Role

__all__ = ["install", "start", "register_optimizer", "optimizer_call", "before_compile",
           "resume_step"]


def install():
    REGISTRY.add_hook("communication.after_init", start)
    REGISTRY.plug("nn.parameter_server", sys.modules[__name__])


def start():
    """After init(), in a job with servers: a worker pushes instead of updating its PS
    parameters and tells the servers when it has finished; a server serves at its first
    compile (or optimizer call)."""
    if STATE.job is None:
        return
    if not get_ps_context("enable_ps"):
        raise RuntimeError(
            f"For 'init', this job has MS_SERVER_NUM={STATE.server_num} parameter servers, but "
            f"parameter-server training is off: call set_ps_context(enable_ps=True) before "
            f"init() in every process of the job (or unset MS_SERVER_NUM).")
    if STATE.ps.started:
        return
    STATE.ps.started = True
    REGISTRY.add_hook("graph.before_compile", before_compile)
    if STATE.role is Role.WORKER:
        from minispore.ps import worker
        REGISTRY.plug("ops.update_redirect", worker.redirect)
        atexit.register(finish)


def register_optimizer(optimizer):
    if get_ps_context("enable_ps"):
        STATE.ps.optimizers.append(weakref.ref(optimizer))


def _optimizer_with_ps_parameters():
    found = [o for o in (ref() for ref in STATE.ps.optimizers)
             if o is not None and any(p.is_param_ps for p in o.parameters)]
    if len(found) > 1:
        raise NotImplementedError(
            f"Parameter-server training with {len(found)} optimizers holding set_param_ps "
            f"parameters ({', '.join(type(o).__name__ for o in found)}) is not implemented in "
            f"minispore; keep the set_param_ps parameters in one optimizer.")
    return found[0] if found else None


def before_compile():
    """The graph compiler's hook, once the script has made the optimizer of its set_param_ps
    parameters: a server starts serving; a worker takes the servers' values first."""
    from minispore.ps import server, worker
    if STATE.ps.pulled or server.serving():
        return
    optimizer = _optimizer_with_ps_parameters()
    if optimizer is None:
        return
    if STATE.role is Role.SERVER:
        server.serve(optimizer)
    STATE.ps.pulled = True
    STATE.ps.resumed = worker.pull_initial(optimizer)


def resume_step():
    """The step this job's training starts at: 0, or after a restart with MS_ENABLE_RECOVERY=1
    the step of the checkpoint the servers restored (the count of updates it holds), so a
    hand-written loop runs ``for step in range(resume_step(), total_steps)`` and feeds the
    batches of those steps only. Model.train skips the consumed batches itself.

    Call it after making the optimizer of the set_param_ps parameters: a worker then takes the
    servers' step and values at once; a server starts serving there and never returns (as at
    its first compile). 0 in a process without parameter-server training.

    Raises:
        RuntimeError: in a parameter-server job before an optimizer holds set_param_ps
            parameters.
    """
    if not STATE.ps.started:
        return 0
    before_compile()
    if not STATE.ps.pulled:
        raise RuntimeError("For 'resume_step', no optimizer holds set_param_ps parameters yet: "
                           "call it after making the optimizer of the parameters the servers "
                           "hold, which is where the servers' step and values are taken.")
    return STATE.ps.resumed


def finish():
    """A worker's exit: take the initial values if it never compiled (the servers sent them),
    then tell the servers it has finished."""
    from minispore.ps import worker
    if not STATE.ps.pulled:
        optimizer = _optimizer_with_ps_parameters()
        if optimizer is not None:
            worker.pull_initial(optimizer)
    worker.finish()


def optimizer_call(optimizer, call):
    """Run ``call()`` (the optimizer's own call) the parameter-server way: on a server, serve
    instead; on a worker, push and pull the PS parameters (worker.UpdateBatch)."""
    from minispore.ps import server, worker
    if not STATE.ps.started or not any(p.is_param_ps for p in optimizer.parameters):
        return call()
    if server.serving():
        return call()
    if context().mode == PYNATIVE_MODE:
        raise RuntimeError(f"For '{type(optimizer).__name__}', parameter-server training runs "
                           f"in GRAPH_MODE only; call set_context(mode=GRAPH_MODE).")
    before_compile()      # a server serves; a worker has its initial values
    with worker.UpdateBatch(optimizer):
        return call()
