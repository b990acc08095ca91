"""Puts a dynamic-cluster worker under ``mpiexec -n 1`` before it runs: the one step that lets
processes no MPI launcher started join one MPI communicator.

Why: MPICH gives every singleton process (one started without mpiexec) the same process-group
identity, so two singletons cannot connect (MPI_Comm_connect/accept and MPI_Comm_join fail with
"Local and remote groups ... must not contain the same processes"). A process started by
``mpiexec -n 1`` has a job of its own, and such processes connect. So ``import minispore`` in a
process with MS_ROLE=MS_WORKER and no MPI launcher replaces the process (``exec``, same pid) by
``mpiexec -n 1 python <its own command line>``; the script then starts afresh under Hydra, which
forwards its output, signals and exit status, and ``init()`` connects it to the other workers
(cluster_worker.py). Doing it at import, before the script's first statement past
``import minispore``, means nothing the script does runs twice.

The worker's stdin is /dev/null: Hydra would otherwise read the terminal from a background
process (``python train.py &``), which stops it. MindSpore's workers run in the background.

A job whose scheduler is on a loopback address runs on one host (no other host could reach
it), so its workers' MPI netmods listen on loopback only (LOOPBACK_VARS, unless the user set
them), as minispore.run's ranks do; otherwise UCX also listens on the host's address.
"""
import ipaddress
import os
import shutil
import socket
import sys

from minispore.communication.roles import Role, cluster_config_from_environment

# Every rank on this host: the MPI netmods need no interface but loopback. UCX (the `mpich`
# wheel's default netmod) and libfabric's tcp and sockets providers (MPIR_CVAR_CH4_NETMOD=ofi)
# otherwise listen on the host's address too; shared memory carries the traffic either way.
LOOPBACK_VARS = {"UCX_NET_DEVICES": "lo", "FI_TCP_IFACE": "lo", "FI_SOCKETS_IFACE": "lo"}

# The pid the user (or msrun) started, now mpiexec's: the worker exits when it dies, since Hydra
# leaves its processes running when mpiexec is SIGKILLed.
LAUNCHER_PID_VAR = "MINISPORE_CLUSTER_LAUNCHER_PID"
MPI_LAUNCHED_VARS = ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK")


def find_mpiexec(explicit=None):
    """(path, note): the MPI launcher of this environment (the `mpich` wheel's, beside the
    running Python), else one on PATH with a note saying so.

    Raises:
        FileNotFoundError: neither beside the interpreter nor on PATH.
    """
    if explicit:
        return explicit, None
    here = os.path.dirname(sys.executable)
    for name in ("mpirun", "mpiexec"):
        candidate = os.path.join(here, name)
        if os.access(candidate, os.X_OK):
            return candidate, None
    for name in ("mpirun", "mpiexec"):
        found = shutil.which(name)
        if found:
            return found, (f"minispore: no mpirun beside {sys.executable}; using {found} "
                           f"from PATH (it must be the MPI that mpi4py was built against)")
    raise FileNotFoundError("minispore: no mpirun or mpiexec found beside the Python "
                            "interpreter or on PATH; install the 'mpich' wheel "
                            "(pip install mpich) or a system MPI.")


def is_loopback(host):
    """Whether `host` (a name or an address) resolves to a loopback address."""
    try:
        return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        return False


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


def relaunch_worker_under_mpiexec(environ=None):
    """Replace this process by ``mpiexec -n 1 python <argv>`` when needs_relaunch(environ);
    otherwise return."""
    environ = os.environ if environ is None else environ
    if not needs_relaunch(environ):
        return
    mpiexec, note = find_mpiexec()
    if note:
        print(note, file=sys.stderr)
    env = dict(environ)
    env[LAUNCHER_PID_VAR] = str(os.getpid())
    if is_loopback(cluster_config_from_environment(environ).sched_host):
        for var, value in LOOPBACK_VARS.items():
            env.setdefault(var, value)
    sys.stdout.flush()
    sys.stderr.flush()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.execve(mpiexec, [mpiexec, "-n", "1", sys.executable] + sys.orig_argv[1:], env)
