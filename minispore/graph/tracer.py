"""The tracing interpreter: primitives called while it is active append Nodes to a Graph."""
from contextlib import contextmanager

from minispore.common.context import Interpreter, context
from minispore.common.parameter import (DataDependentShape, Parameter,  # noqa: F401
                                        TensorValueNeeded,
                                        TraceError)  # (TraceError re-exported)
from minispore.common.tensor import Tensor
from minispore.graph.ir import BACKWARD, FORWARD, UPDATE, Graph, Node, Value, annotations_of
from minispore.graph.program import TracedGradient
from minispore.ops.autodiff import swapped
from minispore.ops.primitive import infer_inputs

_CTX = context()


class TracedTensor(Tensor):
    """A Tensor that stands for a graph Value while tracing: it has a shape and a dtype but no
    data, so operators and Tensor methods work on it and record nodes, while anything that
    needs the numbers (``bool``, ``item``, ``asnumpy``, ``float``) raises TraceError."""
    traced = True

    def __init__(self, value):
        self._value = value
        self._data = None
        self._dtype = value.aval.dtype
        self._placeholder_dims = None

    @property
    def shape(self):
        return self._value.aval.shape

    def _require_data(self):
        raise TensorValueNeeded(
            f"The value of a Tensor (shape {list(self.shape)}, dtype {self._dtype}) is not "
            f"known while compiling in GRAPH_MODE or under ms.jit: a conversion that depends "
            f"on tensor data (bool(), item(), asnumpy(), float(), int()) cannot be traced, "
            f"and if/while on a Tensor compile only in the body of a Cell's construct or of "
            f"an ms.jit function (not in functions they call). Express it with operators "
            f"(e.g. ops.select, ops.maximum), or run this code in PYNATIVE_MODE "
            f"(ms.set_context(mode=ms.PYNATIVE_MODE)).")

    def __repr__(self):
        return f"TracedTensor(%{self._value.name}, shape={list(self.shape)}, dtype={self._dtype})"

    __str__ = __repr__


