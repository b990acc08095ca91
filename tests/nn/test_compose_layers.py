"""Activation cells, basic cells and losses composed of existing primitives
(nn/layer/activation_compose.py, basic_compose.py, nn/loss/loss_compose.py): float64
references, finite-difference gradients and MindSpore's argument errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad

X = np.array([[-3.5, -2.5, -1.5, -0.6, 0.3, 0.55], [1.5, 2.5, 2.0, -25.0, 30.0, 0.7]])
Y = np.array([[2.0, -1.5, 0.7, -0.3, 1.0, -2.0], [0.4, -0.6, 3.0, 0.5, 2.0, -7.0]])
P = 1 / (1 + np.exp(-X / 4))        # probabilities
Q = 1 / (1 + np.exp(-Y))


def _softplus(x):
    return np.logaddexp(0, x)


@pytest.mark.parametrize("cell,ref", [
    (nn.ELU(0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    (nn.CELU(2.0), lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0))),
    (nn.SeLU(), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    (nn.LeakyReLU(), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.Mish(), lambda x: x * np.tanh(_softplus(x))),
    (nn.HSwish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.HSigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.Hardtanh(-2.0, 1.0), lambda x: np.clip(x, -2, 1)),
    (nn.LogSigmoid(), lambda x: -_softplus(-x)),
    (nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (nn.SoftShrink(0.5), lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    (nn.HShrink(0.5), lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    (nn.Threshold(0.1, 20.0), lambda x: np.where(x > 0.1, x, 20.0)),
    (nn.Softmin(0), lambda x: np.exp(-x) / np.exp(-x).sum(0)),
    (nn.GLU(1), lambda x: x[:, :3] / (1 + np.exp(-x[:, 3:]))),
    (nn.FastGelu(), lambda x: x / (1 + np.exp(-1.702 * x))),
])
def test_activation(cell, ref):
    check_forward(cell, ref, [X], rtol=1e-6, atol=1e-9)
    check_grad(cell, [X], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("loss,ref,arrays", [
    (nn.MAELoss(), lambda a, b: np.abs(a - b).mean(), [X, Y]),
    (nn.RMSELoss(), lambda a, b: np.sqrt(((a - b) ** 2).mean()), [X, Y]),
    (nn.HuberLoss("sum", 1.5), lambda a, b: np.where(np.abs(a - b) < 1.5, 0.5 * (a - b) ** 2,
                                                     1.5 * (np.abs(a - b) - 0.75)).sum(), [X, Y]),
    (nn.BCELoss(), lambda p, q: -(q * np.log(p) + (1 - q) * np.log(1 - p)).mean(), [P, Q]),
    (nn.KLDivLoss("sum"), lambda a, q: (q * (np.log(q) - a)).sum(), [X, Q]),
    (nn.MultiLabelSoftMarginLoss(),
     lambda a, q: (q * _softplus(-a) + (1 - q) * _softplus(a)).mean(), [X, Q]),
    (nn.GaussianNLLLoss(full=True),
     lambda a, b, v: (0.5 * (np.log(v) + (a - b) ** 2 / v) + 0.5 * np.log(2 * np.pi)).mean(),
     [X, Y, Q]),
    (nn.PoissonNLLLoss(), lambda a, b: (np.exp(a) - b * a).mean(), [X / 10, Y]),
    (nn.DiceLoss(), lambda p, q: 1 - 2 * (p * q).sum() / ((p * p).sum() + (q * q).sum() + 1e-5),
     [P, Q]),
])
def test_loss(loss, ref, arrays):
    check_forward(loss, ref, arrays, rtol=1e-6, atol=1e-9)
    check_grad(loss, arrays, positions=[0], rtol=1e-4, atol=1e-6)


def test_losses_with_targets():
    sign = np.sign(Y)
    check_forward(lambda a, b: nn.MarginRankingLoss(0.5)(a, b, Tensor(sign)),
                  lambda a, b: np.maximum(0, -sign * (a - b) + 0.5).mean(), [X, Y])
    check_forward(lambda a: nn.HingeEmbeddingLoss(1.0, "none")(a, Tensor(sign)),
                  lambda a: np.where(sign == -1, np.maximum(0, 1 - a), a), [X])
    cos = (X * Y).sum(1) / np.linalg.norm(X, axis=1) / np.linalg.norm(Y, axis=1)
    check_forward(lambda a, b: nn.CosineEmbeddingLoss(0.2)(a, b, Tensor(np.int32([1, -1]))),
                  lambda a, b: np.mean([1 - cos[0], max(0, cos[1] - 0.2)]), [X, Y])


def test_basic_cells():
    x = np.arange(24.0).reshape(1, 6, 2, 2)
    want = x.reshape(1, 3, 2, 2, 2).transpose(0, 2, 1, 3, 4).reshape(1, 6, 2, 2)
    assert nn.ChannelShuffle(3)(Tensor(x)).asnumpy().tolist() == want.tolist()
    assert nn.PixelUnshuffle(2)(Tensor(np.zeros((1, 2, 4, 6)))).shape == (1, 8, 2, 3)
    dy, dx = nn.ImageGradients()(Tensor(x[:, :2]))
    assert dy.asnumpy()[0, 0].tolist() == [[2.0, 2.0], [0.0, 0.0]]
    assert dx.asnumpy()[0, 0].tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert nn.ZeroPad2d((1, 0, 0, 2))(Tensor(np.ones((2, 2)))).shape == (4, 3)
    mean, var = nn.Moments(1)(Tensor(X))
    np.testing.assert_allclose(var.asnumpy(), X.var(1))
    assert nn.Identity()(Tensor(X)).asnumpy().tolist() == X.tolist()
    lin = nn.Linear(6, 2)
    assert lin(Tensor(X.astype(np.float32))).shape == (2, 2)
    drop = nn.Dropout2d(0.5)
    drop.set_train(True)
    out = drop(Tensor(np.ones((2, 8, 3, 3), np.float32))).asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and (out == out[:, :, :1, :1]).all()


def test_errors():
    with pytest.raises(TypeError, match="'alpha' must be a float"):
        nn.ELU("1")
    with pytest.raises(ValueError, match="'alpha' must not be 0"):
        nn.CELU(0.0)
    with pytest.raises(ValueError, match="'min_val'"):
        nn.Hardtanh(1.0, -1.0)
    with pytest.raises(ValueError, match="'reduction' must be one of"):
        nn.MAELoss("avg")
    with pytest.raises(ValueError, match="'delta' must be > 0"):
        nn.HuberLoss(delta=0.0)


def _log_softmax(a, axis):
    return a - np.log(np.exp(a).sum(axis, keepdims=True))


def test_nll_cross_entropy_focal():
    lg = X[:, :3].copy()
    t = np.int32([2, -100])
    w = np.array([0.5, 2.0, 1.0])
    check_forward(lambda a: ops.nll_loss(a, Tensor(t), Tensor(w)),
                  lambda a: -a[0, 2] * w[2] / w[2], [lg])
    check_grad(lambda a: ops.cross_entropy(a, Tensor(t), Tensor(w), label_smoothing=0.1), [lg])
    prob = np.exp(_log_softmax(Y[:, :3], 1))
    check_forward(lambda a, p: ops.cross_entropy(a, p),
                  lambda a, p: -(p * _log_softmax(a, 1)).sum(1).mean(), [lg, prob])
    logp = _log_softmax(lg, 1)
    check_forward(lambda a, p: nn.FocalLoss(gamma=2.0)(a, p),
                  lambda a, p: (-(1 - np.exp(logp)) ** 2 * p * logp).mean(), [lg, prob])
    check_grad(lambda a, p: nn.FocalLoss(gamma=2.0)(a, p), [lg, prob], positions=[0])
    with pytest.raises(ValueError, match="label"):
        ops.nll_loss(Tensor(lg), Tensor(np.int32([3, 0])))


def test_kl_div_negative_labels_contribute_zero():
    """MindSpore 2.7.2's KLDivLoss (P.KLDivLoss, ops.kl_div): a label <= 0 contributes 0, not
    NaN; recorded: none [[0, 0.35667494], [0.6931472, 0]], mean 0.26245552, sum 1.0498221,
    batchmean 0.52491105. The gradient w.r.t. the logits is -label where label > 0."""
    from minispore.ops.operations import KLDivLoss
    pred = Tensor(np.log(np.array([[0.3, 0.7], [0.5, 0.5]])).astype(np.float32))
    tgt = Tensor(np.array([[-1, 1], [1, -1]], np.float32))
    np.testing.assert_allclose(KLDivLoss("none")(pred, tgt).asnumpy(),
                               [[0, 0.35667494], [0.6931472, 0]], rtol=1e-6)
    for reduction, want in (("mean", 0.26245552), ("sum", 1.0498221), ("batchmean", 0.52491105)):
        np.testing.assert_allclose(KLDivLoss(reduction)(pred, tgt).asnumpy(), want, rtol=1e-6)
    grad = ms.grad(lambda p: ops.kl_div(p, tgt, "sum"))(pred)
    np.testing.assert_array_equal(grad.asnumpy(), [[0, -1], [-1, 0]])
