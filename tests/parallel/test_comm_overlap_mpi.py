"""The overlap pass (minispore/parallel/comm/overlap.py): a compiled data-parallel step starts
each gradient bucket's all-reduce as soon as its gradients exist, during the backward, and
waits for it where the optimizer reads it; training is bitwise the same as with blocking
all-reduces after the backward, and as with semi-auto's fused collectives.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_comm_overlap_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.common.registry import REGISTRY
from minispore.graph.ir import BACKWARD
from minispore.parallel import compiler
from minispore.parallel.comm.overlap import overlap_communication

pytestmark = pytest.mark.mpi(min_size=2)


def _train(overlap, parallel_mode="data_parallel", steps=3, gradients_mean=True, **context):
    passes = [p for p in compiler.PASSES if overlap or p is not overlap_communication]
    REGISTRY.plug("graph.passes", tuple(passes))
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        ms.reset_auto_parallel_context()
        ms.set_auto_parallel_context(parallel_mode=parallel_mode,
                                     gradients_mean=gradients_mean, **context)
        ms.set_seed(1)
        net = nn.SequentialCell(nn.Dense(16, 32, activation="relu"),
                                nn.Dense(32, 32, activation="relu"), nn.Dense(32, 4))
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                                   nn.Momentum(net.trainable_params(), 0.1, 0.9))
        rng = np.random.default_rng(ms.communication.get_rank())
        losses = []
        for _ in range(steps):
            x = Tensor(rng.standard_normal((8, 16)).astype(np.float32))
            y = Tensor(rng.integers(0, 4, 8).astype(np.int32))
            losses.append(float(step(x, y).asnumpy()))
        graph = next(iter(step._graph_cache.entries.values())).graph
        params = [p.asnumpy().copy() for p in net.trainable_params()]
    finally:
        REGISTRY.plug("graph.passes", tuple(compiler.PASSES))
        ms.reset_auto_parallel_context()
    return losses, params, graph


def test_buckets_start_during_the_backward_with_unchanged_numbers(world):
    buckets = {"comm_fusion": {"allreduce": {"mode": "size", "config": 0}}}  # one per gradient
    plain = _train(False, **buckets)
    losses, params, graph = _train(True, **buckets)
    assert losses == plain[0]
    for got, want in zip(params, plain[1]):
        np.testing.assert_array_equal(got, want)
    names = [n.prim.name for n in graph.nodes]
    starts = [k for k, name in enumerate(names) if name == "AllReduceStart"]
    waits = [k for k, name in enumerate(names) if name == "AllReduceWait"]
    assert len(starts) == len(waits) == 6 and "AllReduce" not in names
    last_backward = max(k for k, n in enumerate(graph.nodes) if n.phase == BACKWARD)
    # every bucket but the first layer's starts before the backward ends
    assert sum(k < last_backward for k in starts) == 5
    # each wait sits right before the optimizer update that reads its gradient (through the
    # gradient's view of the reduced bucket)
    assert all(names[k + 1:k + 3] == ["BucketView", "ApplyMomentum"] for k in waits)


def test_fused_mirror_reductions_of_semi_auto_are_split_too(world):
    context = dict(device_num=ms.communication.get_group_size(), full_batch=True)
    plain = _train(False, "semi_auto_parallel", **context)
    losses, params, graph = _train(True, "semi_auto_parallel", **context)
    assert losses == plain[0]
    for got, want in zip(params, plain[1]):
        np.testing.assert_array_equal(got, want)
    starts = [n for n in graph.nodes if n.prim.name == "AllReduceStart"]
    assert starts and max(n.prim.attrs["count"] for n in starts) > 1    # a fused bucket
