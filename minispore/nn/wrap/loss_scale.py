"""Loss-scaled training: the scale update cells and TrainOneStepWithLossScaleCell (MindSpore's
mindspore.nn.wrap.loss_scale).

Under float16 compute, small gradients underflow to zero; training the loss times a scale S
keeps them representable, and dividing the float32 gradients by S restores their size. A step
whose gradients hold inf or NaN (S too large: the float16 backward overflowed) is skipped, and
the update cell lowers S; after enough clean steps it raises S again.
"""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.auto_parallel_context import get_auto_parallel_context
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.wrap.cell_wrapper import TrainOneStepCell
from minispore.ops import functional as F
from minispore.ops.grad import value_and_grad

__all__ = ["FixedLossScaleUpdateCell", "DynamicLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell", "grads_all_finite", "host_bool"]


def grads_all_finite(grads):
    """A bool scalar Tensor: True when no Tensor of `grads` holds an inf or a NaN.

    x * 0 is 0 for finite x and NaN for inf and NaN, so the float32 sum of every gradient
    times zero is 0 exactly when all are finite (and NaN compares unequal to itself). Written
    with operators, it runs on either device and in a traced graph."""
    total = None
    for g in grads:
        s = F.reduce_sum(F.mul(F.cast(g, mstype.float32), 0.0))
        total = s if total is None else F.add(total, s)
    if total is None:
        return Tensor(np.array(True))
    return F.equal(total, total)


def host_bool(flag):
    """A bool scalar (Tensor, array or Python value) as a Python bool, read on the host."""
    return bool(np.asarray(flag.asnumpy() if isinstance(flag, Tensor) else flag).reshape(-1)[0])


def _check_scale_args(name, loss_scale_value, scale_factor=None, scale_window=None):
    if isinstance(loss_scale_value, bool) or not isinstance(loss_scale_value, (int, float)):
        raise TypeError(f"For '{name}', 'loss_scale_value' must be a float, but got "
                        f"{type(loss_scale_value).__name__}.")
    if not loss_scale_value >= 1.0:
        raise ValueError(f"For '{name}', 'loss_scale_value' must be >= 1, but got "
                         f"{loss_scale_value}.")
    for arg, v in (("scale_factor", scale_factor), ("scale_window", scale_window)):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For '{name}', '{arg}' must be an int, but got "
                            f"{type(v).__name__}.")
        if v < (2 if arg == "scale_factor" else 1):
            raise ValueError(f"For '{name}', '{arg}' must be >= "
                             f"{2 if arg == 'scale_factor' else 1}, but got {v}.")


class _HostCell(Cell):
    """A cell that runs on the host between compiled steps, in GRAPH_MODE as in PYNATIVE."""

    def _graph_call(self, args, kwargs):
        return self._run_construct(*args, **kwargs)


class FixedLossScaleUpdateCell(_HostCell):
    """``FixedLossScaleUpdateCell(loss_scale_value)``: the update cell of a constant scale.

    Called as ``cell(loss_scale, overflow)`` by TrainOneStepWithLossScaleCell; leaves the
    scale as it is and returns `overflow`.
    """

    def __init__(self, loss_scale_value):
        super().__init__()
        _check_scale_args("FixedLossScaleUpdateCell", loss_scale_value)
        self.loss_scale_value = float(loss_scale_value)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow


