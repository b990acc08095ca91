"""Control flow on Tensor values in compiled graphs: the If and While nodes, whose branches and
body are subgraphs traced once, and their backward nodes.

A branch (or a loop's condition and body) is traced by a `BranchTracer` into a Graph of its
own. Whatever it reads from the enclosing graph (its TracedTensors, Parameters) becomes an
input of the subgraph and an operand of the node, so a subgraph holds no parameters and the
node's operands say everything it depends on: the memory plan, DCE and autodiff of the
enclosing graph see an ordinary node with ordinary Values in and out. Each subgraph runs
through an Executable of its own (graph/executor.py), built at the first run on a device.

Gradients recompute: the node keeps no intermediates of its subgraphs, so the backward of a
branch replays the branch's forward and differentiates it (`_backward_graph`), and the
backward of a loop runs the loop forward again, keeping each iteration's carries, then runs
the body's backward that many times in reverse (`WhileGrad`). This keeps every Value's shape
static (a stored stack of carries would have a data-dependent length) and keeps the nodes free
of state shared between runs, at the price of running the taken branch or the loop twice in a
training step. Operators that would not give the same outputs when run again (random draws)
are refused in a differentiated subgraph, as the replay would differentiate other draws.
"""
from minispore.common.context import context
from minispore.common.dtype import bool_
from minispore.common.parameter import Parameter, TraceError
from minispore.common.tensor import Tensor
from minispore.device import active_device, astype, to_host
from minispore.device import zeros as device_zeros
from minispore.graph.ir import Graph, Node, Value, flatten
from minispore.graph.tracer import TracedTensor, Tracer
from minispore.ops.primitive import Aval, Primitive

_CTX = context()


class BranchTracer(Tracer):
    """Traces a branch, loop condition or loop body into its own Graph. A TracedTensor of an
    enclosing graph, or a Parameter, met as an argument becomes a new input of this graph (a
    capture); ``captures`` lists the enclosing graph's Values in the order of those inputs,
    after the graph's explicit inputs."""

    def __init__(self, graph, parent):
        super().__init__(graph)
        self.parent = parent
        self.captures = []
        self._captured = {}
        self.param_of = {}      # id(input Value) -> the Parameter it captured

    def to_graph(self, obj):
        if isinstance(obj, TracedTensor):
            if self._lookup(obj._value) is obj._value:
                return obj._value
            return self._capture(obj)
        if isinstance(obj, Parameter):
            return self._capture_param(obj)
        return super().to_graph(obj)

    def param_value(self, param):
        return self._capture_param(param)

    def _capture_param(self, param):
        inner = self._capture(param)
        self.param_of[id(inner)] = param
        return inner

    def _capture(self, tensor):
        outer = self.parent.to_graph(tensor)
        inner = self._captured.get(id(outer))
        if inner is None:
            inner = self.graph.new_value(outer.aval, name=f"input{len(self.graph.inputs)}")
            self.graph.inputs.append(inner)
            self.captures.append(outer)
            self._captured[id(outer)] = inner
        return inner

    def check_replace(self, old, new, name):
        if self._lookup(getattr(old, "_value", None)) is None:
            raise NotImplementedError(
                f"For '{name}', writing in place into a Tensor made outside a branch or loop body "
                f"on a Tensor condition is not supported in GRAPH_MODE; assign a new variable "
                f"(y = ops.tensor_scatter_update(...)) instead.")


def trace_subgraph(fn, name, carries=()):
    """Trace ``fn(*inputs)`` into a new Graph under a BranchTracer of the active tracer:
    `carries` are the Avals of the explicit inputs (a loop's carries). Returns (graph, tracer,
    what fn returned). The tapes on the stack do not record the subgraph's operators: the node
    built from it is what they record."""
    parent = _CTX.tracer
    graph = Graph(name)
    tracer = BranchTracer(graph, parent)
    inputs = []
    for k, aval in enumerate(carries):
        v = graph.new_value(aval, name=f"carry{k}")
        graph.inputs.append(v)
        inputs.append(tracer.wrap(v))
    with _CTX.tapes_suspended(), tracer:
        out = fn(*inputs)
    return graph, tracer, out


