"""The executor: a Graph compiled to one generated Python function, a flat schedule of kernel calls.

Each node becomes one line calling its bound ``prim.impl`` with positional arrays and
constants; a value is deleted right after its last use (liveness), so buffers are freed as
early as the eager interpreter would free them, and the per-node cost is one Python call.
Nodes whose kernels take ``out=`` write into the buffers of the graph's static memory plan
(minispore/graph/arena.py), passed to the schedule as the slot list ``_o``; each such call
first checks that nothing else holds its slot (``_rc(_o[s]) == 2``: the list and the call's
argument) and takes a new buffer otherwise.
Inside a `minispore.graph.memory.track_memory` block a run goes through an accounted copy of
the schedule (the same calls and frees, each reported to an Accountant), generated on first use;
while an ``ms.Profiler`` records, through a profiled copy whose every call records its span.
"""
import sys
import threading

from minispore.common import profiling, symbolic
from minispore.common.tensor import Tensor, tensor_of
from minispore.device import CPU, active_device, device_of, scalar_array, to_device
from minispore.device import empty as device_empty
from minispore.graph.arena import describe_memory, plan_buffers
from minispore.graph.ir import Value, flatten
from minispore.graph.memory import Accountant, active_tracker, is_activation, plan_memory


class Executable:
    """A compiled graph. ``run(arrays, bindings=None)`` takes one array per graph input and
    returns the graph's output structure with Tensors where Values were. ``source`` is the
    generated code (printed by save_graphs as ``*_schedule.py``)."""

    def __init__(self, graph, device=CPU, plan_memory=True):
        self.graph = graph
        self.n_nodes = len(graph.nodes)
        # whether running it talks to other ranks (the compile cache then checks that every
        # rank was fed inputs of one shape)
        self.communicates = any(getattr(n.prim, "communication", False) for n in graph.nodes)
        # Constants, parameters and (CPU-only) fused kernels are bound for this device.
        self.device = device
        _parameters_to(graph, self.device)
        self.plan = plan_buffers(graph, plan_memory)
        self.source, self._run, self.needs_bindings = _build(graph, self.plan, self.device,
                                                                 accounted=False)
        self._accounted = None
        self._profiled = None
        # Held while a run uses the plan's buffers: a run in another thread (a dataset worker)
        # or nested in this one gets buffers of its own instead of sharing them.
        self._buffers_in_use = threading.Lock()

    def run(self, arrays, bindings=None):
        if active_device() != self.device:
            raise RuntimeError(f"Graph '{self.graph.name}' was compiled for device "
                               f"{self.device} but device_target is now {active_device()}; "
                               f"build the network again after set_context(device_target=...).")
        if not self._buffers_in_use.acquire(blocking=False):
            return self._run_with(self.plan.allocate(bindings), arrays, bindings)
        try:
            return self._run_with(self.plan.buffers(bindings), arrays, bindings)
        finally:
            self._buffers_in_use.release()

    def _run_with(self, slots, arrays, bindings):
        tracker = active_tracker()
        if tracker is not None:
            return self._run_accounted(slots, arrays, bindings, tracker)
        run = self._run
        if profiling.active() is not None:
            if self._profiled is None:
                self._profiled = _build(self.graph, self.plan, self.device, accounted=False,
                                        profiled=True)[1]
            run = self._profiled
        if self.needs_bindings:
            return run(slots, bindings, *arrays)
        return run(slots, *arrays)

    def memory_plan(self):
        """The live activation bytes of this schedule from the Values' shapes (a
        minispore.graph.memory.MemoryReport; None when shapes are symbolic)."""
        return plan_memory(self.graph)

    def _run_accounted(self, slots, arrays, bindings, tracker):
        if self._accounted is None:
            self._accounted = _build(self.graph, self.plan, self.device, accounted=True)[1]
        accountant = Accountant(self.graph.name, reused=slots)
        lead = (slots, accountant, bindings) if self.needs_bindings else (slots, accountant)
        out = self._accounted(*lead, *arrays)
        tracker.reports.append(accountant.report)
        return out


def _parameters_to(graph, target):
    """Move the storage of the graph's parameters to `target` once, at compile, as MindSpore
    gives parameters device memory when a graph is compiled for the device: kernels then never
    see host memory on the GPU. Eager calls on the other device afterwards are refused naming
    the tensors' device (ops/interpreter.py)."""
    for v in graph.parameters:
        data = v.param._data
        if data is not None and device_of(data) != target:
            v.param._data = to_device(data, target)


