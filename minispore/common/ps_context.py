"""The parameter-server context (MindSpore's set_ps_context / get_ps_context / reset_ps_context).

``enable_ps=True`` before ``init()`` turns on parameter-server training (minispore/ps/): the
MS_PSERVER processes of the job hold the parameters marked ``set_param_ps`` and update them.
``sync_mode`` is minispore's own key (MindSpore documents synchronous SGD only): True applies
the mean of every worker's gradient once per step, False applies each worker's push as it
arrives (asynchronous SGD). MindSpore's other keys are accepted at their defaults and refused
otherwise, each naming the mechanism minispore does not have.
"""
from minispore.common.context import PYNATIVE_MODE, context
from minispore.common.registry import REGISTRY, Option

# What a non-default value of these keys would ask for.
_UNBUILT = {
    "config_file_path": "parameter-server disaster recovery from a configuration file",
    "scheduler_manage_port": "the scheduler's HTTP port for scaling the cluster in and out",
    "enable_ssl": "SSL between the processes of the job",
    "client_password": "SSL between the processes of the job",
    "server_password": "SSL between the processes of the job",
}

__all__ = ["set_ps_context", "get_ps_context", "reset_ps_context", "check_set_param_ps"]


def _refuse_unbuilt(key, default):
    def check(value):
        if value != default:
            raise NotImplementedError(
                f"For 'set_ps_context', {key}={value!r} asks for {_UNBUILT[key]}, which "
                f"minispore's parameter server does not have; leave {key} at its default "
                f"{default!r}.")
    return check


def _option(name, default, kind, keys_compile=False):
    check = _refuse_unbuilt(name, default) if name in _UNBUILT else None
    return Option("ps", name, default=default, kind=kind, check=check,
                  keys_compile=keys_compile)


REGISTRY.declare(
    # the compiled step pulls the served parameters and pushes their gradients
    _option("enable_ps", False, bool, keys_compile=True),
    _option("sync_mode", True, bool),       # read by the servers as they start
    _option("config_file_path", "", str),
    _option("scheduler_manage_port", 11202, int),
    _option("enable_ssl", False, bool),
    _option("client_password", "", str),
    _option("server_password", "", str),
)
_NAMES = frozenset(REGISTRY.names("ps"))


def set_ps_context(**kwargs):
    """``set_ps_context(enable_ps=True, sync_mode=True)`` before ``init()``.

    Raises:
        ValueError: an unknown key.
        TypeError: a value of the wrong type.
        NotImplementedError: a non-default value of a key minispore does not implement.
    """
    REGISTRY.set("ps", **kwargs)


def get_ps_context(key):
    if key not in _NAMES:
        raise ValueError(f"For 'get_ps_context', the keyword argument {key!r} is not "
                         f"recognized! The valid keys are: {sorted(_NAMES)}.")
    return REGISTRY.get("ps", key)


def reset_ps_context():
    REGISTRY.reset("ps")


# The checks of Parameter.set_param_ps (MindSpore's): parameter-server training must be on,
# the process must be one of the job's roles, and the parameter must not be one that MindSpore
# initialises on the server.
_ROLES = ("MS_WORKER", "MS_PSERVER", "MS_SERVER", "MS_SCHED")


def is_role_sched():
    """Whether this process is the cluster's scheduler (MS_ROLE=MS_SCHED), which only routes
    the workers' rendezvous and builds no graph (MindSpore's _is_role_sched)."""
    return REGISTRY.env("MS_ROLE") == "MS_SCHED"


def check_set_param_ps(param, init_in_server):
    where = f"For 'Parameter.set_param_ps' of {param.name!r}"
    if not isinstance(init_in_server, bool):
        raise TypeError(f"{where}, 'init_in_server' must be bool, but got "
                        f"{type(init_in_server).__name__}.")
    role = REGISTRY.env("MS_ROLE")
    if not get_ps_context("enable_ps") or role not in _ROLES:
        raise RuntimeError(
            f"{where}, parameter-server training must be on: call "
            f"set_ps_context(enable_ps=True) before init() and export MS_ROLE (one of "
            f"{', '.join(_ROLES)}), but enable_ps is {get_ps_context('enable_ps')} and "
            f"MS_ROLE is {role or 'not set'}.")
    if context().mode == PYNATIVE_MODE:
        raise RuntimeError(f"{where}, parameter-server training runs in GRAPH_MODE only; call "
                           f"set_context(mode=GRAPH_MODE) first.")
    if init_in_server:
        if not (param.name or "").endswith("embedding_table"):
            raise RuntimeError(f"{where}, init_in_server=True is only for a parameter whose name "
                               f"ends with 'embedding_table'.")
        raise NotImplementedError(f"{where}, init_in_server=True (initialising the embedding "
                                  f"table on the server) is not implemented in minispore; the "
                                  f"servers take the value every process initialises from the "
                                  f"global seed.")
