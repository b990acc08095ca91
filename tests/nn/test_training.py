"""End to end in PYNATIVE: an MLP trained with TrainOneStepCell learns separable Gaussian blobs."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.common.initializer import initializer


class Net(nn.Cell):
    def __init__(self, hidden=128):
        super().__init__()
        self.w = Parameter(initializer("normal", [784, hidden], ms.float32), name="w")
        self.matmul = ops.MatMul()
        self.relu = ops.ReLU()
        self.fc = nn.Dense(hidden, 10)

    def construct(self, x):
        return self.fc(self.relu(self.matmul(ops.reshape(x, (-1, 784)), self.w)))


def blobs(n, seed):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(123).standard_normal((10, 784)) * 0.15
    labels = rng.integers(0, 10, n)
    x = centers[labels] + rng.standard_normal((n, 784)) * 0.5
    return x.reshape(n, 1, 28, 28).astype(np.float32), labels.astype(np.int32)


@pytest.mark.parametrize("make_opt", [
    lambda p: nn.Momentum(p, learning_rate=0.01, momentum=0.9),
    lambda p: nn.Adam(p, learning_rate=1e-3),
], ids=["momentum", "adam"])
def test_mlp_learns_blobs(make_opt):
    ms.set_seed(0)
    net = Net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = make_opt(net.trainable_params())
    train_step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    train_step.set_train()
    x, y = blobs(1024, 1)
    losses = []
    for _ in range(3):
        for i in range(0, len(x), 32):
            loss = train_step(Tensor(x[i:i + 32]), Tensor(y[i:i + 32]))
            losses.append(float(loss))
    assert np.isfinite(losses).all() and np.mean(losses[-8:]) < 0.5 * losses[0]
    xt, yt = blobs(500, 2)
    net.set_train(False)
    pred = net(Tensor(xt)).asnumpy().argmax(-1)
    assert (pred == yt).mean() > 0.95


def test_with_eval_cell_and_sens():
    ms.set_seed(0)
    net = Net(16)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    x, y = blobs(8, 3)
    loss, logits, label = nn.WithEvalCell(net, loss_fn)(Tensor(x), Tensor(y))
    assert logits.shape == (8, 10) and label is not None and loss.shape == ()
    # With plain SGD, sens=2 doubles every step.
    start = [p.asnumpy().copy() for p in net.get_parameters()]
    deltas = []
    for sens in (1.0, 2.0):
        for p, v in zip(net.get_parameters(), start):
            p.set_data(v)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                   nn.SGD(net.trainable_params(), 0.1), sens=sens)
        step(Tensor(x), Tensor(y))
        deltas.append([p.asnumpy() - v for p, v in zip(net.get_parameters(), start)])
    for d1, d2 in zip(*deltas):
        np.testing.assert_allclose(d2, 2 * d1, rtol=1e-3, atol=1e-7)
    assert np.abs(deltas[0][-1]).max() > 0
