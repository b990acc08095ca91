"""Learning-rate schedules: per-step values against their formulas, and the same training in
GRAPH mode (the schedule traced into the step graph) as in PYNATIVE."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn


def _at(schedule, step):
    return float(schedule(Tensor(np.array([step], np.int32))).asnumpy())


@pytest.mark.parametrize("stair", [False, True])
def test_exponential_decay_lr_matches_formula(stair):
    sched = nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=stair)
    for step in range(10):
        p = step // 4 if stair else step / 4
        assert _at(sched, step) == pytest.approx(0.1 * 0.9 ** p, rel=1e-6)


def test_piecewise_constant_lr_switches_at_milestones_and_keeps_the_last():
    sched = nn.PiecewiseConstantLR([2, 5], [0.1, 0.05])
    assert [_at(sched, s) for s in range(7)] == pytest.approx(
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05])


def test_list_learning_rate_steps_through_then_holds():
    w = ms.Parameter(Tensor(np.ones(2, np.float32)), name="w")
    opt = nn.SGD([w], learning_rate=[0.5, 0.25, 0.125])
    seen = []
    for _ in range(5):
        seen.append(float(opt.get_lr().asnumpy()))
        opt((Tensor(np.zeros(2, np.float32)),))
    assert seen == pytest.approx([0.5, 0.25, 0.125, 0.125, 0.125])


SCHEDULES = {
    "exponential": lambda: nn.ExponentialDecayLR(0.2, 0.5, 2, is_stair=True),
    "piecewise": lambda: nn.PiecewiseConstantLR([1, 3], [0.2, 0.05]),
    "list": lambda: [0.2, 0.1, 0.05],
    "cosine": lambda: nn.CosineDecayLR(0.01, 0.2, 3),
    "warmup": lambda: nn.WarmUpLR(0.2, 3),
    "cosine_decay_lr_list": lambda: nn.cosine_decay_lr(0.01, 0.2, 5, 2, 2),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduled_training_is_the_same_in_graph_and_pynative(name):
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = nn.Dense(6, 3)
        opt = nn.Momentum(net.trainable_params(), learning_rate=SCHEDULES[name](), momentum=0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), opt)
        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
        y = Tensor(rng.integers(0, 3, 8).astype(np.int32))
        losses = [float(step(x, y).asnumpy()) for _ in range(5)]
        results[mode] = (losses, net.weight.asnumpy().copy(), int(opt.global_step.asnumpy()[0]))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (l_py, w_py, s_py), (l_gr, w_gr, s_gr) = results[ms.PYNATIVE_MODE], results[ms.GRAPH_MODE]
    np.testing.assert_allclose(l_gr, l_py, rtol=1e-6)
    np.testing.assert_allclose(w_gr, w_py, rtol=1e-6, atol=1e-7)
    assert s_py == s_gr == 5
    assert not math.isclose(l_py[0], l_py[-1])  # the steps really trained


def test_cosine_decay_lr_schedule_matches_formula_and_holds_min():
    sched = nn.CosineDecayLR(0.01, 0.1, 4)
    want = [0.01 + 0.045 * (1 + math.cos(math.pi * min(s, 4) / 4)) for s in range(7)]
    assert [_at(sched, s) for s in range(7)] == pytest.approx(want, rel=1e-6)


def test_warmup_lr_schedule_ramps_then_holds():
    sched = nn.WarmUpLR(0.1, 4)
    assert [_at(sched, s) for s in range(6)] == pytest.approx(
        [0.0, 0.025, 0.05, 0.075, 0.1, 0.1], rel=1e-6)


@pytest.mark.parametrize("make,exc,match", [
    (lambda: nn.CosineDecayLR(0, 0.1, 4), TypeError, r"'min_lr' must be float, but got int"),
    (lambda: nn.CosineDecayLR(-0.1, 0.1, 4), ValueError, r"'min_lr' must be non-negative"),
    (lambda: nn.CosineDecayLR(0.2, 0.1, 4), ValueError,
     r"'max_lr' must be greater than the 'min_lr'"),
    (lambda: nn.CosineDecayLR(0.0, 0.1, 0), ValueError, r"'decay_steps' must be positive"),
    (lambda: nn.WarmUpLR(1, 4), TypeError, r"For 'WarmUpLR', the 'learning_rate' must be float"),
    (lambda: nn.WarmUpLR(0.1, 2.0), TypeError, r"'warmup_steps' must be a"),
])
def test_schedule_validation(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


# MindSpore 2.7.2's rates at steps 0, 1, 3, 4, 5, 9 (recorded from the CPU wheel).
_STEPS = (0, 1, 3, 4, 5, 9)
_DECAY_RECORDED = [
    (nn.NaturalExpDecayLR, (0.1, 0.9, 4, True),
     [0.1, 0.1, 0.1, 0.0027323728427290916, 0.0027323728427290916, 7.465861563105136e-05]),
    (nn.NaturalExpDecayLR, (0.1, 0.9, 4),
     [0.1, 0.04065696895122528, 0.006720553617924452, 0.0027323728427290916,
      0.0011108998442068696, 3.035394001926761e-05]),
    (nn.InverseDecayLR, (0.1, 0.9, 4, True),
     [0.1, 0.1, 0.1, 0.05263157933950424, 0.05263157933950424, 0.0357142873108387]),
    (nn.InverseDecayLR, (0.1, 0.9, 4),
     [0.1, 0.08163265138864517, 0.05970149487257004, 0.05263157933950424, 0.0470588244497776,
      0.03305785357952118]),
    (nn.PolynomialDecayLR, (0.1, 0.01, 4, 0.5),
     [0.1, 0.08794228732585907, 0.054999999701976776, 0.01, 0.01, 0.01]),
    (nn.PolynomialDecayLR, (0.1, 0.01, 4, 0.5, True),
     [0.1, 0.08794228732585907, 0.054999999701976776, 0.01, 0.06511352211236954,
      0.054999999701976776]),
]


@pytest.mark.parametrize("cls,args,want", _DECAY_RECORDED)
def test_decay_schedules_equal_mindspore(cls, args, want):
    schedule = cls(*args)
    got = [schedule(Tensor(np.int32(s))) for s in _STEPS]
    assert all(g.dtype == ms.float32 and g.shape == () for g in got)
    np.testing.assert_allclose([float(g.asnumpy()) for g in got], want, rtol=2e-6)


@pytest.mark.parametrize("cls,args,want", _DECAY_RECORDED[:4])
def test_decay_schedules_trace_into_graphs(cls, args, want):
    schedule = cls(*args)
    compiled = ms.jit(lambda step: schedule(step))
    got = [float(compiled(Tensor(np.int32(s))).asnumpy()) for s in _STEPS]
    np.testing.assert_allclose(got, want, rtol=2e-6)


@pytest.mark.parametrize("make,err,words", [
    (lambda: nn.NaturalExpDecayLR(1, 0.9, 4), TypeError, "'learning_rate' must be float"),
    (lambda: nn.NaturalExpDecayLR(0.1, -0.9, 4), ValueError, "'decay_rate' must be positive"),
    (lambda: nn.InverseDecayLR(0.1, 0.9, 4.0), TypeError, "'decay_steps' must be int"),
    (lambda: nn.InverseDecayLR(0.1, 0.9, 4, 1), TypeError, "'is_stair' must be bool"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 0, 0.5), ValueError, "'decay_steps' must be"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, -1.0), ValueError, "'power' must be positive"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, 1), TypeError,
     "'update_decay_steps' must be bool"),
])
def test_decay_schedules_refuse_bad_arguments(make, err, words):
    with pytest.raises(err, match=words):
        make()
