"""The environment variables minispore reads, declared in the settings registry (scope "env").

Each is read through ``REGISTRY.env(name)`` at the moment it is needed; those that change what a
compile produces key the compile cache (``keys_compile``) and reach passes through the
PassContext's options.
"""
import logging

from minispore.common.registry import REGISTRY, Option

logger = logging.getLogger("minispore")

__all__ = ["COMM_REUSE_DEFAULT_LIMIT"]

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
