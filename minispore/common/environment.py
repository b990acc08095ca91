"""The environment variables minispore reads, declared in the settings registry (scope "env").

Each is read through ``REGISTRY.env(name)`` at the moment it is needed; those that change what a
compile produces key the compile cache (``keys_compile``) and reach passes through the
PassContext's options.
"""
import logging

from minispore.common.registry import REGISTRY, Option

logger = logging.getLogger("minispore")

__all__ = ["COMM_REUSE_DEFAULT_LIMIT", "environment"]

COMM_REUSE_DEFAULT_LIMIT = 1000    # MS_COMM_COMPILER_OPT=-1's reuse limit (MindSpore's)


def _save_graphs_level(text):
    if text not in ("0", "1", "2", "3"):
        raise ValueError(f"The environment variable MS_DEV_SAVE_GRAPHS must be 0, 1, 2 or 3, "
                         f"but got {text!r}.")
    return int(text)


def _switch_on_unless_zero(text):
    return text != "0"


def _comm_reuse_limit(text):
    """MS_COMM_COMPILER_OPT: -1 reuses communication subgraphs up to the default limit, a
    positive value is the limit; anything else turns reuse off, with a warning."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == -1:
        return COMM_REUSE_DEFAULT_LIMIT
    if value > 0:
        return value
    logger.warning("MS_COMM_COMPILER_OPT=%r turns communication subgraph reuse off: use -1 "
                   "(reuse limit %d) or a positive reuse limit.", text, COMM_REUSE_DEFAULT_LIMIT)
    return None


def _env(name, default=None, parse=None, keys_compile=False):
    return Option("env", name, default=default, env=name, parse=parse,
                  keys_compile=keys_compile)


REGISTRY.declare(
    # MindSpore's: the defaults of set_context's save_graphs and save_graphs_path
    _env("MS_DEV_SAVE_GRAPHS", 0, _save_graphs_level),
    _env("MS_DEV_SAVE_GRAPHS_PATH", "."),
    # MindSpore's: MS_JIT=0 runs every compiled function eagerly
    _env("MS_JIT", True, _switch_on_unless_zero),
    # MindSpore's: the reuse limit of communication subgraphs (None: reuse off)
    _env("MS_COMM_COMPILER_OPT", None, _comm_reuse_limit, keys_compile=True),
    # MindSpore's: search_mode='recursive_programming' keeps the user's strategies when "1"
    _env("MS_INTERFERED_SAPP", False, lambda text: text == "1", keys_compile=True),
    # MindSpore's: this process's role in a dynamic cluster (MS_WORKER, MS_PSERVER, MS_SCHED)
    _env("MS_ROLE", ""),
    # minispore's A/B switches: GRAPH mode's buffer planning and elementwise fusion
    _env("MINISPORE_MEMORY_PLAN", True, _switch_on_unless_zero, keys_compile=True),
    _env("MINISPORE_FUSION", True, _switch_on_unless_zero, keys_compile=True),
    # where generated fused kernels are written (default: under NUMBA_CACHE_DIR)
    _env("MINISPORE_FUSED_DIR", ""),
    _env("NUMBA_CACHE_DIR", ""),
)

# Read by minispore.communication when init() starts (which role and cluster this process has,
# the watchdog, the collective check, the cluster token, the thread pools). Declared as text:
# the communication modules validate them with their own messages, through ``environment``.
# (MS_ROLE above is one of them.) Only communication/cluster/forker.py reads os.environ itself:
# it runs as ``python -I forker.py``, without minispore; and relaunch.py hands this process's
# whole environment on to the process it relaunches.
COMMUNICATION_VARS = (
    # MindSpore's dynamic-networking variables (communication/cluster/roles.py) ...
    "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM", "MS_SERVER_NUM", "MS_NODE_ID",
    "MS_TOPO_TIMEOUT",
    # ... those refused while set (roles.UNBUILT_VARS), the servers' recovery among them ...
    "MS_ENABLE_RECOVERY", "MS_RECOVERY_PATH", "MS_RECOVERY_INTERVAL", "MS_WORKER_IP",
    "MS_NODE_TIMEOUT", "MS_DISABLE_HEARTBEAT", "MS_RECEIVE_MSG_TIMEOUT",
    "MS_RETRY_INTERVAL_LOWER", "MS_RETRY_INTERVAL_UPPER",
    # ... the MPI launcher's, which say this process runs under one (and its size)
    "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE",
    # the launcher a dynamic-cluster process was relaunched under, and MPICH's netmod, which
    # must be libfabric's for a worker's MPI_Comm_connect (cluster/relaunch.py)
    "MINISPORE_CLUSTER_LAUNCHER_PID", "MPIR_CVAR_CH4_NETMOD",
    # the cluster token (communication/cluster/cluster_token.py)
    "MS_CLUSTER_TOKEN", "MS_CLUSTER_TOKEN_FILE",
    # the watchdog (communication/watch/watchdog.py) and the full collective check (_comm.py)
    "MS_COMM_TIMEOUT", "MS_COMM_WATCHDOG", "MINISPORE_CHECK_COLLECTIVES",
    # the thread pools a user sized (communication/threads.py)
    "NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
)
REGISTRY.declare(*(_env(name) for name in COMMUNICATION_VARS))


def environment(names):
    """{name: text} of the declared environment variables `names` that are set (not empty), as
    the registry read them: the mapping the functions that take an ``environ`` read."""
    found = {}
    for name in names:
        value = REGISTRY.env(name)
        if value is not None and value != "":
            found[name] = value
    return found
