"""Small synthetic classification data and a tiny dataset object for the train tests."""
import numpy as np

import minispore as ms
from minispore import Tensor, nn


def blobs(n=96, seed=0, classes=3, dim=4):
    """Well-separated Gaussian blobs: (x float32 (n, dim), y int32 (n,))."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((classes, dim)).astype(np.float32) * 4
    y = rng.integers(0, classes, n).astype(np.int32)
    x = centers[y] + rng.standard_normal((n, dim)).astype(np.float32) * 0.5
    return x, y


class ArrayDataset:
    """What Model needs from a dataset: get_dataset_size and create_tuple_iterator, where each
    `for` loop over the iterator is one epoch of (data, label) batches."""

    def __init__(self, x, y, batch_size=16):
        self.x, self.y, self.batch_size = x, y, batch_size

    def get_dataset_size(self):
        return len(self.x) // self.batch_size

    def create_tuple_iterator(self, num_epochs=-1, do_copy=True, **kwargs):
        ds = self

        class _Epochs:
            def __iter__(self):
                for i in range(ds.get_dataset_size()):
                    s = slice(i * ds.batch_size, (i + 1) * ds.batch_size)
                    yield [Tensor(ds.x[s]), Tensor(ds.y[s])]
        return _Epochs()


class MLP(nn.Cell):
    def __init__(self, dim=4, classes=3):
        super().__init__()
        self.fc1 = nn.Dense(dim, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, classes)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def make_model(metrics=None, lr=0.1, seed=1):
    ms.set_seed(seed)
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    return net, loss, opt, ms.Model(net, loss, opt, metrics=metrics)
