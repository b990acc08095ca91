"""MindSpore 2.x's quick-start code path, written out as a user would (a Dense network on the
MNIST stand-in, `train` with value_and_grad and `test` with the accuracy expression
``(pred.argmax(1) == label).asnumpy().sum()``, which compares an Int64 argmax with Int32
labels): it runs to the end in PYNATIVE and GRAPH mode and learns."""
import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.dataset import MnistDataset, transforms, vision
from minispore.dataset.synth_mnist import synth_mnist


@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quickstart") / "MNIST_Data"
    synth_mnist(str(folder), 512, 128, seed=0)
    return folder


def datapipe(path, batch_size):
    image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,),
                                                                         std=(0.3081,)),
                        vision.HWC2CHW()]
    dataset = MnistDataset(str(path))
    dataset = dataset.map(image_transforms, "image")
    dataset = dataset.map(transforms.TypeCast(ms.int32), "label")
    return dataset.batch(batch_size)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_quick_start_trains_and_tests(mnist, mode):
    ms.set_context(mode=mode)
    ms.set_seed(1)
    model = Network()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), 1e-2)

    def forward_fn(data, label):
        logits = model(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    def train(dataset):
        model.set_train()
        return [float(train_step(data, label).asnumpy()) for data, label in dataset]

    def test(dataset):
        model.set_train(False)
        total, test_loss, correct = 0, 0, 0
        for data, label in dataset.create_tuple_iterator():
            pred = model(data)
            total += len(data)
            test_loss += loss_fn(pred, label).asnumpy()
            correct += (pred.argmax(1) == label).asnumpy().sum()
        return correct / total, test_loss

    train_set = datapipe(mnist / "train", 64)
    test_set = datapipe(mnist / "test", 64)
    before, _ = test(test_set)
    losses = []
    for _ in range(3):
        losses += train(train_set)
    accuracy, test_loss = test(test_set)
    assert np.isfinite(test_loss) and len(losses) == 24
    assert np.mean(losses[-8:]) < np.mean(losses[:8])
    assert accuracy > before + 0.05, (before, accuracy)      # 0.11 -> 0.17 (deterministic)
