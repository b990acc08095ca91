"""nn.thor in data parallel: each rank inverts the statistics of its own slice of the batch and
the inverses are averaged over the ranks (MindSpore's THOR all-reduces them), the gradients
averaged as usual; one step equals a float64 reference built from every rank's slice.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_thor_data_parallel_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn

RNG = np.random.default_rng(7)
X = RNG.standard_normal((8, 4)).astype(np.float32)
Y = RNG.standard_normal((8, 3)).astype(np.float32)
W = RNG.standard_normal((3, 4)).astype(np.float32)
LR, DAMPING, BATCH = 0.1, 0.2, 4


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3, weight_init=Tensor(W), has_bias=False)

    def construct(self, x):
        return self.fc(x)


def _slice_terms(x, y):
    """(A inverse, G inverse, weight gradient) in float64 of one rank's slice under the mean
    squared error."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    dy = 2 * (x @ W.T - y) / y.size
    root = np.sqrt(DAMPING)
    a_inv = np.linalg.inv(x.T @ x / len(x) + root * np.eye(4))
    g_inv = np.linalg.inv(dy.T @ dy / len(x) * BATCH ** 2 + root * np.eye(3))
    return a_inv, g_inv, dy.T @ x


@pytest.mark.mpi(min_size=2)
def test_data_parallel_thor_averages_each_ranks_inverses(world):
    rank, size = world
    rows = slice(rank * len(X) // size, (rank + 1) * len(X) // size)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    net = Net()
    optimizer = nn.thor(net, Tensor(np.float32(LR)), Tensor(np.full(2, DAMPING, np.float32)),
                        0.0, 0.0, 1.0, BATCH)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), optimizer)
    step(Tensor(X[rows]), Tensor(Y[rows]))
    terms = [_slice_terms(X[r * len(X) // size:(r + 1) * len(X) // size],
                          Y[r * len(X) // size:(r + 1) * len(X) // size]) for r in range(size)]
    a_inv, g_inv, grad = (np.mean(parts, axis=0) for parts in zip(*terms))
    np.testing.assert_allclose(optimizer.matrix_a[0].asnumpy()[0, 0], a_inv, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(optimizer.matrix_g[0].asnumpy()[0], g_inv, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.fc.weight.asnumpy(), W - LR * g_inv @ grad @ a_inv,
                               rtol=1e-4, atol=1e-5)
    ms.reset_auto_parallel_context()
