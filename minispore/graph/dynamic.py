"""Dynamic-shape inputs: placeholder signatures, symbolic input Avals, and binding actual sizes.

`Cell.set_inputs(Tensor(shape=[Symbol(divisor=8), 784], ...))` compiles once for every input
that fits. Each `None` placeholder dim becomes a fresh variable; each Symbol occurrence becomes
a variable carrying the Symbol's constraints; a `unique=True` Symbol is one variable shared by
every dim that uses it, while a `unique=False` Symbol used twice gives two variables that share
only the constraints (mindspore_semantics.md §1.2). The compiled graph refers to those
variables (SymDims); `bind_and_check` maps them to the actual sizes of a call and raises
before anything runs when a size breaks a rule.
"""
import logging

from minispore.common.parameter import Parameter
from minispore.common.registry import REGISTRY
from minispore.common.symbol import Symbol
from minispore.common.symbolic import SymDim, SymVar
from minispore.common.tensor import Tensor
from minispore.ops.primitive import Aval

__all__ = ["signature_of", "input_avals", "bind_and_check", "symbol_text", "with_ranks",
           "tensor_inputs"]

# Specs are cached by the identity of the placeholder objects, so the variables a graph was
# traced with are the ones its calls bind (links made while tracing live on them).
_SPECS = REGISTRY.owned("graph.placeholder_specs", dict)
logger = logging.getLogger("minispore")
# id of a placeholder of any rank -> (it, {shape: the placeholder of that shape})
_RANKED = REGISTRY.owned("graph.ranked_placeholders", dict)


def symbol_text(sym):
    """`Symbol(divisor=8)`: a Symbol as it would be written (str(Symbol) is its dict)."""
    fields = {k: v for k, v in sym.to_dict().items() if k != "id"}
    if sym.unique:
        fields["unique"] = True
    return "Symbol(" + ", ".join(f"{k}={v}" for k, v in fields.items()) + ")"


class _Spec:
    """The variables of one placeholder tuple and where each is read from."""

    def __init__(self, placeholders):
        self.placeholders = placeholders
        self.vars = []
        self.inputs = []           # per input: (is_param, dtype, dims) with dims int | SymVar
        self.origin = {}           # SymVar -> (input index, axis) where it is first read
        shared = {}
        for i, p in enumerate(placeholders):
            dims = p.placeholder_dims if p.is_placeholder else tuple(p.shape)
            out = []
            for axis, d in enumerate(dims):
                if isinstance(d, Symbol) and d.unique and id(d) in shared:
                    out.append(shared[id(d)])
                    continue
                if d is None or isinstance(d, Symbol):
                    var = SymVar(len(self.vars), d)
                    self.vars.append(var)
                    self.origin[var] = (i, axis)
                    if isinstance(d, Symbol) and d.unique:
                        shared[id(d)] = var
                    out.append(var)
                else:
                    out.append(int(d))
            self.inputs.append((isinstance(p, Parameter), p.dtype, tuple(out)))
        self.avals = tuple(Aval(tuple(SymDim.var(d) if isinstance(d, SymVar) else d
                                      for d in dims), dtype)
                           for _, dtype, dims in self.inputs)


def _spec(placeholders):
    key = tuple(map(id, placeholders))
    hit = _SPECS.get(key)
    if hit is None:
        hit = _SPECS[key] = _Spec(tuple(placeholders))
    return hit


def tensor_inputs(placeholders, args, cell_name):
    """(placeholders, args) without the positions set_inputs gave a constant (an int, float,
    bool or a tuple of them, as MindSpore takes): those arguments are constants of the graph,
    compiled for each value like any non-Tensor argument (the compile key holds them)."""
    kept_p, kept_a = [], []
    for i, (p, arg) in enumerate(zip(placeholders, args)):
        if isinstance(p, Tensor):
            kept_p.append(p)
            kept_a.append(arg)
        elif isinstance(arg, Tensor):
            raise TypeError(f"For '{cell_name}' input {i}: set_inputs declared the constant "
                            f"{p!r}, but got a Tensor.")
    n = min(len(placeholders), len(args))
    return kept_p + list(placeholders[n:]), kept_a + list(args[n:])


def with_ranks(placeholders, args, cell_name):
    """`placeholders` with each one of any rank (``Tensor(dtype=...)``) replaced by a
    placeholder of its argument's shape: minispore compiles a graph per input shape there
    (MindSpore compiles one graph for every shape; a dim of unknown rank cannot be matched
    against the network's static dims here), and says so once per placeholder."""
    out = []
    for p, arg in zip(placeholders, args):
        if isinstance(p, Tensor) and p.is_dynamic_rank and isinstance(arg, Tensor):
            entry = _RANKED.get(id(p))
            if entry is None or entry[0] is not p:
                logger.warning("For '%s', set_inputs has a placeholder of any rank "
                               "(Tensor(dtype=%s)): minispore compiles a graph for each input "
                               "shape it meets there.", cell_name, p.dtype)
                entry = _RANKED[id(p)] = (p, {})
            shape = tuple(arg.shape)
            if shape not in entry[1]:
                shaped = Tensor.__new__(Tensor)
                shaped._data, shaped._dtype, shaped._placeholder_dims = None, p.dtype, shape
                entry[1][shape] = shaped
            p = entry[1][shape]
        out.append(p)
    return out + list(placeholders[len(out):])


