"""Sharding propagation (AUTO_PARALLEL, search_mode="sharding_propagation") on the tutorial's
FFN: from the one configured MatMul the strategies spread to every Dense/ReLU/Add
(mindspore_semantics.md §5.1: Add ((2,4),(4)), ReLU ((2,4)), the next MatMul ((2,4),(4,1))),
no redistribution is inserted between them, and training (the sample's @jit value_and_grad
step with Momentum) equals the single-device run.

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_sharding_propagation_mpi.py
     mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_sharding_propagation_mpi.py
"""
import glob
import os
import re

import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops
from minispore.common.initializer import initializer
from minispore.parallel.param_slicing import gather_parameter

pytestmark = pytest.mark.mpi(min_size=2)

IN, HIDDEN, OUT = 16, 32, 8
# configured dense1.matmul strategy -> the strategies propagation must give the others
PLANS = {
    8: (((2, 1), (1, 4)), {"dense1.add": "((2, 4), (4,))", "relu": "((2, 4),)",
                           "dense2.matmul": "((2, 4), (4, 1))"}),
    2: (((1, 1), (1, 2)), {"dense1.add": "((1, 2), (2,))", "relu": "((1, 2),)",
                           "dense2.matmul": "((1, 2), (2, 1))"}),
}


class Dense(nn.Cell):
    def __init__(self, cin, cout):
        super().__init__()
        self.weight = ms.Parameter(initializer("normal", [cin, cout], ms.float32))
        self.bias = ms.Parameter(initializer("normal", [cout], ms.float32))
        self.matmul = ops.MatMul()
        self.add = ops.Add()

    def construct(self, x):
        return self.add(self.matmul(x, self.weight), self.bias)


class FFN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = ops.Flatten()
        self.dense1 = Dense(IN, HIDDEN)
        self.relu = ops.ReLU()
        self.dense2 = Dense(HIDDEN, OUT)

    def construct(self, x):
        return self.dense2(self.relu(self.dense1(self.flatten(x))))


def train(parallel, n, strategy, steps=4, batch=16, dump=None, propagate=True, **context):
    """The sample's training loop; in parallel under sharding propagation from `strategy` on
    dense1.matmul, or (propagate=False) under semi-auto with no shard call at all."""
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=bool(dump), save_graphs_path=dump or ".")
    ms.reset_auto_parallel_context()
    if parallel:
        mode = dict(parallel_mode=ms.ParallelMode.AUTO_PARALLEL,
                    search_mode="sharding_propagation") if propagate else \
            dict(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
        ms.set_auto_parallel_context(device_num=n, full_batch=True, **mode, **context)
    ms.set_seed(1)
    net = FFN()
    if parallel and propagate:
        net.dense1.matmul.shard(strategy)
    optimizer = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss_fn = nn.CrossEntropyLoss()

    def forward_fn(data, target):
        logits = net(data)
        return loss_fn(logits, target), logits

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)

    @ms.jit
    def train_step(inputs, targets):
        (loss, _), grads = grad_fn(inputs, targets)
        optimizer(grads)
        return loss

    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = rng.standard_normal((batch, 1, 4, 4)).astype(np.float32)
        y = rng.integers(0, OUT, batch).astype(np.int32)
        losses.append(float(train_step(ms.Tensor(x), ms.Tensor(y)).asnumpy()))
    weights = {p.name: gather_parameter(p) for p in net.trainable_params()}
    ms.set_context(save_graphs=False)
    ms.reset_auto_parallel_context()
    return losses, weights, net


def test_strategies_propagate_from_one_matmul_and_training_equals_single_device(world,
                                                                               shared_dir):
    rank, n = world
    if n not in PLANS:
        pytest.skip("plans written for 2 and 8 ranks")
    strategy, expected = PLANS[n]
    ref_losses, ref_weights, _ = train(False, 1, None)
    losses, weights, net = train(True, n, strategy, dump=shared_dir)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for name, ref in ref_weights.items():
        np.testing.assert_allclose(weights[name], ref, rtol=1e-5, atol=1e-7, err_msg=name)
    # The plan, as step_parallel_begin.ir shows it: propagated strategies beside the user's.
    folder = os.path.join(shared_dir, f"rank_{rank}")
    begin = open(glob.glob(os.path.join(folder, "*", "*_step_parallel_begin.ir"))[0]).read()
    for scope, want in expected.items():
        line = re.search(rf"scope=\S*\.{re.escape(scope)} .*", begin).group(0)
        assert f"strategy={want}" in line and "strategy_from=propagated" in line, line
    assert re.search(r"scope=\S*dense1\.matmul .*strategy_from=user", begin)
    # No redistribution between the propagated operators (only at the graph's edges).
    end = open(glob.glob(os.path.join(folder, "*", "*_step_parallel_end.ir"))[0]).read()
    for scope in expected:
        assert f".{scope}.redistribution" not in end, scope
    # dense1's weight is sliced as the configured strategy says; dense2's rows follow it.
    cols = HIDDEN // strategy[1][1]
    assert net.dense1.weight.shape == (IN, cols) and net.dense1.bias.shape == (cols,)
    assert net.dense2.weight.shape == (cols, OUT)


@pytest.mark.mpi8
def test_propagation_on_8_ranks(world, shared_dir):
    test_strategies_propagate_from_one_matmul_and_training_equals_single_device(world,
                                                                               shared_dir)


def test_strategy_checkpoint_pins_a_later_compile(world, shared_dir):
    """save_file records the propagated plan; a later run under plain semi-auto parallel, with
    no shard call at all, loads it and compiles and trains the same."""
    import json
    rank, n = world
    if n not in PLANS:
        pytest.skip("plans written for 2 and 8 ranks")
    strategy, _ = PLANS[n]
    path = os.path.join(shared_dir, "strategy.json")
    saved_run = train(True, n, strategy, strategy_ckpt_config={"save_file": path})
    from minispore.communication import _comm
    _comm.STATE.world.comm.Barrier()      # rank 0 wrote the file
    data = json.load(open(path))
    assert data["format"] == "minispore-strategy/1" and data["device_num"] == n
    entries = {k.split(".", 1)[1]: v for k, v in data["operators"].items() if "." in k}
    assert entries["dense1.matmul"]["strategy"] == [list(s) for s in strategy]
    assert entries["dense1.matmul"]["from"] == "user"
    assert entries["dense1.add"]["from"] == "propagated"
    assert data["parameters"]["dense1.weight"]["global_shape"] == [IN, HIDDEN]
    losses, weights, net = train(True, n, None, propagate=False,
                                 strategy_ckpt_config={"load_file": path})
    np.testing.assert_allclose(losses, saved_run[0], rtol=1e-6)
    for name, value in saved_run[1].items():
        np.testing.assert_allclose(weights[name], value, rtol=1e-6, atol=1e-8, err_msg=name)
    assert net.dense1.weight.shape == (IN, HIDDEN // strategy[1][1])


def test_auto_parallel_logs_its_plan(world, caplog):
    """Under auto_parallel the compile logs each operator's strategy and its origin (INFO)."""
    rank, n = world
    import logging
    with caplog.at_level(logging.INFO, logger="minispore"):
        train(True, n, PLANS[n][0], steps=1)
    assert "Auto parallel (sharding_propagation) plan" in caplog.text
    assert re.search(r"dense1\.matmul MatMul: \(\(.*\)\) \(user\)", caplog.text), caplog.text
