"""ms.jit and the compile cache shared by GRAPH-mode Cells and ms.jit: trace once per input
signature, compile the Program, then run the executable on every call with that signature.

The pass list and the PassContext come from the layer above: minispore/parallel/compiler.py
plugs them into the registry's "graph.passes" and "graph.pass_context" points when
minispore.parallel is imported (graph's own GRAPH_PASSES and PassContext until then), so graph
never imports parallel.
"""
import functools
import logging
import time

from minispore.common.context import context
from minispore.common.jit_config import note_jit_config
from minispore.common.parameter import DataDependentShape, Parameter, TensorValueNeeded
from minispore.common.registry import REGISTRY
from minispore.common.tensor import Tensor
from minispore.graph import dynamic as dynamic_shapes
from minispore.graph.autograph import convert
from minispore.graph.compile import GRAPH_PASSES, compile_program
from minispore.graph.dump import dump_dir_for
from minispore.graph.program import PassContext
from minispore.graph.tracer import has_tensor, to_program, trace
from minispore.ops.primitive import Aval

_CTX = context()
_JIT_TOTALS = {"compiles": 0, "hits": 0, "entries": 0}
_INLINE_WARNED = REGISTRY.owned("graph.jit_inline_warned", set)   # names warned once
logger = logging.getLogger("minispore")


def note_inline_under_tape(name):
    """Warn once per function or Cell `name` that it runs eagerly on a PYNATIVE gradient's
    tape instead of compiled (ms.jit functions; GRAPH-mode Cells under ops.vjp and the like)."""
    if name not in _INLINE_WARNED:
        _INLINE_WARNED.add(name)
        logger.warning("'%s' (compiled in GRAPH mode or by ms.jit) was called while a PYNATIVE "
                       "gradient is recorded: "
                       "it runs eagerly on the gradient's tape (the same values, not compiled) "
                       "so that its operators are differentiated.", name)


def note_runs_op_by_op(name, error):
    """Warn once per function or Cell `name` that it runs op by op: `error` (DataDependentShape)
    says which operator's output shape depends on values."""
    if ("op by op", name) not in _INLINE_WARNED:
        _INLINE_WARNED.add(("op by op", name))
        if isinstance(error, TensorValueNeeded):
            why = getattr(error, "reason", None)
            error = ("its code reads the value of a Tensor computed or passed in the call (an "
                     "int(), asnumpy() or bool() of it, such as a Tensor given as an operator's "
                     "shape or size), which a graph knows only when it runs" +
                     (f" ({why})." if why else "."))
        logger.warning("'%s' runs op by op (as in PYNATIVE_MODE, the same values) instead of "
                       "compiled, for this input signature: %s MindSpore compiles such code "
                       "with a dynamic output shape.", name, error)


def current_pass_context():
    """The PassContext a compile started now would run with."""
    return REGISTRY.plugged("graph.pass_context", PassContext)()


def jit_enabled():
    """False when the environment sets MS_JIT=0: every compiled call then runs eagerly."""
    return REGISTRY.env("MS_JIT")


def tracing():
    return _CTX.tracer is not None


def _static_key(x):
    """A hashable key for a non-Tensor argument (baked into the graph as a constant)."""
    if isinstance(x, (tuple, list)):
        return (type(x).__name__,) + tuple(_static_key(y) for y in x)
    try:
        hash(x)
    except TypeError:
        raise TypeError(f"A compiled function got an argument of type {type(x).__name__} that "
                        f"is neither a Tensor nor hashable; non-Tensor arguments become graph "
                        f"constants and key the compile cache, so they must be hashable "
                        f"(numbers, strings, tuples, Cells).") from None
    return (type(x), x)


def _leaves(args):
    """The arguments with tuples/lists that hold Tensors opened, depth first: what the graph
    takes as inputs (Tensors) and what set_inputs placeholders are matched against."""
    out = []
    for a in args:
        if isinstance(a, (tuple, list)) and has_tensor(a):
            out.extend(_leaves(a))
        else:
            out.append(a)
    return out


def _arg_key(a, tensor_key):
    """The cache key of one argument: tensor_key(t) for each Tensor, through tuples/lists."""
    if isinstance(a, Tensor):
        return tensor_key(a)
    if isinstance(a, (tuple, list)) and has_tensor(a):
        return (type(a).__name__,) + tuple(_arg_key(y, tensor_key) for y in a)
    return _static_key(a)


