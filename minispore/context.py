"""`mindspore.context`: the module-path MindSpore scripts use for set_context and friends."""
from minispore.common.auto_parallel_context import (ParallelMode, get_auto_parallel_context,
                                                    reset_auto_parallel_context,
                                                    set_auto_parallel_context)
from minispore.common.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "ParallelMode", "get_auto_parallel_context",
           "get_context", "reset_auto_parallel_context", "set_auto_parallel_context",
           "set_context"]
