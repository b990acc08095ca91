"""The executor: a Graph compiled to one generated Python function, a flat schedule of kernel calls.

Each node becomes one line calling its bound ``prim.impl`` with positional arrays and
constants; a value is deleted right after its last use (liveness), so buffers are freed as
early as the eager interpreter would free them, and the per-node cost is one Python call.
Inside a `minispore.graph.memory.track_memory` block a run goes through an accounted copy of
the schedule (the same calls and frees, each reported to an Accountant), generated on first use;
while an ``ms.Profiler`` records, through a profiled copy whose every call records its span.
"""
from minispore.common import profiling
from minispore.common.tensor import Tensor
from minispore.device import active_device, scalar_array
from minispore.graph.ir import Value, flatten
from minispore.graph.memory import Accountant, active_tracker, is_activation, plan_memory


def _symbolic():
    """G2's symbolic-dimension module, when it exists (before it lands every dim is an int).
    HOOK(G2): constants holding SymDims are substituted with the run's bindings."""
    try:
        from minispore.common import symbolic
    except ImportError:
        return None
    return symbolic


class Executable:
    """A compiled graph. ``run(arrays, bindings=None)`` takes one array per graph input and
    returns the graph's output structure with Tensors where Values were. ``source`` is the
    generated code (printed by save_graphs as ``*_schedule.py``)."""

    def __init__(self, graph):
        self.graph = graph
        self.n_nodes = len(graph.nodes)
        # Constants, parameters and (CPU-only) fused kernels are bound for this device.
        self.device = active_device()
        self.source, self._run, self.needs_bindings = _build(graph, accounted=False)
        self._accounted = None
        self._profiled = None

    def run(self, arrays, bindings=None):
        if active_device() != self.device:
            raise RuntimeError(f"Graph '{self.graph.name}' was compiled for device "
                               f"{self.device} but device_target is now {active_device()}; "
                               f"build the network again after set_context(device_target=...).")
        tracker = active_tracker()
        if tracker is not None:
            return self._run_accounted(arrays, bindings, tracker)
        run = self._run
        if profiling.active() is not None:
            if self._profiled is None:
                self._profiled = _build(self.graph, accounted=False, profiled=True)[1]
            run = self._profiled
        if self.needs_bindings:
            return run(bindings, *arrays)
        return run(*arrays)

    def memory_plan(self):
        """The live activation bytes of this schedule from the Values' shapes (a
        minispore.graph.memory.MemoryReport; None when shapes are symbolic)."""
        return plan_memory(self.graph)

    def _run_accounted(self, arrays, bindings, tracker):
        if self._accounted is None:
            self._accounted = _build(self.graph, accounted=True)[1]
        accountant = Accountant(self.graph.name)
        lead = (accountant, bindings) if self.needs_bindings else (accountant,)
        out = self._accounted(*lead, *arrays)
        tracker.reports.append(accountant.report)
        return out


def _build(graph, accounted, profiled=False):
    """(source, the generated _run, whether it takes symbol bindings)."""
    source, env = _generate(graph, accounted, profiled)
    exec(compile(source, f"<graph {graph.name}>", "exec"), env)
    return source, env["_run"], env["_NEEDS_BINDINGS"]


class _Namer:
    def __init__(self):
        self.env = {"_asarray": scalar_array, "_Tensor": Tensor}
        self.names = {}

    def value(self, v):
        return self.names[id(v)]

    def bind(self, prefix, obj):
        name = f"{prefix}{len(self.env)}"
        self.env[name] = obj
        return name


