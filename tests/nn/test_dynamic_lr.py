"""nn.dynamic_lr: the per-step learning-rate lists against their formulas, and MindSpore's
argument validation."""
import math

import pytest

from minispore import nn


def test_piecewise_constant_lr():
    assert nn.piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]) == \
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.01]


@pytest.mark.parametrize("stair", [False, True])
def test_exponential_natural_inverse_decay_lr(stair):
    args = (0.1, 0.5, 6, 2, 2, stair)
    epochs = [i // 2 for i in range(6)]
    p = [(e // 2 if stair else e / 2) for e in epochs]
    assert nn.exponential_decay_lr(*args) == pytest.approx([0.1 * 0.5 ** q for q in p])
    # MindSpore's natural_exp_decay_lr does not divide by decay_epoch (its stair form floors the
    # epoch to a multiple of it): its docstring example with is_stair gives these values.
    natural = [(e // 2 * 2 if stair else e) for e in epochs]
    assert nn.natural_exp_decay_lr(*args) == pytest.approx([0.1 * math.exp(-0.5 * q)
                                                            for q in natural])
    assert nn.inverse_decay_lr(*args) == pytest.approx([0.1 / (1 + 0.5 * q) for q in p])


def test_natural_exp_decay_lr_matches_mindspore_docstring():
    assert nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True) == pytest.approx(
        [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657])


def test_cosine_decay_lr_reaches_min_at_decay_epoch_and_stays():
    lr = nn.cosine_decay_lr(0.01, 0.1, 8, 2, 2)
    epochs = [min(i // 2, 2) for i in range(8)]
    assert lr == pytest.approx([0.01 + 0.045 * (1 + math.cos(math.pi * e / 2)) for e in epochs])
    assert lr[-1] == pytest.approx(0.01) and len(lr) == 8


def test_polynomial_decay_lr_plain_and_cyclic():
    plain = nn.polynomial_decay_lr(0.1, 0.01, 5, 1, 2, 2.0)
    assert plain == pytest.approx([0.09 * (1 - min(e, 2) / 2) ** 2 + 0.01 for e in range(5)])
    cyc = nn.polynomial_decay_lr(0.1, 0.01, 5, 1, 2, 1.0, update_decay_epoch=True)
    spans = [2, 2, 2, 4, 4]           # the first multiple of 2 not below the epoch (at least 2)
    assert cyc == pytest.approx([0.09 * (1 - e / d) + 0.01 for e, d in zip(range(5), spans)])


def test_warmup_lr():
    assert nn.warmup_lr(0.1, 6, 2, 2) == pytest.approx([0, 0, 0.05, 0.05, 0.1, 0.1])


@pytest.mark.parametrize("call,exc,match", [
    (lambda: nn.piecewise_constant_lr([2, 2], [0.1, 0.2]), ValueError, r"strictly increasing"),
    (lambda: nn.piecewise_constant_lr([2], [0.1, 0.2]), ValueError, r"the same as the size"),
    (lambda: nn.piecewise_constant_lr(2, [0.1]), TypeError, r"'milestone' must be list"),
    (lambda: nn.piecewise_constant_lr([2], [1]), TypeError, r"'learning_rates' must be float"),
    (lambda: nn.cosine_decay_lr(0.1, 0.1, 4, 1, 2), ValueError,
     r"For 'cosine_decay_lr', the 'max_lr' must be greater than the 'min_lr'"),
    (lambda: nn.cosine_decay_lr(0.0, 1, 4, 1, 2), TypeError, r"'max_lr' must be float"),
    (lambda: nn.cosine_decay_lr(0.0, 0.1, 0, 1, 2), ValueError, r"'total_step' must be positive"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 4, 1.5, 2), TypeError,
     r"'step_per_epoch' must be int"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 4, 1, 2, is_stair=1), TypeError,
     r"'is_stair' must be bool"),
    (lambda: nn.polynomial_decay_lr(0.1, -0.1, 4, 1, 2, 1.0), ValueError,
     r"'end_learning_rate' must be non-negative"),
    (lambda: nn.warmup_lr(0.0, 4, 1, 2), ValueError, r"'learning_rate' must be positive"),
    (lambda: nn.warmup_lr(0.1, 4, 1, 0), ValueError, r"'warmup_epoch' must be positive"),
])
def test_validation(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
