"""Graph autodiff (the `differentiate` pass): backward nodes traced from each node's `bprop`."""
from contextlib import contextmanager

from minispore.graph.ir import BACKWARD
from minispore.graph.tracer import Tracer
from minispore.ops.backprop import backprop


def differentiate(program, ctx):
    """Append the backward of ``program.grad`` (a GradRequest) to the graph.

    The gradients of ``sens * head`` w.r.t. each Value in ``wrt`` (one Value per wrt entry, in
    order; zeros where the head does not depend on it) land in ``program.grads`` for the
    update, or, with ``return_grads``, the graph returns ``(outputs, grads)``. Without a
    request the program is returned unchanged. The new nodes are phase BACKWARD, each derived
    from the forward node whose bprop made it.
    """
    request, program.grad = program.grad, None
    if request is None:
        return program
    graph = program.graph
    tracer = Tracer.of(graph)
    with tracer:
        grads = backward(tracer, request.head, request.sens, request.wrt)
    grads = [tracer.to_graph(g) for g in grads]
    if request.return_grads:
        graph.outputs = (graph.outputs, tuple(grads))
    else:
        program.grads = grads
    return program


def differentiable_from(graph, wrt):
    """Ids of the Values of `graph` that depend on a Value of `wrt` through differentiable
    nodes: the rule the backward follows, applied to the whole graph (what a partition into
    communicating segments must agree on before any segment is differentiated)."""
    live = {id(v) for v in wrt}
    for node in graph.nodes:
        if node.prim.differentiable and any(id(v) in live for v in node.input_values()):
            live.update(id(v) for v in node.outputs)
    return live


def backward(tracer, head, sens, wrt):
    """TracedTensor gradients of ``sens * head`` w.r.t. ``wrt`` (Values), traced into the
    tracer's graph (the tracer must be active) as phase BACKWARD nodes.

    Only nodes on a path from a wrt Value are walked (by ops' `backprop`, as the eager tape's
    entries are), and a bprop's deferred gradients are called only for inputs on such a path.
    A node whose primitive sets ``backward_always`` (one end of a communication pair) is walked
    in any case, gets its bprop call with zero cotangents where none arrived, and its outputs
    count as on such a path. ``head`` None seeds nothing: the cotangents then arrive only
    through those nodes (a placed segment without the loss). Each bprop's nodes derive from
    the node and sit in its scope under ``Gradients.``.
    """
    from minispore.ops import functional as F
    with tracer.in_phase(BACKWARD):
        live = {id(v) for v in wrt}
        forward = []
        for node in tracer.graph.nodes:
            if node.prim.differentiable and (node.prim.backward_always or
                                             any(id(v) in live for v in node.input_values())):
                forward.append(node)
                live.update(id(v) for v in node.outputs)
        seeds = []
        if head is not None:
            head_t = tracer.from_graph(head)
            seeds.append((head, F.fill(head_t.dtype, head_t.shape, sens)))

        def view(node):
            outs = [tracer.wrap(v) for v in node.outputs]
            args = [tracer.from_graph(x) for x in node.inputs]
            if node.tuple_output:
                return node.prim, args, tuple(outs), node.inputs, tuple(node.outputs)
            return node.prim, args, outs[0], node.inputs, node.outputs[0]

        cot = backprop(forward, seeds, live, view=view,
                       around=lambda node: _gradient_of(tracer, node))
        return [cot[id(w)] if id(w) in cot else F.zeros_like(tracer.from_graph(w)) for w in wrt]


@contextmanager
def _gradient_of(tracer, node):
    """The nodes traced inside are the backward of `node`: phase BACKWARD, derived from it,
    in its scope under ``Gradients.``."""
    tracer.scope_override = "Gradients." + node.scope
    try:
        with tracer.in_phase(BACKWARD, node):
            yield
    finally:
        tracer.scope_override = None