def _generate(graph, accounted=False, profiled=False):
    """The schedule's source and its environment. `accounted`: every output is named and
    reported to the Accountant ``_acct`` (the first argument), as is every free. `profiled`:
    every call records its span (profiling.timed)."""
    nm = _Namer()
    symbolic = _symbolic()
    needs_bindings = False
    args = []
    for i, v in enumerate(graph.inputs):
        nm.names[id(v)] = f"i{i}"
        args.append(f"i{i}")
    lines = []
    for i, v in enumerate(graph.parameters):
        holder = nm.bind("P", v.param)
        nm.names[id(v)] = f"p{i}"
        # Read the live buffer each run: set_data/load_checkpoint replace it between steps.
        lines.append(f"p{i} = {holder}._data")
    if accounted:
        caller_buffers = args + [f"p{i}" for i in range(len(graph.parameters))]
        lines.append(f"_acct.external({', '.join(caller_buffers)})")
    last_use = _last_uses(graph)
    keep = {id(v) for v in graph.output_values()} | {id(v) for v in graph.inputs} | \
        {id(v) for v in graph.parameters}

    def operand(x):
        nonlocal needs_bindings
        if isinstance(x, Value):
            return nm.value(x)
        if isinstance(x, Tensor):
            return nm.bind("c", x._require_data())
        if isinstance(x, (tuple, list)) and any(isinstance(y, Value) for y in flatten(x)):
            body = ", ".join(operand(y) for y in x)
            return f"({body},)" if isinstance(x, tuple) else f"[{body}]"
        if symbolic is not None and symbolic.is_symbolic(x):
            needs_bindings = True
            return f"_subst({nm.bind('c', x)}, _b)"
        return nm.bind("c", x)

    for k, node in enumerate(graph.nodes):
        impl = node.prim.impl
        if profiled:
            impl = profiling.timed(impl, node.prim.name, profiling.category_of(node.prim))
        fn = nm.bind("f", impl)
        call = f"{fn}({', '.join(operand(x) for x in node.inputs)})"
        outs = []
        for j, v in enumerate(node.outputs):
            name = f"v{k}_{j}"
            nm.names[id(v)] = name
            outs.append(name if id(v) in last_use or id(v) in keep or accounted else "_")
        if not node.tuple_output:
            scalar = node.outputs[0].aval.shape == ()
            target = outs[0]
            lines.append(f"{target} = _asarray({call})" if scalar and target != "_" else
                         (f"{target} = {call}" if target != "_" else call))
        else:
            lines.append(f"{', '.join(outs)}, = {call}")
            for name, v in zip(outs, node.outputs):
                if name != "_" and v.aval.shape == ():
                    lines.append(f"{name} = _asarray({name})")
        dead = [nm.value(v) for v in _unique(node.input_values())
                if last_use.get(id(v)) == k and id(v) not in keep]
        if accounted:
            named = [n for n in outs if n != "_"]
            dead += [n for n, v in zip(outs, node.outputs)
                     if id(v) not in last_use and id(v) not in keep]
            lines.append(f"_acct.made({', '.join([str(is_activation(node))] + named)})")
            if dead:
                lines.append(f"_acct.dropped({', '.join(dead)})")
        if dead:
            lines.append(f"del {', '.join(dead)}")
    lines.append(f"return {_output_expr(graph.outputs, nm)}")
    lead = (["_acct"] if accounted else []) + (["_b"] if needs_bindings else [])
    header = f"def _run({', '.join(lead + args)}):"
    source = "\n".join([header] + ["    " + ln for ln in lines]) + "\n"
    nm.env["_NEEDS_BINDINGS"] = needs_bindings
    if needs_bindings:
        nm.env["_subst"] = symbolic.substitute
    return source, nm.env


def _output_expr(obj, nm):
    if isinstance(obj, Value):
        if obj.param is not None:
            return nm.bind("P", obj.param)
        return f"_Tensor({nm.value(obj)}, {nm.bind('d', obj.aval.dtype)}, internal=True)"
    if isinstance(obj, tuple):
        body = ", ".join(_output_expr(x, nm) for x in obj)
        return f"({body},)" if obj else "()"
    if isinstance(obj, list):
        return "[" + ", ".join(_output_expr(x, nm) for x in obj) + "]"
    return nm.bind("c", obj)


def _last_uses(graph):
    """{id(Value): index of the last node reading it}."""
    last = {}
    for k, node in enumerate(graph.nodes):
        for v in node.input_values():
            last[id(v)] = k
    return last


def _unique(values):
    seen = set()
    for v in values:
        if id(v) not in seen:
            seen.add(id(v))
            yield v