def signature_of(placeholders):
    """A hashable key describing the placeholders (dtypes, static dims, which dims are dynamic
    and with what constraints, which Symbol objects are shared): the compile-cache key."""
    order = {}
    sig = []
    for p in placeholders:
        dims = p.placeholder_dims if p.is_placeholder else tuple(p.shape)
        key = []
        for d in dims:
            if isinstance(d, Symbol):
                key.append(("S", order.setdefault(id(d), len(order)), d.max, d.min, d.divisor,
                            d.remainder, d.unique))
            else:
                key.append(d)
        sig.append((isinstance(p, Parameter), str(p.dtype), tuple(key)))
    return tuple(sig)


def input_avals(placeholders):
    """One Aval per placeholder, dynamic dims as SymDims (`s0`, `s1`, ...), for the tracer."""
    return _spec(placeholders).avals


def bind_and_check(placeholders, args, cell_name):
    """Bind the placeholders' variables to the sizes of `args` and check every rule.

    Returns the bindings (SymVar -> int) the executor substitutes into its SymDims. Raises
    (mindspore_semantics.md §1.4) ValueError when the counts differ, TypeError for a
    non-Tensor argument or a Parameter/Tensor mismatch, ValueError for a dtype, a rank, a static
    dim, a Symbol constraint (min, max, divisor/remainder), a unique Symbol's dims disagreeing,
    or two dims the graph needs equal (e.g. the batch dims of logits and labels) disagreeing.
    Every message names the input index (0-based), the axis and the actual size.
    """
    spec = _spec(placeholders)
    who = f"For '{cell_name}'"
    if len(args) != len(spec.inputs):
        raise ValueError(f"{who}, the number of inputs ({len(args)}) must equal the number of "
                         f"placeholders given to set_inputs ({len(spec.inputs)}).")
    bindings = {}
    for i, (arg, (is_param, dtype, dims)) in enumerate(zip(args, spec.inputs)):
        if not isinstance(arg, Tensor):
            raise TypeError(f"{who} input {i}: set_inputs declared a Tensor, but got "
                            f"{type(arg).__name__}.")
        if isinstance(arg, Parameter) != is_param:
            raise TypeError(f"{who} input {i}: set_inputs declared a "
                            f"{'Parameter' if is_param else 'Tensor'}, but got "
                            f"{type(arg).__name__}.")
        if arg.dtype != dtype:
            raise ValueError(f"{who} input {i}: the dtype {arg.dtype} must be {dtype} as "
                             f"declared by set_inputs.")
        shape = arg.shape
        if len(shape) != len(dims):
            raise ValueError(f"{who} input {i}: the rank {len(shape)} (shape {tuple(shape)}) "
                             f"must be {len(dims)} as declared by set_inputs "
                             f"{_declared(placeholders[i])}.")
        for axis, (size, d) in enumerate(zip(shape, dims)):
            if d.__class__ is int:
                if size != d:
                    raise ValueError(f"{who} input {i} axis {axis}: {size} must equal the "
                                     f"static dim {d} of {_declared(placeholders[i])}.")
                continue
            seen = bindings.get(d)
            if seen is None:
                bindings[d] = size
                sym = d.constraint
                why = sym.violation(size) if sym is not None else None
                if why is not None:
                    raise ValueError(f"{who} input {i} axis {axis}: {size} does not satisfy "
                                     f"{symbol_text(sym)}: {why}.")
            elif seen != size:
                j, a = spec.origin[d]
                raise ValueError(f"{who} input {i} axis {axis}: {size} must equal input {j} "
                                 f"axis {a} ({seen}): both use the same "
                                 f"{symbol_text(d.constraint)} with unique=True.")
    for var in spec.vars:
        if var.link is not None:
            want = var.link.evaluate(bindings) if isinstance(var.link, SymDim) else var.link
            if bindings[var] != want:
                i, axis = spec.origin[var]
                raise ValueError(f"{who} input {i} axis {axis}: {bindings[var]} must equal "
                                 f"{var.link} = {want} (the compiled graph needs them equal"
                                 f"{': ' + var.why if var.why else ''}); "
                                 f"{_where(spec, var.link)}.")
        for fact in var.facts:
            try:
                fact.evaluate(bindings)
            except ValueError as e:
                raise ValueError(f"{who}, {e} The graph divides by a size that these inputs "
                                 f"do not make a whole number ({_where(spec, fact)}).") from None
    return bindings


def _declared(p):
    dims = p.placeholder_dims if p.is_placeholder else tuple(p.shape)
    return "[" + ", ".join("None" if d is None else symbol_text(d) if isinstance(d, Symbol)
                           else str(d) for d in dims) + "]"


def _where(spec, dim):
    if not isinstance(dim, SymDim):
        return "a static size"
    return ", ".join(f"{v.name} is input {spec.origin[v][0]} axis {spec.origin[v][1]}"
                     for v in dim.free_vars() if v in spec.origin)
