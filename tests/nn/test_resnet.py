"""A ResNet-18-shaped network trained as the MindSpore ResNet tutorial does (BasicBlocks of
Conv2d + BatchNorm2d + ReLU with shortcuts, nn.cosine_decay_lr, Momentum, CIFAR-10 through
Cifar10Dataset and the tutorial's transforms), kept small: narrow widths, two stages, 16x16
images. Loss falls in PYNATIVE and GRAPH alike; with PyTorch installed, forward and backward
equal torch's on the same weights."""
import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds
from minispore import Tensor, nn, ops
from minispore.dataset import transforms, vision


class BasicBlock(nn.Cell):
    expansion = 1

    def __init__(self, in_channel, out_channel, stride=1, down_sample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channel, out_channel, 3, stride=stride, pad_mode="pad",
                               padding=1, weight_init="he_normal")
        self.norm1 = nn.BatchNorm2d(out_channel)
        self.conv2 = nn.Conv2d(out_channel, out_channel, 3, pad_mode="pad", padding=1,
                               weight_init="he_normal")
        self.norm2 = nn.BatchNorm2d(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = down_sample

    def construct(self, x):
        identity = x
        out = self.relu(self.norm1(self.conv1(x)))
        out = self.norm2(self.conv2(out))
        if self.down_sample is not None:
            identity = self.down_sample(x)
        return self.relu(out + identity)


def make_layer(in_channel, channel, blocks, stride=1):
    down_sample = None
    if stride != 1 or in_channel != channel:
        down_sample = nn.SequentialCell([
            nn.Conv2d(in_channel, channel, 1, stride=stride, weight_init="he_normal"),
            nn.BatchNorm2d(channel)])
    layers = [BasicBlock(in_channel, channel, stride, down_sample)]
    layers += [BasicBlock(channel, channel) for _ in range(1, blocks)]
    return nn.SequentialCell(layers)


class ResNet(nn.Cell):
    def __init__(self, widths=(8, 16), blocks=(1, 1), num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, pad_mode="pad", padding=1,
                               weight_init="he_normal")
        self.norm = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU()
        self.layer1 = make_layer(widths[0], widths[0], blocks[0])
        self.layer2 = make_layer(widths[0], widths[1], blocks[1], stride=2)
        self.mean = ops.ReduceMean(keep_dims=False)
        self.fc = nn.Dense(widths[1], num_classes)

    def construct(self, x):
        x = self.relu(self.norm(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(self.mean(x, (2, 3)))


def cifar_batches(directory, batch_size=8, size=16):
    data = ds.Cifar10Dataset(directory, usage="train", shuffle=False)
    trans = [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(prob=0.5),
             vision.Resize((size, size)), vision.Rescale(1.0 / 255.0, 0.0),
             vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]),
             vision.HWC2CHW()]
    data = data.map(trans, "image").map(transforms.TypeCast(ms.int32), "label")
    return data.batch(batch_size, drop_remainder=True)


def _train(mode, epochs):
    """Train on `epochs` (a list of epochs, each a list of (x, y) numpy batches); returns the
    mean loss per epoch and the stem BatchNorm's moving mean."""
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = ResNet()
    steps = len(epochs[0])
    lr = nn.cosine_decay_lr(0.0, 0.05, steps * len(epochs), steps, len(epochs))
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    net.set_train()
    losses = []
    for batches in epochs:
        epoch = []
        for x, y in batches:
            loss, grads = grad_fn(Tensor(x), Tensor(y))
            opt(grads)
            epoch.append(float(loss.asnumpy()))
        losses.append(np.mean(epoch))
    return losses, net.norm.moving_mean.asnumpy()


@pytest.fixture(scope="module")
def cifar_epochs(tmp_path_factory):
    """Four epochs of augmented batches from the pipeline, drawn once: both modes then train
    on the very same numbers."""
    directory = ds.synth_cifar10(str(tmp_path_factory.mktemp("cifar")), num_train=32,
                                 num_test=0, seed=0, num_batches=1)
    from minispore.common.registry import REGISTRY
    saved = REGISTRY.get("dataset", "seed")
    ds.config.set_seed(0)
    try:
        data = cifar_batches(directory)
        return [list(data.create_tuple_iterator(output_numpy=True)) for _ in range(4)]
    finally:
        REGISTRY.store("dataset", {"seed": saved})   # the dataset seed is this fixture's alone


def test_resnet_trains_with_falling_loss_in_pynative_and_graph(cifar_epochs):
    eager, eager_mean = _train(ms.PYNATIVE_MODE, cifar_epochs)
    graph, graph_mean = _train(ms.GRAPH_MODE, cifar_epochs)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert all(b < a for a, b in zip(eager, eager[1:])) and eager[-1] < 0.85 * eager[0], eager
    np.testing.assert_allclose(graph, eager, rtol=1e-4)
    np.testing.assert_allclose(graph_mean, eager_mean, rtol=1e-4, atol=1e-6)


# -- PyTorch parity ------------------------------------------------------------------------------

def _torch_resnet(torch, net):
    """torch's ResNet of the same shape holding `net`'s weights (conv/linear layouts agree)."""
    tnn = torch.nn

    def conv(c, stride=None, padding=None):
        w = c.weight.asnumpy()
        m = tnn.Conv2d(w.shape[1], w.shape[0], w.shape[2], stride=c.stride[0],
                       padding=w.shape[2] // 2, bias=False)
        m.weight.data = torch.tensor(w, dtype=torch.float64)
        return m.double()

    def bn(b):
        m = tnn.BatchNorm2d(b.num_features, eps=b.eps, momentum=1 - b.momentum).double()
        m.weight.data = torch.tensor(b.gamma.asnumpy(), dtype=torch.float64)
        m.bias.data = torch.tensor(b.beta.asnumpy(), dtype=torch.float64)
        return m

    class TBlock(tnn.Module):
        def __init__(self, blk):
            super().__init__()
            self.c1, self.b1 = conv(blk.conv1), bn(blk.norm1)
            self.c2, self.b2 = conv(blk.conv2), bn(blk.norm2)
            self.down = None if blk.down_sample is None else tnn.Sequential(
                conv(blk.down_sample[0]), bn(blk.down_sample[1]))

        def forward(self, x):
            out = torch.relu(self.b1(self.c1(x)))
            out = self.b2(self.c2(out))
            return torch.relu(out + (x if self.down is None else self.down(x)))

    class TNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.c, self.b = conv(net.conv1), bn(net.norm)
            self.blocks = tnn.Sequential(*[TBlock(b) for b in list(net.layer1) +
                                           list(net.layer2)])
            self.fc = tnn.Linear(net.fc.weight.shape[1], net.fc.weight.shape[0]).double()
            self.fc.weight.data = torch.tensor(net.fc.weight.asnumpy(), dtype=torch.float64)
            self.fc.bias.data = torch.tensor(net.fc.bias.asnumpy(), dtype=torch.float64)

        def forward(self, x):
            x = self.blocks(torch.relu(self.b(self.c(x))))
            return self.fc(x.mean((2, 3)))

    return TNet()


def test_resnet_forward_and_backward_equal_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the parity check "
                                                "against torch's ResNet needs it")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(5)
    net = ResNet()
    net.set_train()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, 4).astype(np.int32)
    tnet = _torch_resnet(torch, net)
    tnet.train()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    params = net.trainable_params()
    loss, grads = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, params)(
        Tensor(x), Tensor(y))
    tloss = torch.nn.functional.cross_entropy(tnet(torch.tensor(x, dtype=torch.float64)),
                                              torch.tensor(y, dtype=torch.int64))
    tloss.backward()
    np.testing.assert_allclose(float(loss.asnumpy()), tloss.item(), rtol=1e-4, atol=1e-4)
    # torch's parameters() follow the same construction order as trainable_params()
    tparams = list(tnet.parameters())
    assert len(tparams) == len(params)
    for p, g, tp in zip(params, grads, tparams):
        assert tuple(p.shape) == tuple(tp.shape), p.name
        np.testing.assert_allclose(g.asnumpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=p.name)
    tbn = tnet.b
    np.testing.assert_allclose(net.norm.moving_mean.asnumpy(), tbn.running_mean.numpy(),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.norm.moving_variance.asnumpy(), tbn.running_var.numpy(),
                               rtol=1e-4, atol=1e-5)