def _build(graph, plan, device, accounted, profiled=False):
    """(source, the generated _run, whether it takes symbol bindings)."""
    source, env = _generate(graph, plan, device, accounted, profiled)
    exec(compile(source, f"<graph {graph.name}>", "exec"), env)
    return source, env["_run"], env["_NEEDS_BINDINGS"]


class _Namer:
    def __init__(self):
        self.env = {"_asarray": scalar_array, "_Tensor": tensor_of, "_rc": sys.getrefcount,
                    "_renew": _renew}
        self.names = {}

    def value(self, v):
        return self.names[id(v)]

    def bind(self, prefix, obj):
        name = f"{prefix}{len(self.env)}"
        self.env[name] = obj
        return name


def _generate(graph, plan, device_of_graph, accounted=False, profiled=False):
    """The schedule's source and its environment. `plan`: the MemoryPlan whose slots (the
    first argument, ``_o``) planned nodes write into. `accounted`: every output is named and
    reported to the Accountant ``_acct`` (the next argument), as is every free. `profiled`:
    every call records its span (profiling.timed)."""
    nm = _Namer()
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
        if isinstance(x, Value):
            return nm.value(x)
        if isinstance(x, Tensor):
            # A constant captured from the host lives on the graph's device from compile on
            # (a host array reaching a GPU kernel is copied both ways on every launch).
            return nm.bind("c", to_device(x._require_data(), device_of_graph))
        if isinstance(x, (tuple, list)) and any(isinstance(y, Value) for y in flatten(x)):
            body = ", ".join(operand(y) for y in x)
            return f"({body},)" if isinstance(x, tuple) else f"[{body}]"
        return constant(x)

    def constant(x):
        nonlocal needs_bindings
        if symbolic.is_symbolic(x):   # constants holding SymDims take the run's bindings
            needs_bindings = True
            return f"_subst({nm.bind('c', x)}, _b)"
        return nm.bind("c", x)

    for k, node in enumerate(graph.nodes):
        impl = node.prim.impl
        if profiled:
            impl = profiling.timed(impl, node.prim.name, profiling.category_of(node.prim))
        fn = nm.bind("f", impl)
        operands = [operand(x) for x in node.inputs]
        if k in plan.planned_nodes:
            outs_given = [_slot_expr(plan.slot_of[id(v)]) for v in node.outputs]
            operands.append(f"out=({', '.join(outs_given)},)" if node.tuple_output
                            else f"out={outs_given[0]}")
        call = f"{fn}({', '.join(operands)})"
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
            if "_" in outs:     # a dropped output must not stay referenced (the slot guard)
                lines.append("del _")
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
    if accounted:
        returned = [nm.value(v) for v in graph.output_values() if v.param is None]
        if returned:
            lines.append(f"_acct.returned({', '.join(returned)})")
    # (a returned constant may hold SymDims too: ops.Size of a dynamic input is s0 * 3)
    lines.append(f"return {_output_expr(graph.outputs, nm, constant)}")
    lead = ["_o"] + (["_acct"] if accounted else []) + (["_b"] if needs_bindings else [])
    header = f"def _run({', '.join(lead + args)}):"
    source = "\n".join(describe_memory(graph, plan) + [header]
                       + ["    " + ln for ln in lines]) + "\n"
    nm.env["_NEEDS_BINDINGS"] = needs_bindings
    if needs_bindings:
        nm.env["_subst"] = symbolic.substitute
    return source, nm.env


def _slot_expr(slot):
    return f"(_o[{slot}] if _rc(_o[{slot}]) == 2 else _renew(_o, {slot}))"


def _renew(slots, slot):
    """A new buffer for `slot`: something kept the old one (see arena.py)."""
    old = slots[slot]
    slots[slot] = fresh = device_empty(old.shape, old.dtype)
    return fresh


def _output_expr(obj, nm, constant):
    if isinstance(obj, Value):
        if obj.param is not None:
            return nm.bind("P", obj.param)
        return f"_Tensor({nm.value(obj)}, {nm.bind('d', obj.aval.dtype)})"
    if isinstance(obj, tuple):
        body = ", ".join(_output_expr(x, nm, constant) for x in obj)
        return f"({body},)" if obj else "()"
    if isinstance(obj, list):
        return "[" + ", ".join(_output_expr(x, nm, constant) for x in obj) + "]"
    return constant(obj)


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
