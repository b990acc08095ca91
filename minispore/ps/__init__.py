"""Parameter-server training (MindSpore's MS_PSERVER role, ``set_ps_context(enable_ps=True)``,
``set_param_ps``): the parameters marked ``set_param_ps`` live on the servers, which apply
their optimizer update; the workers compute gradients.

The job (minispore/communication/cluster/scheduler.py) is one MPI communicator: the workers at ranks
0..W-1, the servers at W..W+S-1. The workers' world for collectives is their own part of it,
so the parameters without ``set_param_ps`` still train by data (or operator) parallel among
the workers. Per step, each worker's compiled update sends the gradient of every PS parameter
to the server that owns it (`PSPush`, a non-blocking MPI send of the buffer) and then receives
the updated value into the parameter (`PSPull`); a server (`server.serve`) receives the
pushes, applies the mean of all workers' gradients once per step with the script's own
optimizer (synchronous, the default), or each worker's push as it arrives (``sync_mode=False``),
and sends the new values back. placement.py says which server owns which parameter;
transport.py moves the bytes.

A server runs the script like the workers until it compiles its first graph (or calls its
optimizer); there it serves until every worker has finished, then exits with status 0: the
training code after that point never runs on a server.

After a restart with MS_ENABLE_RECOVERY=1 the servers send the step of the checkpoint they
restored before their values; every worker logs it, Model.train skips the batches of the steps
already done, and a hand-written loop starts at `resume_step()`.
"""
from minispore.ps import runtime
from minispore.ps.runtime import resume_step

__all__ = ["resume_step"]

runtime.install()
