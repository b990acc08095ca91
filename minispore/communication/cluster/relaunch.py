"""Puts a dynamic-cluster worker under a one-rank MPI launcher before it runs: the one step that
lets processes no MPI launcher started join one MPI communicator.

Why: MPICH gives every singleton process (one started without mpiexec) the same process-group
identity, so two singletons cannot connect (MPI_Comm_connect/accept and MPI_Comm_join fail with
"Local and remote groups ... must not contain the same processes"). A process started by a
launcher (``mpiexec -n 1``) has a job of its own, and such processes connect. So ``import
minispore`` in a process with MS_ROLE=MS_WORKER (or MS_PSERVER) and no MPI launcher replaces the
process (``exec``, same pid) by minispore's one-host launcher (forker.py, ``-n 1``) running
``python <its own command line>``; the script then starts afresh under it, which passes on its
signals and exit status, and ``init()`` connects it to the other workers (cluster_worker.py).
Hydra's ``mpiexec -n 1`` did the same but listened on a TCP port on every interface for as long
as the worker ran; forker.py listens nowhere. Doing it at import, before the script's first statement past
``import minispore``, means nothing the script does runs twice.

The worker's stdin is /dev/null: a launcher would otherwise read the terminal from a background
process (``python train.py &``), which stops it. MindSpore's workers run in the background.

A job whose scheduler is on a loopback address runs on one host (no other host could reach
it), so its workers' MPI netmods listen on loopback only, as minispore.run's ranks do; a job
whose scheduler is elsewhere listens on this host's interface toward the scheduler
(listen.netmod_environment; variables the user set win, and an interface that cannot be found
is an error naming the address).

The worker's MPI runs on MPICH's libfabric netmod (MPIR_CVAR_CH4_NETMOD=ofi) unless the user
chose one: the UCX netmod's MPI_Comm_connect (MPIDI_UCX_dynamic_send, MPICH 5.0.2 and its
main branch) releases its send request twice, once in the completion callback and again after
the wait, whenever the send does not complete at once (a connection to a new peer still being
made). The second release corrupts UCX's request pool; about one join in a hundred across two
hosts then spins forever in ucp_request_release (seen with gdb: rank 2 of 4 in
PMPI_Comm_connect -> ucp_request_release -> pthread_spin_lock), and the job fails when
MS_TOPO_TIMEOUT passes. The libfabric netmod's connect waits on a request of its own and
releases nothing (ofi_spawn.c). init() warns when a worker joins on another netmod. A job on
one host (its scheduler on loopback) takes libfabric's shared-memory provider (FI_PROVIDER=shm,
unless the user chose one): its tcp provider over loopback made the parameter-server sample's
step 1.6-3x slower than UCX, which moves a host's traffic through shared memory; with shm the
steps match UCX's (tools/bench_ps.py, README). Across hosts libfabric picks tcp itself.
"""
import os
import sys

from minispore.common.environment import environment
from minispore.communication.cluster.listen import is_loopback, launcher_command, \
    netmod_environment
from minispore.communication.cluster.roles import ENVIRONMENT_VARS, Role, \
    cluster_config_from_environment

# The pid the user (or msrun) started, now the launcher's: the worker exits when it dies (the
# launcher also arms PR_SET_PDEATHSIG; this covers systems without it).
LAUNCHER_PID_VAR = "MINISPORE_CLUSTER_LAUNCHER_PID"
MPI_LAUNCHED_VARS = ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK")
# MPICH's netmod choice, and the one whose MPI_Comm_connect is sound (see the docstring).
NETMOD_VAR = "MPIR_CVAR_CH4_NETMOD"
CONNECTABLE_NETMOD = "ofi"
PROVIDER_VAR = "FI_PROVIDER"        # libfabric's provider
ONE_HOST_PROVIDER = "shm"


def started_by_mpi_launcher(environ):
    return any(v in environ for v in MPI_LAUNCHED_VARS)


def runs_a_script():
    """Whether this process has a command line to run again: a script, -m module or -c code
    (not the interactive interpreter or a program read from stdin)."""
    return not sys.flags.interactive and sys.argv[:1] not in ([""], ["-"])


def needs_relaunch(environ):
    """A worker or parameter server of a valid dynamic-cluster configuration, started without
    an MPI launcher (both join the job's MPI communicator).
    An invalid configuration is left to init(), which raises naming the variable."""
    if not environ.get("MS_ROLE") or started_by_mpi_launcher(environ):
        return False
    try:
        config = cluster_config_from_environment(environ)
    except (ValueError, NotImplementedError):
        return False
    return config.role in (Role.WORKER, Role.SERVER) and runs_a_script()


def connectable_netmod(sched_host, environ):
    """The netmod variables `environ` leaves unset for a worker of the job whose scheduler is at
    `sched_host`: libfabric's netmod, and its shared-memory provider on one host (see the
    module docstring)."""
    chosen = {}
    if not environ.get(NETMOD_VAR):
        chosen[NETMOD_VAR] = CONNECTABLE_NETMOD
    if chosen.get(NETMOD_VAR, environ.get(NETMOD_VAR)) == CONNECTABLE_NETMOD and \
            not environ.get(PROVIDER_VAR) and is_loopback(sched_host):
        chosen[PROVIDER_VAR] = ONE_HOST_PROVIDER
    return chosen


def unsound_netmod_warning(environ):
    """The warning for a worker about to connect on a netmod other than libfabric's (one the
    user chose, or a worker an MPI launcher started, which is never relaunched), else None."""
    netmod = environ.get(NETMOD_VAR)
    if netmod == CONNECTABLE_NETMOD:
        return None
    chosen = (f"{NETMOD_VAR}={netmod}" if netmod else
              f"MPICH's default netmod (UCX; {NETMOD_VAR} unset)")
    return (f"This dynamic-cluster worker connects to the others on {chosen}: MPICH's UCX netmod "
            f"releases a request twice in MPI_Comm_connect, which now and then hangs the join "
            f"until MS_TOPO_TIMEOUT. Set {NETMOD_VAR}={CONNECTABLE_NETMOD} (what minispore sets "
            f"for the workers it relaunches).")


def relaunch_under_launcher(environ=None):
    """Replace this process by minispore's launcher running ``python <argv>`` as a one-rank job
    when needs_relaunch(environ); otherwise return.

    Raises:
        RuntimeError: the netmods' interface toward MS_SCHED_HOST cannot be found
            (listen.netmod_environment).
    """
    settings = environment(ENVIRONMENT_VARS + MPI_LAUNCHED_VARS) if environ is None else environ
    if not needs_relaunch(settings):
        return
    # The child gets this process's whole environment, not only the variables the registry
    # declares (the user's PATH, PYTHONPATH, ... as well).
    env = dict(os.environ if environ is None else environ)
    env[LAUNCHER_PID_VAR] = str(os.getpid())
    sched_host = cluster_config_from_environment(settings).sched_host
    env.update(netmod_environment(sched_host, env))
    env.update(connectable_netmod(sched_host, env))
    sys.stdout.flush()
    sys.stderr.flush()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    argv = launcher_command(1) + [sys.executable] + sys.orig_argv[1:]
    os.execve(argv[0], argv, env)
