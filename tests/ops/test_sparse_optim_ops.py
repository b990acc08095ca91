"""The sparse optimizer primitives (ops/function/sparse_optim_prims.py) against float64 numpy
references with repeated indices, in place, in PYNATIVE and GRAPH mode, and their errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn
from minispore.ops import operations as P

RNG = np.random.RandomState(0)
VAR = RNG.rand(4, 2)
ACC = RNG.rand(4, 2) + 0.5
LIN = RNG.rand(4, 2)
GRAD = RNG.randn(3, 2)
IDX = np.array([2, 0, 2], np.int32)     # row 2 twice, rows 1 and 3 untouched


def _rows(grad, summed):
    """(row, gradient) in the order the update applies them."""
    if not summed:
        return list(zip(IDX, grad))
    out = {}
    for i, g in zip(IDX, grad):
        out[i] = out.get(i, 0) + g
    return list(out.items())


def ref_adam(var, m, v, lr_t, b1, b2, eps, rows):
    for i, g in rows:
        m[i] += (g - m[i]) * (1 - b1)
        v[i] += (g * g - v[i]) * (1 - b2)
        var[i] -= lr_t * m[i] / (np.sqrt(v[i]) + eps)
    return var, m, v


def ref_ftrl(var, acc, lin, lr, l1, l2, lrp, rows):
    for i, g in rows:
        an = acc[i] + g * g
        lin[i] += g - (an ** -lrp - acc[i] ** -lrp) / lr * var[i]
        var[i] = np.where(np.abs(lin[i]) > l1,
                          (np.sign(lin[i]) * l1 - lin[i]) / (an ** -lrp / lr + 2 * l2), 0.0)
        acc[i] = an
    return var, acc, lin


def ref_prox(var, acc, lr, l1, l2, rows):
    for i, g in rows:
        acc[i] += g * g
        r = lr / np.sqrt(acc[i])
        p = var[i] - r * g
        var[i] = np.sign(p) / (1 + r * l2) * np.maximum(np.abs(p) - r * l1, 0)
    return var, acc


def ref_adagrad(var, acc, lr, eps, rows, update_slots=True):
    for i, g in rows:
        if update_slots:
            acc[i] += g * g
        var[i] -= lr * g / np.sqrt(acc[i] + eps)
    return var, acc


def ref_rmsprop(var, ms_, mom, lr, rho, momentum, eps, rows):
    for i, g in rows:
        ms_[i] = np.where(g == 0, ms_[i], rho * ms_[i] + (1 - rho) * g * g)
        mom[i] = momentum * mom[i] + lr * g / np.sqrt(ms_[i] + eps)
        var[i] -= mom[i]
    return var, ms_, mom


def _params(*arrays):
    return [Parameter(Tensor(a.astype(np.float32)), name=f"p{k}") for k, a in enumerate(arrays)]


def _dense_rows(grad):
    g = np.zeros_like(VAR)
    np.add.at(g, IDX, grad)
    return list(enumerate(g))


LR_T = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
CASES = {
    "FusedSparseAdam": (lambda: P.FusedSparseAdam(), (VAR, LIN, ACC),
                        (0.9, 0.999, 0.01, 0.9, 0.999, 1e-8),
                        lambda: ref_adam(VAR.copy(), LIN.copy(), ACC.copy(), LR_T, .9, .999, 1e-8,
                                         _dense_rows(GRAD))),
    "FusedSparseLazyAdam": (lambda: P.FusedSparseLazyAdam(), (VAR, LIN, ACC),
                            (0.9, 0.999, 0.01, 0.9, 0.999, 1e-8),
                            lambda: ref_adam(VAR.copy(), LIN.copy(), ACC.copy(), LR_T, .9, .999,
                                             1e-8, _rows(GRAD, True))),
    "FusedSparseFtrl": (lambda: P.FusedSparseFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5),
                        (VAR, ACC, LIN), (),
                        lambda: ref_ftrl(VAR.copy(), ACC.copy(), LIN.copy(), .1, .01, .02, -.5,
                                         _rows(GRAD, True))),
    "SparseApplyFtrl": (lambda: P.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.6),
                        (VAR, ACC, LIN), (),
                        lambda: ref_ftrl(VAR.copy(), ACC.copy(), LIN.copy(), .1, .01, .02, -.6,
                                         _rows(GRAD, False))),
    "FusedSparseProximalAdagrad": (lambda: P.FusedSparseProximalAdagrad(), (VAR, ACC),
                                   (0.1, 0.01, 0.02),
                                   lambda: ref_prox(VAR.copy(), ACC.copy(), .1, .01, .02,
                                                    _rows(GRAD, True))),
    "SparseApplyAdagrad": (lambda: P.SparseApplyAdagrad(lr=0.1), (VAR, ACC), (),
                           lambda: ref_adagrad(VAR.copy(), ACC.copy(), .1, 0.0,
                                               _rows(GRAD, True))),
    "SparseApplyAdagrad_no_slots": (lambda: P.SparseApplyAdagrad(lr=0.1, update_slots=False),
                                    (VAR, ACC), (),
                                    lambda: ref_adagrad(VAR.copy(), ACC.copy(), .1, 0.0,
                                                        _rows(GRAD, True), False)),
    "SparseApplyAdagradV2": (lambda: P.SparseApplyAdagradV2(lr=0.1, epsilon=1e-3),
                             (VAR, ACC), (),
                             lambda: ref_adagrad(VAR.copy(), ACC.copy(), .1, 1e-3,
                                                 _rows(GRAD, False))),
    "SparseApplyRMSProp": (lambda: P.SparseApplyRMSProp(0.9, 0.5, 1e-3), (VAR, ACC, LIN),
                           (0.1,),
                           lambda: ref_rmsprop(VAR.copy(), ACC.copy(), LIN.copy(), .1, .9, .5,
                                               1e-3, _rows(GRAD, False))),
}


class _Step(nn.Cell):
    def __init__(self, prim, params, scalars):
        super().__init__()
        self.prim, self.scalars = prim, scalars
        for k, p in enumerate(params):
            setattr(self, f"p{k}", p)
        self.n = len(params)

    def construct(self, grad, indices):
        params = tuple(getattr(self, f"p{k}") for k in range(self.n))
        return self.prim(*params, *self.scalars, grad, indices)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_update_matches_float64_reference_in_place(name, mode):
    make, states, scalars, ref = CASES[name]
    params = _params(*states)
    ms.set_context(mode=mode)
    try:
        out = _Step(make(), params, scalars)(Tensor(GRAD.astype(np.float32)), Tensor(IDX))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want = ref()
    assert len(out) == len(states)
    for p, o, w in zip(params, out, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(o.asnumpy(), w, rtol=2e-5, atol=1e-6)


def test_apply_adagrad_v2_matches_reference():
    g = RNG.randn(4, 2)
    for slots in (True, False):
        var, acc = _params(VAR, ACC)
        P.ApplyAdagradV2(epsilon=1e-3, update_slots=slots)(var, acc, 0.1,
                                                           Tensor(g.astype(np.float32)))
        a = ACC + g * g if slots else ACC
        np.testing.assert_allclose(var.asnumpy(), VAR - 0.1 * g / (np.sqrt(a) + 1e-3), rtol=2e-5)
        np.testing.assert_allclose(acc.asnumpy(), a, rtol=2e-5)


def _bad_call(var_shape=(4, 2), acc_shape=(4, 2), grad=None, indices=None, dtype=np.float32):
    var = Parameter(Tensor(np.ones(var_shape, dtype)), name="var")
    acc = Parameter(Tensor(np.ones(acc_shape, dtype)), name="acc")
    grad = Tensor(np.ones((2, 2), dtype)) if grad is None else grad
    indices = Tensor(np.array([0, 1], np.int32)) if indices is None else indices
    return P.SparseApplyAdagrad(lr=0.1)(var, acc, grad, indices)


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(acc_shape=(4, 3)), ValueError, "shape of 'accum'"),
    (dict(indices=Tensor(np.array([0], np.int32))), ValueError, "indices_shape"),
    (dict(indices=Tensor(np.array(0, np.int32))), ValueError, "rank of 'indices'"),
    (dict(indices=Tensor(np.array([0., 1.], np.float32))), TypeError, "int32 or int64"),
    (dict(indices=[0, 1]), TypeError, "'indices' must be a Tensor"),
    (dict(grad=Tensor(np.ones((2, 3), np.float32))), ValueError, r"grad_shape\[1:\]"),
    (dict(grad=Tensor(np.float32(1))), ValueError, "rank of 'grad'"),
    (dict(dtype=np.float64), TypeError, "dtype must be one of"),
])
def test_sparse_update_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        _bad_call(**kwargs)


def test_sparse_update_attribute_errors():
    with pytest.raises(ValueError, match="lr_power"):
        P.SparseApplyFtrl(lr=0.1, l1=0.0, l2=0.0, lr_power=0.5)
    with pytest.raises(TypeError, match="update_slots"):
        P.SparseApplyAdagrad(lr=0.1, update_slots=1)
    with pytest.raises(ValueError, match="rho"):
        P.SparseApplyRMSProp(1.5, 0.0, 1e-6)


def test_apply_adam_with_amsgrad_matches_reference():
    g = RNG.randn(4, 2)
    var, m, v, vhat = _params(VAR, LIN, ACC, ACC * 0.9)
    f32 = ms.float32
    P.ApplyAdamWithAmsgrad(0.8, 0.7, 1e-3)(var, m, v, vhat, Tensor(0.5, f32), Tensor(0.4, f32),
                                           Tensor(0.1, f32), Tensor(g.astype(np.float32)))
    m_ = 0.8 * LIN + 0.2 * g
    v_ = 0.7 * ACC + 0.3 * g * g
    vh = np.maximum(ACC * 0.9, v_)
    want = VAR - 0.1 * np.sqrt(0.6) / 0.5 * m_ / (np.sqrt(vh) + 1e-3)
    for p, w in zip((var, m, v, vhat), (want, m_, v_, vh)):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=2e-5, atol=1e-6)
    with pytest.raises(TypeError, match="'beta1_power' must be a Tensor"):
        P.ApplyAdamWithAmsgrad()(var, m, v, vhat, 0.5, Tensor(0.4, f32), Tensor(0.1, f32),
                                 Tensor(g.astype(np.float32)))
