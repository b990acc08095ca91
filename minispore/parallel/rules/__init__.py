"""Sharding rules as the parallel pass uses them: the generators (re-exported from
minispore/ops/sharding, beside the operators that declare them)
plus the functions that apply an operator's rule to a strategy or to its inputs' layouts.

- ``apply_strategy(prim, args, in_strategy, device_num, out_strategy=None)``: a user strategy
  (tuples of cuts, or MindSpore Layouts whose dims may be cut over several device axes)
  -> required input layouts, output layouts (partial axes, ReduceScatter), a RuleResult.
- ``apply_default(prim, args, device_num, params=())``: an unannotated operator under
  semi-auto parallel: the data-parallel strategy (batch dim over all devices).
- ``propagate(prim, args, in_layouts)``: the operator's rule read from its inputs' layouts:
  the strategy their cuts imply (dims the operator cannot cut are made whole, a dim cut
  differently by two inputs follows the first), then the same RuleResult; the pass compares
  `in_layouts` with the required ones and redistributes where they differ.
"""
from minispore.ops.sharding import *  # noqa: F401,F403  (the generators)
from minispore.ops.sharding import Einsum, Rule, replicate_only, tensor_args  # noqa
from minispore.parallel.strategy.check import (RuleResult, StrategyError,  # noqa
                                               default_strategy, layout_operator_layouts,
                                               operator_layouts)


def rule_of(prim):
    """The operator's declared rule; a missing one is an error (no silent replication)."""
    rule = getattr(prim, "sharding_rule", None)
    if rule is None:
        raise StrategyError(f"For '{prim.name}', the operator declares no sharding_rule.")
    return rule


def _is_layout(s):
    return hasattr(s, "to_tensor_layout")


def apply_strategy(prim, args, in_strategy, device_num, out_strategy=None, scope=None):
    """A strategy of tuples of cuts, or of Layouts (§2.8: the device matrix and every rank's
    block as the layouts say, a dim possibly cut over several axes)."""
    rule_of(prim)
    if any(_is_layout(s) for s in in_strategy):
        if out_strategy is not None and not all(_is_layout(s) for s in out_strategy):
            raise StrategyError(f"For '{prim.name}', the in_strategy is given as Layouts, so "
                                f"the out_strategy must be Layouts too, but got "
                                f"{out_strategy}.")
        return layout_operator_layouts(prim, args, in_strategy, device_num, out_strategy,
                                       scope)
    if out_strategy is not None and any(_is_layout(s) for s in out_strategy):
        raise StrategyError(f"For '{prim.name}', an out_strategy of Layouts needs an "
                            f"in_strategy of Layouts (on the same device matrix), but got "
                            f"{in_strategy}.")
    return operator_layouts(prim, args, in_strategy, device_num, out_strategy, scope)


def apply_default(prim, args, device_num, params=(), scope=None):
    rule_of(prim)
    return operator_layouts(prim, args, default_strategy(prim, args, device_num, params),
                            device_num, scope=scope)


def strategy_from_layouts(prim, args, in_layouts):
    """The strategy implied by the inputs' layouts (see the module docstring)."""
    outs = prim.infer(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    spec = rule_of(prim).spec(prim, args, outs)
    chosen = {}
    for labs, layout in zip(spec.inputs, in_layouts):
        for lab, cut in zip(labs, layout.cuts()):
            if lab is not None and lab not in spec.fixed:
                chosen.setdefault(lab, cut)
    return tuple(tuple(chosen.get(lab, 1) if lab is not None else 1 for lab in labs)
                 for labs in spec.inputs)


def propagate(prim, args, in_layouts, scope=None):
    device_num = in_layouts[0].device_num
    return operator_layouts(prim, args, strategy_from_layouts(prim, args, in_layouts),
                            device_num, scope=scope)
