"""nn.SyncBatchNorm across ranks: each rank normalises its slice of a batch with the statistics
of the whole group's batch, so outputs, moving statistics and gradients equal BatchNorm2d over
the concatenated batch (a float64 NumPy reference for the forward); with process_groups each
group keeps its own statistics.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_sync_batch_norm_mpi.py
     mpirun -n 4 python -m pytest --with-mpi -m "mpi and mpi4" tests/parallel/test_sync_batch_norm_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.communication import get_rank

EPS, MOMENTUM = 1e-5, 0.9
X = np.random.default_rng(0).standard_normal((8, 3, 2, 2)).astype(np.float32) * 2 + 1
W = np.random.default_rng(1).standard_normal((8, 3, 2, 2)).astype(np.float32)


def reference(x):
    """(normalised x, moving mean, moving variance) in float64, from fresh statistics."""
    x = x.astype(np.float64)
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    m = x.size // x.shape[1]
    y = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + EPS)
    return y, (1 - MOMENTUM) * mean, MOMENTUM + (1 - MOMENTUM) * var * m / (m - 1)


def run(cell, x, w):
    cell.set_train(True)

    def loss(x):
        return (cell(x) * Tensor(w)).sum()
    y = cell(Tensor(x))
    moving = cell.moving_mean.asnumpy().copy(), cell.moving_variance.asnumpy().copy()
    grad_x, (grad_gamma, grad_beta) = ms.grad(loss, 0, cell.trainable_params())(Tensor(x))
    return y.asnumpy(), moving, grad_x.asnumpy(), grad_gamma, grad_beta


def check(rows, group_rows, process_groups, group_sum):
    y, (mean, var), gx, gg, gb = run(nn.SyncBatchNorm(3, EPS, MOMENTUM,
                                                      process_groups=process_groups),
                                     X[rows], W[rows])
    want_y, want_mean, want_var = reference(X[group_rows])
    offset = rows.start - group_rows.start
    np.testing.assert_allclose(y, want_y[offset:offset + len(y)], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, want_var, rtol=1e-5)
    # Gradients: BatchNorm2d on the group's whole batch (one process computes it all).
    _, _, full_gx, full_gg, full_gb = run(nn.BatchNorm2d(3, EPS, MOMENTUM), X[group_rows],
                                          W[group_rows])
    np.testing.assert_allclose(gx, full_gx[offset:offset + len(gx)], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(group_sum(gg).asnumpy(), full_gg.asnumpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(group_sum(gb).asnumpy(), full_gb.asnumpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.mpi(min_size=2)
def test_the_world_normalises_as_one_batch(world):
    rank, size = world
    share = len(X) // size
    check(slice(rank * share, (rank + 1) * share), slice(0, share * size), None,
          ops.AllReduce())


@pytest.mark.mpi(min_size=4)
@pytest.mark.mpi4
def test_each_process_group_keeps_its_own_statistics(world):
    rank, size = world
    if size != 4:
        pytest.skip("the groups [[0, 1], [2, 3]] need exactly 4 ranks")
    groups = [[0, 1], [2, 3]]
    mine = groups[rank // 2]
    share = len(X) // 4
    check(slice(rank * share, (rank + 1) * share), slice(mine[0] * share, (mine[-1] + 1) * share),
          groups, ops.AllReduce(group=f"sync_bn_group{rank // 2}"))
    assert get_rank() == rank
