"""GRAPH mode: IR, tracer, passes, compile cache, executor and IR dumps."""
from minispore.common import parameter as _parameter
from minispore.graph.jit import cache_info  # noqa: F401
from minispore.graph.tracer import TraceError as _TraceError

# Parameter (common) raises graph's TraceError when read while tracing, without importing graph.
_parameter.set_trace_error(_TraceError)
