"""`if` on a Tensor value inside a compiled function: the If operator and the runtime helper that
converted code calls (graph/autograph.py rewrites ``if`` statements into ``if_stmt`` calls).

Eagerly, or when the condition is a Python value (or a Tensor with data), ``if_stmt`` runs the
chosen branch as plain Python, exactly as the statement would. When the condition is a traced
Tensor, both branches are traced into subgraphs of their own and one If node joins them: its
inputs are the condition, the variables the branches assign (their values before the if) and
every outer Tensor or Parameter a branch reads; its outputs are the variables' values after
it. At run time the node runs the branch the condition picks, so one compiled graph serves
both outcomes. Its gradient is another If, over the two branches' vector-Jacobian products, so
only the taken branch's backward runs. Branches must leave each Tensor variable with one shape
and dtype on both sides; a variable set in one branch only is undefined after the if.
"""
from minispore import device
from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter, TraceError
from minispore.common.tensor import Tensor, tensor_of
from minispore.graph.ir import Graph, Value
from minispore.graph.tracer import TracedTensor, Tracer
from minispore.ops.autodiff import Tape
from minispore.ops.primitive import Aval, Primitive

__all__ = ["if_stmt", "Undefined", "If", "replay"]


class Undefined:
    """The value of a variable that a branch of an `if` on a Tensor did not assign: using it
    (an attribute, an operator, a call, a truth test) raises, naming the variable."""

    def __init__(self, name):
        object.__setattr__(self, "name", name)

    def _used(self, *args, **kwargs):
        raise NameError(f"Variable '{self.name}' is assigned in only one branch of an if on a "
                        f"Tensor value and is undefined after it; assign it before the if or "
                        f"in both branches.")

    def __getattr__(self, attr):
        self._used()

    def __repr__(self):
        return f"<undefined {self.name}>"


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
            "xor", "lt", "le", "gt", "ge"):
    setattr(Undefined, f"__{_op}__", Undefined._used)
    setattr(Undefined, f"__r{_op}__", Undefined._used)
for _op in ("neg", "pos", "abs", "invert", "bool", "len", "iter", "getitem", "call",
            "setattr"):
    setattr(Undefined, f"__{_op}__", Undefined._used)
del _op


def if_stmt(test, true_fn, false_fn, state, names):
    """The converted form of ``if test: ... else: ...``: `state` holds the current values of
    the variables the branches assign (`names`), each branch takes and returns them."""
    if not isinstance(test, TracedTensor):
        return true_fn(*state) if test else false_fn(*state)
    return _traced_if(test, true_fn, false_fn, tuple(state), tuple(names))


# -- tracing the branches -----------------------------------------------------------------------
class _BranchTracer(Tracer):
    """Traces one branch into its own graph. A Tensor of the enclosing graph or a Parameter that
    the branch reads becomes an input of the branch graph (a capture); the If node takes the
    outer value in its place."""

    def __init__(self, graph, parent):
        super().__init__(graph)
        graph.tracer = self
        self.parent = parent
        self.captures = []          # outer TracedTensors / Parameters, in input order
        self._captured = {}

    def to_graph(self, obj):
        if isinstance(obj, TracedTensor) and obj._value is not self._lookup(obj._value):
            return self._capture(obj, id(obj._value))
        if isinstance(obj, Parameter):
            return self._capture(obj, ("param", id(obj)))
        return super().to_graph(obj)

    def _capture(self, outer, key):
        value = self._captured.get(key)
        if value is None:
            value = self.graph.new_value(Aval(tuple(outer.shape), outer.dtype),
                                         name=f"capture{len(self.captures)}")
            self.graph.inputs.append(value)
            self.wrap(value)
            self.captures.append(outer)
            self._captured[key] = value
        return value


