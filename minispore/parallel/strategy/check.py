"""Strategy -> device matrix -> layouts: MindSpore's compile-time strategy checks (§2.2, §2.3).

`operator_layouts(prim, args, in_strategy, device_num)` is what the parallel pass calls for an
operator with a strategy: it checks the strategy against the input shapes (items 1-6 below),
reads the operator's einsum description (its `sharding_rule`, minispore/ops/sharding)
to merge cuts of the same logical dim (item 7: "Strategies of relevant dimensions are not
equal", dims that cannot be cut), builds the device matrix -- one axis per logical dim in order
of first appearance, higher-rank inputs first, plus a repeated-calculation axis on the RIGHT
when the product P is below the stage's device count -- and returns every input's required
TensorLayout and every output's layout with its pending reductions (`RuleResult`).

Checks, each raising StrategyError (a RuntimeError, as MindSpore's compile errors) naming the
operator, its scope, the strategy, the input shapes and the reason:
1. one strategy tuple per tensor input; 2. each tuple as long as its input's rank;
3. every value >= 1; 4. every dim divisible by its cut (a symbolic dim only when its Symbol's
divisor proves it, the message saying which Symbol(divisor=...) would); 5. cuts are powers of
two when the device count is; 6. the device count is a multiple of P.
"""
from dataclasses import dataclass
from math import gcd

from minispore.common.layout import TensorLayout
from minispore.ops.sharding import tensor_args
from minispore.common.symbolic import SymDim


class StrategyError(RuntimeError):
    """An operator's parallel strategy cannot be applied (raised when the parallel pass runs)."""


class SymbolDivisorError(StrategyError, ValueError):
    """A dynamic dim is cut k ways but its Symbol does not make it a multiple of k
    (mindspore_semantics.md §1.7: a ValueError; also a StrategyError like every other
    strategy check)."""


@dataclass(frozen=True)
class RuleResult:
    """What an operator's rule says for one strategy.

    dev_matrix: the operator's device matrix (with the repeat axis when repeat > 1).
    in_layouts: the layout each tensor input must have (the pass redistributes to it).
    out_layouts: each output's layout; `partial` axes hold pending reductions.
    partial_ops: per output, {right-counted axis: "sum" | "max" | "min"} for its partial axes.
    scales: per output, the factor to apply once its reductions are done (1/k for a mean).
    reduce_scatter: per output, None or (dim, axis): the pending sum along `axis` (of
      dev_matrix) is done by a ReduceScatter that also cuts `dim`; out_layouts then describe
      the scattered result (the two axes merged into one).
    notes: ((label, what the local computation needs), ...) for cut dims needing more than
      running the operator on its slices (masked lookups, per-slice seeds).
    """
    strategy: tuple
    dev_matrix: tuple
    repeat: int
    in_layouts: tuple
    out_layouts: tuple
    partial_ops: tuple
    scales: tuple
    reduce_scatter: tuple
    notes: tuple


def _prefix(prim, scope):
    where = scope or getattr(prim, "scope", "") or getattr(prim, "instance_name", "")
    return f"For '{prim.name}'" + (f" (in {where})" if where else "")


def _fail(prim, scope, strategy, shapes, reason):
    shown = tuple(tuple(s) for s in shapes)
    return StrategyError(f"{_prefix(prim, scope)}, the strategy {strategy} is invalid for "
                         f"inputs of shape {shown}: {reason}.")


def _is_pow2(n):
    return n > 0 and n & (n - 1) == 0


def _symbol_hint(dim, k):
    """'use Symbol(divisor=N)' for the variable of a dynamic dim so that k divides it."""
    content = 0
    for c in dim._canonical().values():
        content = gcd(content, c.numerator)
    var = dim.free_vars()[0]
    current = var.constraint.divisor if var.constraint is not None else 1
    need = k // gcd(content or 1, k)
    want = current * need // gcd(current, need)
    return f"its Symbol needs a divisor that makes the dim a multiple of {k}: use " \
           f"Symbol(divisor={want}) for {var.name} (now divisor={current})"


