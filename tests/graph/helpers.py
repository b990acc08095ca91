"""Shared pieces of the graph tests: compile a function with the graph passes, and the
gradient of a scalar function through the `differentiate` pass."""
from minispore.graph.compile import compile_program
from minispore.graph.program import GradRequest, Program
from minispore.graph.tracer import trace


def compile_fn(fn, tensors, name="f"):
    """The Executable of fn(*tensors) after the graph passes."""
    graph, _ = trace(fn, tensors, name)
    executable, _ = compile_program(Program([graph]))
    return executable


def compile_grad(graph, wrt, sens=1.0):
    """The Executable of `graph` returning (outputs, gradients of sens * outputs w.r.t. the
    Values `wrt`)."""
    program = Program([graph], grad=GradRequest(graph.outputs, wrt, sens, return_grads=True))
    executable, _ = compile_program(program)
    return executable


def graph_grads(fn, tensors, positions, sens=1.0):
    """(output, gradients w.r.t. tensors[p] for p in positions) of fn, differentiated by the
    graph's `differentiate` pass and run by the executor."""
    graph, _ = trace(fn, tensors, "grad")
    executable = compile_grad(graph, [graph.inputs[p] for p in positions], sens)
    out, grads = executable.run([t.asnumpy() for t in tensors])
    return out, grads, executable
