"""Training with device_target='GPU' matches the CPU run: a tiny MLP (Momentum) and a tiny
LeNet-like conv net (Adam), a few steps in PYNATIVE and GRAPH mode, same seed, same data; the
losses and the trained parameters agree within float32 tolerance."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore import device

TOL = dict(rtol=1e-4, atol=1e-5)
STEPS = 3


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(12, 8, activation="relu")
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


class TinyLeNet(nn.Cell):
    """LeNet's layer kinds at toy size: conv 'pad' + ReLU + max-pool, conv 'valid' + ReLU,
    flatten, dense."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1)
        self.conv2 = nn.Conv2d(2, 2, 3, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(2 * 2 * 2, 3)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        return self.fc(self.flatten(self.relu(self.conv2(x))))


NETS = {
    "mlp": (MLP, lambda p: nn.Momentum(p, learning_rate=0.1, momentum=0.9), (4, 12)),
    "lenet": (TinyLeNet, lambda p: nn.Adam(p, learning_rate=0.01), (2, 1, 8, 8)),
}


def train(target, mode, name):
    make_net, make_opt, shape = NETS[name]
    ms.set_context(device_target=target, mode=mode)
    ms.set_seed(0)
    net = make_net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), make_opt(net.trainable_params()))
    step.set_train()
    rng = np.random.default_rng(1)
    losses, history = [], []
    for _ in range(STEPS):
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, 3, shape[0]).astype(np.int32)
        losses.append(step(Tensor(x), Tensor(y)))
        history.append({p.name: p.asnumpy().copy() for p in net.trainable_params()})
    on_device = [device.is_device_array(p._data) for p in net.trainable_params()]
    return [float(v) for v in losses], history, on_device


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(NETS))
def test_training_on_gpu_matches_cpu(name, mode):
    cpu_losses, cpu_history, cpu_where = train("CPU", mode, name)
    gpu_losses, gpu_history, gpu_where = train("GPU", mode, name)
    assert not any(cpu_where) and all(gpu_where)
    assert cpu_losses[-1] != cpu_losses[0]            # the parameters did move
    # Step by step, so a mismatch names the first step and parameter that diverged.
    for k, (cpu, gpu) in enumerate(zip(cpu_history, gpu_history)):
        np.testing.assert_allclose(gpu_losses[k], cpu_losses[k], **TOL,
                                   err_msg=f"loss of step {k}")
        for pname, c in cpu.items():
            np.testing.assert_allclose(gpu[pname], c, **TOL,
                                       err_msg=f"{pname} after step {k}")


def test_switching_device_target_compiles_the_graph_again():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(2, 2)
    x = Tensor(np.ones((1, 2), np.float32))
    on_cpu = net(x).asnumpy()
    ms.set_context(device_target="GPU")
    on_gpu = net(x.move_to("GPU"))
    assert net.compile_cache_info()["compiles"] == 2      # the device is part of the key
    np.testing.assert_allclose(on_gpu.asnumpy(), on_cpu, rtol=1e-6)