def _divisible(dim, k):
    """None when k divides dim, else the reason. A dynamic dim from a plain `None` (no Symbol)
    is checked at run time (§1.7); one from a Symbol must prove divisibility now."""
    if isinstance(dim, SymDim):
        if dim.divisible_by(k) or any(v.constraint is None for v in dim.free_vars()):
            return None
        return _symbol_hint(dim, k)
    return None if dim % k == 0 else ""


def check_strategy(prim, strategy, shapes, device_num, scope=None):
    """Items 1-5 of the module docstring (item 6 needs the device matrix)."""
    if not isinstance(strategy, tuple) or len(strategy) != len(shapes):
        n = len(strategy) if isinstance(strategy, tuple) else "?"
        raise _fail(prim, scope, strategy, shapes,
                    f"strategy size {n} is not equal to inputs size {len(shapes)}")
    for i, (s, shape) in enumerate(zip(strategy, shapes)):
        if len(s) != len(shape):
            raise _fail(prim, scope, strategy, shapes,
                        f"input {i}: strategy len {len(s)} is not equal to inputs len "
                        f"{len(shape)}")
        for d, (v, size) in enumerate(zip(s, shape)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise _fail(prim, scope, strategy, shapes,
                            f"input {i} dim {d}: strategy value {v!r} must be an int >= 1")
            # Gather's manual_split gives the table's row blocks their own sizes
            manual = i == 0 and d == 0 and "manual_split" in getattr(prim, "attrs", {})
            if v > 1 and not manual:
                why = _divisible(size, v)
                if why is not None:
                    err = _fail(prim, scope, strategy, shapes,
                                f"input {i}: shape {tuple(shape)} cannot be divisible by "
                                f"strategy value {v} at dim {d}" + (f" ({why})" if why else ""))
                    if why:     # a dynamic dim whose Symbol lacks the divisor (§1.7)
                        err = SymbolDivisorError(str(err))
                    raise err
            if _is_pow2(device_num) and not _is_pow2(v):
                raise _fail(prim, scope, strategy, shapes,
                            f"input {i} dim {d}: strategy value {v} is not a power of 2, which "
                            f"it must be when the device number {device_num} is")


def label_cuts(prim, spec, strategy, shapes, scope=None):
    """{label: cut} from a strategy, enforcing the einsum's consistency and fixed dims; also
    the labels in device-matrix order (first appearance, higher-rank inputs first)."""
    cuts, where = {}, {}
    order = sorted(range(len(spec.inputs)), key=lambda i: -len(spec.inputs[i]))
    labels = []
    for i in order:
        for lab in spec.inputs[i]:
            if lab is not None and lab not in labels:
                labels.append(lab)
    for i, (labs, s) in enumerate(zip(spec.inputs, strategy)):
        for d, (lab, v) in enumerate(zip(labs, s)):
            if lab is None:
                if v != 1:
                    raise _fail(prim, scope, strategy, shapes,
                                f"input {i} dim {d} is broadcast (size 1) or whole by "
                                f"definition and cannot be cut, but its strategy value is {v}")
                continue
            if v != 1 and lab in spec.fixed:
                raise _fail(prim, scope, strategy, shapes,
                            f"input {i} dim {d} cannot be split ({spec.fixed[lab]}), but its "
                            f"strategy value is {v}")
            if lab in cuts and cuts[lab] != v:
                j, e = where[lab]
                raise _fail(prim, scope, strategy, shapes,
                            f"Strategies of relevant dimensions are not equal: input {j} dim "
                            f"{e} is cut {cuts[lab]} ways but input {i} dim {d} is cut {v} ways")
            cuts[lab] = v
            where[lab] = (i, d)
    for group in spec.exclusive:
        cut = [lab for lab in group if cuts.get(lab, 1) > 1]
        if len(cut) > 1:
            dims = ", ".join(f"input {where[lab][0]} dim {where[lab][1]}" for lab in cut)
            raise _fail(prim, scope, strategy, shapes,
                        f"{dims} cannot be cut together (at most one of them may be split)")
    return labels, cuts


def _merge_axes(dev_matrix, tensor_map, partial, left):
    """The same rank -> slice mapping on dev_matrix with axes `left` and `left + 1` merged."""
    n = len(dev_matrix)
    merged = dev_matrix[:left] + (dev_matrix[left] * dev_matrix[left + 1],) + \
        dev_matrix[left + 2:]

    def remap(right):
        if right == -1:
            return -1
        a = n - 1 - right
        a = a if a <= left else a - 1
        return (n - 2) - a
    return merged, tuple(remap(m) for m in tensor_map), tuple(remap(p) for p in partial)


def _rule_and_shapes(prim, args, scope):
    """The operator's sharding rule (a missing one is an error) and its tensor inputs' shapes."""
    rule = getattr(prim, "sharding_rule", None)
    if rule is None:
        raise StrategyError(f"{_prefix(prim, scope)}, the operator declares no sharding_rule, "
                            f"so no strategy can be applied to it.")
    return rule, [tuple(a.shape) for a in tensor_args(args)]


def operator_layouts(prim, args, in_strategy, device_num, out_strategy=None, scope=None):
    """The RuleResult of `prim` called on `args` (tensors as Avals) under `in_strategy` on a
    stage of `device_num` devices. Raises StrategyError for any check of the module doc."""
    rule, shapes = _rule_and_shapes(prim, args, scope)
    in_strategy = tuple(tuple(s) for s in in_strategy)
    check_strategy(prim, in_strategy, shapes, device_num, scope)
    outs = prim.infer(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    spec = rule.spec(prim, args, outs)
    labels, cuts = label_cuts(prim, spec, in_strategy, shapes, scope)
    p = 1
    for lab in labels:
        p *= cuts[lab]
    if p > device_num or device_num % p:
        raise _fail(prim, scope, in_strategy, shapes,
                    f"the device matrix {tuple(cuts[lab] for lab in labels)} needs {p} devices, "
                    f"but the stage has {device_num}, which is not a multiple of {p}")
    repeat = device_num // p
    dev = tuple(cuts[lab] for lab in labels) + ((repeat,) if repeat > 1 else ())
    right = {lab: len(dev) - 1 - j for j, lab in enumerate(labels)}

    def tmap(labs):
        return tuple(-1 if lab is None or lab not in right else right[lab] for lab in labs)

    in_layouts = tuple(TensorLayout(dev, tmap(labs)) for labs in spec.inputs)
    out_layouts, partial_ops, scales, scatters = [], [], [], []
    for o, labs in enumerate(spec.outputs):
        pending = [lab for lab in labels if lab not in labs and cuts[lab] > 1]
        ops = {right[lab]: spec.partial_op.get(lab, "sum") for lab in pending}
        scale = 1.0
        for lab in (spec.mean[o] if o < len(spec.mean) else ()):
            scale /= cuts[lab]
        layout = TensorLayout(dev, tmap(labs), tuple(ops))
        scatter = None
        if out_strategy is not None and o < len(out_strategy):
            layout, scatter, ops = _apply_out_strategy(prim, scope, in_strategy, shapes, o,
                                                       out_strategy[o], labs, cuts, right, dev,
                                                       layout, ops)
        out_layouts.append(layout)
        partial_ops.append(ops)
        scales.append(scale)
        scatters.append(scatter)
    notes = tuple((lab, spec.notes[lab]) for lab in labels
                  if lab in spec.notes and cuts[lab] > 1)
    return RuleResult(in_strategy, dev, repeat, in_layouts, tuple(out_layouts),
                      tuple(partial_ops), tuple(scales), tuple(scatters), notes)


def _apply_out_strategy(prim, scope, strategy, shapes, o, want, labs, cuts, right, dev,
                        layout, ops):
    """out_strategy for output o: each dim keeps its cut c (AllReduce completes the partial
    sum) or, for one dim, takes c*b where b is the cut of a pending-sum axis right next to
    that dim's axis: ReduceScatter along that axis then cuts the dim (MatMul ((a*b, c),))."""
    want = tuple(want)
    if len(want) != len(labs):
        raise _fail(prim, scope, strategy, shapes,
                    f"out_strategy {want} for output {o} has {len(want)} values but the output "
                    f"has rank {len(labs)}")
    scatter = None
    for d, (lab, v) in enumerate(zip(labs, want)):
        c = cuts.get(lab, 1) if lab is not None else 1
        if v == c:
            continue
        n = len(dev)
        axis = n - 1 - right[lab] if lab in right else None
        nxt = None if axis is None or axis + 1 >= n else n - 2 - axis
        if (scatter is None and nxt is not None and ops.get(nxt) == "sum"
                and v == c * dev[axis + 1]):
            scatter = (d, nxt)
            continue
        options = [c] + ([c * dev[axis + 1]] if nxt is not None and ops.get(nxt) == "sum"
                         else [])
        raise _fail(prim, scope, strategy, shapes,
                    f"out_strategy {want}: dim {d} of output {o} must be cut "
                    f"{' or '.join(map(str, options))} ways (the input cut, or times the "
                    f"contracted cut for a ReduceScatter), but got {v}")
    if scatter is None:
        return layout, None, ops
    d, nxt = scatter
    rest = tuple(p for p in layout.partial if p != nxt)
    left = len(dev) - 2 - nxt
    merged, tmap, partial = _merge_axes(dev, layout.tensor_map, rest, left)
    ops = {q: ops[p] for p, q in zip(rest, partial)}
    return TensorLayout(merged, tmap, partial), scatter, ops


def default_strategy(prim, args, device_num, params=()):
    """MindSpore's strategy for an operator without one (§2.4): the first dim of the first
    data (non-parameter) input is cut `device_num` ways, in every input that carries that
    dim; weights and everything else stay whole. `params` are the positions (among tensor
    inputs) of parameters. Dims that cannot be cut leave the strategy all ones."""
    ins = tensor_args(args)
    outs = prim.infer(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    spec = prim.sharding_rule.spec(prim, args, outs)
    batch = None
    for i, labs in enumerate(spec.inputs):
        if i not in params and labs:
            batch = labs[0]
            break
    if batch is None or batch in spec.fixed:
        batch = None
    return tuple(tuple(device_num if lab == batch and lab is not None else 1 for lab in labs)
                 for labs, _ in zip(spec.inputs, ins))


# -- Layout strategies (MindSpore r2.3+, §2.8) ----------------------------------------------
def _layout_fail(prim, scope, layouts, shapes, reason):
    shown = tuple(getattr(lay, "tensor_map", lay) for lay in layouts)
    dev = next((lay.device_matrix for lay in layouts if hasattr(lay, "device_matrix")), None)
    return StrategyError(f"{_prefix(prim, scope)}, the Layout strategy with tensor maps {shown} "
                         f"on device_matrix {dev} is invalid for inputs of shape "
                         f"{tuple(tuple(s) for s in shapes)}: {reason}.")


def _tensor_layouts(prim, scope, layouts, shapes, device_num, what):
    """TensorLayouts of `what` (in_strategy / out_strategy): all Layouts on one device matrix
    and alias names, holding the stage's devices."""
    if not all(hasattr(lay, "to_tensor_layout") for lay in layouts):
        raise _layout_fail(prim, scope, layouts, shapes,
                           f"the {what} mixes Layouts and tuples; give every tensor a Layout "
                           f"or every tensor a tuple")
    first = layouts[0]
    for lay in layouts[1:]:
        if (lay.device_matrix, lay.alias_name) != (first.device_matrix, first.alias_name):
            raise _layout_fail(prim, scope, layouts, shapes,
                               f"every Layout of one operator must share its device_matrix "
                               f"and alias_name, but got {first.device_matrix}/"
                               f"{first.alias_name} and {lay.device_matrix}/{lay.alias_name}")
    try:
        return [lay.to_tensor_layout(device_num) for lay in layouts]
    except ValueError as e:
        raise _layout_fail(prim, scope, layouts, shapes, str(e)) from None


def _axes_name(layout, axes):
    names = tuple(layout.alias_name[a] for a in axes)
    return names[0] if len(names) == 1 else names


def layout_operator_layouts(prim, args, in_strategy, device_num, out_strategy=None,
                            scope=None):
    """The RuleResult of `prim` under a strategy of Layouts (one per tensor input, all on one
    device matrix whose product is the stage's device count). A dim may be cut over several
    axes (first outermost); the layouts fix the device matrix and every rank's block as they
    are, so the inputs' required layouts are exactly the given ones.

    Each logical dim of the operator's einsum (a label) must be cut over the same axes, in the
    same order, wherever it appears; an axis may cut one label only; dims that cannot be cut
    (broadcast, fixed) must stay whole. An output carries its labels' axes; a label missing
    from it leaves every axis of its cut pending (partial). `out_strategy` (Layouts) may append
    pending-sum axes to the inside of an output dim's axes: those sums become ReduceScatters.
    """
    rule, shapes = _rule_and_shapes(prim, args, scope)
    in_strategy = tuple(in_strategy)
    if len(in_strategy) != len(shapes):
        raise _layout_fail(prim, scope, in_strategy, shapes,
                           f"strategy size {len(in_strategy)} is not equal to inputs size "
                           f"{len(shapes)}")
    layouts = _tensor_layouts(prim, scope, in_strategy, shapes, device_num, "in_strategy")
    named = in_strategy[0]
    for i, (lay, shape) in enumerate(zip(layouts, shapes)):
        if len(lay.tensor_map) != len(shape):
            raise _layout_fail(prim, scope, in_strategy, shapes,
                               f"input {i}: the layout has {len(lay.tensor_map)} dims but the "
                               f"input has rank {len(shape)}")
    outs = prim.infer(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    spec = rule.spec(prim, args, outs)
    dev = layouts[0].dev_matrix
    axes_of, where, label_of_axis = {}, {}, {}
    for i, (labs, lay) in enumerate(zip(spec.inputs, layouts)):
        for d, lab in enumerate(labs):
            axes = lay.dim_axes(d)
            cut = lay.cuts()[d]
            if lab is None or lab in spec.fixed:
                if cut > 1:
                    why = spec.fixed.get(lab, "it is broadcast (size 1) or whole by "
                                              "definition")
                    raise _layout_fail(prim, scope, in_strategy, shapes,
                                       f"input {i} dim {d} cannot be split ({why}), but the "
                                       f"layout cuts it over {_axes_name(named, axes)}")
                continue
            if lab in axes_of and axes_of[lab] != axes:
                j, e = where[lab]
                raise _layout_fail(prim, scope, in_strategy, shapes,
                                   f"Strategies of relevant dimensions are not equal: input {j} "
                                   f"dim {e} is cut over "
                                   f"{_axes_name(named, axes_of[lab]) or 'None'} but input {i} "
                                   f"dim {d} over {_axes_name(named, axes) or 'None'}")
            axes_of[lab], where[lab] = axes, (i, d)
            for a in axes:
                other = label_of_axis.setdefault(a, lab)
                if other != lab:
                    j, e = where[other]
                    raise _layout_fail(prim, scope, in_strategy, shapes,
                                       f"the axis {named.alias_name[a]!r} cuts input {j} dim "
                                       f"{e} and input {i} dim {d}, which are different dims "
                                       f"of the operator; an axis may cut one of them only")
    for i, (lay, shape) in enumerate(zip(layouts, shapes)):
        for d, (size, cut) in enumerate(zip(shape, lay.cuts())):
            why = _divisible(size, cut) if cut > 1 else None
            if why is not None:
                err = _layout_fail(prim, scope, in_strategy, shapes,
                                   f"input {i}: shape {tuple(shape)} cannot be divisible by "
                                   f"{cut} (axes {_axes_name(named, lay.dim_axes(d))}) at dim "
                                   f"{d}" + (f" ({why})" if why else ""))
                raise SymbolDivisorError(str(err)) if why else err
    cut_of = {lab: _prod_axes(dev, axes) for lab, axes in axes_of.items()}
    for group in spec.exclusive:
        cut = [lab for lab in group if cut_of.get(lab, 1) > 1]
        if len(cut) > 1:
            dims = ", ".join(f"input {where[lab][0]} dim {where[lab][1]}" for lab in cut)
            raise _layout_fail(prim, scope, in_strategy, shapes,
                               f"{dims} cannot be cut together (at most one of them may be "
                               f"split)")
    n = len(dev)

    def tmap(labs):
        out = []
        for lab in labs:
            axes = axes_of.get(lab, ()) if lab is not None else ()
            right = tuple(n - 1 - a for a in axes)
            out.append(-1 if not right else right[0] if len(right) == 1 else right)
        return tuple(out)

    used = {a for axes in axes_of.values() for a in axes}
    repeat = _prod_axes(dev, [a for a in range(n) if a not in used])
    out_layouts, partial_ops, scales, scatters = [], [], [], []
    for o, labs in enumerate(spec.outputs):
        ops = {}
        for lab, axes in axes_of.items():
            if lab not in labs:
                ops.update({n - 1 - a: spec.partial_op.get(lab, "sum") for a in axes
                            if dev[a] > 1})
        scale = 1.0
        for lab in (spec.mean[o] if o < len(spec.mean) else ()):
            scale /= cut_of.get(lab, 1)
        layout = TensorLayout(dev, tmap(labs), tuple(ops))
        scatter = None
        if out_strategy is not None and o < len(out_strategy):
            layout, scatter, ops = _layout_out_strategy(prim, scope, in_strategy, shapes, o,
                                                        out_strategy[o], layout, ops,
                                                        device_num)
        out_layouts.append(layout)
        partial_ops.append(ops)
        scales.append(scale)
        scatters.append(scatter)
    notes = tuple((lab, spec.notes[lab]) for lab in axes_of
                  if lab in spec.notes and cut_of[lab] > 1)
    return RuleResult(in_strategy, dev, repeat, tuple(layouts), tuple(out_layouts),
                      tuple(partial_ops), tuple(scales), tuple(scatters), notes)


def _prod_axes(dev, axes):
    p = 1
    for a in axes:
        p *= dev[a]
    return p


def _layout_out_strategy(prim, scope, in_strategy, shapes, o, want, raw, ops, device_num):
    """out_strategy Layout for output o: the derived layout `raw` with some pending-sum axes
    appended inside output dims' axes (each a ReduceScatter); the other pending axes are
    AllReduced. Returns (the final layout, (dim, right axis) of the first scatter, {})."""
    want_layout, = _tensor_layouts(prim, scope, (want,), shapes, device_num, "out_strategy")
    if want_layout.dev_matrix != raw.dev_matrix or want.alias_name != in_strategy[0].alias_name:
        raise _layout_fail(prim, scope, in_strategy, shapes,
                           f"out_strategy for output {o} must use the in_strategy's "
                           f"device_matrix and alias names, but got {want.device_matrix}/"
                           f"{want.alias_name}")
    if len(want_layout.tensor_map) != len(raw.tensor_map):
        raise _layout_fail(prim, scope, in_strategy, shapes,
                           f"out_strategy for output {o} has {len(want_layout.tensor_map)} "
                           f"dims but the output has rank {len(raw.tensor_map)}")
    pending = {raw.axis(p) for p in raw.partial}
    scatter = None
    for d in range(len(raw.tensor_map)):
        have, get = raw.dim_axes(d), want_layout.dim_axes(d)
        extra = get[len(have):]
        if get[:len(have)] != have or any(a not in pending and raw.dev_matrix[a] > 1
                                          for a in extra):
            raise _layout_fail(prim, scope, in_strategy, shapes,
                               f"out_strategy for output {o}: dim {d} must be cut over "
                               f"{_axes_name(want, have) or 'None'}, optionally followed by "
                               f"axes of a pending sum "
                               f"({[want.alias_name[a] for a in sorted(pending)]}) to "
                               f"ReduceScatter into it, but got "
                               f"{_axes_name(want, get) or 'None'}")
        extra = [a for a in extra if a in pending]      # size-1 axes cut nothing
        if any(ops[len(raw.dev_matrix) - 1 - a] != "sum" for a in extra):
            raise _layout_fail(prim, scope, in_strategy, shapes,
                               f"out_strategy for output {o}: only a pending sum can be "
                               f"reduce-scattered")
        if extra and scatter is None:
            scatter = (d, len(raw.dev_matrix) - 1 - extra[0])
    if scatter is None:         # the derived blocks: AllReduce completes them
        return TensorLayout(raw.dev_matrix, want_layout.tensor_map, raw.partial), None, ops
    if any(op != "sum" for op in ops.values()):
        raise _layout_fail(prim, scope, in_strategy, shapes,
                           f"out_strategy for output {o}: a ReduceScatter cannot be combined "
                           f"with pending max/min reductions {ops}")
    # The remaining pending sums are AllReduced by the same redistribution (partial ->
    # replicate), so the final layout has none.
    return want_layout, scatter, {}