def join_inputs(subgraphs, explicit=0):
    """Give every subgraph the same inputs: its `explicit` first inputs, then one per Value any
    of them captured (in first-capture order); a graph that did not capture one gets an input
    it does not read. Returns the captured Values of the enclosing graph, in that order."""
    order, seen = [], set()
    for _, tracer in subgraphs:
        for v in tracer.captures:
            if id(v) not in seen:
                seen.add(id(v))
                order.append(v)
    for graph, tracer in subgraphs:
        own = dict(zip((id(v) for v in tracer.captures), graph.inputs[explicit:]))
        extra = [own.get(id(v)) or graph.new_value(v.aval, name=f"unused{k}")
                 for k, v in enumerate(order)]
        graph.inputs = graph.inputs[:explicit] + extra
    return order


def take_parameter_writes(graph, tracer):
    """Take the in-place writes of Parameters out of a branch: returns ({id(Parameter):
    (Parameter, the Value of its new contents)}, {id(removed Value): Value standing for it}).
    An Assign node is removed (the written value is the new contents); an optimizer update
    (SGD, Adam, ...: side-effect primitives with `tensor_args`) becomes a FunctionalUpdate node
    that runs the same kernel on copies and returns them. The If node then returns each such
    Parameter's contents after the branch (the Parameter as it was, in a branch that leaves
    it), and one Assign after the node writes it, so only the taken branch's writes act.
    Refused (NotImplementedError, naming the operator): a write into a tensor that is not a
    Parameter, a value of another dtype, and a read of a Parameter after the branch wrote it
    (the branch holds its value at entry)."""
    from minispore.ops.operations.array_ops import Assign
    writes, written, subst, kept = {}, set(), {}, []

    def refuse(node, why):
        raise NotImplementedError(
            f"The operator '{node.prim.name}' (at {node.scope}) in '{graph.name}', a branch of "
            f"an `if` on a Tensor condition in GRAPH_MODE: {why}.")

    def param_at(node, k):
        target = node.inputs[k]
        param = tracer.param_of.get(id(target)) if isinstance(target, Value) else None
        if param is None:
            refuse(node, "only writes into a Parameter are supported there")
        return param
    for node in graph.nodes:
        node.inputs = [substituted(x, subst) for x in node.inputs]
        if any(id(v) in written for v in node.input_values()):
            refuse(node, "it reads a Parameter the branch wrote before, which is not supported")
        if not node.side_effect:
            kept.append(node)
        elif isinstance(node.prim, Assign):
            param, value = param_at(node, 0), node.inputs[1]
            if not isinstance(value, Value) or value.aval.dtype != node.inputs[0].aval.dtype:
                refuse(node, f"the value written into '{param.name}' must be a computed Tensor "
                             f"of the Parameter's dtype {node.inputs[0].aval.dtype}")
            writes[id(param)] = (param, value)
            written.add(id(node.inputs[0]))
            subst[id(node.outputs[0])] = value
        elif getattr(node.prim, "tensor_args", ()):
            positions = [k for k, name in enumerate(node.prim.tensor_args) if name != "gradient"]
            params = [param_at(node, k) for k in positions]
            update = Node(FunctionalUpdate(node.prim, positions), node.inputs, (), node.scope,
                          node.annotations, tuple_output=True, phase=node.phase)
            update.outputs = [graph.new_value(node.inputs[k].aval, update, i)
                              for i, k in enumerate(positions)]
            kept.append(update)
            for k, param, new in zip(positions, params, update.outputs):
                writes[id(param)] = (param, new)
                written.add(id(node.inputs[k]))
            for old, new in zip(node.outputs, update.outputs):
                subst[id(old)] = new
        else:
            refuse(node, "it acts outside the graph (printing, communicating), which both "
                         "traced branches would do")
    graph.nodes = kept
    return writes, subst


