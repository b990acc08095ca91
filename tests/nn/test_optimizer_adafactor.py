"""nn.AdaFactor: three steps against a float64 numpy reference of MindSpore's formula (factored
and vector parameters, relative and fixed steps, first moment on and off, decoupled decay,
float16 compression), in PYNATIVE and GRAPH mode; state names; bad arguments."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn

SHAPES = {"a": (2, 3, 4), "b": (3, 5), "c": (5,)}


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def rms(x):
    return np.sqrt(np.mean(x * x))


def reference(params, grads, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
              decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True,
              relative_step=True, warmup_init=False, compression=False):
    """MindSpore's AdaFactor step (nn/optim/adafactor.py), in float64."""
    params = [p.astype(np.float64) for p in params]
    state = [dict(m=0.0, row=0.0, col=0.0, v=0.0) for _ in params]
    for t, gs in enumerate(grads, start=1):
        lr = min(1e-6 * t if warmup_init else 1e-2, 1 / np.sqrt(t)) if relative_step else \
            learning_rate
        beta2 = 1 - t ** -decay_rate
        for i, (p, g) in enumerate(zip(params, gs)):
            s = state[i]
            lr_p = lr * max(eps[1], rms(p)) if scale_parameter else lr
            u = g * g + eps[0]
            if p.ndim > 1:
                s["row"] = s["row"] * beta2 + u.mean(-1) * (1 - beta2)
                s["col"] = s["col"] * beta2 + u.mean(-2) * (1 - beta2)
                r = 1 / np.sqrt(s["row"] / s["row"].mean(-1, keepdims=True))
                step = r[..., None] / np.sqrt(s["col"][..., None, :]) * g
            else:
                s["v"] = s["v"] * beta2 + u * (1 - beta2)
                step = g / np.sqrt(s["v"])
            step = step / max(rms(step) / clip_threshold, 1.0) * lr_p
            if beta1 > 0:
                s["m"] = s["m"] * beta1 + step * (1 - beta1)
                step = s["m"]
            p = p - weight_decay * lr_p * p
            params[i] = p - step
    return params


CONFIGS = {
    "defaults": {},
    "no_first_moment": dict(beta1=0.0),
    "weight_decay": dict(weight_decay=0.1),
    "fixed_lr": dict(learning_rate=0.05, relative_step=False),
    "fixed_lr_unscaled_clipped": dict(learning_rate=0.05, relative_step=False,
                                      scale_parameter=False, clip_threshold=0.5),
    "warmup_init": dict(warmup_init=True),
    "compression": dict(compression=True, beta1=0.5, decay_rate=0.5),
}


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_three_steps_match_mindspores_formula(config, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES.values()]
    params = [Parameter(Tensor(a), name=n) for n, a in zip(SHAPES, init)]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES.values()]
             for _ in range(3)]
    opt = nn.AdaFactor(params, **CONFIGS[config])
    for gs in grads:
        assert opt(tuple(Tensor(g) for g in gs)) is True
    want = reference(init, [[g.astype(np.float64) for g in gs] for gs in grads],
                     **CONFIGS[config])
    tol = dict(rtol=2e-3, atol=2e-4) if config == "compression" else dict(rtol=2e-5, atol=2e-6)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, **tol)
    assert float(opt.step.asnumpy()[0]) == 3.0


def test_state_names_shapes_and_compression_dtype():
    params = [Parameter(Tensor(np.ones(s, np.float32)), name=n) for n, s in SHAPES.items()]
    opt = nn.AdaFactor(params, compression=True)
    assert [p.name for p in opt.exp_avg] == ["exp_avg.a", "exp_avg.b", "exp_avg.c"]
    assert [(p.name, p.shape) for p in opt.exp_avg_sq_row] == [
        ("exp_avg_sq_row_a", (2, 3)), ("exp_avg_sq_row_b", (3,)), ("exp_avg_sq_row_c", (1,))]
    assert [p.shape for p in opt.exp_avg_sq_col] == [(2, 4), (5,), (1,)]
    assert [p.dtype for p in opt.exp_avg_sq] == [ms.float32, ms.float32, ms.float16]
    assert opt.step.name == "afactor_step"


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(learning_rate=0.1), ValueError, "Cannot combine manual lr and relative_step"),
    (dict(warmup_init=True, relative_step=False, learning_rate=0.1), ValueError,
     "warmup_init requires relative_step=True"),
    (dict(relative_step=False), ValueError, "Cannot learning_rate is None"),
    (dict(eps=1e-3), TypeError, "'eps' should be one of"),
    (dict(eps=(1e-30,)), ValueError, "eps must have 2 value"),
    (dict(eps=(1e-30, -1.0)), ValueError, "'eps1' must be float and must >= 0"),
    (dict(clip_threshold=1), TypeError, "'clip_threshold' should be 'float'"),
    (dict(decay_rate=1.0), ValueError, r"'decay_rate' must be in range of \(0.0, 1.0\)"),
    (dict(weight_decay=1.0), ValueError, r"'weight_decay' must be in range of \[0, 1\)"),
    (dict(scale_parameter=1), TypeError, "'scale_parameter' should be 'bool'"),
    (dict(beta1="0.9"), TypeError, "'beta1' should be one of"),
])
def test_bad_arguments(kwargs, exc, match):
    params = [Parameter(Tensor(np.ones((2, 2), np.float32)), name="w")]
    with pytest.raises(exc, match=match):
        nn.AdaFactor(params, **kwargs)
