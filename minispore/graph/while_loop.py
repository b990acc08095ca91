"""``while`` on a Tensor condition inside a compiled function: the While operator, its
gradient WhileGrad, and the runtime helper while_stmt that converted code calls
(graph/autograph.py). The branch tracing and graph replay are control_flow.py's."""
from minispore import device
from minispore.common import dtype as mstype
from minispore.common.parameter import TraceError
from minispore.common.tensor import Tensor, tensor_of
from minispore.graph.control_flow import (Undefined, _active_tracer, _Branch, _same_constant,
                                          _trace_branch, replay)
from minispore.graph.ir import Value
from minispore.graph.tracer import TracedTensor
from minispore.ops.autodiff import Tape
from minispore.ops.primitive import Aval, Primitive

__all__ = ["while_stmt", "While", "WhileGrad"]


def while_stmt(cond_fn, body_fn, state, names):
    """The converted form of ``while test: body``: `state` holds the current values of the
    variables the body assigns. While the condition is a Python value (or a Tensor with
    data) the loop runs as Python; from the first traced condition on, the remaining loop
    compiles into one While node."""
    state = tuple(state)
    test = cond_fn(*state)
    while not isinstance(test, TracedTensor):
        if not test:
            return state
        state = tuple(body_fn(*state))
        test = cond_fn(*state)
    return _traced_while(cond_fn, body_fn, state, tuple(names))


def _scalar_bool(test, what):
    from minispore.ops import functional as F
    if not isinstance(test, Tensor) or test.size != 1:
        raise TraceError(f"The condition of a {what} must be a Tensor of one element once it "
                         f"depends on a Tensor, but got {test!r}.")
    if tuple(test.shape) != ():
        test = F.reshape(test, ())
    return test if test.dtype == mstype.bool_ else F.cast(test, mstype.bool_)


def _traced_while(cond_fn, body_fn, state, names):
    parent = _active_tracer()
    carried = [i for i, s in enumerate(state) if isinstance(s, Tensor)]

    def cond_of(*values):
        full = list(state)
        for i, v in zip(carried, values):
            full[i] = v
        return (_scalar_bool(cond_fn(*full), "while"),)

    def body_of(*values):
        full = list(state)
        for i, v in zip(carried, values):
            full[i] = v
        out = tuple(body_fn(*full))
        for i, (before, after) in enumerate(zip(full, out)):
            if i in carried:
                continue
            if isinstance(after, Tensor) and isinstance(before, Undefined):
                raise TraceError(
                    f"Variable '{names[i]}' is first assigned inside a while loop on a Tensor "
                    f"condition; give it a value before the loop (the loop may run zero "
                    f"times).")
            if not isinstance(after, Undefined) and not _same_constant(before, after):
                raise TraceError(
                    f"Variable '{names[i]}' changes from {before!r} to {after!r} in the body "
                    f"of a while loop on a Tensor condition: a Python value cannot change "
                    f"with the number of iterations of a compiled loop; make it a Tensor.")
        return tuple(out[i] for i in carried)

    values = [state[i] for i in carried]
    cond_graph, cond_tracer, cond_out = _trace_branch(cond_of, values, parent, "cond", 1)
    body_graph, body_tracer, body_out = _trace_branch(body_of, values, parent, "body",
                                                      len(values))
    for k, (before, after) in enumerate(zip(values, body_out)):
        if not isinstance(after, Value) or tuple(after.shape) != tuple(before.shape) or \
                after.dtype != before.dtype:
            got = (f"shape {list(after.shape)} and dtype {after.dtype}"
                   if isinstance(after, Value) else type(after).__name__)
            raise TraceError(
                f"Variable '{names[carried[k]]}' enters a while loop on a Tensor condition with "
                f"shape {list(before.shape)} and dtype {before.dtype} but leaves its body with "
                f"{got}; a loop variable must keep its shape and dtype.")
    cond_graph.outputs = list(cond_out)
    body_graph.outputs = list(body_out)
    captures, where = [], {}
    for tracer in (cond_tracer, body_tracer):
        for outer in tracer.captures:
            if id(outer) not in where:
                where[id(outer)] = len(values) + len(captures)
                captures.append(outer)
    n = len(values)
    loop = While(_Branch(cond_graph, list(range(n)) + [where[id(o)] for o in
                                                        cond_tracer.captures], cond_out),
                 _Branch(body_graph, list(range(n)) + [where[id(o)] for o in
                                                        body_tracer.captures], body_out),
                 [v.aval for v in body_out], n)
    outs = loop(*values, *captures)
    result = list(state)
    for i, v in zip(carried, outs):
        result[i] = v
    return tuple(result)


def _run_loop(prim, arrays):
    """The While's loop on host or device arrays: the states before each trip and the last."""
    n = prim.n_carried
    tensors = [tensor_of(a, mstype.to_type(a.dtype)) for a in arrays]
    state, rest = tensors[:n], tensors[n:]
    states = [state]

    def pick(branch, full):
        return [full[i] for i in branch.input_index]

    while bool(device.to_host(replay(prim.cond.graph, pick(prim.cond, state + rest))[0]
                              ._require_data()).reshape(())):
        state = list(replay(prim.body.graph, pick(prim.body, state + rest)))
        states.append(state)
    return states, rest


