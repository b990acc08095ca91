"""Learning-rate schedules: cells mapping the optimizer's global step to a learning rate.

Written with operators on the global-step Parameter, never with its Python value, so a schedule
traces into a GRAPH-mode training step and follows the step counter there as in PYNATIVE.
"""
import math
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "PolynomialDecayLR", "PiecewiseConstantLR", "CosineDecayLR", "WarmUpLR"]


def _step_tensor(global_step):
    """The step as a 0-d int32 Tensor (the optimizer's counter is a 1-element Parameter)."""
    if not isinstance(global_step, Tensor):
        global_step = Tensor(np.asarray(global_step, np.int32), mstype.int32)
    return F.reshape(F.cast(global_step, mstype.int32), ())


def _table_lookup(rates, index):
    """rates[min(index, len - 1)]: a per-step table whose last rate stays."""
    last = Tensor(np.asarray(rates.shape[0] - 1, np.int32), mstype.int32)
    return F.gather(rates, F.minimum(index, last), 0)


def _rates_tensor(values):
    return Tensor(np.asarray(values, np.float32), mstype.float32)


class LearningRateSchedule(Cell):
    """Base class: ``construct(global_step)`` returns the learning rate (a 0-d float32 Tensor)
    for that step, computed with operators so it also runs inside a compiled graph."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step).")


def _check_positive(name, arg_name, value, kind=numbers.Real):
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(f"For '{name}', '{arg_name}' must be a {kind.__name__.lower()}, but got "
                        f"{type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{name}', '{arg_name}' must be positive, but got {value}.")


class ExponentialDecayLR(LearningRateSchedule):
    """lr = learning_rate * decay_rate ** p, p = step / decay_steps (floored when is_stair)."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_positive("ExponentialDecayLR", "learning_rate", learning_rate)
        _check_positive("ExponentialDecayLR", "decay_rate", decay_rate)
        _check_positive("ExponentialDecayLR", "decay_steps", decay_steps, numbers.Integral)
        if not isinstance(is_stair, bool):
            raise TypeError(f"For 'ExponentialDecayLR', 'is_stair' must be bool, but got "
                            f"{type(is_stair).__name__}.")
        self.learning_rate, self.decay_rate = float(learning_rate), float(decay_rate)
        self.decay_steps, self.is_stair = decay_steps, is_stair

    def construct(self, global_step):
        p = _progress(global_step, self.decay_steps, self.is_stair)
        # decay_rate ** p as exp(p * ln(decay_rate)): p is a tensor, decay_rate a constant.
        return F.mul(F.exp(F.mul(p, math.log(self.decay_rate))), self.learning_rate)


def _progress(global_step, decay_steps, is_stair):
    """p = step / decay_steps as a 0-d float32 Tensor, floored when is_stair."""
    step = _step_tensor(global_step)
    if is_stair:
        # Integer division of non-negative ints: floor(step / decay_steps).
        return F.cast(F.cast(F.div(F.cast(step, mstype.float64), float(decay_steps)),
                             mstype.int32), mstype.float32)
    return F.div(F.cast(step, mstype.float32), float(decay_steps))


def _check_steps_and_flag(name, decay_steps, flag_name, flag):
    if isinstance(decay_steps, bool) or not isinstance(decay_steps, numbers.Integral):
        raise TypeError(f"For '{name}', the 'decay_steps' must be int, but got "
                        f"{type(decay_steps).__name__}.")
    if decay_steps <= 0:
        raise ValueError(f"For '{name}', the 'decay_steps' must be positive, but got "
                         f"{decay_steps}.")
    if not isinstance(flag, bool):
        raise TypeError(f"For '{name}', the '{flag_name}' must be bool, but got "
                        f"{type(flag).__name__}.")


def _check_decay_args(name, learning_rate, decay_rate, decay_steps, is_stair):
    """MindSpore's checks for the (learning_rate, decay_rate, decay_steps, is_stair) schedules."""
    _check_float(name, "learning_rate", learning_rate)
    _check_float(name, "decay_rate", decay_rate)
    _check_steps_and_flag(name, decay_steps, "is_stair", is_stair)


