"""The tutorial's network (MatMul+ReLU+MatMul+ReLU+MatMul) with configurable strategies, a toy
LeNet, and a training loop that runs a net in (semi-)auto parallel or on a single device for the
equivalence tests.
"""
import numpy as np

import minispore as ms
from minispore import Parameter, nn, ops
from minispore.common.initializer import initializer
from minispore.parallel import comm_stats, reset_comm_stats
from minispore.parallel.param_slicing import gather_parameter


class TutorialNet(nn.Cell):
    """``strategies``: (matmul1, relu1, matmul2, relu2) in_strategies, plus optional
    ``out1``/``out2`` out_strategies for the two MatMuls; None leaves an operator unsharded."""

    def __init__(self, strategies, dims=(784, 512, 512, 10), out1=None, out2=None):
        super().__init__()
        d0, d1, d2, d3 = dims
        self.d0 = d0
        self.fc1_weight = Parameter(initializer("normal", [d0, d1], ms.float32))
        self.fc2_weight = Parameter(initializer("normal", [d1, d2], ms.float32))
        self.fc3_weight = Parameter(initializer("normal", [d2, d3], ms.float32))
        s1, s2, s3, s4 = strategies
        self.matmul1 = ops.MatMul()
        self.relu1 = ops.ReLU()
        self.matmul2 = ops.MatMul()
        self.relu2 = ops.ReLU()
        self.matmul3 = ops.MatMul()
        for op, s, out in ((self.matmul1, s1, out1), (self.relu1, s2, None),
                           (self.matmul2, s3, out2), (self.relu2, s4, None)):
            if s is not None:
                op.shard(s, out)

    def construct(self, x):
        x = ops.reshape(x, (-1, self.d0))
        x = self.matmul1(x, self.fc1_weight)
        x = self.relu1(x)
        x = self.matmul2(x, self.fc2_weight)
        x = self.relu2(x)
        return self.matmul3(x, self.fc3_weight)


class SmallLeNet(nn.Cell):
    """LeNet's layer sequence at toy size: conv 1->4 (3x3) / pool / conv 4->8 (2x2) / pool /
    fc 32-16-10."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.conv2 = nn.Conv2d(4, 8, 2, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(32, 16, activation="relu")
        self.fc2 = nn.Dense(16, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc2(self.fc1(self.flatten(x)))


def batches(steps, batch, dims, seed=0):
    rng = np.random.default_rng(seed)
    side = int(round(dims[0] ** 0.5))
    shape = (1, side, side) if side * side == dims[0] else (dims[0],)
    xs = rng.standard_normal((steps, batch) + shape).astype(np.float32)
    ys = rng.integers(0, dims[3], (steps, batch)).astype(np.int32)
    return xs, ys


def setup_training(make_net, parallel, n=1, lr=0.05, optimizer="sgd", **context):
    """GRAPH mode, the auto-parallel context (semi-auto on `n` devices when `parallel`, unless
    `context` names another parallel_mode), then make_net() after ms.set_seed(1), the mean
    sparse cross-entropy, and SGD, Momentum or Adam: (net, loss_fn, trainable params,
    optimizer)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    if parallel:
        context = {"parallel_mode": ms.ParallelMode.SEMI_AUTO_PARALLEL, **context}
        ms.set_auto_parallel_context(device_num=n, **context)
    ms.set_seed(1)
    net = make_net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    params = net.trainable_params()
    opt = {"momentum": lambda: nn.Momentum(params, lr, 0.9), "adam": lambda: nn.Adam(params, lr),
           "sgd": lambda: nn.SGD(params, lr)}[optimizer]()
    return net, loss_fn, params, opt


def train_cell(make_net, xs, ys, parallel, rank=0, n=1, lr=0.05, optimizer="sgd",
               count_comm=False, set_inputs=None, **context):
    """Train ``make_net()`` (built after ms.set_seed(1)) with a mean sparse cross-entropy on
    batches xs[i], ys[i] (logical). In parallel (semi-auto, `n` ranks) rank `rank` feeds its
    rows of each batch under data_parallel, the whole batch under full_batch. Returns
    (losses per step, gathered parameters, the cell) and, with count_comm, the last step's
    comm_stats(). `set_inputs(net, loss_fn, step)` may declare dynamic placeholders."""
    net, loss_fn, params, opt = setup_training(make_net, parallel, n, lr, optimizer, **context)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    if set_inputs is not None:
        set_inputs(net, loss_fn, step)
    losses, stats = [], None
    for x, y in zip(xs, ys):
        if parallel:
            x, y = (_block(a, i, rank, n, context.get("dataset_strategy", "data_parallel"))
                    for i, a in enumerate((x, y)))
        reset_comm_stats()
        losses.append(float(step(ms.Tensor(x), ms.Tensor(y)).asnumpy()))
        stats = comm_stats()
    weights = [gather_parameter(p) for p in params]
    ms.reset_auto_parallel_context()
    out = (losses, weights, step)
    return out + (stats,) if count_comm else out


def _block(array, index, rank, n, dataset_strategy):
    """What rank `rank` feeds of dataset column `index` (mindspore_semantics.md §2.5)."""
    from minispore.parallel.settings import ParallelSettings
    if dataset_strategy == "full_batch":
        return array
    layout = ParallelSettings(n, rank, dataset_strategy, False, False).input_layout(
        index, array.ndim)
    return np.ascontiguousarray(array[layout.local_slices(array.shape, rank)])


def train(strategies, steps=3, batch=32, dims=(784, 512, 512, 10), parallel=True,
          optimizer="sgd", out1=None, out2=None, rank=0, n=1, count_comm=False, lr=0.05,
          **context):
    """train_cell on the tutorial network: (losses, weights[, stats])."""
    xs, ys = batches(steps, batch, dims)
    out = train_cell(lambda: TutorialNet(strategies if parallel else (None,) * 4, dims, out1,
                                         out2),
                     xs, ys, parallel, rank, n, lr, optimizer, count_comm, **context)
    return out[:2] + out[3:]
