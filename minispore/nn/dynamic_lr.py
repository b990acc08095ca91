"""Learning-rate lists (MindSpore's mindspore.nn.dynamic_lr): one Python float per step.

Each function returns a list of `total_step` floats, to pass as an optimizer's learning_rate
(which steps through it and keeps the last value). Epoch-based schedules read step i as epoch
floor(i / step_per_epoch). Arguments are validated as MindSpore does: rates must be floats
(an int is a TypeError), counts positive ints.
"""
import math
import numbers

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _float(name, arg_name, value, allow_zero=False):
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(f"For '{name}', the '{arg_name}' must be float, but got "
                        f"{type(value).__name__}.")
    if value < 0 or (value == 0 and not allow_zero):
        valid = "non-negative" if allow_zero else "positive"
        raise ValueError(f"For '{name}', the '{arg_name}' must be {valid}, but got {value}.")
    return value


def _positive_int(name, arg_name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{name}', the '{arg_name}' must be int, but got "
                        f"{type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{name}', the '{arg_name}' must be positive, but got {value}.")
    return int(value)


def _bool(name, arg_name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the '{arg_name}' must be bool, but got "
                        f"{type(value).__name__}.")
    return value


def _epochs(name, total_step, step_per_epoch):
    """The epoch of each step: floor(i / step_per_epoch) for i in range(total_step)."""
    total_step = _positive_int(name, "total_step", total_step)
    step_per_epoch = _positive_int(name, "step_per_epoch", step_per_epoch)
    return [i // step_per_epoch for i in range(total_step)]


def piecewise_constant_lr(milestone, learning_rates):
    """lr[i] = learning_rates[j] for milestone[j-1] <= i < milestone[j] (milestone[-1] = 0),
    for i in range(milestone[-1]).

    >>> piecewise_constant_lr([2, 5], [0.1, 0.05])
    [0.1, 0.1, 0.05, 0.05, 0.05]
    """
    name = "piecewise_constant_lr"
    for arg_name, v in (("milestone", milestone), ("learning_rates", learning_rates)):
        if not isinstance(v, (list, tuple)):
            raise TypeError(f"For '{name}', the '{arg_name}' must be list or tuple, but got "
                            f"{type(v).__name__}.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{name}', the size of 'milestone' must be the same as the size "
                         f"of 'learning_rates', but got {len(milestone)} and "
                         f"{len(learning_rates)}.")
    last = 0
    for m in milestone:
        _positive_int(name, "milestone", m)
        if m <= last:
            raise ValueError(f"For '{name}', the 'milestone' must be a strictly increasing "
                             f"list, but got {list(milestone)}.")
        last = m
    for rate in learning_rates:
        _float(name, "learning_rates", rate, allow_zero=True)
    out, start = [], 0
    for m, rate in zip(milestone, learning_rates):
        out += [rate] * (m - start)
        start = m
    return out


def _decay_args(name, learning_rate, decay_rate, decay_epoch, is_stair):
    _float(name, "learning_rate", learning_rate)
    _float(name, "decay_rate", decay_rate)
    _positive_int(name, "decay_epoch", decay_epoch)
    _bool(name, "is_stair", is_stair)


def _decayed(epoch, decay_epoch, is_stair):
    return epoch // decay_epoch if is_stair else epoch / decay_epoch


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr[i] = learning_rate * decay_rate ** (epoch / decay_epoch) (floored when is_stair)."""
    name = "exponential_decay_lr"
    _decay_args(name, learning_rate, decay_rate, decay_epoch, is_stair)
    return [learning_rate * decay_rate ** _decayed(e, decay_epoch, is_stair)
            for e in _epochs(name, total_step, step_per_epoch)]


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr[i] = learning_rate * exp(-decay_rate * epoch); with is_stair the epoch is floored to a
    multiple of decay_epoch. Unlike the other decays (and nn.NaturalExpDecayLR) MindSpore's list
    form does not divide the epoch by decay_epoch."""
    name = "natural_exp_decay_lr"
    _decay_args(name, learning_rate, decay_rate, decay_epoch, is_stair)
    return [learning_rate * math.exp(-decay_rate * (e // decay_epoch * decay_epoch if is_stair
                                                    else e))
            for e in _epochs(name, total_step, step_per_epoch)]


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """lr[i] = learning_rate / (1 + decay_rate * epoch / decay_epoch) (floored when
    is_stair)."""
    name = "inverse_decay_lr"
    _decay_args(name, learning_rate, decay_rate, decay_epoch, is_stair)
    return [learning_rate / (1 + decay_rate * _decayed(e, decay_epoch, is_stair))
            for e in _epochs(name, total_step, step_per_epoch)]


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """lr[i] = min_lr + (max_lr - min_lr) * (1 + cos(pi * e / decay_epoch)) / 2 with
    e = min(epoch, decay_epoch): from max_lr down to min_lr at decay_epoch, then min_lr.

    >>> [round(v, 3) for v in cosine_decay_lr(0.0, 0.1, 4, 1, 2)]
    [0.1, 0.05, 0.0, 0.0]
    """
    name = "cosine_decay_lr"
    _float(name, "min_lr", min_lr, allow_zero=True)
    _float(name, "max_lr", max_lr)
    if min_lr >= max_lr:
        raise ValueError(f"For '{name}', the 'max_lr' must be greater than the 'min_lr', but "
                         f"got 'max_lr' {max_lr} and 'min_lr' {min_lr}.")
    decay_epoch = _positive_int(name, "decay_epoch", decay_epoch)
    half = 0.5 * (max_lr - min_lr)
    return [min_lr + half * (1.0 + math.cos(math.pi * min(e, decay_epoch) / decay_epoch))
            for e in _epochs(name, total_step, step_per_epoch)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch,
                        decay_epoch, power, update_decay_epoch=False):
    """lr[i] = (learning_rate - end_learning_rate) * (1 - e / D) ** power + end_learning_rate.

    Without update_decay_epoch, e = min(epoch, decay_epoch) and D = decay_epoch (the rate stays
    at end_learning_rate after decay_epoch). With it, e = epoch and D is the first multiple of
    decay_epoch not below epoch (at least decay_epoch): the decay restarts in cycles.
    """
    name = "polynomial_decay_lr"
    _float(name, "learning_rate", learning_rate)
    _float(name, "end_learning_rate", end_learning_rate, allow_zero=True)
    _float(name, "power", power)
    decay_epoch = _positive_int(name, "decay_epoch", decay_epoch)
    _bool(name, "update_decay_epoch", update_decay_epoch)
    delta = learning_rate - end_learning_rate
    out = []
    for e in _epochs(name, total_step, step_per_epoch):
        if update_decay_epoch:
            span = decay_epoch * max(math.ceil(e / decay_epoch), 1)
        else:
            span, e = decay_epoch, min(e, decay_epoch)
        out.append(delta * (1.0 - e / span) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr[i] = learning_rate * min(epoch, warmup_epoch) / warmup_epoch (0 in the first epoch).

    >>> warmup_lr(0.1, 4, 1, 2)
    [0.0, 0.05, 0.1, 0.1]
    """
    name = "warmup_lr"
    _float(name, "learning_rate", learning_rate)
    warmup_epoch = _positive_int(name, "warmup_epoch", warmup_epoch)
    return [learning_rate * min(e, warmup_epoch) / warmup_epoch
            for e in _epochs(name, total_step, step_per_epoch)]
