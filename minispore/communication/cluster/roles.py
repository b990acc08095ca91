"""The role of this process in a job (MindSpore's MS_ROLE) and the dynamic-cluster settings read
from MindSpore's environment variables; a worker trains, the scheduler only coordinates, and a
parameter server (MS_PSERVER, with MS_SERVER_NUM > 0 and set_ps_context(enable_ps=True)) holds
and updates the parameters marked set_param_ps (minispore/ps/).

Two launches exist. Under ``mpirun -n N`` (or alone) every process is a worker and MPI's world
is the job. With ``MS_ROLE`` set, processes started independently (a shell loop, ``msrun``)
form one job at ``init()`` through the scheduler at ``MS_SCHED_HOST:MS_SCHED_PORT``
(scheduler.py, cluster_worker.py). Every variable is checked here, once, and an error names the
variable, its value and what is valid.
"""
import enum
import math
from dataclasses import dataclass

__all__ = ["Role", "ClusterConfig", "role_from_environment", "cluster_config_from_environment",
           "CLUSTER_VARS", "DEFAULT_TOPO_TIMEOUT"]


class Role(enum.Enum):
    WORKER = "MS_WORKER"
    SCHEDULER = "MS_SCHED"
    SERVER = "MS_PSERVER"


# MindSpore also accepts MS_SERVER for a parameter server.
_ROLE_ALIASES = {"MS_SERVER": Role.SERVER}


# MindSpore's dynamic-networking variables (mindspore_semantics.md §7.2) that minispore reads.
CLUSTER_VARS = ("MS_ROLE", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM", "MS_SERVER_NUM",
                "MS_NODE_ID", "MS_TOPO_TIMEOUT")
# The rest of MindSpore's cluster variables, refused while set: each names a mechanism minispore
# does not have, so accepting it would silently change nothing.
UNBUILT_VARS = {
    "MS_ENABLE_RECOVERY": "disaster recovery (restarting a failed worker from its checkpoint)",
    "MS_RECOVERY_PATH": "disaster recovery (restarting a failed worker from its checkpoint)",
    "MS_RECOVERY_INTERVAL": "disaster recovery (restarting a failed worker from its checkpoint)",
    "MS_WORKER_IP": "choosing the workers' own address (the scheduler sees where they connect from)",
    "MS_NODE_TIMEOUT": "heartbeats (a dead worker is noticed when its connection closes)",
    "MS_DISABLE_HEARTBEAT": "heartbeats (a dead worker is noticed when its connection closes)",
    "MS_RECEIVE_MSG_TIMEOUT": "MindSpore's RPC receive timeout",
    "MS_RETRY_INTERVAL_LOWER": "MindSpore's randomised RPC retry interval",
    "MS_RETRY_INTERVAL_UPPER": "MindSpore's randomised RPC retry interval",
}
# ... except in a job with parameter servers, whose servers checkpoint (minispore/ps/recovery.py).
PS_RECOVERY_VARS = ("MS_ENABLE_RECOVERY", "MS_RECOVERY_PATH", "MS_RECOVERY_INTERVAL")
# The size an MPI launcher gave the job (a dynamic-cluster process must run alone under one).
LAUNCH_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE")
# Every variable cluster_config_from_environment reads.
ENVIRONMENT_VARS = CLUSTER_VARS + tuple(UNBUILT_VARS) + LAUNCH_SIZE_VARS
DEFAULT_TOPO_TIMEOUT = 1800.0   # MindSpore's registration window: 30 minutes


@dataclass(frozen=True)
class ClusterConfig:
    """One process's dynamic-cluster settings. `topo_timeout` None waits forever (a negative
    MS_TOPO_TIMEOUT, as msrun's negative --cluster_time_out)."""
    role: Role
    sched_host: str
    sched_port: int
    worker_num: int
    node_id: str | None
    topo_timeout: float | None
    server_num: int = 0

    @property
    def size(self):
        """Processes in the job's MPI communicator: the workers, then the servers."""
        return self.worker_num + self.server_num

    @property
    def address(self):
        return f"{self.sched_host}:{self.sched_port}"


def _required(environ, var, meaning):
    value = environ.get(var, "")
    if not value:
        raise ValueError(f"For the dynamic cluster (MS_ROLE={environ['MS_ROLE']}), {var} must be "
                         f"set to {meaning}, but it is not set.")
    return value


def _integer(var, text, low, high, meaning):
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise ValueError(f"{var} must be {meaning}, but got {var}={text!r}.")
    return value


