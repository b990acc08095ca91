"""Learning-rate schedules: cells mapping the optimizer's global step to a learning rate."""
import math
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "PiecewiseConstantLR"]


def _step(global_step):
    return int(global_step.asnumpy().reshape(-1)[0]) if isinstance(global_step, Tensor) \
        else int(global_step)


def _lr_tensor(value):
    return Tensor(np.asarray(value, np.float32), mstype.float32, internal=True)


class LearningRateSchedule(Cell):
    """Base class: ``construct(global_step)`` returns the learning rate (a 0-d float32 Tensor)
    for that step. Schedules read the step's value, so they run eagerly."""

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
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = math.floor(p)
        return _lr_tensor(self.learning_rate * self.decay_rate ** p)


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

    def construct(self, global_step):
        step = _step(global_step)
        for bound, lr in zip(self.milestone, self.learning_rates):
            if step < bound:
                return _lr_tensor(lr)
        return _lr_tensor(self.learning_rates[-1])


class _ListLR(LearningRateSchedule):
    """A list (or 1-D Tensor) of learning rates, one per step; the last one stays."""

    def __init__(self, values):
        super().__init__()
        self.values = [float(v) for v in values]

    def construct(self, global_step):
        return _lr_tensor(self.values[min(_step(global_step), len(self.values) - 1)])
