"""Shared pieces of the graph tests: compile a function with the full pipeline, and the
gradient of a scalar function through the `differentiate` pass."""
from minispore.graph.compile import compile_graph
from minispore.graph.tracer import trace


def compile_fn(fn, tensors, name="f"):
    """(Executable, traced graph after the pipeline) for fn(*tensors)."""
    graph, _ = trace(fn, tensors, name)
    executable, _ = compile_graph(graph)
    return executable


def graph_grads(fn, tensors, positions, sens=1.0):
    """(output, gradients w.r.t. tensors[p] for p in positions) of fn, differentiated by the
    graph's `differentiate` pass and run by the executor."""
    graph, _ = trace(fn, tensors, "grad")
    graph.requests["grad"] = {"head": graph.outputs, "sens": sens, "return_grads": True,
                              "wrt": [graph.inputs[p] for p in positions]}
    executable, _ = compile_graph(graph)
    out, grads = executable.run([t.asnumpy() for t in tensors])
    return out, grads, executable
