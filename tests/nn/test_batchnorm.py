"""nn.BatchNorm1d / BatchNorm2d: train/eval, moving statistics (MindSpore's momentum),
use_batch_statistics, parameter names, errors, and PYNATIVE == GRAPH over training steps."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn


@pytest.fixture(autouse=True)
def _pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _x(*shape, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 2 + 1).astype(np.float32)


def test_batchnorm2d_training_normalises_and_updates_moving_stats():
    bn = nn.BatchNorm2d(3)
    bn.set_train()
    x = _x(4, 3, 2, 2)
    y = bn(Tensor(x)).asnumpy()
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean((0, 2, 3), keepdims=True)) / np.sqrt(
        x64.var((0, 2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
    # momentum 0.9: moving = 0.9 * moving + 0.1 * batch (unbiased variance)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x64.mean((0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(),
                               0.9 + 0.1 * x64.var((0, 2, 3), ddof=1), rtol=1e-5)


def test_batchnorm_eval_uses_moving_stats_and_keeps_them():
    bn = nn.BatchNorm1d(3, moving_mean_init="ones", moving_var_init=Tensor(
        np.array([4.0, 1.0, 0.25], np.float32)))
    bn.set_train(False)
    x = _x(5, 3)
    y = bn(Tensor(x)).asnumpy()
    ref = (x - 1) / np.sqrt(np.array([4.0, 1.0, 0.25]) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), np.ones(3, np.float32))


def test_use_batch_statistics_overrides_the_mode():
    x = _x(6, 2, 3)
    always = nn.BatchNorm1d(2, use_batch_statistics=True)
    always.set_train(False)
    y = always(Tensor(x)).asnumpy()
    assert abs(y.mean()) < 1e-5 and not np.allclose(always.moving_mean.asnumpy(), 0)
    never = nn.BatchNorm1d(2, use_batch_statistics=False)
    never.set_train(True)
    np.testing.assert_allclose(never(Tensor(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(never.moving_mean.asnumpy(), np.zeros(2, np.float32))


def test_batchnorm_parameter_names_and_trainability():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn1 = nn.BatchNorm2d(2, affine=False)

    net = Net()
    names = {p.name: p.requires_grad for p in net.get_parameters()}
    assert names == {"bn1.gamma": False, "bn1.beta": False, "bn1.moving_mean": False,
                     "bn1.moving_variance": False}
    assert nn.BatchNorm2d(2).trainable_params()[0].name == "gamma"


def test_batchnorm_errors():
    with pytest.raises(ValueError, match=r"For 'BatchNorm2d', the input must be a 4-D tensor, "
                                         r"but got shape \(2, 3\)"):
        nn.BatchNorm2d(3)(Tensor(_x(2, 3)))
    with pytest.raises(ValueError, match=r"For 'BatchNorm1d', the input must be a 2-D or 3-D"):
        nn.BatchNorm1d(3)(Tensor(_x(2, 3, 1, 1)))
    with pytest.raises(ValueError, match=r"For 'BatchNorm'.*'scale' must have shape \(4,\)"):
        nn.BatchNorm2d(3)(Tensor(_x(2, 4, 2, 2)))
    with pytest.raises(ValueError, match=r"For 'BatchNorm2d', 'momentum' must be in range"):
        nn.BatchNorm2d(3, momentum=1.5)
    with pytest.raises(TypeError, match=r"For 'BatchNorm2d', 'num_features' must be an int"):
        nn.BatchNorm2d(3.0)
    with pytest.raises(ValueError, match=r"For 'BatchNorm1d', 'num_features' must be positive"):
        nn.BatchNorm1d(0)
    with pytest.raises(TypeError, match=r"'use_batch_statistics' must be a bool or None"):
        nn.BatchNorm2d(3, use_batch_statistics="yes")
    with pytest.raises(NotImplementedError, match=r"For 'BatchNorm2d', data_format 'NHWC'"):
        nn.BatchNorm2d(3, data_format="NHWC")


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, weight_init="normal")
        self.bn = nn.BatchNorm2d(3)
        self.relu = nn.ReLU()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(3 * 4 * 4, 2, weight_init="normal")

    def construct(self, x):
        return self.fc(self.flat(self.relu(self.bn(self.conv(x)))))


def _train(mode, steps=3):
    ms.set_context(mode=mode)
    ms.set_seed(1)
    net = _Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    x, y = Tensor(_x(4, 2, 4, 4, seed=2)), Tensor(np.array([0, 1, 1, 0], np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return losses, net.bn.moving_mean.asnumpy(), net.bn.moving_variance.asnumpy()


def test_graph_mode_updates_moving_stats_every_step_like_pynative():
    eager = _train(ms.PYNATIVE_MODE)
    graph = _train(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph[0], eager[0], rtol=1e-5)
    np.testing.assert_allclose(graph[1], eager[1], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(graph[2], eager[2], rtol=1e-5)
    # three updates from zeros: not a single step's 0.1 * batch mean
    assert np.abs(eager[1]).max() > 0 and eager[0][-1] < eager[0][0]


def test_graph_mode_eval_uses_the_moving_stats_it_trained():
    ms.set_context(mode=ms.GRAPH_MODE)
    bn = nn.BatchNorm2d(2)
    x = Tensor(_x(3, 2, 2, 2, seed=4))
    bn.set_train(True)
    bn(x)
    bn(x)
    mean, var = bn.moving_mean.asnumpy().copy(), bn.moving_variance.asnumpy().copy()
    bn.set_train(False)
    y = bn(x).asnumpy()
    ref = (x.asnumpy() - mean.reshape(1, 2, 1, 1)) / np.sqrt(var.reshape(1, 2, 1, 1) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), mean)


def test_batchnorm3d_normalises_over_n_d_h_w_and_names_parameters_as_mindspore():
    import minispore as ms
    from minispore import nn
    x = np.random.default_rng(0).standard_normal((2, 3, 2, 3, 4))
    bn = nn.BatchNorm3d(3)
    assert [p.name for p in bn.get_parameters()] == [
        "bn2d.gamma", "bn2d.beta", "bn2d.moving_mean", "bn2d.moving_variance"]
    bn.set_train(True)
    got = bn(ms.Tensor(x.astype(np.float32))).asnumpy()
    mean = x.mean(axis=(0, 2, 3, 4), keepdims=True)
    var = x.var(axis=(0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    n = x.size // 3
    np.testing.assert_allclose(bn.bn2d.moving_variance.asnumpy(),
                               0.9 + 0.1 * var.ravel() * n / (n - 1), rtol=1e-5)
    bn.set_train(False)
    assert bn(ms.Tensor(x.astype(np.float32))).shape == x.shape
