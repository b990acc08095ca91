"""`ms.shard` and `Cell.shard` (functional operator sharding, r2.3/2.4 signatures;
mindspore_semantics.md §6).

``shard(fn, in_strategy, ...)`` checks its arguments as MindSpore does, applies the
``parameter_plan`` to the cell's parameters and returns a `ShardFunction`, a region with fixed
boundary layouts (minispore/parallel/region_boundary.py) inside which sharding propagation
decides every operator's strategy. Calling it:

- while a graph is traced (GRAPH mode, or inside ``@jit``): its operators join the graph as a
  region; the parallel passes propagate and partition it with the rest;
- in GRAPH mode outside a trace: the region is compiled on its own (``jit``);
- in PYNATIVE: it runs eagerly on this rank's blocks (minispore/parallel/eager_region.py);
- on one device (``device_num`` 1): ``fn`` runs as it is -- nothing to shard (as MindSpore
  r2.5+ does).
"""
import logging

from minispore.common.auto_parallel_context import get_auto_parallel_context, \
    set_auto_parallel_context, user_set
from minispore.common.context import GRAPH_MODE, context
from minispore.common.layout import check_strategy_tuples
from minispore.common.registry import REGISTRY
from minispore.common.tensor import Tensor
from minispore.parallel.region_boundary import SHARD_REGION, entry_identity, exit_cuts, \
    exit_identities
from minispore.parallel.settings import get_device_num

__all__ = ["shard", "check_shard_args", "ShardFunction"]

logger = logging.getLogger("minispore")
_CTX = context()
_CACHE = REGISTRY.owned("parallel.shard_regions", dict)


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
    if out_strategy is not None:
        if not isinstance(out_strategy, tuple):
            raise TypeError(f"For '{name}', 'out_strategy' must be a tuple or None, but got "
                            f"{type(out_strategy).__name__}.")
        check_strategy_tuples(name, "out_strategy", out_strategy)
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


def _check_mode(name):
    mode = get_auto_parallel_context("parallel_mode")
    if mode not in ("auto_parallel", "semi_auto_parallel"):
        raise AssertionError(f"For '{name}', the parallel mode must be 'auto_parallel' or "
                             f"'semi_auto_parallel', but got {mode!r}; call "
                             f"set_auto_parallel_context(parallel_mode=...) first.")
    search = get_auto_parallel_context("search_mode")
    if mode == "auto_parallel" and search != "sharding_propagation":
        raise AssertionError(f"For '{name}', under 'auto_parallel' the search_mode must be "
                             f"'sharding_propagation', but got {search!r}.")


def _apply_parameter_plan(name, cell, plan):
    """Give each named parameter of `cell` its planned cuts (``param.planned_cuts``)."""
    device_num = get_device_num()
    params = {p.name: p for p in cell.get_parameters()}
    for key, cuts in plan.items():
        if not isinstance(cuts, tuple):
            raise NotImplementedError(
                f"For '{name}', a Layout in 'parameter_plan' ({key!r}) is not implemented in "
                f"minispore; give the parameter's cuts as a tuple of ints.")
        param = params.get(key[len("self."):] if key.startswith("self.") else key)
        if param is None:
            logger.warning("For '%s', 'parameter_plan' names %r, which is not a parameter of "
                           "%s (its parameters: %s); the entry is skipped.", name, key,
                           type(cell).__name__, sorted(params))
            continue
        if param.layout is not None or getattr(param, "planned_cuts", None) is not None:
            logger.warning("For '%s', the parameter '%s' already has a strategy; the "
                           "parameter_plan entry %s is skipped.", name, param.name, cuts)
            continue
        check_strategy_tuples(name, "parameter_plan", (cuts,))
        shape = tuple(param.shape)
        if len(cuts) != len(shape):
            raise ValueError(f"For '{name}', the parameter_plan of '{param.name}' is {cuts}, "
                             f"{len(cuts)} values for a parameter of shape {shape} (rank "
                             f"{len(shape)}); give one cut per dim.")
        for d, (dim, cut) in enumerate(zip(shape, cuts)):
            if dim % cut:
                raise ValueError(f"For '{name}', the parameter_plan of '{param.name}' cuts dim "
                                 f"{d} of shape {shape} {cut} ways, but {dim} is not divisible "
                                 f"by {cut}.")
        blocks = 1
        for cut in cuts:
            blocks *= cut
        if device_num % blocks:
            raise ValueError(f"For '{name}', the parameter_plan of '{param.name}' is {cuts} "
                             f"({blocks} blocks), which does not divide device_num "
                             f"{device_num}.")
        param.planned_cuts = cuts