class Tracer(Interpreter):
    """Records primitive applications into ``graph``: a level of the thread's interpreter
    stack (common/context.py) while it is entered as a context manager; it hands nothing
    below, so the levels under it (tapes outside a compiled function) never see a traced call.

    Parameters met as arguments become graph parameters (read from the live Parameter at every
    run); other Tensors with data are constants; TracedTensors are the graph's own Values.
    A tape entered inside the traced function records the traced calls (it sits above), so
    ``ms.grad`` inside a traced function differentiates at trace time; the nodes its backward
    traces are marked phase BACKWARD, those traced after it UPDATE, and the gradient is listed
    in ``traced_gradients`` (see graph/program.py TracedGradient).

    Every node inherits the annotation frames of the cells it was traced in
    (``Cell.recompute``, ``place``, ``pipeline_stage`` …), functional ops included.
    """

    traces = True

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self._params = {}
        self._wrapped = {}
        self.scope_override = None
        self.local_shapes = False
        self.phase = FORWARD
        self.derived_from = None
        self.traced_gradients = []

    @staticmethod
    def of(graph):
        """The graph's tracer (one per graph, so later passes can append to a traced graph and
        reuse the TracedTensors it handed out)."""
        if graph.tracer is None:
            graph.tracer = Tracer(graph)
        return graph.tracer

    # -- values ------------------------------------------------------------------------------
    def add_input(self, tensor_or_aval):
        """A new graph input with the given Tensor's (or Aval's) shape and dtype."""
        from minispore.ops.primitive import Aval
        aval = tensor_or_aval if isinstance(tensor_or_aval, Aval) else \
            Aval(tensor_or_aval.shape, tensor_or_aval.dtype)
        value = self.graph.new_value(aval, name=f"input{len(self.graph.inputs)}")
        self.graph.inputs.append(value)
        return self.wrap(value)

    def param_value(self, param):
        value = self._params.get(id(param))
        if value is None:
            from minispore.ops.primitive import Aval
            # A sliced parameter (operator parallel) is traced at its logical shape; the
            # parallel pass maps it to the block the buffer holds, and its local graph's
            # tracer (local_shapes=True) reads blocks as they are.
            shape = param.global_shape if param.global_shape is not None and \
                not self.local_shapes else param.shape
            value = self.graph.new_value(Aval(tuple(shape), param.dtype), param=param,
                                         name=f"param{len(self.graph.parameters)}")
            self.graph.parameters.append(value)
            self._params[id(param)] = value
        return value

    def drop_unread_parameters(self):
        """Forget the parameters no node reads and no output returns (a pass pruned their
        readers): the graph stops binding them, and a later read registers them anew."""
        graph = self.graph
        read = {id(v) for node in graph.nodes for v in node.input_values()}
        read.update(id(v) for v in graph.output_values())
        for v in graph.parameters:
            if id(v) not in read:
                del self._params[id(v.param)]
        graph.parameters = [v for v in graph.parameters if id(v) in read]

    def wrap(self, value):
        """The TracedTensor standing for `value` (one per Value, so identities are stable)."""
        t = self._wrapped.get(id(value))
        if t is None:
            t = self._wrapped[id(value)] = TracedTensor(value)
        return t

    def to_graph(self, obj):
        """Replace traced tensors and Parameters in `obj` (nested tuples/lists) by Values."""
        if isinstance(obj, TracedTensor):
            if obj._value is not self._lookup(obj._value):
                raise TraceError(f"A traced Tensor (%{obj._value.name}) from another compiled "
                                 f"function was used in graph '{self.graph.name}'; traced "
                                 f"tensors must not escape the function that made them.")
            return obj._value
        if isinstance(obj, Parameter):
            return self.param_value(obj)
        if isinstance(obj, tuple):
            return tuple(self.to_graph(x) for x in obj)
        if isinstance(obj, list):
            return [self.to_graph(x) for x in obj]
        return obj

    def from_graph(self, obj):
        """The inverse of to_graph: Values become TracedTensors (parameters their Parameter)."""
        if isinstance(obj, Value):
            return obj.param if obj.param is not None else self.wrap(obj)
        if isinstance(obj, tuple):
            return tuple(self.from_graph(x) for x in obj)
        if isinstance(obj, list):
            return [self.from_graph(x) for x in obj]
        return obj

    def _logical(self, arg):
        """What `infer` sees for an argument: a sliced Parameter read in a logical graph is
        its logical-shaped Value, not the block its buffer holds."""
        if isinstance(arg, Parameter) and arg.global_shape is not None and \
                not self.local_shapes:
            return self.wrap(self.param_value(arg))
        return arg

    def _lookup(self, value):
        t = self._wrapped.get(id(value))
        return t._value if t is not None else None

    def replace(self, old, new):
        """`old` is about to swap contents with `new` (an in-place write, Tensor.__setitem__):
        the Value `new` stands for is `old`'s from now on, and nodes that took `old` as a
        constant take `new`, which keeps that constant."""
        for key, t in list(self._wrapped.items()):
            if t is new:
                self._wrapped[key] = old
            elif t is old:
                self._wrapped[key] = new
        swap = {id(old): new, id(new): old}
        for node in self.graph.nodes:
            node.inputs = [swapped(a, swap) for a in node.inputs]

    # -- the interpreter -------------------------------------------------------------------------
    def apply(self, prim, args):
        if prim.values_decide_shape is not None:
            raise prim.error(
                f"the output length depends on the values of '{prim.values_decide_shape}', "
                f"which are not known while compiling in GRAPH_MODE or under ms.jit (ops.select "
                f"keeps the shape static).", DataDependentShape)
        out_aval = infer_inputs(prim, [self._logical(a) for a in args])
        leaf = prim.instance_name or prim.name
        scope = f"{self.scope_override}.{leaf}" if self.scope_override else \
            (prim.scope or _CTX.scope_name(leaf))
        node = Node(prim, [self.to_graph(a) for a in args], (), scope,
                    annotations_of(prim, _CTX.annotation_frames),
                    side_effect=getattr(prim, "side_effect", False), phase=self.phase,
                    derived_from=self.derived_from)
        graph = self.graph
        if isinstance(out_aval, tuple):
            node.tuple_output = True
            node.outputs = [graph.new_value(av, node, i) for i, av in enumerate(out_aval)]
            outs = tuple(self.wrap(v) for v in node.outputs)
        else:
            node.outputs = [graph.new_value(out_aval, node)]
            outs = self.wrap(node.outputs[0])
        graph.nodes.append(node)
        return outs

    # -- provenance ------------------------------------------------------------------------
    @contextmanager
    def in_phase(self, phase, derived_from=None):
        """Nodes traced inside belong to `phase` (and derive from the node `derived_from`)."""
        saved = self.phase, self.derived_from
        self.phase, self.derived_from = phase, derived_from
        try:
            yield
        finally:
            self.phase, self.derived_from = saved

    def deriving(self, outs):
        """While the bprop of the op that produced `outs` runs: its nodes are BACKWARD and
        derive from that op's node (called by the eager tape walking a traced forward)."""
        first = outs[0] if isinstance(outs, tuple) else outs
        producer = first._value.producer if isinstance(first, TracedTensor) else None
        return self.in_phase(BACKWARD, producer)

    def gradient_taken(self, heads, wrt, grads, seeded):
        """A gradient was taken at trace time: record it; what is traced next is the update."""
        self.traced_gradients.append(TracedGradient(
            [self.to_graph(h) for h in heads], [self.to_graph(w) for w in wrt],
            [self.to_graph(g) for g in grads], seeded))
        self.phase = UPDATE


def has_tensor(seq):
    """Whether a tuple/list argument holds a Tensor at any depth."""
    return any(isinstance(y, Tensor) or (isinstance(y, (tuple, list)) and has_tensor(y))
               for y in seq)


def trace(fn, args, name, input_avals=None, nested_inputs=False):
    """Trace ``fn(*args)`` into a new Graph. Tensor arguments become graph inputs (with the
    given Avals when `input_avals` is set, e.g. symbolic ones), and with `nested_inputs` so do
    the Tensors inside tuple/list arguments, depth first (MindSpore passes `net((x, y))` and
    `net(mutable((x, y)))` as sequences of inputs); other arguments are constants baked into
    the graph. Returns (graph, tracer)."""
    graph = Graph(name)
    tracer = Tracer.of(graph)
    avals = iter(input_avals) if input_avals is not None else None

    def bind(a):
        if isinstance(a, Tensor):
            return tracer.add_input(next(avals) if avals is not None else a)
        if nested_inputs and isinstance(a, (tuple, list)) and has_tensor(a):
            items = [bind(y) for y in a]
            return tuple(items) if isinstance(a, tuple) else items
        return a
    traced = [bind(a) for a in args]
    with tracer:
        out = fn(*traced)
    graph.outputs = tracer.to_graph(out)
    return graph, tracer


def to_program(graph, tracer):
    """The Program of a freshly traced graph, with the gradients its function took."""
    from minispore.graph.program import Program
    return Program([graph], traced_gradients=list(tracer.traced_gradients))