class NaturalExpDecayLR(LearningRateSchedule):
    """lr = learning_rate * exp(-decay_rate * p) with p = step, or with is_stair
    p = floor(step / decay_steps) * decay_steps: what MindSpore 2.7.2 computes (its docstring's
    p = step / decay_steps is not what its construct does, and real MindSpore is the reference).

    Raises:
        TypeError: learning_rate or decay_rate not a float, decay_steps not an int, is_stair
            not a bool.
        ValueError: learning_rate, decay_rate or decay_steps not positive.
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_decay_args("NaturalExpDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate, self.decay_rate = learning_rate, decay_rate
        self.decay_steps, self.is_stair = int(decay_steps), is_stair

    def construct(self, global_step):
        if self.is_stair:
            p = F.mul(_progress(global_step, self.decay_steps, True), float(self.decay_steps))
        else:
            p = F.cast(_step_tensor(global_step), mstype.float32)
        return F.mul(F.exp(F.mul(p, -self.decay_rate)), self.learning_rate)


class InverseDecayLR(LearningRateSchedule):
    """lr = learning_rate / (1 + decay_rate * p), p = step / decay_steps (floored when
    is_stair). Raises as NaturalExpDecayLR."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_decay_args("InverseDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate, self.decay_rate = learning_rate, decay_rate
        self.decay_steps, self.is_stair = int(decay_steps), is_stair

    def construct(self, global_step):
        p = _progress(global_step, self.decay_steps, self.is_stair)
        return F.div(self.learning_rate, F.add(F.mul(p, self.decay_rate), 1.0))


class PolynomialDecayLR(LearningRateSchedule):
    """lr = (learning_rate - end_learning_rate) * (1 - s / d) ** power + end_learning_rate with
    s = min(step, decay_steps) and d = decay_steps; with update_decay_steps, s = step and
    d = decay_steps * max(ceil(step / decay_steps), 1), so the decay restarts every
    decay_steps steps from a lower rate instead of holding end_learning_rate.

    Raises:
        TypeError: a rate or power not a float, decay_steps not an int, update_decay_steps not
            a bool.
        ValueError: learning_rate or power not positive, end_learning_rate negative,
            decay_steps not positive.
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        name = "PolynomialDecayLR"
        _check_float(name, "learning_rate", learning_rate)
        _check_float(name, "end_learning_rate", end_learning_rate, allow_zero=True)
        _check_float(name, "power", power)
        _check_steps_and_flag(name, decay_steps, "update_decay_steps", update_decay_steps)
        self.learning_rate, self.end_learning_rate = learning_rate, end_learning_rate
        self.decay_steps, self.power = int(decay_steps), power
        self.update_decay_steps = update_decay_steps

    def construct(self, global_step):
        if not self.update_decay_steps:
            fraction = _capped_fraction(global_step, self.decay_steps)
        else:
            step = F.cast(_step_tensor(global_step), mstype.float32)
            periods = F.maximum(F.ceil(F.div(step, float(self.decay_steps))), 1.0)
            fraction = F.div(step, F.mul(periods, float(self.decay_steps)))
        base = F.sub(1.0, fraction)
        return F.add(F.mul(F.pow(base, self.power), self.learning_rate - self.end_learning_rate),
                     self.end_learning_rate)


class PiecewiseConstantLR(LearningRateSchedule):
    """lr = learning_rates[i] for milestone[i-1] <= step < milestone[i]; after the last
    milestone the last rate stays."""

    def __init__(self, milestone, learning_rates):
        super().__init__()
        if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates,
                                                                      (list, tuple)):
            raise TypeError("For 'PiecewiseConstantLR', 'milestone' and 'learning_rates' must "
                            "be lists.")
        if len(milestone) != len(learning_rates):
            raise ValueError(f"For 'PiecewiseConstantLR', 'milestone' and 'learning_rates' must "
                             f"have the same length, but got {len(milestone)} and "
                             f"{len(learning_rates)}.")
        if any(b <= a for a, b in zip(milestone, milestone[1:])):
            raise ValueError(f"For 'PiecewiseConstantLR', 'milestone' must be strictly "
                             f"increasing, but got {list(milestone)}.")
        self.milestone = list(milestone)
        self.learning_rates = [float(v) for v in learning_rates]
        self._bounds = Tensor(np.asarray(self.milestone, np.int32), mstype.int32)
        self._rates = _rates_tensor(self.learning_rates)

    def construct(self, global_step):
        # The rate's index is the number of milestones already reached.
        passed = F.cast(F.greater_equal(_step_tensor(global_step), self._bounds), mstype.int32)
        return _table_lookup(self._rates, F.reduce_sum(passed))


def _check_float(name, arg_name, value, allow_zero=False):
    """MindSpore's float checks: an int is a TypeError, a value out of range a ValueError."""
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(f"For '{name}', the '{arg_name}' must be float, but got "
                        f"{type(value).__name__}.")
    if value < 0 or (value == 0 and not allow_zero):
        valid = "non-negative" if allow_zero else "positive"
        raise ValueError(f"For '{name}', the '{arg_name}' must be {valid}, but got {value}.")


