"""Primitive: the base of every operator; `__call__` hands it to the interpreter stack."""
import functools
import inspect
import logging

from minispore.common.auto_parallel_context import get_auto_parallel_context
from minispore.common.context import BASE, PYNATIVE_MODE, context
from minispore.common.layout import check_strategy_tuples
from minispore.common.ps_context import get_ps_context, is_role_sched
from minispore.common.registry import REGISTRY
from minispore.ops.casting import cast_array

logger = logging.getLogger("minispore")

_warned_shard = REGISTRY.owned("ops.warned_shard", set)   # names warned once about shard()


_THREAD = context()._local


class Aval:
    """Abstract value: what `infer` sees and returns (shape dims are ints or symbolic dims)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"<Tensor[{self.dtype}], {self.shape}>"


def _half_via_float32(impl):
    """`impl` run on float16 inputs as float32 (the float32 kernel computes and accumulates),
    its floating results rounded back to float16: the one place operators gain float16."""
    import numpy as np
    half, single = np.float16, np.dtype(np.float32)

    def narrow(r):
        return cast_array(r, half) if getattr(r, "dtype", None) == single else r

    def widen(a):
        t = getattr(a, "dtype", None)
        return cast_array(a, single) if t is not None and t.type is half else a

    @functools.wraps(impl)
    def run(self, *arrays, **out):
        for a in arrays:    # a plain loop: this check is on every call of the operator
            t = getattr(a, "dtype", None)
            if t is not None and t.type is half:
                break
        else:
            return impl(self, *arrays, **out)
        if out:     # the memory plan never gives float16 operands of these a buffer
            raise TypeError(f"For '{self.name}', out= is not supported with float16 operands.")
        out = impl(self, *(widen(a) for a in arrays))
        return tuple(narrow(r) for r in out) if isinstance(out, tuple) else narrow(out)
    run.float16_via_float32 = True
    return run


class Primitive:
    """Base class of operators.

    Subclasses define ``infer(*avals)`` (returns an Aval or a tuple of Avals, raising
    ValueError/TypeError through ``self.error``), ``impl(*arrays)`` (the kernel call),
    ``bprop(inputs, out, dout)`` (gradients written with minispore ops, one per input, None for
    non-differentiable ones), and optionally ``sharding_rule``. Non-tensor call arguments
    (axes, shapes) reach all three unchanged.
    """

    # Subclasses with non-differentiable outputs (Argmax, Equal …) set this to False.
    differentiable = True
    # An operator differentiable in principle that has no bprop says why here (a backward
    # kernel: no second-order gradient); it stays on the tape, so a gradient reaching it raises.
    no_bprop_reason = None
    # Collectives set this: the recompute pass re-runs them only as Cell.recompute's
    # mp_comm_recompute / parallel_optimizer_comm_recompute say.
    communication = False
    # False where running the operator again would not give the same outputs or would act
    # elsewhere (random draws, point-to-point transfers): recompute keeps its outputs instead.
    replayable = True
    # Set on an instance whose peer runs its own backward in every backward pass (the
    # Send/Receive pairs of a graph partitioned by `place`): graph autodiff then calls this
    # one's bprop every time too, with zero cotangents where none arrived, so both ends of
    # the pair exchange the gradient message whatever reaches the local loss.
    backward_always = False
    # True where the operator takes float16 by running its float32 kernel: float16 inputs are
    # widened, float32 outputs rounded back (MindSpore's float16 ops compute in float32 too on
    # CPU). Every `impl` a subclass defines is wrapped (see __init_subclass__), so the graph
    # executor, which binds `prim.impl`, runs the same path as eager.
    float16_in_float32 = False
    # True where `impl` takes ``out=``: an array of the inferred shape and dtype (a tuple of
    # them for a tuple output) that it writes its result into and returns. The graph executor
    # then hands it a buffer of the static memory plan (minispore/graph/arena.py) reused by
    # every run. Such an impl must not return a view of an input or keep `out`.
    writes_out = False
    # True where `impl` always returns new arrays, never an input or a view of one (as every
    # `writes_out` impl does): the memory plan need not keep its inputs' buffers for it.
    fresh_outputs = False
    # True where the value is a handle rather than an array (AllReduceStart's pending
    # all-reduce, which lives on the host whatever the device): the eager interpreter wraps it
    # as it is, for the one operator that reads it.
    handle_output = False
    # The input whose values decide the output's length (MaskedSelect: "mask"): such an
    # operator runs eagerly only, and the graph tracer refuses it (graphs here have shapes
    # known before they run).
    values_decide_shape = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        impl = cls.__dict__.get("impl")
        # Both promises are inherited only together with the impl they describe.
        if impl is not None and "writes_out" not in cls.__dict__:
            cls.writes_out = False
        if impl is not None and "fresh_outputs" not in cls.__dict__:
            cls.fresh_outputs = False
        if (cls.float16_in_float32 and impl is not None
                and not getattr(impl, "float16_via_float32", False)):
            cls.impl = _half_via_float32(impl)

    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self.attrs = {}
        self.instance_name = ""
        self.scope = ""

    # -- attributes and annotations --------------------------------------------------------
    def add_prim_attr(self, name, value):
        self.attrs[name] = value
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        return self

    def set_prim_instance_name(self, name):
        self.instance_name = name
        return self

    def shard(self, in_strategy=None, out_strategy=None):
        """Store a parallel strategy: a tuple with one tuple of positive ints per input."""
        if in_strategy is None and out_strategy is not None:
            raise ValueError(f"For '{self.name}', 'out_strategy' must be given together with "
                             f"'in_strategy', but 'in_strategy' is None.")
        for arg_name, strategy in (("in_strategy", in_strategy), ("out_strategy", out_strategy)):
            if strategy is not None:
                check_strategy_tuples(self.name, arg_name, strategy)
        mode = get_auto_parallel_context("parallel_mode")
        if mode not in ("semi_auto_parallel", "auto_parallel") and self.name not in _warned_shard:
            _warned_shard.add(self.name)
            logger.warning("The shard strategy of '%s' is ignored in parallel mode '%s'; it "
                           "takes effect only under semi_auto_parallel or auto_parallel.",
                           self.name, mode)
        self.add_prim_attr("in_strategy", in_strategy)
        self.add_prim_attr("out_strategy", out_strategy)
        return self

    def place(self, role, rank_id):
        """Mark this operator to run on worker `rank_id` (distributed graph partition). In the
        scheduler process it returns at once, as MindSpore's Primitive.place does: the
        scheduler runs the script but builds no graph."""
        if is_role_sched():
            return self
        check_place_args(self.name, role, rank_id)
        self.add_prim_attr("ms_role", role)
        self.add_prim_attr("rank_id", rank_id)
        return self

    def recompute(self, mode=True):
        """Recompute this operator's outputs in the backward instead of keeping them from the
        forward (``mode=False``: keep them even inside a ``Cell.recompute`` cell; the
        primitive's setting wins over its cell's). GRAPH_MODE only, as in MindSpore: PYNATIVE
        raises TypeError. Returns self.

        Raises:
            TypeError: in PYNATIVE_MODE, or `mode` is not a bool.
        """
        if context().mode == PYNATIVE_MODE:
            raise TypeError(f"For '{self.name}.recompute', recompute is not supported in "
                            f"PYNATIVE_MODE; call set_context(mode=GRAPH_MODE) first.")
        if not isinstance(mode, bool):
            raise TypeError(f"For '{self.name}.recompute', 'mode' must be bool, "
                            f"but got {type(mode).__name__}.")
        self.add_prim_attr("recompute", mode)
        return self

    # -- the operator contract -------------------------------------------------------------
    def infer(self, *avals):
        raise NotImplementedError(f"{self.name} does not define infer")

    def impl(self, *arrays):
        raise NotImplementedError(f"{self.name} has no kernel")

    def bprop(self, inputs, out, dout):
        # Reached only when a gradient flows through this operator's output (an operator whose
        # output carries no gradient, a comparison or an integer result, sets differentiable
        # False and is never recorded): a missing gradient raises instead of reading as zero.
        reason = f": {self.no_bprop_reason}" if self.no_bprop_reason else ""
        raise NotImplementedError(f"For '{self.name}', minispore has no gradient{reason}.")

    def generators(self):
        """The random generators this instance draws from besides the global one
        (``ms.set_seed``'s): PYNATIVE recompute restores their state to replay the draws."""
        return ()

    def local_call(self, args, ctx):
        """Run on this rank's blocks under operator parallelism (minispore/parallel/
        partition.py): `args` are the call's arguments with tensors as local blocks, `ctx` a
        LocalContext (layouts, logical and local shapes, rank). Operators whose attributes or
        arguments hold logical sizes, or that need more than their kernel on a block, override
        this; the pass checks the local output shapes either way. The arguments are those
        recorded in the graph (after any `__call__` normalisation, e.g. Concat's tuple spread
        into tensors), so they go straight to the interpreter."""
        return Primitive.__call__(self, *args)

    def with_attrs(self, **attrs):
        """A copy whose attributes `attrs` are replaced (the local form of an operator whose
        attributes hold logical sizes, e.g. Conv2D's out_channel)."""
        import copy
        local = copy.copy(self)
        local.attrs = dict(self.attrs)
        for k, v in attrs.items():
            setattr(local, k, v)
            if k in local.attrs:
                local.attrs[k] = v
        return local

    def error(self, message, exc=ValueError):
        """Build the operator's error: names the operator and where it sits in the network."""
        where = self.scope or context().scope_name(self.instance_name)
        prefix = f"For '{self.name}'" + (f" (in {where})" if where else "")
        return exc(f"{prefix}, {message}")

    def __call__(self, *args):
        """Hand the call to the top of this thread's interpreter stack, or to its base (the
        eager interpreter, ops/interpreter.py) when no level is entered."""
        interpreter = _THREAD.interpreter
        if interpreter is None:
            return BASE[0](self, args)
        return interpreter.apply(self, args)

    def __repr__(self):
        if "in_strategy" in self.attrs:
            return (f"Prim[{self.name}]<in_strategy={self.attrs['in_strategy']}, "
                    f"out_strategy={self.attrs['out_strategy']}>")
        shown = {k: v for k, v in self.attrs.items()}
        body = ", ".join(f"{k}={v}" for k, v in shown.items())
        return f"Prim[{self.name}]" + (f"<{body}>" if body else "")


def infer_inputs(prim, args):
    """``prim.infer(*args)``; a call with the wrong number of inputs raises a TypeError naming
    the operator and its inputs (Python's own would name the class defining infer, often a
    shared base such as UnaryElementwise)."""
    try:
        return prim.infer(*args)
    except TypeError as error:
        signature = inspect.signature(prim.infer)
        try:
            signature.bind(*args)
        except TypeError:
            names = ", ".join(str(p) for p in signature.parameters.values())
            raise prim.error(f"its inputs are ({names}), but it was called with {len(args)} "
                             f"input(s).", TypeError) from None
        raise error


def check_strategy_for_inputs(op_name, strategy, input_shapes):
    """One strategy tuple per input and one number per dim: checked once inputs are known."""
    if len(strategy) != len(input_shapes):
        raise ValueError(f"For '{op_name}', the strategy {strategy} has {len(strategy)} entries "
                         f"but the operator has {len(input_shapes)} tensor inputs.")
    for i, (s, shape) in enumerate(zip(strategy, input_shapes)):
        if len(s) != len(shape):
            raise ValueError(f"For '{op_name}', strategy len {len(s)} of input {i} ({s}) is not "
                             f"equal to inputs len {len(shape)} (shape {tuple(shape)}).")


def check_place_args(name, role, rank_id):
    if not isinstance(rank_id, int) or isinstance(rank_id, bool):
        raise TypeError(f"For '{name}.place', 'rank_id' must be an int, "
                        f"but got {type(rank_id).__name__}.")
    if rank_id < 0:
        raise ValueError(f"For '{name}.place', 'rank_id' must be a non-negative int, "
                         f"but got {rank_id}.")
    if role != "MS_WORKER":
        raise ValueError(f"For '{name}.place', 'role' must be 'MS_WORKER', but got {role!r}.")
    if context().mode == PYNATIVE_MODE:
        raise RuntimeError(f"For '{name}.place', distributed graph partition works in "
                           f"GRAPH_MODE only; call set_context(mode=GRAPH_MODE) first.")
    mode = get_auto_parallel_context("parallel_mode")
    if mode != "stand_alone":
        raise RuntimeError(f"For '{name}.place', graph partition cannot be combined with "
                           f"parallel_mode {mode!r}; it needs parallel_mode 'stand_alone'.")
    if get_ps_context("enable_ps"):
        raise RuntimeError(f"For '{name}.place', graph partition cannot be combined with the "
                           f"parameter server (set_ps_context(enable_ps=True)); turn it off.")
