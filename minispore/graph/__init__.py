"""GRAPH mode: IR, tracer, passes, compile cache, executor and IR dumps."""
from minispore.graph.jit import cache_info  # noqa: F401
