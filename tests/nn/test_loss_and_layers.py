"""Losses vs numpy, layer shapes and default initialisation, and layer argument errors."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn


def logsumexp(x):
    m = x.max(-1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(-1, keepdims=True)))[:, 0]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((6, 5)).astype(np.float32), rng.integers(0, 5, 6).astype(np.int32)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_softmax_cross_entropy_sparse_and_dense(data, reduction):
    x, y = data
    ref = logsumexp(x.astype(np.float64)) - x[np.arange(6), y]
    ref = {"none": ref, "mean": ref.mean(), "sum": ref.sum()}[reduction]
    got = nn.SoftmaxCrossEntropyWithLogits(True, reduction)(Tensor(x), Tensor(y))
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    onehot = np.eye(5, dtype=np.float32)[y]
    got = nn.SoftmaxCrossEntropyWithLogits(False, reduction)(Tensor(x), Tensor(onehot))
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_softmax_cross_entropy_errors(data):
    x, y = data
    with pytest.raises(TypeError, match="int32 or int64"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(x), Tensor(y.astype(np.float32)))
    with pytest.raises(TypeError, match="must equal the dtype of 'logits'"):
        nn.SoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(y))
    with pytest.raises(TypeError, match="float16 or float32"):
        nn.SoftmaxCrossEntropyWithLogits(True)(Tensor(x.astype(np.float64)), Tensor(y))
    with pytest.raises(ValueError, match="'reduction' must be one of"):
        nn.SoftmaxCrossEntropyWithLogits(reduction="avg")


def test_softmax_cross_entropy_gradient(data):
    x, y = data
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    g = ms.grad(lambda t: loss(t, Tensor(y)))(Tensor(x)).asnumpy()
    p = np.exp(x - x.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(g, (p - np.eye(5)[y]) / 6, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_loss_indices_weight_ignore(data, smoothing):
    x, y = data
    y = y.copy()
    y[2] = -100
    w = np.linspace(0.5, 1.5, 5).astype(np.float32)
    loss = nn.CrossEntropyLoss(weight=Tensor(w), label_smoothing=smoothing)
    got = float(loss(Tensor(x), Tensor(y)))
    logp = x.astype(np.float64) - logsumexp(x.astype(np.float64))[:, None]
    keep = y != -100
    t = np.eye(5)[np.where(keep, y, 0)] * (1 - smoothing) + smoothing / 5
    per = -(t * logp * w).sum(-1) * keep
    ref = per.sum() / (w[np.where(keep, y, 0)] * keep).sum()
    assert got == pytest.approx(ref, rel=1e-5)


def test_mse_and_l1(data):
    x, _ = data
    y = np.ones_like(x)
    assert float(nn.MSELoss()(Tensor(x), Tensor(y))) == pytest.approx(((x - 1.0) ** 2).mean(),
                                                                      rel=1e-5)
    np.testing.assert_allclose(nn.L1Loss("none")(Tensor(x), Tensor(y)).asnumpy(), abs(x - 1),
                               rtol=1e-6)
    assert float(nn.L1Loss("sum")(Tensor(x), Tensor(y))) == pytest.approx(abs(x - 1).sum(),
                                                                         rel=1e-5)


def test_dense_shapes_init_and_forward():
    ms.set_seed(1)
    d = nn.Dense(400, 300)
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    assert w.shape == (300, 400) and b.shape == (300,)
    bound = 1 / math.sqrt(400)  # HeUniform(sqrt(5)) on fan_in 400 gives the same bound
    assert abs(w).max() <= bound and abs(w).max() > 0.95 * bound
    assert abs(b).max() <= bound
    x = np.random.default_rng(0).standard_normal((7, 400)).astype(np.float32)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), x @ w.T + b, rtol=1e-4, atol=1e-5)
    relu = nn.Dense(400, 300, activation="relu")
    out = relu(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, np.maximum(x @ relu.weight.asnumpy().T
                                               + relu.bias.asnumpy(), 0), rtol=1e-4, atol=1e-5)
    assert d(Tensor(x.reshape(7, 1, 400))).shape == (7, 1, 300)


def test_dense_errors():
    with pytest.raises(ValueError, match="is not equal to 'shape'"):
        nn.Dense(3, 2, weight_init=Tensor(np.zeros((3, 2), np.float32)))
    with pytest.raises(ValueError, match="'in_channels' must be positive"):
        nn.Dense(0, 2)
    with pytest.raises(KeyError, match="not supported"):
        nn.Dense(3, 2, activation="swishy")


def test_conv_pool_flatten_shapes():
    x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 32, 32)).astype(np.float32))
    conv = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
    assert conv.weight.shape == (6, 1, 5, 5)
    y = conv(x)
    assert y.shape == (2, 6, 28, 28)
    assert nn.Conv2d(1, 4, 3)(x).shape == (2, 4, 32, 32)
    assert nn.MaxPool2d(2, 2)(y).shape == (2, 6, 14, 14)
    assert nn.AvgPool2d(2, 2)(y).shape == (2, 6, 14, 14)
    assert nn.Flatten()(y).shape == (2, 6 * 28 * 28)
    with pytest.raises(ValueError, match="'padding' must be 0"):
        nn.Conv2d(1, 2, 3, pad_mode="valid", padding=1)
    with pytest.raises(ValueError, match="'pad_mode' must be one of"):
        nn.Conv2d(1, 2, 3, pad_mode="full")


def test_activations_layernorm_embedding():
    x = np.linspace(-3, 3, 12).reshape(3, 4).astype(np.float32)
    np.testing.assert_allclose(nn.ReLU()(Tensor(x)).asnumpy(), np.maximum(x, 0))
    np.testing.assert_allclose(nn.Sigmoid()(Tensor(x)).asnumpy(), 1 / (1 + np.exp(-x)),
                               rtol=1e-5)
    np.testing.assert_allclose(nn.Tanh()(Tensor(x)).asnumpy(), np.tanh(x), rtol=1e-5,
                               atol=1e-6)
    gelu_tanh = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(nn.GELU()(Tensor(x)).asnumpy(), gelu_tanh, rtol=1e-5, atol=1e-6)
    sm = np.exp(x) / np.exp(x).sum(-1, keepdims=True)
    np.testing.assert_allclose(nn.Softmax()(Tensor(x)).asnumpy(), sm, rtol=1e-5)
    ln = nn.LayerNorm((4,))
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)
    np.testing.assert_allclose(ln(Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    emb = nn.Embedding(10, 3, padding_idx=0)
    ids = Tensor(np.array([[0, 3], [9, 3]], np.int32))
    out = emb(ids).asnumpy()
    assert out.shape == (2, 2, 3) and not out[0, 0].any()
    np.testing.assert_array_equal(out[1, 1], emb.embedding_table.asnumpy()[3])
