"""Communication subgraph reuse (MS_COMM_COMPILER_OPT, mindspore_semantics.md §11.2, §17 #28):
twin collectives of a compiled step become calls of shared subgraphs, up to the reuse limit per
subgraph, with bitwise the same training.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_comm_subgraph_mpi.py
"""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.communication import get_group_size
from minispore.common.environment import COMM_REUSE_DEFAULT_LIMIT as DEFAULT_LIMIT
from minispore.common.registry import REGISTRY

WIDTH, LAYERS, BATCH = 16, 4, 8


class Deep(nn.Cell):
    """LAYERS Dense layers cut along the reduced dim: each ends in an AllReduce of the same
    (BATCH, WIDTH) shape, the same group and op -- one class of twins."""

    def __init__(self, n):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(WIDTH, WIDTH) for _ in range(LAYERS)])
        for layer in self.layers:
            layer.matmul.shard(((1, n), (1, n)))

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def _train(steps=2):
    n = get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=n,
                                 full_batch=True, comm_fusion={"openstate": False})
    ms.set_seed(1)
    net = Deep(n)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = Tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
        losses.append(float(step(x, Tensor(np.zeros((BATCH, WIDTH), np.float32))).asnumpy()))
    graph = next(iter(step._graph_cache.entries.values())).graph
    calls = [node for node in graph.nodes if "comm_subgraph" in node.annotations]
    params = [p.asnumpy().copy() for p in net.trainable_params()]
    ms.reset_auto_parallel_context()
    return losses, params, calls


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("setting, per_subgraph", [("-1", DEFAULT_LIMIT), ("3", 3)])
def test_twin_collectives_call_shared_subgraphs_with_unchanged_numerics(
        world, monkeypatch, caplog, setting, per_subgraph):
    monkeypatch.delenv("MS_COMM_COMPILER_OPT", raising=False)
    plain_losses, plain_params, plain_calls = _train()
    assert plain_calls == []
    monkeypatch.setenv("MS_COMM_COMPILER_OPT", setting)
    with caplog.at_level(logging.INFO, logger="minispore"):
        losses, params, calls = _train()
    assert losses == plain_losses
    for got, want in zip(params, plain_params):
        np.testing.assert_array_equal(got, want)
    assert f"MAX_COMM_OP_REUSE_NUM: {per_subgraph}" in caplog.text
    # forward: one AllReduce per layer's row-cut MatMul, all twins
    forward = [c for c in calls if c.phase == "forward" and c.scope.endswith("reduction0.AllReduce")
               and ".matmul." in c.scope]
    assert len(forward) == LAYERS
    by_subgraph = {}
    for node in calls:
        by_subgraph.setdefault(node.prim.subgraph.name, []).append(node)
    assert all(len(nodes) <= per_subgraph for nodes in by_subgraph.values())
    forward_subgraphs = {c.prim.subgraph.name for c in forward}
    assert len(forward_subgraphs) == -(-LAYERS // per_subgraph)
    sub = forward[0].prim.subgraph
    assert len(sub.graph.nodes) == 1 and sub.graph.nodes[0].prim.name == "AllReduce"
    assert "communication nodes" in caplog.text


@pytest.mark.parametrize("raw, limit", [(None, None), ("-1", DEFAULT_LIMIT), ("7", 7),
                                        ("0", None), ("-2", None), ("on", None)])
def test_the_setting_is_parsed_as_mindspore_does(raw, limit, caplog, monkeypatch):
    if raw is None:
        monkeypatch.delenv("MS_COMM_COMPILER_OPT", raising=False)
    else:
        monkeypatch.setenv("MS_COMM_COMPILER_OPT", raw)
    assert REGISTRY.env("MS_COMM_COMPILER_OPT") == limit
    if raw is not None and limit is None:
        assert "turns communication subgraph reuse off" in caplog.text