def _capped_fraction(global_step, steps):
    """min(step, steps) / steps as a 0-d float32 Tensor."""
    cap = Tensor(np.asarray(steps, np.int32), mstype.int32)
    return F.div(F.cast(F.minimum(_step_tensor(global_step), cap), mstype.float32),
                 float(steps))


class CosineDecayLR(LearningRateSchedule):
    """lr = min_lr + (max_lr - min_lr) * (1 + cos(pi * p)) / 2, p = min(step, decay_steps) /
    decay_steps: from max_lr at step 0 to min_lr at decay_steps, then min_lr.

    Raises:
        TypeError: min_lr or max_lr not a float, decay_steps not an int.
        ValueError: min_lr < 0, max_lr <= 0, min_lr >= max_lr, decay_steps <= 0.
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        _check_float("CosineDecayLR", "min_lr", min_lr, allow_zero=True)
        _check_float("CosineDecayLR", "max_lr", max_lr)
        _check_positive("CosineDecayLR", "decay_steps", decay_steps, numbers.Integral)
        if min_lr >= max_lr:
            raise ValueError(f"For 'CosineDecayLR', the 'max_lr' must be greater than the "
                             f"'min_lr', but got 'max_lr' {max_lr} and 'min_lr' {min_lr}.")
        self.min_lr, self.max_lr, self.decay_steps = min_lr, max_lr, int(decay_steps)
        # p takes only decay_steps + 1 values: a table of the rates (looked up by the capped
        # step) needs no cosine operator and is exact.
        half = 0.5 * (max_lr - min_lr)
        self._rates = _rates_tensor([min_lr + half * (1.0 + math.cos(math.pi * s / decay_steps))
                                     for s in range(self.decay_steps + 1)])

    def construct(self, global_step):
        return _table_lookup(self._rates, _step_tensor(global_step))


class WarmUpLR(LearningRateSchedule):
    """lr = learning_rate * min(step, warmup_steps) / warmup_steps (0 at step 0).

    Raises:
        TypeError: learning_rate not a float, warmup_steps not an int.
        ValueError: learning_rate <= 0, warmup_steps <= 0.
    """

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        _check_float("WarmUpLR", "learning_rate", learning_rate)
        _check_positive("WarmUpLR", "warmup_steps", warmup_steps, numbers.Integral)
        self.learning_rate, self.warmup_steps = learning_rate, int(warmup_steps)

    def construct(self, global_step):
        return F.mul(_capped_fraction(global_step, self.warmup_steps), self.learning_rate)


class _ListLR(LearningRateSchedule):
    """A list (or 1-D Tensor) of learning rates, one per step; the last one stays."""

    def __init__(self, values):
        super().__init__()
        self.values = [float(v) for v in values]
        self._rates = _rates_tensor(self.values)

    def construct(self, global_step):
        return _table_lookup(self._rates, _step_tensor(global_step))
