"""The checks of ``Parameter.set_param_ps`` (MindSpore's): parameter-server training must be
on, the process must be one of the job's roles, and the parameter must not be one that
MindSpore initialises on the server."""
import os

from minispore.common.context import PYNATIVE_MODE, context
from minispore.common.ps_context import get_ps_context

__all__ = ["check_set_param_ps"]

_ROLES = ("MS_WORKER", "MS_PSERVER", "MS_SERVER", "MS_SCHED")


def check_set_param_ps(param, init_in_server):
    where = f"For 'Parameter.set_param_ps' of {param.name!r}"
    if not isinstance(init_in_server, bool):
        raise TypeError(f"{where}, 'init_in_server' must be bool, but got "
                        f"{type(init_in_server).__name__}.")
    role = os.environ.get("MS_ROLE", "")
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