class DynamicLossScaleUpdateCell(_HostCell):
    """``DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)``.

    Called as ``cell(loss_scale, overflow)`` (loss_scale: the train cell's scale Parameter,
    updated in place; overflow: a bool scalar). On overflow the scale becomes
    max(scale / scale_factor, 1); after `scale_window` consecutive steps without overflow it
    becomes scale * scale_factor (when that is finite) and the count restarts. Returns
    `overflow`.

    >>> import numpy as np, minispore as ms
    >>> from minispore import nn
    >>> cell = nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=2,
    ...                                      scale_window=1000)
    >>> scale = ms.Parameter(ms.Tensor(np.float32(1024.0)), name="scale")
    >>> bool(cell(scale, ms.Tensor(np.array(True))).asnumpy()), float(scale.asnumpy())
    (True, 512.0)
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        _check_scale_args("DynamicLossScaleUpdateCell", loss_scale_value, scale_factor,
                          scale_window)
        self.loss_scale_value = float(loss_scale_value)
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        # MindSpore's counters: the step number (from 1) and that of the last overflow or
        # increase; the scale grows once they are scale_window apart.
        self.cur_iter = 1
        self.last_overflow_iter = 0

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        if getattr(overflow, "traced", False):
            raise NotImplementedError(
                "For 'DynamicLossScaleUpdateCell', updating the scale inside a traced graph is "
                "not supported; TrainOneStepWithLossScaleCell calls it between compiled steps.")
        scale = float(loss_scale.asnumpy().reshape(-1)[0])
        overflowed = host_bool(overflow)
        grow = self.cur_iter - self.last_overflow_iter >= self.scale_window
        if overflowed:
            scale = max(scale / self.scale_factor, 1.0)
        elif grow and np.isfinite(np.float32(scale * self.scale_factor)):
            scale = scale * self.scale_factor
        if overflowed or grow:
            self.last_overflow_iter = self.cur_iter
        self.cur_iter += 1
        loss_scale.set_data(Tensor(np.full(loss_scale.shape, scale, loss_scale.dtype.np_dtype)))
        self.loss_scale_value = scale
        return overflow


def _check_supported(network, sharded_optimizer):
    """Refuse the settings whose gradients the host-driven step cannot produce."""
    from minispore.nn.wrap.micro_batch import GradAccumulationCell
    what = None
    if isinstance(network, GradAccumulationCell):
        what = f"a {type(network).__name__} network (micro-batches, pipeline stages)"
    elif sharded_optimizer:
        what = "enable_parallel_optimizer=True"
    elif get_auto_parallel_context("parallel_mode") in ("semi_auto_parallel", "auto_parallel"):
        what = f"parallel_mode={get_auto_parallel_context('parallel_mode')!r}"
    if what is not None:
        raise NotImplementedError(
            f"For 'TrainOneStepWithLossScaleCell', {what} is not supported by minispore: the "
            f"loss-scaled step runs stand-alone or data parallel; use TrainOneStepCell there.")


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """``TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)``: one training step
    with loss scaling; returns ``(loss, overflow, loss_scale)``.

    The gradients are those of loss * scale (so the float16 backward sees the scaled
    cotangents), divided by the scale in the Parameters' dtype. `overflow` is a bool scalar,
    True when any gradient is inf or NaN; the optimizer then does not run (the step is
    skipped). `scale_sense` is an update cell (FixedLossScaleUpdateCell,
    DynamicLossScaleUpdateCell: called with the scale and the overflow flag after every step)
    or a float Tensor of shape () or (1,) (a fixed scale, changed with `set_sense_scale`).
    `loss_scale` is the scale this step used.

    In GRAPH_MODE the forward and backward run as one compiled graph (the scale is one of its
    inputs, so a new scale does not recompile); the overflow check, the scale update and the
    optimizer run after it, on the host's decision.

    Raises:
        TypeError: `scale_sense` is neither a Cell nor a Tensor.
        ValueError: a Tensor `scale_sense` has a shape other than () or (1,).
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        _check_supported(network, self._sharded_optimizer)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            if not hasattr(scale_sense, "get_loss_scale"):
                raise TypeError(f"For 'TrainOneStepWithLossScaleCell', a Cell 'scale_sense' "
                                f"must be a loss scale update cell (with get_loss_scale), but "
                                f"got {type(scale_sense).__name__}.")
            self.loss_scaling_manager = scale_sense
            value = np.array(scale_sense.get_loss_scale(), np.float32)
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(f"For 'TrainOneStepWithLossScaleCell', the shape of "
                                 f"'scale_sense' must be (1,) or (), but got "
                                 f"{tuple(scale_sense.shape)}.")
            value = scale_sense.asnumpy().astype(np.float32)
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', 'scale_sense' must be a "
                            f"Cell or a Tensor, but got {type(scale_sense).__name__}.")
        self.scale_sense = Parameter(Tensor(value), name="scale_sense", requires_grad=False)
        network = self.network

        def scaled_loss(*args):
            loss = network(*args[:-1])
            return F.mul(loss, F.cast(args[-1], loss.dtype)), loss

        self._value_and_grads = value_and_grad(scaled_loss, None, self.weights, has_aux=True)

    def set_sense_scale(self, sens):
        """Set the scale of a Tensor `scale_sense` (a Tensor of the same shape)."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"For 'set_sense_scale', 'sens' must be a Tensor, but got "
                            f"{type(sens).__name__}.")
        self.scale_sense.set_data(Tensor(sens.asnumpy().astype(np.float32)
                                         .reshape(self.scale_sense.shape)))

    def _graph_call(self, args, kwargs):
        # The step is driven from the host (the update is conditional on the overflow flag);
        # its forward and backward compile through value_and_grad.
        return self._run_construct(*args, **kwargs)

    def _compile_target(self):
        raise NotImplementedError(
            "TrainOneStepWithLossScaleCell does not compile as one graph: its update depends "
            "on the overflow flag; it compiles the forward and backward and runs the rest on "
            "the host.")

    def compile_cache_info(self):
        """GRAPH-mode compilations of the step's forward and backward (the scale is a graph
        input, so changing it does not recompile)."""
        return self._value_and_grads.compile_cache_info()

    def construct(self, *inputs):
        used = self.scale_sense.asnumpy().copy()
        value = float(used.reshape(-1)[0])
        (_, loss), grads = self._value_and_grads(*inputs, Tensor(np.array(value, np.float32)))
        grads = tuple(F.mul(g, 1.0 / value) for g in grads)
        # Data parallel: the all-reduce carries any rank's inf/NaN to every rank, so all ranks
        # agree on the overflow and skip (or take) the step together.
        grads = self.grad_reducer(grads)
        overflow = Tensor(np.array(not bool(grads_all_finite(grads).asnumpy())))
        if self.loss_scaling_manager is not None:
            overflow = self.loss_scaling_manager(self.scale_sense, overflow)
        if not bool(overflow.asnumpy()):
            self.optimizer(grads)
        return loss, overflow, Tensor(used)