class FunctionalUpdate(Primitive):
    """An in-place update primitive (an optimizer step) run on copies of the tensors it writes,
    returning the copies: the form an optimizer step takes inside a branch of an `if` on a
    Tensor (take_parameter_writes), where the step must act only if its branch runs."""

    differentiable = False
    fresh_outputs = True

    def __init__(self, update, written):
        super().__init__(f"Functional{update.name}")
        self.update, self.written = update, written

    def infer(self, *args):
        self.update.infer(*args)
        return tuple(Aval(tuple(args[k].shape), args[k].dtype) for k in self.written)

    def impl(self, *arrays):
        arrays = list(arrays)
        copies = [astype(arrays[k], arrays[k].dtype) for k in self.written]
        for k, copy in zip(self.written, copies):
            arrays[k] = copy
        self.update.impl(*arrays)
        return tuple(copies)


def substituted(x, subst):
    if isinstance(x, Value):
        return subst.get(id(x), x)
    if isinstance(x, (tuple, list)):
        return type(x)(substituted(y, subst) for y in x)
    return x


def prune(graph):
    """Drop the subgraph's nodes nothing returns (both branches run their tracing code, so a
    branch holds the nodes of values only the other branch, or nothing, reads); refuse nodes
    that write in place, which would act whichever branch ran when both were traced."""
    needed = {id(v) for v in graph.output_values()}
    kept = []
    for node in reversed(graph.nodes):
        if any(id(v) in needed for v in node.outputs) or node.side_effect:
            if node.side_effect:
                raise NotImplementedError(
                    f"The operator '{node.prim.name}' (at {node.scope}) writes in place inside a "
                    f"branch or loop body on a Tensor condition ('{graph.name}'); in-place "
                    f"updates (Assign, optimizers) there are not supported in GRAPH_MODE.")
            kept.append(node)
            needed.update(id(v) for v in node.input_values())
    kept.reverse()
    graph.nodes = kept


def aval_of(x):
    return x.aval if isinstance(x, Value) else Aval(tuple(x.shape), x.dtype)


def _output_arrays(results):
    return tuple(r._require_data() if isinstance(r, Tensor) else r for r in flatten(results))


def truth(array):
    """The Python truth of a one-element predicate array on any device."""
    return bool(to_host(array).reshape(()))


class _SubgraphPrimitive(Primitive):
    """A primitive whose attributes are subgraphs, each run through an Executable built for the
    active device at its first run (the If, While and WhileGrad nodes)."""

    float16_in_float32 = False

    def __init__(self, name, subgraphs):
        super().__init__(name)
        self.subgraphs = subgraphs         # {role: Graph}: what save_graphs shows
        self._executables = {}

    def run(self, role, arrays):
        from minispore.graph.executor import Executable
        device = active_device()
        exe = self._executables.get((role, device))
        if exe is None:
            exe = self._executables[(role, device)] = Executable(self.subgraphs[role], device)
        return _output_arrays(exe.run(list(arrays)))

    def __repr__(self):
        body = ", ".join(f"{role}=@{g.name}" for role, g in self.subgraphs.items())
        return f"Prim[{self.name}]<{body}>"

    def check_replayable(self, why):
        for graph in self.subgraphs.values():
            for node in graph.nodes:
                if not node.prim.replayable:
                    raise NotImplementedError(
                        f"The gradient of the control flow node {self.name} is not supported "
                        f"when its subgraph '{graph.name}' holds '{node.prim.name}' (at "
                        f"{node.scope}): {why} runs the subgraph again, which would draw anew.")


def _is_diff(aval):
    return aval.dtype.is_float