class While(Primitive):
    """``While(cond, body, avals, n_carried)(*carried, *captures)``: while cond(carried) is
    true, carried = body(carried); returns the final carried values. The condition and the
    body are graphs traced once, so every trip count runs the same compiled node.

    Gradient (WhileGrad): the loop is run again from the inputs keeping the state before each
    trip (a stored-trip backward, memory linear in the trip count), then the body's
    vector-Jacobian product is applied trip by trip in reverse, the captures' gradients summed
    over the trips.
    """

    def __init__(self, cond, body, avals, n_carried):
        super().__init__("While")
        self.cond, self.body = cond, body
        self.avals, self.n_carried = tuple(avals), n_carried

    def infer(self, *inputs):
        return self.avals

    def subgraphs(self):
        return [("cond", self.cond.graph), ("body", self.body.graph)]

    def impl(self, *arrays):
        states, _ = _run_loop(self, arrays)
        return tuple(t._require_data() for t in states[-1])

    def bprop(self, inputs, out, dout):
        from minispore.ops import functional as F
        douts = [F.zeros_like(o) if d is None else d
                 for o, d in zip(out, dout if isinstance(dout, tuple) else (dout,))]
        n = self.n_carried
        inputs = list(inputs)
        floats = [t.dtype.is_float for t in inputs]
        body = self.body

        def body_vjp(*args):
            full, cot = list(args[:len(inputs)]), args[len(inputs):]
            with Tape() as tape:
                mine = [full[i] for i in body.input_index]
                for t in mine:
                    tape.watch(t)
                outs = replay(body.graph, mine)
            heads = [(o, c) for o, c, f in zip(outs, cot, floats[:n]) if f]
            grads = tape.backward([h for h, _ in heads], [c for _, c in heads]) if heads else {}
            return tuple((grads[id(full[i])] if id(full[i]) in grads else F.zeros_like(full[i]))
                         if floats[i] else F.zeros_like(full[i]) for i in range(len(full)))

        from minispore.common.context import context
        parent = context().tracer
        if parent is None:
            vjp_graph = None
            grads = _WhileGradRunner(self, body_vjp).run(inputs, douts)
        else:
            vjp_graph, vjp_tracer, vjp_out = _trace_branch(body_vjp, inputs + douts, parent,
                                                           "body_vjp", len(inputs))
            if vjp_tracer.captures:
                raise TraceError("The backward of a while loop read a value from outside its "
                                 "body (a minispore bug).")
            vjp_graph.outputs = list(vjp_out)
            grads = WhileGrad(self, vjp_graph)(*inputs, *douts)
        return tuple(g if f else None for g, f in zip(grads, floats))


class _WhileGradRunner:
    """WhileGrad's computation on Tensors (eagerly, for a While met outside a graph)."""

    def __init__(self, loop, body_vjp):
        self.loop, self.body_vjp = loop, body_vjp

    def run(self, inputs, douts):
        arrays = [t._require_data() for t in inputs]
        states, rest = _run_loop(self.loop, arrays)
        return _reverse_trips(states, rest, douts, self.body_vjp, self.loop.n_carried)


def _reverse_trips(states, rest, douts, vjp, n):
    from minispore.ops import functional as F
    cot = list(douts)
    dcaps = [F.zeros_like(r) for r in rest]
    for state in reversed(states[:-1]):
        grads = vjp(*state, *rest, *cot)
        cot = list(grads[:n])
        dcaps = [F.add(a, b) if a.dtype.is_float else a for a, b in zip(dcaps, grads[n:])]
    return tuple(cot) + tuple(dcaps)


class WhileGrad(Primitive):
    """``WhileGrad(loop, vjp_graph)(*inputs, *douts)``: the gradients of While `loop`'s inputs
    (see While). Not differentiable itself (minispore takes first-order gradients)."""
    differentiable = False

    def __init__(self, loop, vjp_graph):
        super().__init__("WhileGrad")
        self.loop, self.vjp_graph = loop, vjp_graph

    def infer(self, *args):
        n = len(args) - len(self.loop.avals)
        return tuple(Aval(tuple(a.shape), a.dtype) for a in args[:n])

    def subgraphs(self):
        return [("body_vjp", self.vjp_graph)]

    def impl(self, *arrays):
        n_in = len(arrays) - len(self.loop.avals)
        states, rest = _run_loop(self.loop, arrays[:n_in])
        douts = [tensor_of(a, mstype.to_type(a.dtype)) for a in arrays[n_in:]]

        def vjp(*args):
            return replay(self.vjp_graph, list(args))

        grads = _reverse_trips(states, rest, douts, vjp, self.loop.n_carried)
        return tuple(g._require_data() for g in grads)
