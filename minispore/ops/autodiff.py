"""Eager reverse-mode autodiff: a tape of (primitive, inputs, outputs) walked backwards, the
recomputed blocks of PYNATIVE ``Cell.recompute``, and the gradient boundaries of
``Cell.register_backward_hook``, and the in-place writes of ``Tensor.__setitem__``."""
from contextlib import contextmanager

from minispore.common.context import BASE, Interpreter, context
from minispore.common.tensor import Tensor, tensor_of
from minispore.ops.backprop import backprop

_CTX = context()


class Tape(Interpreter):
    """Records the primitives applied to tensors that depend on the watched ones: a level of
    the interpreter stack (entered as a context manager) that hands each call to the level
    below and records it.

    A bprop may return a zero-argument function instead of a gradient Tensor; the tape calls it
    only when that input is live, so costly gradients nobody needs are never computed.

    Only ops with at least one live input are recorded, so work unrelated to the gradient
    (data preparation, metrics) costs one set lookup per input.
    """

    records = True

    def __init__(self):
        super().__init__()
        self.entries = []
        self.live = set()
        self._keep = []   # holds watched tensors so their ids stay unique while the tape lives

    def apply(self, prim, args):
        # apply_below inlined: every operator of a PYNATIVE training step passes here
        below = self._belows[-1]
        outs = BASE[0](prim, args) if below is None else below.apply(prim, args)
        if prim.differentiable:
            self.record(prim, args, outs)
        return outs

    def watch(self, tensor):
        self.live.add(id(tensor))
        self._keep.append(tensor)

    def record(self, prim, args, outs):
        live = self.live
        for a in args:
            if isinstance(a, Tensor) and id(a) in live:
                break
        else:
            return
        self.entries.append((prim, args, outs))
        if isinstance(outs, tuple):
            for o in outs:
                live.add(id(o))
        else:
            live.add(id(outs))

    def check_replace(self, old, new, name):
        """Raise when `old` may not take `new`'s value in place (replace)."""
        if id(new) in self.live and any(t is old for t in self._keep):
            raise RuntimeError(
                f"For '{name}', the Tensor written in place is itself being differentiated "
                f"(a grad_position input or a weight): its gradient would no longer be that "
                f"of the value passed in. Write into a copy (y = x.copy(); y[...] = v).")

    def replace(self, old, new):
        """`old` (a tensor object) now holds the value `new` was recorded with, and `new` the
        value `old` had: swap the two objects in the recorded entries and in the live set."""
        if id(new) not in self.live and id(old) not in self.live:
            return
        was_live = id(old) in self.live
        swap = {id(old): new, id(new): old}
        self.entries = [(prim, swapped(args, swap), swapped(outs, swap))
                        for prim, args, outs in self.entries]
        self.live.add(id(old))
        if not was_live:
            self.live.discard(id(new))

    def backward(self, outputs, sens, on_final=None):
        """Cotangents of every live tensor, keyed by id, from `outputs` seeded with `sens`.

        ``on_final`` maps id(tensor) -> callback(cotangent or None), called as soon as that
        tensor's cotangent can no longer change (see `backprop`).
        """
        tracer = _CTX.tracer
        # tracing: the bprop's nodes are BACKWARD, derived from the forward node
        around = None if tracer is None else (lambda entry: tracer.deriving(entry[2]))
        return backprop(self.entries, zip(outputs, sens), self.live, around=around,
                        on_final=on_final)


# -- recompute (PYNATIVE Cell.recompute) ------------------------------------------------------
def run_recomputed(forward, name, generators=()):
    """``forward()`` (a ``Cell.recompute`` cell's call) run so that the active tapes keep only
    its inputs: its operators are not recorded one by one (their outputs die as soon as the
    forward drops them); each tape records one `RecomputedBlock` entry instead, whose bprop
    runs the forward again on the same inputs and differentiates that.

    The entry's inputs are the live tensors the forward read but did not make (its tensor
    arguments, the parameters it read, tensors it closed over), found while it runs. The
    global random generator and `generators` are replayed, so a recomputed Dropout draws the
    forward's mask. Without active tapes this is just ``forward()``.
    """
    outer = _CTX.tapes
    if not outer:
        return forward()
    probe = _BlockProbe(outer)
    random_state = _RandomState(generators)
    with _CTX.tapes_suspended(), probe:
        out = forward()
    made = tuple(t for t in _tensor_leaves(out) if id(t) in probe.made)
    if probe.inputs and made:
        block = RecomputedBlock(forward, name, random_state, _leaf_positions(out, probe.made))
        for tape in outer:
            tape.record(block, probe.inputs, made)
    return out