_OP_BY_OP = "op by op"   # a signature's entry when its graph cannot be built (see call)


class CompileCache:
    """Compiled graphs of one function (or one Cell's construct), keyed by input signature:
    concrete (shape, dtype) of each Tensor argument plus the value of every other argument,
    or, with placeholders (set_inputs / input_signature), the placeholders' signature."""

    def __init__(self, name, totals=None):
        self.name = name
        self.entries = {}
        self.compiles = 0
        self.hits = 0
        self.compile_seconds = 0.0
        self._totals = totals

    def info(self):
        return {"compiles": self.compiles, "hits": self.hits, "entries": len(self.entries)}

    def call(self, fn, args, extra_key=(), placeholders=None, prepare=None, eager=None):
        """Run ``fn(*args)`` through its compiled graph (compiling it on a cache miss).

        ``prepare(program)`` may add requests (TrainOneStepCell asks for the gradient and the
        optimizer update) before the passes run. ``eager()`` runs the call op by op: taken,
        with a warning, for a signature whose graph cannot be built because an operator's
        output shape depends on values (DataDependentShape), except under operator
        parallelism, which needs the graph (the error is raised there).
        """
        dynamic = placeholders is not None
        # A graph's constants and kernels belong to one device and one parallel layout: the
        # PassContext (device, mesh, rank, parallel settings) keys the cache.
        ctx = current_pass_context()
        sharded = ctx.parallel is not None
        # Tensors inside tuple/list arguments are graph inputs like the others, except under
        # operator parallelism, whose input layouts are given per top-level argument.
        nested = not sharded
        if dynamic:
            bound = logical_args(args, ctx) if sharded else _leaves(args)
            placeholders, bound = dynamic_shapes.tensor_inputs(_leaves(placeholders), bound,
                                                               self.name)
            placeholders = dynamic_shapes.with_ranks(placeholders, bound, self.name)
            key = (dynamic_shapes.signature_of(placeholders), extra_key, ctx,
                   tuple(_arg_key(a, lambda t: None) for a in args))
            bindings = dynamic_shapes.bind_and_check(placeholders, bound, self.name)
        else:
            key = (extra_key, ctx) + tuple(_arg_key(a, lambda t: (t.shape, t.dtype)) if nested
                                             else (a.shape, a.dtype) if isinstance(a, Tensor)
                                             else _static_key(a) for a in args)
            bindings = None
        executable = self.entries.get(key)
        if executable is _OP_BY_OP:
            return eager()
        if executable is None:
            if dynamic:
                avals = dynamic_shapes.input_avals(placeholders)
            elif sharded:
                avals = [Aval(a.shape, a.dtype) for a in logical_args(args, ctx)]
            else:
                avals = None
            try:
                executable = self._compile(fn, args, avals, prepare, ctx, nested)
            except DataDependentShape as error:
                if eager is None or sharded:
                    raise
                note_runs_op_by_op(self.name, error)
                self.entries[key] = _OP_BY_OP
                return eager()
            self.entries[key] = executable
            self.compiles += 1
            if self._totals is not None:
                self._totals["compiles"] += 1
                self._totals["entries"] += 1
        else:
            self.hits += 1
            if self._totals is not None:
                self._totals["hits"] += 1
        if sharded and getattr(executable, "communicates", True):
            # A graph without collectives runs on each rank's blocks alone; one with them
            # needs every rank to run the same logical shapes.
            ctx.check_fed_blocks([tuple(a.shape) for a in args if isinstance(a, Tensor)
                                  and not isinstance(a, Parameter)], self.name)
        inputs = _leaves(args) if nested else args
        arrays = [a._require_data() for a in inputs if isinstance(a, Tensor)]
        return executable.run(arrays, bindings)

    def _compile(self, fn, args, avals, prepare, ctx, nested):
        for hook in REGISTRY.plugged("graph.before_compile", ()):
            hook()
        REGISTRY.note_compile()
        start = time.perf_counter()
        graph, tracer = trace(fn, args, self.name, avals, nested_inputs=nested)
        program = to_program(graph, tracer)
        if prepare is not None:
            prepare(program)
        executable, _ = compile_program(program, ctx,
                                        REGISTRY.plugged("graph.passes", GRAPH_PASSES),
                                        dump_dir_for(self.name))
        self.compile_seconds += time.perf_counter() - start
        return executable


