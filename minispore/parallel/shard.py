"""`ms.shard` (functional operator sharding, r2.3/2.4 signature): argument checks shared with
`Cell.shard`; the sharded region itself is not built yet, so a call refuses loudly instead of
running the function unsharded."""
from minispore.common.layout import check_strategy_tuples

__all__ = ["shard", "check_shard_args"]


def check_shard_args(name, in_strategy, out_strategy, parameter_plan, device, level):
    """MindSpore's type checks of shard's arguments (mindspore_semantics.md §6)."""
    if not isinstance(in_strategy, tuple):
        raise TypeError(f"For '{name}', 'in_strategy' must be a tuple, but got "
                        f"{type(in_strategy).__name__}.")
    for s in in_strategy:
        if s is not None and not isinstance(s, tuple) and type(s).__name__ != "Layout":
            raise TypeError(f"For '{name}', each element of 'in_strategy' must be a tuple, "
                            f"a Layout or None, but got {type(s).__name__}.")
        if isinstance(s, tuple):
            check_strategy_tuples(name, "in_strategy", (s,))
    if out_strategy is not None and not isinstance(out_strategy, tuple):
        raise TypeError(f"For '{name}', 'out_strategy' must be a tuple or None, but got "
                        f"{type(out_strategy).__name__}.")
    if parameter_plan is not None:
        if not isinstance(parameter_plan, dict):
            raise TypeError(f"For '{name}', 'parameter_plan' must be a dict, but got "
                            f"{type(parameter_plan).__name__}.")
        for k, v in parameter_plan.items():
            if not isinstance(k, str) or not (isinstance(v, tuple)
                                              or type(v).__name__ == "Layout"):
                raise TypeError(f"For '{name}', 'parameter_plan' keys must be str and values "
                                f"tuples or Layouts, but got {k!r}: {v!r}.")
    if not isinstance(device, str):
        raise TypeError(f"For '{name}', 'device' must be a str, but got "
                        f"{type(device).__name__}.")
    if not isinstance(level, int) or isinstance(level, bool):
        raise TypeError(f"For '{name}', 'level' must be an int, but got "
                        f"{type(level).__name__}.")


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """``ms.shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend",
    level=0)``: validated as MindSpore does, then NotImplementedError (not built yet)."""
    if not callable(fn):
        raise TypeError(f"For 'shard', 'fn' must be a function or a Cell, but got "
                        f"{type(fn).__name__}.")
    check_shard_args("shard", in_strategy, out_strategy, parameter_plan, device, level)
    raise NotImplementedError(
        "ms.shard (functional operator sharding) is not implemented in minispore yet; shard "
        "the primitives inside the function with Primitive.shard under "
        "parallel_mode='semi_auto_parallel' in GRAPH_MODE instead.")