class _BlockProbe(Interpreter):
    """Stands in for the tapes while a recomputed block runs forward (they are suspended):
    records nothing, but collects the tensors live on the outer tapes that the block's
    operators read (its inputs) and the ids of the tensors the block made."""
    records = True

    def __init__(self, outer):
        super().__init__()
        self.outer = outer
        self.inputs = []
        self._seen = set()
        self.made = set()

    def apply(self, prim, args):
        outs = self.apply_below(prim, args)
        if prim.differentiable:
            self.record(prim, args, outs)
        return outs

    def record(self, prim, args, outs):
        for a in args:
            if isinstance(a, Tensor) and id(a) not in self._seen and id(a) not in self.made \
                    and any(id(a) in tape.live for tape in self.outer):
                self._seen.add(id(a))
                self.inputs.append(a)
        for o in (outs if isinstance(outs, tuple) else (outs,)):
            self.made.add(id(o))

    def check_replace(self, old, new, name):
        if any(id(old) in tape.live for tape in self.outer) and id(old) not in self.made:
            raise NotImplementedError(
                f"For '{name}', writing in place into a differentiated tensor that a "
                f"Cell.recompute cell reads but did not make is not implemented in minispore "
                f"(running the cell again would read the written value); write into a copy.")

    def replace(self, old, new):
        if id(new) in self.made:
            self.made.add(id(old))


class RecomputedBlock:
    """The tape entry of a recomputed block: ``bprop`` runs the block's forward again (random
    draws replayed) on a fresh tape watching the entry's inputs, and returns their gradients
    for the cotangents of the outputs the block made."""

    def __init__(self, forward, name, random_state, positions):
        self.forward = forward
        self.name = name
        self.random_state = random_state
        self.positions = positions      # where the recorded outputs sit among the leaves

    def bprop(self, inputs, out, dout):
        with self.random_state.replayed(), Tape() as tape:
            for x in inputs:
                tape.watch(x)
            again = self.forward()
        leaves = _tensor_leaves(again)
        heads = [leaves[i] for i in self.positions]
        cot = tape.backward(heads, dout if isinstance(dout, tuple) else (dout,))
        return tuple(cot.get(id(x)) for x in inputs)


class _RandomState:
    """The states of the global generator and of `generators` when a block ran, to replay."""

    def __init__(self, generators):
        from minispore.common.seed import rng
        self.saved = [(g, g.bit_generator.state) for g in (rng(),) + tuple(generators)]

    @contextmanager
    def replayed(self):
        current = [(g, g.bit_generator.state) for g, _ in self.saved]
        for g, state in self.saved:
            g.bit_generator.state = state
        try:
            yield
        finally:   # the run continues with the draws it would have made without recompute
            for g, state in current:
                g.bit_generator.state = state


# -- in-place writes (Tensor.__setitem__) -------------------------------------------------------
def replace_in_place(x, new, name):
    """Make the tensor object `x` hold `new`'s value (``x[index] = value``), as MindSpore's
    in-place setitem. A Parameter is written through Assign (its buffer and identity are the
    network's), which is refused while a gradient would have to flow through the write. Any
    other tensor swaps contents with `new`: the levels of the interpreter stack (tapes, a
    tracer) swap the two objects in what they recorded, so `x` stands for the new value from
    here on, `new` for the old one, and gradients reach `value` and the kept part of the old
    value.
    """
    from minispore.common.parameter import Parameter
    tapes = _CTX.tapes
    if isinstance(x, Parameter):
        for tape in tapes:
            if id(new) in getattr(tape, "live", ()):
                raise RuntimeError(
                    f"For '{name}', writing in place into the Parameter '{x.name}' while a "
                    f"gradient flows through the write (the Parameter or the value is being "
                    f"differentiated) is not supported: an in-place write to a weight is not "
                    f"differentiable. Compute with a copy (y = param.copy(); y[...] = v).")
        from minispore.ops import functional as F
        F.assign(x, new)
        return
    levels = _CTX.levels()
    for level in levels:
        level.check_replace(x, new, name)
    for level in levels:
        level.replace(x, new)
    _swap_contents(x, new)


def _swap_contents(a, b):
    da, db = a.__dict__, b.__dict__
    for key in ("_data", "_dtype", "_placeholder_dims", "_value", "_level", "_batched"):
        va, vb = da.pop(key, _MISSING), db.pop(key, _MISSING)
        if vb is not _MISSING:
            da[key] = vb
        if va is not _MISSING:
            db[key] = va
    if type(a) is not type(b):     # a constant Tensor written while tracing becomes traced
        a.__class__, b.__class__ = b.__class__, a.__class__


_MISSING = object()


def swapped(obj, swap):
    """`obj` (a tensor or nested tuples/lists) with the tensors in `swap` (id -> replacement)
    replaced; the tape's entries here, the tracer's node inputs (graph/tracer.py)."""
    if isinstance(obj, Tensor):
        return swap.get(id(obj), obj)
    if isinstance(obj, tuple):
        return tuple(swapped(x, swap) for x in obj)
    if isinstance(obj, list):
        return [swapped(x, swap) for x in obj]
    return obj