def logical_args(args, ctx):
    """Under operator parallelism each rank passes its blocks of the network's inputs; the
    graph is traced (and placeholders are checked) at the logical shapes they are blocks of
    (minispore/parallel/settings.py)."""
    out, index = [], 0
    for a in args:
        if isinstance(a, Tensor):
            shape = ctx.logical_shape(index, tuple(a.shape))
            out.append(a if isinstance(a, Parameter) else Tensor(shape=shape, dtype=a.dtype))
            index += 1
    return out


def cache_info():
    """Totals over every ms.jit function: dict(compiles=, hits=, entries=)."""
    return dict(_JIT_TOTALS)


def jit(function=None, mode="PSJit", input_signature=None, hash_args=None, jit_config=None,
        compile_once=False, **options):
    """Compile ``function`` like GRAPH mode does, in either mode: the first call with a given
    input signature (the shapes and dtypes of its Tensor arguments, the values of the others)
    traces it into a graph and compiles it; later calls with that signature run the compiled
    graph. Python control flow on Python values is unrolled while tracing; ``if``/``elif``,
    ``while`` (with ``break``/``continue``), an early ``return`` and ``x if c else y`` on a
    Tensor's value compile into If / While nodes (graph/autograph.py, graph/control_flow.py)
    when they are in `function` itself. Works as ``@ms.jit``, ``@ms.jit(...)`` and
    ``ms.jit(fn)``, also on Cell methods. ``input_signature``: placeholder Tensors (dims may
    be None or Symbol) for one compilation that serves every matching input. The environment
    variable ``MS_JIT=0`` runs every jit function eagerly. ``jit_config`` (a JitConfig) is
    checked and warned about when it sets anything (one compile pipeline); ``mode``,
    ``hash_args`` and ``compile_once`` are accepted and ignored.

    The wrapper's ``compile_cache_info()`` returns dict(compiles=, hits=, entries=);
    ``minispore.graph.cache_info()`` sums over all jit functions.

    >>> import numpy as np, minispore as ms
    >>> @ms.jit
    ... def f(x, y):
    ...     return x * y + 1.0
    >>> f(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float32))).asnumpy().tolist()
    [2.0, 2.0]
    """
    if function is None:
        return functools.partial(jit, mode=mode, input_signature=input_signature,
                                 hash_args=hash_args, jit_config=jit_config,
                                 compile_once=compile_once, **options)
    if not callable(function):
        raise TypeError(f"For 'jit', 'function' must be a function or a Cell method, but got "
                        f"{type(function).__name__}.")
    note_jit_config(jit_config, "jit")
    if input_signature is not None and not isinstance(input_signature, (tuple, list)):
        input_signature = (input_signature,)
    cache = CompileCache(getattr(function, "__name__", type(function).__name__), _JIT_TOTALS)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if _CTX.batching:
            return function(*args, **kwargs)
        if _CTX.tapes and not tracing():
            # A PYNATIVE gradient is being recorded: a compiled call would hand the tape one
            # opaque result (zero gradients), so the operators run on the tape instead.
            note_inline_under_tape(getattr(function, "__name__", repr(function)))
            return function(*args, **kwargs)
        if tracing():
            return convert(function)(*args, **kwargs)
        if not jit_enabled():
            return function(*args, **kwargs)
        names = tuple(kwargs)
        flat = args + tuple(kwargs.values())
        n = len(args)

        def call(*a):
            return convert(function)(*a[:n], **dict(zip(names, a[n:])))

        def eager():
            return function(*args, **kwargs)
        placeholders = None
        if input_signature is not None:
            placeholders = tuple(input_signature)
            if len(flat) != len(placeholders):
                # A method's `self` is not part of the signature the user wrote.
                lead = flat[:len(flat) - len(placeholders)]
                return cache.call(lambda *t: call(*lead, *t), flat[len(lead):],
                                  extra_key=(names,) + tuple(id(x) for x in lead),
                                  placeholders=placeholders, eager=eager)
        return cache.call(call, flat, extra_key=(names,), placeholders=placeholders,
                          eager=eager)

    wrapper.compile_cache_info = cache.info
    return wrapper


REGISTRY.plug("graph.jit", jit)
