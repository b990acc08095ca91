"""Optimizers: one and two steps against float64 hand-computed updates, groups, lr forms, errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn

RTOL, ATOL = 1e-5, 1e-6


def make(names=("fc.weight", "fc.bias"), seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (3,)][:len(names)] + [(2,)] * max(0, len(names) - 2)
    return [Parameter(Tensor(rng.standard_normal(s).astype(np.float32)), name=n)
            for n, s in zip(names, shapes)]


def grads_for(params, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(p.shape) for p in params]


def run(opt, params, steps=2):
    """Apply `steps` updates; return the float64 initial values and the grads used."""
    init = [p.asnumpy().astype(np.float64) for p in params]
    all_grads = []
    for s in range(steps):
        g = grads_for(params, 100 + s)
        all_grads.append(g)
        assert opt(tuple(Tensor(x.astype(np.float32)) for x in g)) is True
    return init, all_grads


def check(params, want):
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_two_steps(nesterov):
    params = make()
    opt = nn.Momentum(params, learning_rate=0.1, momentum=0.9, use_nesterov=nesterov)
    init, grads = run(opt, params)
    want = []
    for i, p in enumerate(init):
        v = np.zeros_like(p)
        for g in grads:
            v = 0.9 * v + g[i]
            p = p - 0.1 * ((g[i] + 0.9 * v) if nesterov else v)
        want.append(p)
    check(params, want)
    assert [m.name for m in opt.moments] == ["moments.fc.weight", "moments.fc.bias"]
    np.testing.assert_allclose(opt.moments[1].asnumpy(), 0.9 * grads[0][1] + grads[1][1],
                               rtol=RTOL, atol=ATOL)


def test_momentum_weight_decay_skips_beta_gamma_and_loss_scale():
    params = make(("fc.weight", "ln.gamma", "ln.beta"))
    opt = nn.Momentum(params, 0.1, 0.9, weight_decay=0.01, loss_scale=4.0)
    init, grads = run(opt, params, steps=1)
    want = []
    for i, p in enumerate(init):
        wd = 0.0 if i else 0.01
        want.append(p - 0.1 * (grads[0][i] + wd * p) / 4.0)
    check(params, want)


@pytest.mark.parametrize("momentum, dampening, nesterov", [
    (0.0, 0.0, False), (0.9, 0.0, False), (0.9, 0.3, False), (0.9, 0.0, True)])
def test_sgd_two_steps_first_step_sets_v_to_g(momentum, dampening, nesterov):
    params = make()
    opt = nn.SGD(params, learning_rate=0.05, momentum=momentum, dampening=dampening,
                 nesterov=nesterov, weight_decay=0.01)
    init, grads = run(opt, params)
    want = []
    for i, p in enumerate(init):
        v = None
        for g in grads:
            gi = g[i] + 0.01 * p
            if momentum > 0:
                v = gi if v is None else momentum * v + (1 - dampening) * gi
                step = gi + momentum * v if nesterov else v
            else:
                step = gi
            p = p - 0.05 * step
        want.append(p)
    check(params, want)
    assert opt.accum[0].name == "accum.fc.weight" and opt.stat[0].name == "stat.fc.weight"


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_two_steps(nesterov):
    params = make()
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.01
    opt = nn.Adam(params, learning_rate=lr, beta1=b1, beta2=b2, eps=eps, use_nesterov=nesterov)
    init, grads = run(opt, params)
    want = []
    for i, p in enumerate(init):
        m = v = 0.0
        for t, g in enumerate(grads, 1):
            m = b1 * m + (1 - b1) * g[i]
            v = b2 * v + (1 - b2) * g[i] ** 2
            lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            num = b1 * m + (1 - b1) * g[i] if nesterov else m
            p = p - lr_t * num / (np.sqrt(v) + eps)
        want.append(p)
    check(params, want)
    assert opt.moment1[0].name == "moment1.fc.weight"
    np.testing.assert_allclose(opt.beta1_power.asnumpy(), [b1 ** 2], rtol=1e-6)


def test_adam_weight_decay_two_steps():
    params = make(("fc.weight", "ln.gamma"))
    b1, b2, eps, lr, wd = 0.9, 0.999, 1e-6, 0.01, 0.1
    opt = nn.AdamWeightDecay(params, learning_rate=lr, beta1=b1, beta2=b2, eps=eps,
                             weight_decay=wd)
    init, grads = run(opt, params)
    want = []
    for i, p in enumerate(init):
        m = v = 0.0
        d = 0.0 if i else wd
        for g in grads:
            m = b1 * m + (1 - b1) * g[i]
            v = b2 * v + (1 - b2) * g[i] ** 2
            p = p - lr * (m / (np.sqrt(v) + eps) + d * p)
        want.append(p)
    check(params, want)
    assert opt.moments1[0].name == "adam_m.fc.weight"


def test_group_params_lr_weight_decay_and_order():
    w, b = make()
    opt = nn.Momentum([{"params": [w], "lr": 0.5, "weight_decay": 0.1},
                       {"params": [b]},
                       {"order_params": [b, w]}], learning_rate=0.1, momentum=0.0)
    assert [p.name for p in opt.parameters] == ["fc.bias", "fc.weight"]
    lrs = opt.get_lr()
    assert isinstance(lrs, tuple) and [float(x) for x in lrs] == [pytest.approx(0.1),
                                                                 pytest.approx(0.5)]
    init = [b.asnumpy().astype(np.float64), w.asnumpy().astype(np.float64)]
    g = grads_for([b, w], 5)
    opt(tuple(Tensor(x.astype(np.float32)) for x in g))
    check([b, w], [init[0] - 0.1 * g[0], init[1] - 0.5 * (g[1] + 0.1 * init[1])])


def test_filter_iterable_and_lr_list_and_schedule():
    params = make()
    opt = nn.SGD(filter(lambda p: p.requires_grad, params), learning_rate=[0.1, 0.01])
    init, grads = run(opt, params, steps=3)
    want = [p - 0.1 * grads[0][i] - 0.01 * grads[1][i] - 0.01 * grads[2][i]
            for i, p in enumerate(init)]
    check(params, want)
    sched = nn.ExponentialDecayLR(0.1, 0.5, 1)
    opt = nn.Momentum(make(), sched, 0.9)
    assert float(opt.get_lr()) == pytest.approx(0.1)
    opt(tuple(Tensor(np.zeros(p.shape, np.float32)) for p in opt.parameters))
    assert float(opt.get_lr()) == pytest.approx(0.05)
    pw = nn.PiecewiseConstantLR([2, 5], [0.1, 0.05])
    assert [float(pw(Tensor(np.array([s], np.int32)))) for s in (0, 2, 9)] == \
        [pytest.approx(0.1), pytest.approx(0.05), pytest.approx(0.05)]


def test_optimizer_errors():
    with pytest.raises(ValueError, match="must not be empty"):
        nn.Momentum([], 0.1, 0.9)
    with pytest.raises(ValueError, match="'momentum' must be >= 0"):
        nn.Momentum(make(), 0.1, -0.9)
    with pytest.raises(ValueError, match="nesterov needs momentum > 0"):
        nn.SGD(make(), nesterov=True)
    with pytest.raises(ValueError, match="'learning_rate' must be >= 0"):
        nn.SGD(make(), learning_rate=-1.0)
    with pytest.raises(TypeError, match="'learning_rate' must be a float"):
        nn.SGD(make(), learning_rate="fast")
    with pytest.raises(ValueError, match="'beta1' must be in range"):
        nn.Adam(make(), beta1=1.0)
    with pytest.raises(ValueError, match="group key 'foo'"):
        nn.SGD([{"params": make(), "foo": 1}])
    with pytest.raises(ValueError, match="got 1 gradients for 2 parameters"):
        nn.SGD(make())((Tensor(np.zeros((3, 4), np.float32)),))
    params = make()
    with pytest.raises(ValueError, match=r"For 'ApplyMomentum'.*'gradient' shape \(4,\)"):
        nn.Momentum(params, 0.1, 0.9)((Tensor(np.zeros(4, np.float32)),
                                       Tensor(np.zeros(3, np.float32))))


def test_adam_primitives_return_var_and_moments():
    """ops.Adam and ops.AdamWeightDecay return (var, m, v), the tuple MindSpore documents,
    after updating all three in place."""
    from minispore import ops
    for prim, scalars in ((ops.Adam(), (0.9, 0.99, 0.1, 0.9, 0.999, 1e-8)),
                          (ops.AdamWeightDecay(), (0.1, 0.9, 0.999, 1e-8, 0.01))):
        state = [ms.Parameter(ms.Tensor(np.full(3, v, np.float32)), name=n)
                 for n, v in (("var", 0.5), ("m", 0.1), ("v", 0.2))]
        out = prim(*state, *scalars, ms.Tensor(np.ones(3, np.float32)))
        assert isinstance(out, tuple) and all(o is s for o, s in zip(out, state))
        assert len(out) == 3 and not np.allclose(state[0].asnumpy(), 0.5)
