"""Adaptive optimizers (Adagrad, RMSProp, AdaMax, Adadelta, FTRL, ProximalAdagrad, LazyAdam,
AdamOffload, ASGD, Rprop; AdaFactor's formula in test_optimizer_adafactor.py): three steps against float64 numpy references of MindSpore's formulas,
in PYNATIVE and GRAPH mode, with weight decay, loss scale and MindSpore's state names; training
through TrainOneStepCell equal in both modes; bad arguments."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn

RTOL, ATOL = 2e-5, 2e-6
NAMES = ("fc.weight", "fc.bias", "ln.gamma")
MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def make_params():
    rng = np.random.default_rng(0)
    shapes = [(3, 4), (3,), (3,)]
    return [Parameter(Tensor(rng.standard_normal(s).astype(np.float32)), name=n)
            for n, s in zip(NAMES, shapes)]


def grads(params, step):
    rng = np.random.default_rng(100 + step)
    return [rng.standard_normal(p.shape).astype(np.float32) for p in params]


# Reference steps: step(p, g, state, lr, t) -> p, with g already decayed and unscaled, state a
# dict of float64 arrays updated in place; t counts from 1.
def adagrad_step(p, g, s, lr, t):
    s["accum"] = s["accum"] + g * g
    return p - lr * g / np.sqrt(s["accum"])


def rmsprop_step(decay, momentum, eps, centered):
    def step(p, g, s, lr, t):
        s["ms"] = decay * s["ms"] + (1 - decay) * g * g
        denom = s["ms"] + eps
        if centered:
            s["mg"] = decay * s["mg"] + (1 - decay) * g
            denom = denom - s["mg"] ** 2
        s["mom"] = momentum * s["mom"] + lr * g / np.sqrt(denom)
        return p - s["mom"]
    return step


def adamax_step(b1, b2, eps):
    def step(p, g, s, lr, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = np.maximum(b2 * s["v"], np.abs(g))
        return p - lr / (1 - b1 ** t) * s["m"] / (s["v"] + eps)
    return step


def adadelta_step(rho, eps):
    def step(p, g, s, lr, t):
        s["a"] = rho * s["a"] + (1 - rho) * g * g
        u = np.sqrt(s["au"] + eps) * g / np.sqrt(s["a"] + eps)
        s["au"] = rho * s["au"] + (1 - rho) * u * u
        return p - lr * u
    return step


def ftrl_step(l1, l2, lr_power):
    def step(p, g, s, lr, t):
        a_new = s["a"] + g * g
        s["lin"] = s["lin"] + g - (a_new ** -lr_power - s["a"] ** -lr_power) / lr * p
        s["a"] = a_new
        quad = a_new ** -lr_power / lr + 2 * l2
        return np.where(np.abs(s["lin"]) > l1, (np.sign(s["lin"]) * l1 - s["lin"]) / quad, 0.0)
    return step


def proximal_step(l1, l2):
    def step(p, g, s, lr, t):
        s["a"] = s["a"] + g * g
        r = lr / np.sqrt(s["a"])
        v = p - r * g
        return np.sign(v) * np.maximum(np.abs(v) - r * l1, 0) / (1 + r * l2)
    return step


def adam_step(p, g, s, lr, t):
    s["m"] = 0.9 * s["m"] + 0.1 * g
    s["v"] = 0.999 * s["v"] + 0.001 * g * g
    return p - lr * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * s["m"] / (np.sqrt(s["v"]) + 1e-8)


def asgd_step(lambd, alpha, t0):
    def step(p, g, s, lr, t):
        if t == 1:
            s["eta"] = lr
        p = p * (1 - lambd * s["eta"]) - s["eta"] * g
        s["ax"] = s["ax"] + (p - s["ax"]) * s["mu"] if s["mu"] != 1 else p
        s["eta"] = lr / (1 + lambd * lr * t) ** alpha
        s["mu"] = 1 / max(1.0, t - t0)
        return p
    return step


def rprop_step(etaminus, etaplus, lo, hi):
    def step(p, g, s, lr, t):
        size = np.full_like(p, lr) if t == 1 else s["size"]
        turn = g * s["prev"]
        size = np.clip(size * np.where(turn > 0, etaplus, np.where(turn < 0, etaminus, 1.0)),
                       lo, hi)
        g = np.where(turn < 0, 0.0, g)
        s["prev"], s["size"] = g, size
        return p - np.sign(g) * size
    return step


def zeros(p):
    return np.zeros_like(p)


# name: (factory, lr, weight decay, loss scale, decay 'gamma' too, state init, reference step,
#        [(optimizer attribute, state key, MindSpore's name prefix)])
CASES = {
    "Adagrad": (lambda ps: nn.Adagrad(ps, accum=0.2, learning_rate=0.1, weight_decay=0.01,
                                      loss_scale=2.0),
                0.1, 0.01, 2.0, False, lambda p: {"accum": np.full_like(p, 0.2)}, adagrad_step,
                [("accum", "accum", "accum.")]),
    "RMSProp": (lambda ps: nn.RMSProp(ps, learning_rate=0.05, decay=0.8, momentum=0.5,
                                      epsilon=1e-6, weight_decay=0.01, loss_scale=4.0),
                0.05, 0.01, 4.0, False,
                lambda p: {"ms": np.ones_like(p), "mom": zeros(p)},
                rmsprop_step(0.8, 0.5, 1e-6, False),
                [("ms", "ms", "mean_square."), ("moment", "mom", "moment.")]),
    "RMSProp-centered": (lambda ps: nn.RMSProp(ps, learning_rate=0.05, decay=0.8, momentum=0.5,
                                               epsilon=1e-6, centered=True),
                         0.05, 0.0, 1.0, False,
                         lambda p: {"ms": np.ones_like(p), "mom": zeros(p), "mg": zeros(p)},
                         rmsprop_step(0.8, 0.5, 1e-6, True),
                         [("mg", "mg", "mean_grad."), ("ms", "ms", "mean_square.")]),
    "AdaMax": (lambda ps: nn.AdaMax(ps, learning_rate=0.01, beta1=0.8, beta2=0.95, eps=1e-6,
                                    weight_decay=0.02, loss_scale=2.0),
               0.01, 0.02, 2.0, False, lambda p: {"m": zeros(p), "v": zeros(p)},
               adamax_step(0.8, 0.95, 1e-6),
               [("moment1", "m", "moment1."), ("moment2", "v", "moment2.")]),
    "Adadelta": (lambda ps: nn.Adadelta(ps, learning_rate=1.0, rho=0.8, epsilon=1e-4,
                                        weight_decay=0.01),
                 1.0, 0.01, 1.0, False, lambda p: {"a": zeros(p), "au": zeros(p)},
                 adadelta_step(0.8, 1e-4),
                 [("accum", "a", "accum."), ("accum_update", "au", "accum_update.")]),
    "FTRL": (lambda ps: nn.FTRL(ps, initial_accum=0.1, learning_rate=0.1, l1=0.05, l2=0.02,
                                weight_decay=0.01, loss_scale=2.0),
             0.1, 0.01, 2.0, True, lambda p: {"a": np.full_like(p, 0.1), "lin": zeros(p)},
             ftrl_step(0.05, 0.02, -0.5),
             [("moments", "a", "moments."), ("linear", "lin", "linear.")]),
    "FTRL-lr_power": (lambda ps: nn.FTRL(ps, learning_rate=0.1, lr_power=-0.3, l2=0.02),
                      0.1, 0.0, 1.0, True,
                      lambda p: {"a": np.full_like(p, 0.1), "lin": zeros(p)},
                      ftrl_step(0.0, 0.02, -0.3), [("linear", "lin", "linear.")]),
    "ProximalAdagrad": (lambda ps: nn.ProximalAdagrad(ps, accum=0.1, learning_rate=0.1, l1=0.02,
                                                      l2=0.05, weight_decay=0.01),
                        0.1, 0.01, 1.0, False, lambda p: {"a": np.full_like(p, 0.1)},
                        proximal_step(0.02, 0.05), [("accum", "a", "accum.")]),
    "LazyAdam": (lambda ps: nn.LazyAdam(ps, learning_rate=0.01, loss_scale=2.0), 0.01, 0.0, 2.0,
                 False, lambda p: {"m": zeros(p), "v": zeros(p)}, adam_step,
                 [("moment1", "m", "moment1.")]),
    "AdamOffload": (lambda ps: nn.AdamOffload(ps, learning_rate=0.01), 0.01, 0.0, 1.0, False,
                    lambda p: {"m": zeros(p), "v": zeros(p)}, adam_step,
                    [("moment2", "v", "moment2.")]),
    "ASGD": (lambda ps: nn.ASGD(ps, learning_rate=0.1, lambd=0.01, alpha=0.75, t0=0.0,
                                weight_decay=0.01),
             0.1, 0.01, 1.0, False, lambda p: {"ax": zeros(p), "eta": 0.0, "mu": 1.0},
             asgd_step(0.01, 0.75, 0.0),
             [("ax", "ax", "ax_."), ("eta", "eta", "eta_"), ("mu", "mu", "mu_")]),
    "Rprop": (lambda ps: nn.Rprop(ps, learning_rate=0.1, etas=(0.4, 1.5),
                                  step_sizes=(1e-3, 0.12), weight_decay=0.01),
              0.1, 0.01, 1.0, False, lambda p: {"prev": zeros(p), "size": zeros(p)},
              rprop_step(0.4, 1.5, 1e-3, 0.12),
              [("prev", "prev", "prev."), ("step_size", "size", "step_size.")]),
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_three_steps_match_mindspores_formula(name, mode):
    factory, lr, wd, loss_scale, decay_all, init, step, states = CASES[name]
    ms.set_context(mode=MODES[mode])
    params = make_params()
    want = [p.asnumpy().astype(np.float64) for p in params]
    opt = factory(params)
    ref_state = [init(p) for p in want]
    for t in (1, 2, 3):
        gs = grads(params, t)
        assert opt(tuple(Tensor(g) for g in gs)) is True
        for i, (p, g) in enumerate(zip(want, gs)):
            decay = wd if decay_all or "gamma" not in NAMES[i] else 0.0
            g64 = (g.astype(np.float64) + decay * p) / loss_scale
            want[i] = step(p, g64, ref_state[i], lr, t)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=RTOL, atol=ATOL)
    for attr, key, prefix in states:
        tup = getattr(opt, attr)
        assert [s.name for s in tup] == [prefix + n for n in NAMES]
        for s, ref in zip(tup, ref_state):
            np.testing.assert_allclose(s.asnumpy(), np.broadcast_to(ref[key], s.shape),
                                       rtol=RTOL, atol=ATOL)
    assert int(opt.global_step.asnumpy()[0]) == 3


def test_asgd_scalar_state_and_averaging():
    """eta and mu are 0-d float32 Parameters; with t0=0 the average starts on step 3."""
    params = make_params()
    opt = nn.ASGD(params, t0=0.0)
    assert opt.eta[0].shape == () and opt.eta[0].dtype == ms.float32
    for t in (1, 2, 3):
        opt(tuple(Tensor(g) for g in grads(params, t)))
    assert float(opt.mu[0].asnumpy()) == pytest.approx(1 / 3)
    assert not np.allclose(opt.ax[0].asnumpy(), params[0].asnumpy())


def test_adagrad_without_slot_updates_keeps_accum():
    params = make_params()[:1]
    opt = nn.Adagrad(params, accum=0.5, learning_rate=0.1, update_slots=False)
    p0 = params[0].asnumpy().astype(np.float64)
    g = grads(params, 1)[0]
    opt((Tensor(g),))
    np.testing.assert_allclose(opt.accum[0].asnumpy(), 0.5)
    np.testing.assert_allclose(params[0].asnumpy(), p0 - 0.1 * g / np.sqrt(0.5), rtol=RTOL)


def test_group_learning_rates_and_schedule():
    """Per-group rates and a per-step rate list reach the fused updates."""
    params = make_params()
    opt = nn.RMSProp([{"params": params[:1], "lr": 0.01}, {"params": params[1:]}],
                     learning_rate=[0.1, 0.05, 0.02])
    want = [p.asnumpy().astype(np.float64) for p in params]
    states = [{"ms": np.ones_like(p), "mom": zeros(p)} for p in want]
    step = rmsprop_step(0.9, 0.0, 1e-10, False)
    for t in (1, 2, 3):
        gs = grads(params, t)
        opt(tuple(Tensor(g) for g in gs))
        for i in range(3):
            lr = 0.01 if i == 0 else [0.1, 0.05, 0.02][t - 1]
            want[i] = step(want[i], gs[i].astype(np.float64), states[i], lr, t)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=RTOL, atol=ATOL)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


TRAIN = {
    "AdaFactor": lambda p: nn.AdaFactor(p, learning_rate=0.05, relative_step=False),
    "Adagrad": lambda p: nn.Adagrad(p, learning_rate=0.05),
    "RMSProp": lambda p: nn.RMSProp(p, learning_rate=0.01, momentum=0.5, centered=True),
    "AdaMax": lambda p: nn.AdaMax(p, learning_rate=0.01),
    "Adadelta": lambda p: nn.Adadelta(p),
    "FTRL": lambda p: nn.FTRL(p, learning_rate=0.05, l1=1e-3),
    "ProximalAdagrad": lambda p: nn.ProximalAdagrad(p, learning_rate=0.05, l1=1e-3),
    "LazyAdam": lambda p: nn.LazyAdam(p, learning_rate=0.01),
    "ASGD": lambda p: nn.ASGD(p, learning_rate=0.05, t0=1.0),
    "Rprop": lambda p: nn.Rprop(p, learning_rate=0.01),
    "Lamb": lambda p: nn.Lamb(p, learning_rate=0.01, weight_decay=0.01),
}


@pytest.mark.parametrize("name", sorted(TRAIN))
def test_train_one_step_cell_graph_equals_pynative(name):
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = _Net()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), TRAIN[name](net.trainable_params()))
        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
        y = Tensor(rng.integers(0, 3, 8).astype(np.int32))
        losses = [float(step(x, y).asnumpy()) for _ in range(4)]
        results[mode] = losses, [p.asnumpy().copy() for p in net.trainable_params()]
        if mode == ms.GRAPH_MODE:   # one graph serves every step (no per-step constants)
            assert step.compile_cache_info() == {"compiles": 1, "hits": 3, "entries": 1}
    (l_py, p_py), (l_gr, p_gr) = results[ms.PYNATIVE_MODE], results[ms.GRAPH_MODE]
    np.testing.assert_allclose(l_gr, l_py, rtol=1e-6)
    for g, e in zip(p_gr, p_py):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    assert l_py[-1] < l_py[0]


P = make_params


@pytest.mark.parametrize("call,exc,match", [
    (lambda: nn.Adagrad(P(), accum=1), TypeError, "type of 'accum' should be 'float'"),
    (lambda: nn.Adagrad(P(), accum=-0.1), ValueError, "'accum' must be float and must >= 0"),
    (lambda: nn.Adagrad(P(), update_slots=1), TypeError, "'update_slots' should be 'bool'"),
    (lambda: nn.RMSProp(P(), decay=1), TypeError, "'decay' should be 'float'"),
    (lambda: nn.RMSProp(P(), epsilon=0.0), ValueError, "'epsilon' must be float and must > 0"),
    (lambda: nn.RMSProp(P(), centered=1), TypeError, "'centered' should be 'bool'"),
    (lambda: nn.AdaMax(P(), beta1=1.0), ValueError, r"'beta1' must be in range of \(0.0, 1.0\)"),
    (lambda: nn.AdaMax(P(), eps=0.0), ValueError, "'eps' must be float and must > 0"),
    (lambda: nn.Adadelta(P(), rho=1.5), ValueError, r"'rho' must be in range of \[0.0, 1.0\]"),
    (lambda: nn.FTRL(P(), learning_rate=0.0), ValueError, "'learning_rate' must be float"),
    (lambda: nn.FTRL(P(), lr_power=0.5), ValueError, "'lr_power' must <= 0.0"),
    (lambda: nn.FTRL(P(), l1=-1.0), ValueError, "'l1' must >= 0.0"),
    (lambda: nn.FTRL(P(), learning_rate=[0.1, 0.2]), ValueError, "dynamic learning rate True"),
    (lambda: nn.ProximalAdagrad(P(), l2=-1.0), ValueError, "'l2' must be float and must >= 0"),
    (lambda: nn.LazyAdam(P(), weight_decay=0), TypeError, "'weight_dacay' should be 'float'"),
    (lambda: nn.AdamOffload(P(), beta2=1.5), ValueError, "'beta2' must be in range"),
    (lambda: nn.ASGD(P(), t0=1), TypeError, "'t0' should be 'float'"),
    (lambda: nn.ASGD(P(), loss_scale=2.0), TypeError, "loss_scale"),
    (lambda: nn.Rprop(P(), etas=[0.5, 1.2]), TypeError, "etas must be a tuple"),
    (lambda: nn.Rprop(P(), etas=(0.5,)), ValueError, "size of 2"),
    (lambda: nn.Rprop(P(), etas=(1.5, 1.2)), ValueError, "'etaminus' must be in range"),
    (lambda: nn.Rprop(P(), etas=(0.5, 1.0)), ValueError, "etaplus must be greater than 1.0"),
    (lambda: nn.Rprop(P(), step_sizes=(1.0, 0.5)), ValueError, "maximal step size"),
    (lambda: nn.Adadelta(P())([Tensor(np.ones((3, 4), np.float32))]), TypeError,
     "'grads' must be a tuple of Tensor"),
    (lambda: nn.Adagrad(P())((Tensor(np.ones((3, 4), np.float32)),)), ValueError,
     "got 1 gradients for 3 parameters"),
    (lambda: nn.Adagrad(P()[:1])((Tensor(np.ones((4, 3), np.float32)),)), ValueError,
     "shape"),
])
def test_bad_arguments(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def lamb_reference(w, gs, lr, wd, b1=0.9, b2=0.999, eps=1e-6):
    """float64 LAMB as MindSpore's GPU kernel computes it: Adam's bias-corrected ratio plus
    decay, scaled by the trust ratio ||w|| / ||update|| (1 when a norm is 0)."""
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(gs, 1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        u = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * w
        wn, un = np.linalg.norm(w), np.linalg.norm(u)
        w = w - lr * (wn / un if wn > 0 and un > 0 else 1.0) * u
    return w, m, v


@pytest.mark.parametrize("mode", sorted(MODES))
def test_lamb_three_steps_match_the_formula(mode):
    """Decay skips the 'gamma' parameter (ungrouped), a zero-norm parameter takes ratio 1, and
    the moments are stored as lamb_m./lamb_v.<name>."""
    ms.set_context(mode=MODES[mode])
    params = make_params()
    params[0].set_data(Tensor(np.zeros(params[0].shape, np.float32)))
    want = [p.asnumpy().astype(np.float64) for p in params]
    opt = nn.Lamb(params, learning_rate=0.05, weight_decay=0.02)
    all_grads = [grads(params, t) for t in (1, 2, 3)]
    for gs in all_grads:
        assert opt(tuple(Tensor(g) for g in gs)) is True
    for i, (p, w0) in enumerate(zip(params, want)):
        wd = 0.0 if "gamma" in NAMES[i] else 0.02
        w, m, v = lamb_reference(w0, [gs[i].astype(np.float64) for gs in all_grads], 0.05, wd)
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(opt.moments1[i].asnumpy(), m, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(opt.moments2[i].asnumpy(), v, rtol=1e-5, atol=1e-9)
    assert [s.name for s in opt.moments1] == ["lamb_m." + n for n in NAMES]
    with pytest.raises(ValueError, match="beta1"):
        nn.Lamb(params, 0.1, beta1=1.0)
