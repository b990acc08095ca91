"""Graph autodiff (the `differentiate` pass): backward nodes traced from each node's `bprop`."""
from minispore.graph.ir import BACKWARD, Value
from minispore.graph.tracer import Tracer


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

    Nodes are visited in reverse; only nodes on a path from a wrt Value get a bprop call, and
    a bprop's deferred gradients (zero-argument callables) are called only for inputs on such
    a path, as in the eager tape. A node whose primitive sets ``backward_always`` (one end of a
    communication pair) gets its bprop call in any case, with zero cotangents where none
    arrived, and its outputs count as on such a path. ``head`` None seeds nothing: the
    cotangents then arrive only through those nodes (a placed segment without the loss).
    """
    with tracer.in_phase(BACKWARD):
        return _backward(tracer, head, sens, wrt)


def _backward(tracer, head, sens, wrt):
    from minispore.ops import functional as F
    graph = tracer.graph
    live = {id(v) for v in wrt}
    forward = []
    for node in graph.nodes:
        if node.prim.differentiable and (node.prim.backward_always or
                                         any(id(v) in live for v in node.input_values())):
            forward.append(node)
            live.update(id(v) for v in node.outputs)
    cot = {}
    if head is not None:
        head_t = tracer.from_graph(head)
        cot[id(head)] = F.fill(head_t.dtype, head_t.shape, sens)
    for node in reversed(forward):
        douts = [cot.get(id(v)) for v in node.outputs]
        outs = [tracer.wrap(v) for v in node.outputs]
        if all(d is None for d in douts):
            if not node.prim.backward_always:
                continue
            douts = [F.zeros_like(o) for o in outs]
        if not node.tuple_output:
            out, dout = outs[0], douts[0]
        else:
            out = tuple(outs)
            dout = tuple(F.zeros_like(o) if d is None else d for o, d in zip(outs, douts))
        args = [tracer.from_graph(x) for x in node.inputs]
        tracer.scope_override = "Gradients." + node.scope
        try:
            with tracer.in_phase(BACKWARD, node):
                _backprop_node(node, args, out, dout, live, cot)
        finally:
            tracer.scope_override = None
    return [cot[id(w)] if id(w) in cot else F.zeros_like(tracer.from_graph(w)) for w in wrt]


def _backprop_node(node, args, out, dout, live, cot):
    grads = node.prim.bprop(args, out, dout)
    if len(grads) != len(args):
        raise RuntimeError(f"bprop of '{node.prim.name}' returned {len(grads)} gradients "
                           f"for {len(args)} inputs")
    for x, g in zip(node.inputs, grads):
        if g is not None and isinstance(x, Value) and id(x) in live:
            g = g() if callable(g) else g
            cot[id(x)] = cot[id(x)] + g if id(x) in cot else g
