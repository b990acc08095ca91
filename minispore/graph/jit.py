"""Compile cache and call path shared by GRAPH-mode Cells and ms.jit: trace once per input
signature, compile, then run the executable on every call with that signature."""
import os
import time

from minispore.common.context import context
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.graph.compile import compile_graph
from minispore.graph.dump import dump_dir_for
from minispore.graph.tracer import trace
from minispore.ops.primitive import Aval
from minispore.parallel.settings import operator_parallel_settings

_CTX = context()
_JIT_TOTALS = {"compiles": 0, "hits": 0, "entries": 0}


def jit_enabled():
    """False when the environment sets MS_JIT=0: every compiled call then runs eagerly."""
    return os.environ.get("MS_JIT", "1") != "0"


def tracing():
    return _CTX.tracer is not None


def _dynamic():
    """G2's minispore/graph/dynamic.py. HOOK(G2): until it exists, placeholders from
    set_inputs/input_signature are ignored and the cache keys on concrete shapes."""
    try:
        from minispore.graph import dynamic
    except ImportError:
        return None
    return dynamic


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

    def call(self, fn, args, extra_key=(), placeholders=None, prepare=None):
        """Run ``fn(*args)`` through its compiled graph (compiling it on a cache miss).

        ``prepare(graph, tracer)`` may add pass requests (TrainOneStepCell asks for the
        gradient and the optimizer update) before the pipeline runs.
        """
        dynamic = _dynamic() if placeholders is not None else None
        # A graph's constants and kernels belong to one device and one parallel layout.
        parallel = operator_parallel_settings()
        target = (parallel, _CTX.device)
        if dynamic is not None:
            key = (dynamic.signature_of(placeholders), extra_key, target,
                   tuple(None if isinstance(a, Tensor) else _static_key(a) for a in args))
            bound = _logical_args(args, parallel) if parallel is not None else args
            bindings = dynamic.bind_and_check(placeholders, bound, self.name)
        else:
            key = (extra_key, target) + tuple((a.shape, a.dtype) if isinstance(a, Tensor)
                                                else _static_key(a) for a in args)
            bindings = None
        executable = self.entries.get(key)
        if executable is None:
            if dynamic is not None:
                avals = dynamic.input_avals(placeholders)
            elif parallel is not None:
                avals = [Aval(a.shape, a.dtype) for a in _logical_args(args, parallel)]
            else:
                avals = None
            executable = self._compile(fn, args, avals, prepare)
            self.entries[key] = executable
            self.compiles += 1
            if self._totals is not None:
                self._totals["compiles"] += 1
                self._totals["entries"] += 1
        else:
            self.hits += 1
            if self._totals is not None:
                self._totals["hits"] += 1
        arrays = [a._require_data() for a in args if isinstance(a, Tensor)]
        return executable.run(arrays, bindings)

    def _compile(self, fn, args, avals, prepare):
        start = time.perf_counter()
        graph, tracer = trace(fn, args, self.name, avals)
        if prepare is not None:
            prepare(graph, tracer)
        executable, _ = compile_graph(graph, dump_dir_for(self.name))
        self.compile_seconds += time.perf_counter() - start
        return executable


def _logical_args(args, parallel):
    """Under operator parallelism each rank passes its blocks of the network's inputs; the
    graph is traced (and placeholders are checked) at the logical shapes they are blocks of
    (minispore/parallel/settings.py)."""
    out, index = [], 0
    for a in args:
        if isinstance(a, Tensor):
            shape = parallel.logical_shape(index, tuple(a.shape))
            out.append(a if isinstance(a, Parameter) else Tensor(shape=shape, dtype=a.dtype))
            index += 1
    return out


def cache_info():
    """Totals over every ms.jit function: dict(compiles=, hits=, entries=)."""
    return dict(_JIT_TOTALS)


def jit_totals():
    return _JIT_TOTALS
