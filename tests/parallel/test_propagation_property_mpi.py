"""Property test of sharding propagation under mpirun (hypothesis, derandomised so every rank
draws the same examples): random small chains of MatMul / bias Add / ReLU / Mul / Square with
one or two user strategies compile to valid layouts, and one SGD step of the parallel run
equals the single-device step (loss and gathered parameters).

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_propagation_property_mpi.py
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.parallel.param_slicing import gather_parameter

pytestmark = pytest.mark.mpi(min_size=2)

WIDTH, BATCH = 8, 8
KINDS = ("matmul", "bias", "relu", "scale", "square")


class Chain(nn.Cell):
    """The ops of `kinds` in order on a (BATCH, WIDTH) activation; strategies[i] shards op i."""

    def __init__(self, kinds, strategies):
        super().__init__()
        rng = np.random.default_rng(7)
        self.kinds = kinds
        self.ops, self.weights = [], []
        for i, kind in enumerate(kinds):
            prim = {"matmul": ops.MatMul, "bias": ops.Add, "relu": ops.ReLU, "scale": ops.Mul,
                    "square": ops.Square}[kind]()
            if strategies.get(i) is not None:
                prim.shard(strategies[i])
            setattr(self, f"op{i}", prim)
            self.ops.append(prim)
            shape = {"matmul": (WIDTH, WIDTH), "bias": (WIDTH,)}.get(kind)
            weight = None
            if shape is not None:
                weight = Parameter(Tensor((rng.standard_normal(shape) * 0.3)
                                          .astype(np.float32)), name=f"w{i}")
                setattr(self, f"w{i}", weight)
            self.weights.append(weight)

    def construct(self, x):
        for kind, prim, w in zip(self.kinds, self.ops, self.weights):
            if kind in ("matmul", "bias"):
                x = prim(x, w)
            elif kind == "scale":
                x = prim(x, 0.5)
            else:
                x = prim(x)
        return x


def _strategy(kind, cuts):
    a, b = cuts
    return {"matmul": ((a, b), (b, 1)), "bias": ((a, b), (b,)), "relu": ((a, b),),
            "scale": ((a, b), ()), "square": ((a, b),)}[kind]


@st.composite
def chains(draw, n):
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=2, max_size=5))
    kinds = ["matmul"] + kinds
    chosen = draw(st.lists(st.integers(0, len(kinds) - 1), min_size=1, max_size=2,
                           unique=True))
    cut_choices = [(n, 1), (1, n), (1, 1)]
    strategies = {i: _strategy(kinds[i], draw(st.sampled_from(cut_choices))) for i in chosen}
    return kinds, strategies


def _step(kinds, strategies, parallel, n, x, y):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    if parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.AUTO_PARALLEL,
                                     search_mode="sharding_propagation", device_num=n,
                                     full_batch=True)
    net = Chain(kinds, strategies if parallel else {})
    loss = nn.MSELoss()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
    value = float(step(Tensor(x), Tensor(y)).asnumpy())
    weights = [gather_parameter(p) for p in net.trainable_params()]
    ms.reset_auto_parallel_context()
    return value, weights


def test_propagated_plans_train_like_a_single_device(world):
    rank, n = world
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    y = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)

    @settings(max_examples=12, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(chains(n))
    def check(case):
        kinds, strategies = case
        ref = _step(kinds, strategies, False, n, x, y)
        got = _step(kinds, strategies, True, n, x, y)
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-5, err_msg=str(case))
        for w, r in zip(got[1], ref[1]):
            np.testing.assert_allclose(w, r, rtol=1e-5, atol=1e-6, err_msg=str(case))

    check()
