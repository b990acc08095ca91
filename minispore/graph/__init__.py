"""GRAPH mode: IR, Program and PassContext, tracer, graph passes, compile cache, executor,
ms.jit and IR dumps."""
from minispore.graph.jit import cache_info  # noqa: F401
