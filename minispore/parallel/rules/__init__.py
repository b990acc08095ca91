"""Sharding rules as the parallel pass uses them: the generators (re-exported from
minispore/ops/sharding, beside the operators that declare them)
plus the functions that apply an operator's rule to a strategy or to its inputs' layouts.

- ``apply_strategy(prim, args, in_strategy, device_num, out_strategy=None)``: a user strategy
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
from minispore.parallel.strategy import (RuleResult, StrategyError, default_strategy,  # noqa
                                         operator_layouts)


def rule_of(prim):
    """The operator's declared rule; a missing one is an error (no silent replication)."""
    rule = getattr(prim, "sharding_rule", None)
    if rule is None:
        raise StrategyError(f"For '{prim.name}', the operator declares no sharding_rule.")
    return rule


def as_int_strategy(strategy):
    """A strategy whose elements may be Layout objects (§2.8) as tuples of cuts."""
    if strategy is None:
        return None
    return tuple(s.to_tensor_layout().cuts() if hasattr(s, "to_tensor_layout") else s
                 for s in strategy)


def apply_strategy(prim, args, in_strategy, device_num, out_strategy=None, scope=None):
    rule_of(prim)
    in_strategy, out_strategy = as_int_strategy(in_strategy), as_int_strategy(out_strategy)
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
