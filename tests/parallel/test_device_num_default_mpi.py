"""An unset device_num means the communication group's size (MindSpore parallel/_utils.py
`_get_device_num`): after init() and reset_auto_parallel_context(), semi_auto_parallel without
device_num shards over every rank and equals the single-device run.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_device_num_default_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.parallel.param_slicing import gather_parameter
from minispore.parallel.settings import get_device_num
from tests.parallel.semi_auto_net import TutorialNet, _block, batches, train

pytestmark = pytest.mark.mpi(min_size=2)

DIMS = (16, 16, 16, 4)


def test_semi_auto_without_device_num_shards_over_the_group(world):
    rank, n = world
    strategies = (((1, n), (n, 1)), ((1, 1),), ((1, 1), (1, n)), ((1, n),))
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
    assert get_device_num() == n
    ms.set_seed(1)
    net = TutorialNet(strategies, DIMS)
    params = net.trainable_params()
    step = nn.TrainOneStepCell(nn.WithLossCell(
        net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.SGD(params, 0.05))
    xs, ys = batches(2, 8, DIMS)
    losses = [float(step(ms.Tensor(_block(x, 0, rank, n, "data_parallel")),
                         ms.Tensor(_block(y, 1, rank, n, "data_parallel"))).asnumpy())
              for x, y in zip(xs, ys)]
    # fc1 is cut by rows over the n ranks: the strategy was kept, not dropped for one device
    assert params[0].asnumpy().shape == (DIMS[0] // n, DIMS[1])
    weights = [gather_parameter(p) for p in params]
    ms.reset_auto_parallel_context()
    want_losses, want_weights = train(None, steps=2, batch=8, dims=DIMS, parallel=False)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for got, want in zip(weights, want_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