def _replay(graph, args):
    """Apply `graph`'s nodes to `args` (tensors for its inputs) through the interpreter stack;
    returns its outputs' tensors (constants as they are)."""
    env = {id(v): a for v, a in zip(graph.inputs, args)}

    def arg(x):
        if isinstance(x, Value):
            return env[id(x)]
        if isinstance(x, tuple):
            return tuple(arg(y) for y in x)
        if isinstance(x, list):
            return [arg(y) for y in x]
        return x
    for node in graph.nodes:
        out = Primitive.__call__(node.prim, *[arg(x) for x in node.inputs])
        for v, o in zip(node.outputs, out if node.tuple_output else (out,)):
            env[id(v)] = o
    return [arg(v) for v in flatten(graph.outputs)]


def _backward_graph(graph, diff_in, diff_out, extra=()):
    """The backward of `graph` as a graph: inputs are `graph`'s inputs, then one cotangent per
    output in `diff_out`, then one input per Aval of `extra` (accumulators added to the
    results); outputs the gradient of each input in `diff_in` (plus its accumulator). The
    forward is replayed inside it (the node kept no intermediates)."""
    from minispore.ops import functional as F
    from minispore.ops.autodiff import Tape
    outs = list(flatten(graph.outputs))
    avals = [v.aval for v in graph.inputs] + [aval_of(outs[k]) for k in diff_out] + list(extra)

    def backward(*inputs):
        xs = inputs[:len(graph.inputs)]
        douts = inputs[len(graph.inputs):len(graph.inputs) + len(diff_out)]
        accs = inputs[len(graph.inputs) + len(diff_out):]
        with Tape() as tape:
            for k in diff_in:
                tape.watch(xs[k])
            ys = _replay(graph, xs)
        heads = [ys[k] for k in diff_out]
        cot = tape.backward(heads, douts) if heads else {}
        grads = [cot.get(id(xs[k])) for k in diff_in]
        grads = [F.zeros_like(xs[k]) if g is None else g for k, g in zip(diff_in, grads)]
        for j, acc in enumerate(accs):
            grads[len(grads) - len(accs) + j] = grads[len(grads) - len(accs) + j] + acc
        return tuple(grads)
    bgraph, tracer, grads = trace_subgraph(backward, f"{graph.name}.grad", avals)
    bgraph.outputs = tuple(tracer.to_graph(g) for g in grads)
    if tracer.captures:
        raise TraceError(f"The backward of '{graph.name}' read a tensor from outside it "
                         f"(a minispore bug).")
    prune(bgraph)
    return bgraph


class If(_SubgraphPrimitive):
    """``outs = If(pred, *operands)``: runs the subgraph "true branch" or "false branch" (each
    taking every operand, returning one tensor per output) as the one-element bool `pred` says.
    Its bprop is another If over the two branches' backward graphs, so the backward also runs
    the taken branch only and compiles once."""

    def __init__(self, then_graph, else_graph):
        super().__init__("If", {"true branch": then_graph, "false branch": else_graph})

    def infer(self, pred, *operands):
        return tuple(aval_of(v) for v in flatten(self.subgraphs["true branch"].outputs))

    def impl(self, pred, *operands):
        return self.run("true branch" if truth(pred) else "false branch", operands)

    def bprop(self, inputs, out, dout):
        self.check_replayable("the backward of the taken branch")
        operands = inputs[1:]
        then_graph = self.subgraphs["true branch"]
        outs = list(flatten(then_graph.outputs))
        diff_in = [k for k, v in enumerate(then_graph.inputs) if _is_diff(v.aval)]
        diff_out = [k for k, v in enumerate(outs) if _is_diff(aval_of(v))]
        if not diff_in or not diff_out:
            return (None,) * len(inputs)
        then_b = _backward_graph(then_graph, diff_in, diff_out)
        else_b = _backward_graph(self.subgraphs["false branch"], diff_in, diff_out)
        grads = If(then_b, else_b)(inputs[0], *operands, *[dout[k] for k in diff_out])
        result = [None] * len(inputs)
        for k, g in zip(diff_in, grads):
            result[1 + k] = g
        return tuple(result)


