"""Shared pieces of the graph tests: compile a function with the graph passes, and the
gradient of a scalar function through the `differentiate` pass, and the PYNATIVE vs GRAPH
training comparison."""
import numpy as np

from minispore.graph.compile import compile_program
from minispore.ops.primitive import Aval, Primitive
from minispore.graph.program import GradRequest, Program
from minispore.graph.tracer import trace


def compile_fn(fn, tensors, name="f"):
    """The Executable of fn(*tensors) after the graph passes."""
    graph, _ = trace(fn, tensors, name)
    executable, _ = compile_program(Program([graph]))
    return executable


class CopyOut(Primitive):
    """y = a copy of x. A graph returning CopyOut(v) keeps v an intermediate, so the memory
    plan may give v's node a reused buffer (what a graph's own outputs never get)."""
    fresh_outputs = True
    differentiable = False

    def infer(self, x):
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        return x.copy()


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


def assert_training_runs_agree(eager, graph):
    """Two runs of one training loop, PYNATIVE and GRAPH, each (losses, final output, final
    parameters), agree to float32 rounding; the loss fell."""
    np.testing.assert_allclose(graph[0], eager[0], rtol=1e-5)
    np.testing.assert_allclose(graph[1], eager[1], rtol=1e-5, atol=1e-6)
    for g, e in zip(graph[2], eager[2]):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert eager[0][-1] < eager[0][0]