class _Branch:
    """A traced branch: its graph, where each of its inputs comes from among the If's inputs,
    and its outputs (Values, or Python values that are the same in both branches)."""

    def __init__(self, graph, input_index, outputs):
        self.graph, self.input_index, self.outputs = graph, input_index, outputs


def _trace_branch(fn, state, parent, label, n_out):
    graph = Graph(f"{parent.graph.name}.{label}")
    tracer = _BranchTracer(graph, parent)
    args = [tracer.add_input(s) if isinstance(s, Tensor) else s for s in state]
    with tracer:
        out = fn(*args)
    if not isinstance(out, tuple) or len(out) != n_out:
        raise TraceError(f"The {label} branch of an if on a Tensor returned {out!r}; it must "
                         f"return its {n_out} assigned variables (a minispore bug).")
    for node in graph.nodes:
        if node.side_effect:
            raise NotImplementedError(
                f"'{node.prim.name}' writes in place inside the {label} branch of an if on a "
                f"Tensor value; minispore does not compile in-place writes (Assign, optimizer "
                f"updates) inside such a branch. Compute the new value in the branch and "
                f"assign it after the if.")
    return graph, tracer, [tracer.to_graph(o) if isinstance(o, Tensor) else o for o in out]


def _same_constant(a, b):
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:   # values whose == is not a plain bool (arrays) count as different
        return False


def _traced_if(test, true_fn, false_fn, state, names):
    if test.size != 1:
        raise TraceError(f"The condition of an if must be a Tensor of one element, but got "
                         f"shape {list(test.shape)}.")
    from minispore.ops import functional as F
    pred = test
    if tuple(test.shape) != ():
        pred = F.reshape(pred, ())
    if test.dtype != mstype.bool_:
        pred = F.cast(pred, mstype.bool_)
    parent = _active_tracer()
    traced = [_trace_branch(fn, state, parent, label, len(names))
              for fn, label in ((true_fn, "true"), (false_fn, "false"))]
    # The If's inputs: the assigned variables that hold Tensors, then every capture once.
    operands = [s for s in state if isinstance(s, Tensor)]
    captures, where = [], {}
    for _, tracer, _ in traced:
        for outer in tracer.captures:
            key = id(outer)
            if key not in where:
                where[key] = len(operands) + len(captures)
                captures.append(outer)
    branches = []
    for graph, tracer, outs in traced:
        index = list(range(len(operands))) + [where[id(o)] for o in tracer.captures]
        branches.append(_Branch(graph, index, outs))
    results, tensor_slots, avals = [], [], []
    for i, name in enumerate(names):
        a, b = branches[0].outputs[i], branches[1].outputs[i]
        if isinstance(a, Value) and isinstance(b, Value):
            if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
                raise TraceError(
                    f"Variable '{name}' is a Tensor of shape {list(a.shape)} and dtype "
                    f"{a.dtype} after the true branch of an if on a Tensor but of shape "
                    f"{list(b.shape)} and dtype {b.dtype} after the false branch; both branches "
                    f"must leave it with one shape and dtype.")
            results.append(None)
            tensor_slots.append(i)
            avals.append(a.aval)
        elif isinstance(a, Undefined) or isinstance(b, Undefined):
            results.append(Undefined(name))
        elif isinstance(a, Value) or isinstance(b, Value):
            raise TraceError(f"Variable '{name}' is a Tensor after one branch of an if on a "
                             f"Tensor and {type(b if isinstance(a, Value) else a).__name__} "
                             f"after the other; both branches must leave it a Tensor.")
        elif _same_constant(a, b):
            results.append(a)
        else:
            raise TraceError(f"Variable '{name}' is {a!r} after the true branch of an if on a "
                             f"Tensor and {b!r} after the false branch: a Python value cannot "
                             f"depend on a Tensor's value in a compiled graph.")
    if not tensor_slots:
        return tuple(results)
    for branch in branches:
        branch.outputs = [branch.outputs[i] for i in tensor_slots]
        branch.graph.outputs = list(branch.outputs)
    outs = If(branches, avals)(pred, *operands, *captures)
    for slot, value in zip(tensor_slots, outs):
        results[slot] = value
    return tuple(results)