def _topo_timeout(text):
    if not text:
        return DEFAULT_TOPO_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value) or value == 0:
        raise ValueError(f"MS_TOPO_TIMEOUT must be a number of seconds (> 0; negative waits "
                         f"forever), but got MS_TOPO_TIMEOUT={text!r}.")
    return None if value < 0 else value


def _check_launch(environ, role):
    """A process that an MPI launcher started with several ranks is already in an MPI world
    with them; MPICH cannot connect processes of one world to each other again."""
    size = environ.get("PMI_SIZE") or environ.get("OMPI_COMM_WORLD_SIZE")
    if size and size != "1":
        raise NotImplementedError(
            f"MS_ROLE={role.value} is set in a process that an MPI launcher started as one of "
            f"{size} ranks: minispore runs a job either under mpirun (unset MS_ROLE and the other "
            f"MS_ variables) or as a dynamic cluster (start each process without mpirun, or "
            f"with msrun).")


def cluster_config_from_environment(environ):
    """The ClusterConfig of this process, or None when MS_ROLE is unset (an mpirun job).

    Raises:
        ValueError: a cluster variable without MS_ROLE, an unknown MS_ROLE, or a missing or
            malformed MS_SCHED_HOST / MS_SCHED_PORT / MS_WORKER_NUM / MS_SERVER_NUM /
            MS_TOPO_TIMEOUT (a server needs MS_SERVER_NUM > 0).
        NotImplementedError: a variable of UNBUILT_VARS, or MS_ROLE under a multi-rank mpirun.
    """
    with_servers = (environ.get("MS_SERVER_NUM") or "0") != "0"
    unbuilt = [v for v in UNBUILT_VARS if environ.get(v)
               and not (with_servers and v in PS_RECOVERY_VARS)]
    if unbuilt:
        var = unbuilt[0]
        raise NotImplementedError(
            f"{var}={environ[var]} asks for {UNBUILT_VARS[var]}, which minispore's dynamic "
            f"cluster does not have; unset {', '.join(unbuilt)}.")
    role_text = environ.get("MS_ROLE", "")
    if not role_text:
        stray = [v for v in CLUSTER_VARS if environ.get(v)]
        if stray:
            setting = ", ".join(f"{v}={environ[v]}" for v in stray)
            raise ValueError(f"{setting} is set but MS_ROLE is not: set MS_ROLE=MS_SCHED (one "
                             f"scheduler) or MS_WORKER (each worker) for the dynamic cluster, or "
                             f"unset {', '.join(stray)} to run under mpirun.")
        return None
    roles = {r.value: r for r in Role}
    roles.update(_ROLE_ALIASES)
    if role_text not in roles:
        raise ValueError(f"MS_ROLE must be one of {', '.join(roles)}, but got "
                         f"MS_ROLE={role_text!r}.")
    role = roles[role_text]
    servers = _integer("MS_SERVER_NUM", environ.get("MS_SERVER_NUM") or "0", 0, 1 << 20,
                       "a number of parameter servers >= 0")
    if role is Role.SERVER and servers == 0:
        raise ValueError(f"MS_ROLE={role_text} is a parameter server, but MS_SERVER_NUM is "
                         f"{environ.get('MS_SERVER_NUM') or 'not set'}: set MS_SERVER_NUM to the "
                         f"number of MS_PSERVER processes (the same in every process).")
    _check_launch(environ, role)
    host = _required(environ, "MS_SCHED_HOST", "the scheduler's IP address or host name")
    port = _integer("MS_SCHED_PORT", _required(environ, "MS_SCHED_PORT", "the scheduler's port"),
                    1024, 65535, "a port number in [1024, 65535]")
    workers = _integer("MS_WORKER_NUM", _required(environ, "MS_WORKER_NUM", "the number of "
                                                  "workers"), 1, 1 << 20,
                       "a positive number of workers")
    node_id = environ.get("MS_NODE_ID") or None
    if node_id is not None and node_id.lstrip("-").isdigit():
        _integer("MS_NODE_ID", node_id, 0, workers - 1,
                 f"a rank in [0, MS_WORKER_NUM={workers}) when it is an integer (it pins the "
                 f"worker's rank; any other text is a name, and the rank follows arrival order)")
        node_id = str(int(node_id))
    return ClusterConfig(role, host, port, workers, node_id,
                         _topo_timeout(environ.get("MS_TOPO_TIMEOUT", "")), servers)


def role_from_environment(environ):
    """Role.WORKER under mpirun (or alone); the role MS_ROLE names in a dynamic cluster.

    Raises:
        as cluster_config_from_environment.
    """
    config = cluster_config_from_environment(environ)
    return Role.WORKER if config is None else config.role