class ShardFunction:
    """The callable ``shard`` returns: `fn` as a region with fixed boundary layouts."""

    def __init__(self, fn, in_strategy, out_strategy, name):
        self.fn = fn
        self.name = name
        self.in_strategy = in_strategy
        self.out_strategy = out_strategy
        self.entries = [entry_identity(s, i) for i, s in enumerate(in_strategy)]
        self.plans = {}         # PYNATIVE: input signature -> RegionPlan
        self._exits = {}
        self._compiled = None
        self._settings = None   # the call's ParallelSettings

    def __call__(self, *args):
        from minispore.parallel.settings import operator_parallel_settings
        _check_mode(self.name)
        settings = operator_parallel_settings()
        if settings is None:    # one device: nothing to shard
            return self._run_fn(*args)
        self._refuse_nesting()
        self._settings = settings       # for the exit operators' layouts (see _leave)
        tensors = sum(isinstance(a, Tensor) for a in args)
        if len(self.in_strategy) != tensors:
            raise ValueError(f"For '{self.name}', 'in_strategy' has {len(self.in_strategy)} "
                             f"entries, but the call has {tensors} tensor inputs; give one "
                             f"strategy (or None) per tensor input.")
        if _CTX.tracer is not None:
            return self.body(*args)
        if _CTX.mode == GRAPH_MODE:
            if self._compiled is None:
                from minispore.graph.jit import jit
                self._compiled = jit(self.body)
            return self._compiled(*args)
        from minispore.parallel.eager_region import run_eager_region
        return run_eager_region(self, settings, args)

    def _refuse_nesting(self):
        from minispore.parallel.eager_region import EagerSpmdInterpreter
        outer = [f[SHARD_REGION] for f in _CTX.annotation_frames if SHARD_REGION in f]
        if isinstance(_CTX.interpreter, EagerSpmdInterpreter):
            outer.append(_CTX.interpreter.name)
        if outer:
            raise NotImplementedError(
                f"The shard region '{self.name}' was called inside the shard region "
                f"'{outer[0]}': nested shard is not supported (as in MindSpore); shard the "
                f"outer function only.")

    def _run_fn(self, *args):
        if _is_cell(self.fn):     # its construct: calling the cell would enter this region
            return self.fn._run_construct(*args)
        return self.fn(*args)

    def body(self, *args):
        """The region: entry operators, `fn`, exit operators; its nodes are annotated."""
        frames = _CTX.annotation_frames
        frames.append({SHARD_REGION: self.name})
        try:
            tensors = iter(self.entries)
            xs = []
            for a in args:
                entry = next(tensors) if isinstance(a, Tensor) else None
                xs.append(entry(a) if entry is not None else a)
            out = self._run_fn(*xs)
            return self._leave(out)
        finally:
            frames.pop()

    def _leave(self, out):
        settings = self._settings
        outputs = out if isinstance(out, tuple) else (out,)
        done = []
        for k, t in enumerate(outputs):
            if isinstance(t, Tensor):
                cuts = exit_cuts(settings, _logical_shape(t))
                key = (k, cuts)
                if key not in self._exits:
                    self._exits[key] = exit_identities(self.out_strategy, k, cuts)
                for prim in self._exits[key]:
                    t = prim(t)
            done.append(t)
        return tuple(done) if isinstance(out, tuple) else done[0]


def _is_cell(fn):
    # (parallel sits below nn: a Cell is known by what the region uses of it)
    return hasattr(fn, "_run_construct") and hasattr(fn, "trainable_params")


def _logical_shape(t):
    """The logical shape of `t`: a traced tensor's own, or, inside an eager region, the shape
    of the tensor its block belongs to."""
    from minispore.parallel.eager_region import EagerSpmdInterpreter
    interpreter = _CTX.interpreter
    if isinstance(interpreter, EagerSpmdInterpreter) and id(t) in interpreter.blocks:
        return interpreter.blocks[id(t)][2]
    return tuple(t.shape)


def _default_full_batch(name):
    if not user_set("dataset_strategy") and not user_set("full_batch"):
        logger.warning("For '%s', neither dataset_strategy nor full_batch was set; "
                       "dataset_strategy is set to 'full_batch' (every rank feeds the whole "
                       "batch and the region's outputs come back whole).", name)
        set_auto_parallel_context(dataset_strategy="full_batch")


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """``ms.shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend",
    level=0)``: `fn` (a Cell or a function) as a sharded region (see the module docstring).
    `device` and `level` are reserved by MindSpore and unused."""
    if not callable(fn):
        raise TypeError(f"For 'shard', 'fn' must be a function or a Cell, but got "
                        f"{type(fn).__name__}.")
    name = f"{type(fn).__name__}.shard" if _is_cell(fn) else "shard"
    check_shard_args(name, in_strategy, out_strategy, parameter_plan, device, level)
    _check_mode(name)
    if parameter_plan is not None and not _is_cell(fn):
        raise TypeError(f"For '{name}', 'parameter_plan' is only allowed when 'fn' is a Cell, "
                        f"but got {type(fn).__name__}.")
    _default_full_batch(name)
    key = (id(fn), repr(in_strategy), repr(out_strategy), device, level)
    cached = _CACHE.get(key)
    if cached is not None and cached.fn is fn:
        region = cached
    else:
        region = _CACHE[key] = ShardFunction(fn, in_strategy, out_strategy,
                                             getattr(fn, "__name__", type(fn).__name__))
    if _is_cell(fn):
        if parameter_plan:
            _apply_parameter_plan(name, fn, parameter_plan)
        for p in fn.trainable_params():
            p.is_in_shard = True
    else:
        logger.warning("For 'shard', '%s' is a function: it must not own Parameters (pass "
                       "them in as arguments).", getattr(fn, "__name__", fn))
    return region
