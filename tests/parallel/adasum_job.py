"""The AdaSum job test_adasum.py launches: ``python -m minispore.run -n N -m
tests.parallel.adasum_job OUT [CASE ...]`` (N >= 16, a power of 2; default every case). Each
rank trains the two-layer net of each case of CASES and writes its weights after STEPS steps
and the collectives of the last step to OUT/<case>_rank<r>.npz.
"""
import sys

import numpy as np

import minispore as ms
from minispore import Tensor, nn
from minispore.communication import get_group_size, get_rank, init
from minispore.parallel import comm_stats, reset_comm_stats

STEPS, LR, MOMENTUM = 2, 0.3, 0.9
BATCH_PER_RANK = 2
RNG = np.random.default_rng(11)
HIDDEN = 4      # halves evenly down to ones over 4 servers (adasum._uneven_step)
W1 = RNG.standard_normal((HIDDEN, 6)).astype(np.float32)
W2 = RNG.standard_normal((1, HIDDEN)).astype(np.float32)
# one batch per step, split over the ranks in order
DATA_SEED = 12

# case: (parallel_mode, wrap cell, optimizer, gradients_mean)
CASES = {
    "semi_grad_sgd": ("semi_auto_parallel", "AdaSumByGradWrapCell", "sgd", False),
    "semi_delta_momentum": ("semi_auto_parallel", "AdaSumByDeltaWeightWrapCell", "momentum",
                            False),
    "dp_grad_momentum": ("data_parallel", "AdaSumByGradWrapCell", "momentum", True),
}


def batches(n):
    rng = np.random.default_rng(DATA_SEED)
    xs = rng.standard_normal((STEPS, n * BATCH_PER_RANK, 6)).astype(np.float32)
    ys = rng.standard_normal((STEPS, n * BATCH_PER_RANK, 1)).astype(np.float32)
    return xs, ys


class Net(nn.Cell):
    """Two Dense layers: weights (4, 6), (4,), (1, 4), (1,) -- a bias of one element takes
    AdaSum's averaging path."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, HIDDEN, weight_init=Tensor(W1), bias_init="zeros")
        self.fc2 = nn.Dense(HIDDEN, 1, weight_init=Tensor(W2), bias_init="zeros")

    def construct(self, x):
        return self.fc2(self.fc1(x))


def train(case, rank, n):
    mode, wrap, optimizer, mean = CASES[case]
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=mode, device_num=n, gradients_mean=mean)
    net = Net()
    params = net.trainable_params()
    opt = nn.SGD(params, LR) if optimizer == "sgd" else nn.Momentum(params, LR, MOMENTUM)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), getattr(nn, wrap)(opt))
    xs, ys = batches(n)
    rows = slice(rank * BATCH_PER_RANK, (rank + 1) * BATCH_PER_RANK)
    for x, y in zip(xs, ys):
        reset_comm_stats()
        step(Tensor(x[rows]), Tensor(y[rows]))
    stats = comm_stats()
    ms.reset_auto_parallel_context()
    counts = {f"count_{k}": v["count"] for k, v in stats.items()}
    return dict({p.name: p.asnumpy() for p in params}, **counts)


def main(out, cases):
    init()
    rank, n = get_rank(), get_group_size()
    for case in cases:
        np.savez(f"{out}/{case}_rank{rank}.npz", **train(case, rank, n))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or list(CASES))