def _active_tracer():
    from minispore.common.context import context
    tracer = context().tracer
    if tracer is None:
        raise TraceError("An if on a traced Tensor outside a compiled function (a minispore "
                         "bug).")
    return tracer


# -- running a branch graph -------------------------------------------------------------------
def replay(graph, inputs):
    """Run `graph`'s nodes on `inputs` (Tensors, one per graph input) through the active
    interpreter: eagerly when none traces, into the current graph when one does. Returns the
    graph's outputs in its output structure, Tensors for Values."""
    env = {id(v): t for v, t in zip(graph.inputs, inputs)}

    def resolve(x):
        if isinstance(x, Value):
            if x.param is not None:
                return x.param
            return env[id(x)]
        if isinstance(x, tuple):
            return tuple(resolve(y) for y in x)
        if isinstance(x, list):
            return [resolve(y) for y in x]
        return x

    for node in graph.nodes:
        out = node.prim(*[resolve(a) for a in node.inputs])
        if node.tuple_output:
            for v, t in zip(node.outputs, out):
                env[id(v)] = t
        else:
            env[id(node.outputs[0])] = out
    return [resolve(o) for o in graph.outputs] if isinstance(graph.outputs, list) \
        else resolve(graph.outputs)


class If(Primitive):
    """``If(branches, avals)(pred, *inputs)``: runs the true or the false branch graph on its
    inputs and returns its outputs (a tuple, one per Tensor variable the if assigns).

    Gradient: an If over the branches' vector-Jacobian products (zeros for inputs the taken
    branch does not read), so the backward also runs one branch only.
    """
    side_effect = False

    def __init__(self, branches, avals):
        super().__init__("If")
        self.branches = branches
        self.avals = tuple(avals)

    def infer(self, pred, *inputs):
        return self.avals

    def subgraphs(self):
        """(label, graph) of each branch, for the IR dump."""
        return [("true", self.branches[0].graph), ("false", self.branches[1].graph)]

    def impl(self, pred, *arrays):
        taken = self.branches[0 if bool(device.to_host(pred).reshape(())) else 1]
        tensors = [tensor_of(arrays[i], mstype.to_type(arrays[i].dtype))
                   for i in taken.input_index]
        outs = replay(taken.graph, tensors)
        return tuple(o._require_data() for o in outs)

    def bprop(self, inputs, out, dout):
        from minispore.ops import functional as F
        pred, operands = inputs[0], list(inputs[1:])
        douts = [F.zeros_like(o) if d is None else d
                 for o, d in zip(out, dout if isinstance(dout, tuple) else (dout,))]
        floats = [isinstance(t, Tensor) and t.dtype.is_float for t in operands]

        def vjp_of(branch):
            def branch_vjp(*args):
                ins, cot = args[:len(operands)], args[len(operands):]
                with Tape() as tape:
                    mine = [ins[i] for i in branch.input_index]
                    for t in mine:
                        tape.watch(t)
                    outs = replay(branch.graph, mine)
                grads = tape.backward(list(outs), list(cot))
                return tuple(
                    (grads[id(ins[i])] if id(ins[i]) in grads else F.zeros_like(ins[i]))
                    if floats[i] else None
                    for i in range(len(operands)))
            return branch_vjp

        names = tuple(f"d_input{i}" for i in range(len(operands)))
        state = tuple(operands) + tuple(douts)
        if not isinstance(pred, TracedTensor):
            grads = (vjp_of(self.branches[0]) if bool(pred.asnumpy()) else
                     vjp_of(self.branches[1]))(*state)
        else:
            grads = _traced_if(pred, vjp_of(self.branches[0]), vjp_of(self.branches[1]), state,
                               names)
        return (None,) + tuple(grads)