# -- backward hooks (PYNATIVE Cell.register_backward_hook) -------------------------------------
def run_backward_hooked(cell, hooks, args, forward, pre_hooks=()):
    """``forward(args)`` (a cell's construct) between two identity boundaries recorded on the
    active tapes, so the cell's backward hooks see the cotangents at its outputs (grad_output)
    and at its tensor inputs (grad_input), and may replace the latter; its backward pre hooks
    (``hook(cell, grad_output)``) see and may replace grad_output before the cell's backward.

    The output boundary's bprop runs the pre hooks and keeps grad_output; the input
    boundary's bprop, which the tape walk reaches after every operator of the cell, calls
    ``hook(cell, grad_input, grad_output)`` for each hook and hands on what they return. The
    cell's float inputs are watched, so grad_input is computed even where nothing upstream is
    differentiated (the first layer on data), as MindSpore computes it; a cell without float
    inputs gets grad_input None for each input, from the output boundary. Without active
    tapes this is just ``forward(args)``.
    """
    tapes = _CTX.tapes
    if not tapes:
        return forward(args)
    state = _HookState(cell, tuple(hooks), tuple(pre_hooks))
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    inputs = tuple(args[i] for i in positions)
    passed = tuple(_alias(t) for t in inputs)
    before = [len(tape.entries) for tape in tapes]
    for tape in tapes:
        for t in inputs:
            if t.dtype.is_float and id(t) not in tape.live:
                tape.watch(t)
    boundary = CellBackwardHookInput(state)
    for tape in tapes:
        tape.record(boundary, inputs, passed)
    inputs_recorded = any(len(t.entries) > n for t, n in zip(tapes, before))
    args = list(args)
    for i, t in zip(positions, passed):
        args[i] = t
    out = forward(tuple(args))
    leaves = tuple(_tensor_leaves(out))
    if not leaves:
        return out
    aliases = tuple(_alias(t) for t in leaves)
    boundary = CellBackwardHookOutput(state, None if inputs_recorded else len(inputs))
    for tape in tapes:
        tape.record(boundary, leaves, aliases)
    return _replace_leaves(out, iter(aliases))


class _HookState:
    """What the two boundaries of one hooked cell call share: the cell, its hooks as they were
    when it ran, and the grad_output the output boundary saw."""

    def __init__(self, cell, hooks, pre_hooks):
        self.cell = cell
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_output = None

    def call(self, grad_input):
        for hook in self.hooks:
            grad_input = self._checked(hook(self.cell, grad_input, self.grad_output),
                                       grad_input, hook, "register_backward_hook", "input")
        return grad_input

    def call_pre(self, grad_output):
        for hook in self.pre_hooks:
            grad_output = self._checked(hook(self.cell, grad_output), grad_output, hook,
                                        "register_backward_pre_hook", "output")
        return grad_output

    def _checked(self, ret, grads, hook, method, what):
        """What a hook returned in place of `grads`: None keeps them; otherwise one Tensor
        (or a tuple) per tensor {what} of the cell, each of its gradient's shape."""
        if ret is None:
            return grads
        name = f"{type(self.cell).__name__}.{method}"
        ret = ret if isinstance(ret, tuple) else (ret,)
        if len(ret) != len(grads):
            raise ValueError(f"For '{name}', the hook must return None or {len(grads)} "
                             f"gradient(s), one per tensor {what} of the cell, but "
                             f"{getattr(hook, '__name__', hook)!r} returned {len(ret)}.")
        for new, old in zip(ret, grads):
            if old is not None and (not isinstance(new, Tensor)
                                    or tuple(new.shape) != tuple(old.shape)):
                raise ValueError(f"For '{name}', each gradient the hook returns must be a "
                                 f"Tensor of its {what}'s shape {tuple(old.shape)}, but got "
                                 f"{_describe(new)}.")
        return ret


class CellBackwardHookInput:
    """Tape entry at a hooked cell's tensor inputs: identity forward; its bprop calls the hooks
    with the cotangents of the inputs and returns what they give back."""

    name = "CellBackwardHook"

    def __init__(self, state):
        self.state = state

    def bprop(self, inputs, out, dout):
        return tuple(self.state.call(tuple(dout)))


class CellBackwardHookOutput:
    """Tape entry at a hooked cell's outputs: identity forward; its bprop runs the backward pre
    hooks on the cotangents, keeps them for the hooks (and calls those itself when the input
    boundary was not recorded) and hands them on."""

    name = "CellBackwardHook"

    def __init__(self, state, unrecorded_inputs):
        self.state = state
        self.unrecorded_inputs = unrecorded_inputs

    def bprop(self, inputs, out, dout):
        dout = self.state.call_pre(tuple(dout))
        self.state.grad_output = dout
        if self.unrecorded_inputs is not None:
            self.state.call((None,) * self.unrecorded_inputs)
        return tuple(dout)


def _alias(t):
    """A new tensor object over the same buffer: the identity a boundary hands on."""
    return tensor_of(t._data, t.dtype)


def _describe(x):
    return f"a Tensor of shape {tuple(x.shape)}" if isinstance(x, Tensor) else type(x).__name__


def _replace_leaves(obj, new):
    if isinstance(obj, Tensor):
        return next(new)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_replace_leaves(x, new) for x in obj)
    return obj


def _tensor_leaves(obj):
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for x in obj for t in _tensor_leaves(x)]
    return []


def _leaf_positions(out, made):
    return tuple(i for i, t in enumerate(_tensor_leaves(out)) if id(t) in made)