class While(_SubgraphPrimitive):
    """``carries = While(*carries, *invariants)``: while the subgraph "condition" (carries and
    invariants in, a one-element bool out) holds, the subgraph "body" (same inputs, the next
    carries out) runs. The trip count depends on the data; the graph compiles once."""

    def __init__(self, cond_graph, body_graph, n_carries):
        super().__init__("While", {"condition": cond_graph, "body": body_graph})
        self.n_carries = n_carries
        self.add_prim_attr("carries", n_carries)

    def infer(self, *args):
        return tuple(v.aval for v in self.subgraphs["body"].inputs[:self.n_carries])

    def loop(self, carries, invariants, history=None):
        carries = tuple(carries)
        while truth(self.run("condition", carries + invariants)[0]):
            if history is not None:
                history.append(carries)
            carries = self.run("body", carries + invariants)
        return carries

    def impl(self, *args):
        n = self.n_carries
        return self.loop(args[:n], tuple(args[n:]))

    def bprop(self, inputs, out, dout):
        self.check_replayable("the backward of the loop")
        body = self.subgraphs["body"]
        n = self.n_carries
        diff_carry = [k for k in range(n) if _is_diff(body.inputs[k].aval)]
        diff_inv = [k for k in range(n, len(body.inputs)) if _is_diff(body.inputs[k].aval)]
        if not diff_carry:
            return (None,) * len(inputs)
        grad = WhileGrad(self, diff_carry, diff_inv)
        grads = grad(*inputs, *[dout[k] for k in diff_carry])
        result = [None] * len(inputs)
        for k, g in zip(diff_carry + diff_inv, grads):
            result[k] = g
        return tuple(result)


class WhileGrad(_SubgraphPrimitive):
    """The backward of a While node: runs the loop forward again from the same inputs,
    keeping each iteration's carries (the trip count and carries the backward needs), then
    runs the body's backward ("body backward") once per iteration in reverse, carrying the
    carries' cotangents and summing the invariants'. Inputs: the While's inputs, then the
    cotangents of its differentiable carries; outputs: the gradients of the differentiable
    carries' initial values, then of the differentiable invariants."""

    def __init__(self, loop, diff_carry, diff_inv):
        body = loop.subgraphs["body"]
        extra = [body.inputs[k].aval for k in diff_inv]
        # the body's backward seeds only its differentiable carries' outputs
        body_grad = _backward_graph(body, diff_carry + diff_inv, diff_carry, extra)
        super().__init__("WhileGrad", {"body backward": body_grad})
        self.loop = loop
        self.diff_carry = diff_carry
        self.diff_inv = diff_inv

    def infer(self, *args):
        body = self.loop.subgraphs["body"]
        return tuple(body.inputs[k].aval for k in self.diff_carry + self.diff_inv)

    def impl(self, *args):
        n = self.loop.n_carries
        n_in = len(self.loop.subgraphs["body"].inputs)
        carries, invariants = tuple(args[:n]), tuple(args[n:n_in])
        dcarry = tuple(args[n_in:])
        history = []
        self.loop.loop(carries, invariants, history)
        body = self.loop.subgraphs["body"]
        dinv = tuple(device_zeros(body.inputs[k].aval.shape, body.inputs[k].aval.dtype.np_dtype)
                     for k in self.diff_inv)
        for step in reversed(history):
            grads = self.run("body backward", step + invariants + dcarry + dinv)
            dcarry, dinv = grads[:len(self.diff_carry)], grads[len(self.diff_carry):]
        return tuple(dcarry) + tuple(dinv)


def predicate(test, what):
    """`test` (a traced Tensor) as a 0-d bool Tensor: one element, non-zero is true."""
    from minispore.ops import functional as F
    size = 1
    for d in test.shape:
        size *= d if isinstance(d, int) else 2
    if size != 1:
        raise ValueError(f"The condition of {what} on a Tensor must have one element (its "
                         f"truth value is ambiguous otherwise), but got a Tensor of shape "
                         f"{list(test.shape)}; reduce it first (e.g. x.any(), x.all()).")
    if tuple(test.shape) != ():
        test = F.reshape(test, ())
    if test.dtype != bool_:
        test = F.cast(test, bool_)
    return test
