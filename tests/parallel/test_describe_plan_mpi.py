"""describe_plan: the sharding plan of a step, readable before it runs -- every forward
operator's strategy and its origin, each input's rank -> block map, every collective of the
compiled step with its group and predicted bytes -- and the prediction equals what comm_stats
measures when the step runs.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_describe_plan_mpi.py
     mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_describe_plan_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.parallel import comm_stats, describe_plan, reset_comm_stats
from tests.parallel.semi_auto_net import TutorialNet, _block, batches

pytestmark = pytest.mark.mpi(min_size=2)

SMALL = (64, 32, 32, 10)
STRATEGIES = {
    2: (((1, 2), (2, 1)), ((2, 1),), ((2, 1), (1, 1)), ((1, 2),)),
    8: (((2, 4), (4, 1)), ((4, 1),), ((1, 8), (8, 1)), ((8, 1),)),
}


def _step(n):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=n)
    ms.set_seed(1)
    net = TutorialNet(STRATEGIES[n], SMALL)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(),
                                                                       0.05))


def _test_plan_matches_the_step(rank, n):
    net, step = _step(n)
    xs, ys = batches(1, 32, SMALL)
    x, y = (ms.Tensor(_block(a, i, rank, n, "data_parallel")) for i, a in enumerate((xs[0],
                                                                                     ys[0])))
    plan = describe_plan(step, x, y)
    text = str(plan)
    by_scope = {op.scope.rsplit(".", 1)[-1]: op for op in plan.operators}
    assert by_scope["matmul1"].strategy == STRATEGIES[n][0]
    assert by_scope["matmul1"].origin == "user"
    assert by_scope["matmul3"].origin == "data-parallel default"
    # fc1's weight (d0, d1) under the first strategy: every rank's block is named.
    shape, block, blocks = by_scope["matmul1"].inputs[1]
    cuts = STRATEGIES[n][0][1]
    assert shape == SMALL[:2] and block == (SMALL[0] // cuts[0], SMALL[1] // cuts[1])
    assert sorted(r for ranks in blocks for r in ranks) == list(range(n))
    assert "matmul1 MatMul: strategy" in text and "predicted per step:" in text
    assert plan.collectives and all(c.predicted_bytes > 0 for c in plan.collectives)
    reset_comm_stats()
    step(x, y)
    measured = comm_stats()
    assert plan.predicted() == measured, plan.compare(measured)
    ms.reset_auto_parallel_context()


def test_plan_predicts_what_the_step_sends(world):
    rank, n = world
    if n not in STRATEGIES:
        pytest.skip("strategies written for 2 and 8 ranks")
    _test_plan_matches_the_step(rank, n)


@pytest.mark.mpi8
def test_plan_on_8_ranks(world):
    test_plan_predicts_what_the_step_sends(world)


def test_describe_plan_needs_operator_parallel(world):
    ms.reset_auto_parallel_context()
    with pytest.raises(ValueError, match="describe_plan describes operator parallelism"):
        describe_plan(nn.Dense(2, 2), ms.Tensor(np.ones((2, 2), np.float32)))
