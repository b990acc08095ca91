"""nn.GroupNorm, nn.AdaptiveAvgPool2d, nn.NLLLoss, nn.SmoothL1Loss, nn.BCEWithLogitsLoss (built
from existing operators): forward vs float64 numpy, gradients vs finite differences, errors,
GRAPH == PYNATIVE."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad, rand


def _bins(size, out):
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_ref(x, oh, ow):
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i, (h0, h1) in enumerate(_bins(x.shape[-2], oh)):
        for j, (w0, w1) in enumerate(_bins(x.shape[-1], ow)):
            out[..., i, j] = x[..., h0:h1, w0:w1].mean((-2, -1))
    return out


@pytest.mark.parametrize("shape,size", [((2, 3, 5, 7), (2, 3)), ((3, 4, 4), 2),
                                        ((1, 2, 6, 5), (None, 3)), ((2, 2, 3, 3), 1)])
def test_adaptive_avg_pool2d(shape, size):
    pool = nn.AdaptiveAvgPool2d(size)
    oh, ow = (size, size) if isinstance(size, int) else size
    oh, ow = oh or shape[-2], ow or shape[-1]
    check_forward(pool, lambda x: _adaptive_ref(x, oh, ow), [rand(*shape, seed=1)])
    check_grad(pool, [rand(*shape, seed=2)])


def _group_norm_ref(x, g, b, groups, eps=1e-5):
    xr = x.reshape(x.shape[0], groups, -1)
    y = ((xr - xr.mean(2, keepdims=True)) / np.sqrt(xr.var(2, keepdims=True) + eps))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return y.reshape(x.shape) * g.reshape(shape) + b.reshape(shape)


def test_group_norm_forward_and_grad():
    gn = nn.GroupNorm(2, 4, dtype=ms.float64)
    gn.gamma.set_data(Tensor(rand(4, seed=3, low=0.5, high=1.5).astype(np.float64)))
    gn.beta.set_data(Tensor(rand(4, seed=4).astype(np.float64)))
    x = rand(2, 4, 3, 2, seed=5).astype(np.float64)
    check_forward(gn, lambda a: _group_norm_ref(a, gn.gamma.asnumpy(), gn.beta.asnumpy(), 2),
                  [x], rtol=1e-10, atol=1e-10)
    check_grad(gn, [x])
    grads = ms.grad(lambda a: (gn(a) * Tensor(x)).sum(), None, gn.trainable_params())(
        Tensor(x))
    y_hat = _group_norm_ref(x, np.ones(4), np.zeros(4), 2)
    np.testing.assert_allclose(grads[0].asnumpy(), (y_hat * x).sum((0, 2, 3)), rtol=1e-8)
    np.testing.assert_allclose(grads[1].asnumpy(), x.sum((0, 2, 3)), rtol=1e-8)


def _softplus(z):
    return np.logaddexp(0, z)


def _bce_ref(x, y, w=1.0, pw=1.0):
    return w * (pw * y * _softplus(-x) + (1 - y) * (x + _softplus(-x)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits(reduction):
    x, y = rand(3, 4, seed=6, low=-30, high=30), rand(3, 4, seed=7, low=0, high=1)
    w, pw = rand(4, seed=8, low=0.5, high=2), rand(4, seed=9, low=0.5, high=3)
    loss = nn.BCEWithLogitsLoss(reduction, Tensor(w), Tensor(pw))
    red = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    check_forward(loss, lambda a, b: red(_bce_ref(a, b, w, pw)), [x, y], rtol=1e-5, atol=1e-5)
    loss64 = nn.BCEWithLogitsLoss(reduction, Tensor(w.astype(np.float64)),
                                  Tensor(pw.astype(np.float64)))
    check_grad(loss64, [rand(3, 4, seed=10, low=-3, high=3), y], positions=(0,))


@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_smooth_l1(beta):
    x, y = rand(4, 5, seed=11, low=-2, high=2), rand(4, 5, seed=12, low=-2, high=2)
    loss = nn.SmoothL1Loss(beta)        # MindSpore's default reduction is 'none'

    def ref(a, b):
        d = np.abs(a - b)
        return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    check_forward(loss, ref, [x, y])
    check_grad(nn.SmoothL1Loss(beta, "mean"), [x, y])
    assert nn.SmoothL1Loss(beta, "sum")(Tensor(x), Tensor(y)).shape == ()


@pytest.mark.parametrize("shape", [(5, 4), (3, 4, 2)])
def test_nll_loss_weight_and_ignore_index(shape):
    rng = np.random.default_rng(13)
    logp = np.log(rng.dirichlet(np.ones(4), size=int(np.prod(shape)) // 4)).astype(np.float32)
    logp = logp.reshape((shape[0],) + shape[2:] + (4,))
    logp = np.moveaxis(logp, -1, 1).copy()
    labels = rng.integers(0, 4, (shape[0],) + shape[2:]).astype(np.int32)
    labels.reshape(-1)[1] = -100
    w = rand(4, seed=14, low=0.5, high=2)

    def ref(x, reduction):
        picked = np.take_along_axis(x, np.maximum(labels, 0)[:, None], 1)[:, 0]
        keep = labels != -100
        wt = w[np.maximum(labels, 0)] * keep
        loss = -picked * wt
        return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / wt.sum()}[reduction]

    for reduction in ("none", "sum", "mean"):
        loss = nn.NLLLoss(Tensor(w), reduction=reduction)
        check_forward(lambda x: loss(x, Tensor(labels)), lambda x: ref(x, reduction), [logp],
                      rtol=1e-5, atol=1e-6)
    loss64 = nn.NLLLoss(Tensor(w.astype(np.float64)))
    check_grad(lambda x: loss64(x, Tensor(labels)), [logp])


def test_losses_and_layers_graph_equals_pynative():
    x = Tensor(rand(2, 4, 5, 5, seed=15))
    gn, pool = nn.GroupNorm(2, 4), nn.AdaptiveAvgPool2d((2, 2))
    bce, nll = nn.BCEWithLogitsLoss(), nn.NLLLoss()
    sl1 = nn.SmoothL1Loss(reduction="mean")
    target = Tensor(rand(2, 4, 2, 2, seed=16, low=0, high=1))
    labels = Tensor(np.array([1, 3], np.int32))

    def f(x):
        y = pool(gn(x))
        logp = ms.ops.log_softmax(y.reshape((2, 16))[:, :4], 1)
        return bce(y, target) + sl1(y, target) + nll(logp, labels)

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.value_and_grad(f, 0, gn.trainable_params())(x)
    graph = ms.jit(ms.value_and_grad(f, 0, gn.trainable_params()))(x)
    np.testing.assert_allclose(graph[0].asnumpy(), eager[0].asnumpy(), rtol=1e-6)
    for a, b in zip((graph[1][0],) + tuple(graph[1][1]), (eager[1][0],) + tuple(eager[1][1])):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("make,exc,match", [
    (lambda: nn.GroupNorm(3, 4), ValueError, r"'num_channels' must be divided by 'num_groups'"),
    (lambda: nn.GroupNorm(0, 4), ValueError, r"For 'GroupNorm', 'num_groups' must be positive"),
    (lambda: nn.GroupNorm(2, 4, eps=0), ValueError, r"'eps' must be a positive float"),
    (lambda: nn.GroupNorm(2, 4)(Tensor(rand(2, 3, 2))), ValueError, r"must be \(N, 4, \.\.\.\)"),
    (lambda: nn.AdaptiveAvgPool2d(0), ValueError, r"'output_size' must be a positive int"),
    (lambda: nn.AdaptiveAvgPool2d(2)(Tensor(rand(4, 4))), ValueError, r"3-D \(C, H, W\)"),
    (lambda: nn.SmoothL1Loss(0.0), ValueError, r"'beta' must be greater than 0"),
    (lambda: nn.SmoothL1Loss(1), TypeError, r"'beta' must be a float"),
    (lambda: nn.SmoothL1Loss()(Tensor(rand(2)), Tensor(rand(3))), ValueError,
     r"For 'SmoothL1Loss', 'labels' must have the shape \(2,\)"),
    (lambda: nn.BCEWithLogitsLoss(weight=[1.0]), TypeError, r"'weight' must be a Tensor"),
    (lambda: nn.BCEWithLogitsLoss(reduction="avg"), ValueError, r"'reduction' must be one of"),
    (lambda: nn.NLLLoss()(Tensor(rand(2, 3)), Tensor(np.array([0, 5], np.int32))), ValueError,
     r"NLLLoss"),
    (lambda: nn.NLLLoss()(Tensor(rand(2, 3)), Tensor(np.array([0], np.int32))), ValueError,
     r"'labels' must be integer class indices of shape \(2,\)"),
])
def test_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


# MindSpore 2.7.2's P.NLLLoss on these inputs: loss per reduction, and the total weight 0.75
# (0.55 with ignore_index=0 under 'mean', loss 2.2862728)
NLL_X = np.array([[-1.3739, -2.2700, -3.2333, -2.4589, -0.6566],
                  [-1.2156, -2.6026, -1.2200, -1.8731, -1.7119],
                  [-0.7130, -3.3672, -1.5368, -1.8289, -2.3058]], np.float32)
NLL_T = np.array([1, 0, 4], np.int32)
NLL_W = np.array([0.2, 0.3, 0.1, 0.15, 0.25], np.float32)


@pytest.mark.parametrize("reduction, loss, total, ignore", [
    ("none", [0.681, 0.24312, 0.57645], 0.75, -100), ("sum", 1.50057, 0.75, -100),
    ("mean", 2.00076, 0.75, -100), ("mean", 2.2862728, 0.55, 0),
])
def test_nll_loss_primitive_gives_mindspores_loss_and_total_weight(reduction, loss, total,
                                                                   ignore):
    out, weight = ops.NLLLoss(reduction, ignore)(Tensor(NLL_X), Tensor(NLL_T), Tensor(NLL_W))
    np.testing.assert_allclose(out.asnumpy(), loss, rtol=1e-5)
    np.testing.assert_allclose(weight.asnumpy(), total, rtol=1e-6)


@pytest.mark.parametrize("call, exc", [
    (lambda: ops.NLLLoss("bad"), ValueError),
    (lambda: ops.NLLLoss()(Tensor(NLL_X), Tensor(NLL_T.astype(np.float32)), Tensor(NLL_W)),
     TypeError),
    (lambda: ops.NLLLoss()(Tensor(NLL_X[0]), Tensor(NLL_T[:1]), Tensor(NLL_W)), RuntimeError),
])
def test_nll_loss_primitive_errors_are_mindspores_types(call, exc):
    with pytest.raises(exc, match="NLLLoss"):
        call()
