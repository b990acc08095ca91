"""Train the tutorial LeNet in minispore and in PyTorch from the same weights on the same batches.

    .venv/bin/python examples/lenet/compare_torch.py --epochs 12 --train_size 1920

Both start from the minispore LeNet's TruncatedNormal(0.02) draw, see the same batches (the
tutorial pipeline's output, reshuffled per epoch by one numpy generator), and use the same
loss and Momentum(0.01, 0.9) (PyTorch's SGD momentum has the same update when dampening is 0).
Prints both mean losses per epoch, both test accuracies, the largest weight difference and
each framework's training time (its steps only; torch on one thread, minispore with its
defaults).
PyTorch is not a minispore dependency; install it to run this.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as tF

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train as lenet  # noqa: E402
import minispore as ms  # noqa: E402
from minispore import Tensor, nn  # noqa: E402
from minispore.dataset.synth_mnist import synth_mnist  # noqa: E402


class TorchLeNet(torch.nn.Module):
    """The tutorial LeNet with PyTorch layers and the same parameter names."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5, bias=False)
        self.conv2 = torch.nn.Conv2d(6, 16, 5, bias=False)
        self.fc1 = torch.nn.Linear(400, 120)
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        x = tF.max_pool2d(tF.relu(self.conv1(x)), 2, 2)
        x = tF.max_pool2d(tF.relu(self.conv2(x)), 2, 2).flatten(1)
        return self.fc3(tF.relu(self.fc2(tF.relu(self.fc1(x)))))


def arrays(folder):
    """All batches of the tutorial pipeline on `folder`, concatenated to numpy arrays."""
    xs, ys = [], []
    for x, y in lenet.create_dataset(folder).create_tuple_iterator(output_numpy=True):
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--train_size", type=int, default=1920)
    p.add_argument("--test_size", type=int, default=640)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    ms.set_seed(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        synth_mnist(tmp, args.train_size, args.test_size, seed=args.seed)
        x, y = arrays(os.path.join(tmp, "train"))
        x_test, y_test = arrays(os.path.join(tmp, "test"))

    net = lenet.LeNet()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, lenet.get_loss()), lenet.get_optimizer(net))
    step.set_train()
    tnet = TorchLeNet()
    tparams = dict(tnet.named_parameters())
    with torch.no_grad():
        for param in net.trainable_params():
            tparams[param.name].copy_(torch.from_numpy(param.asnumpy()))
    topt = torch.optim.SGD(tnet.parameters(), lr=0.01, momentum=0.9)

    order = np.random.default_rng(args.seed)
    batches = len(x) // 32
    start = time.perf_counter()
    ms_seconds = torch_seconds = 0.0
    for epoch in range(1, args.epochs + 1):
        perm = order.permutation(len(x))
        ms_losses, torch_losses = [], []
        for b in range(batches):
            idx = perm[b * 32:(b + 1) * 32]
            t0 = time.perf_counter()
            ms_losses.append(float(step(Tensor(x[idx]), Tensor(y[idx])).asnumpy()))
            t1 = time.perf_counter()
            topt.zero_grad()
            loss = tF.cross_entropy(tnet(torch.from_numpy(x[idx])), torch.from_numpy(y[idx]).long())
            loss.backward()
            topt.step()
            torch_losses.append(loss.item())
            ms_seconds += t1 - t0
            torch_seconds += time.perf_counter() - t1
        print(f"epoch {epoch:3d} (step {epoch * batches:5d})  mean loss: minispore "
              f"{np.mean(ms_losses):.4f}  torch {np.mean(torch_losses):.4f}", flush=True)
    seconds = time.perf_counter() - start

    net.set_train(False)
    ms_acc = np.mean(net(Tensor(x_test)).asnumpy().argmax(1) == y_test)
    with torch.no_grad():
        torch_acc = np.mean(tnet(torch.from_numpy(x_test)).numpy().argmax(1) == y_test)
    diff = max(np.abs(p.asnumpy() - tparams[p.name].detach().numpy()).max()
               for p in net.trainable_params())
    print(f"test accuracy: minispore {ms_acc:.4f}  torch {torch_acc:.4f}; largest weight "
          f"difference {diff:.2e}; {args.epochs * batches} steps each in {seconds:.1f} s")
    print(f"training time: minispore {ms_seconds:.2f} s  torch {torch_seconds:.2f} s  "
          f"(minispore / torch {ms_seconds / torch_seconds:.2f})")


if __name__ == "__main__":
    main()
