"""Quickstart: train the 784-512-512-10 MLP on a generated 10-class problem, MindSpore style.

Run: make demo   (or .venv/bin/python examples/quickstart/train_mlp.py [--epochs N])
The same script runs under `python -m minispore` with `import mindspore as ms`.
"""
import argparse
import time

import numpy as np

import minispore as ms
from minispore import Tensor, nn, ops

BATCH, FEATURES, CLASSES = 32, 784, 10


class Net(nn.Cell):
    """784-512-512-10 MLP with ReLU."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(FEATURES, 512), nn.ReLU(),
            nn.Dense(512, 512), nn.ReLU(),
            nn.Dense(512, CLASSES))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


def make_data(n, seed):
    """Gaussian clusters, one per class, in 784 dims: learnable in a few hundred steps."""
    centers = np.random.default_rng(0).normal(0.0, 0.15, (CLASSES, FEATURES))
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, n).astype(np.int32)
    images = centers[labels] + rng.normal(0.0, 1.0, (n, FEATURES))
    return images.astype(np.float32), labels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=50, help="steps per epoch")
    args = parser.parse_args()

    ms.set_seed(1)
    net = Net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    train_step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
    train_step.set_train()

    images, labels = make_data(BATCH * args.steps, seed=1)
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        for step in range(1, args.steps + 1):
            rows = slice((step - 1) * BATCH, step * BATCH)
            loss = train_step(Tensor(images[rows]), Tensor(labels[rows]))
            if step % 10 == 0:
                print(f"epoch: {epoch} step: {step}, loss is {loss.asnumpy():.7f}", flush=True)
    seconds = time.perf_counter() - start

    net.set_train(False)
    test_images, test_labels = make_data(1000, seed=2)
    predicted = ops.argmax(net(Tensor(test_images)), -1).asnumpy()
    accuracy = float(np.mean(predicted == test_labels))
    print(f"Accuracy: {accuracy:.4f}  ({args.epochs * args.steps} steps in {seconds:.1f} s, "
          f"first steps include loading or compiling the kernels)")


if __name__ == "__main__":
    main()
