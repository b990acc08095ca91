"""`ms.shard` / `Cell.shard` argument handling, as MindSpore r2.3/2.4 does it
(mindspore_semantics.md §6): mode assertions, type checks, parameter_plan resolution and its
errors, the full_batch default, the cached wrapper, and the Cell attribute rule. Running a
region needs several ranks: tests/parallel/test_shard_region_mpi.py."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn


@pytest.fixture(autouse=True)
def _reset():
    ms.reset_auto_parallel_context()
    yield
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _auto(device_num=8, **kw):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=device_num,
                                 search_mode="sharding_propagation", **kw)


class Block(nn.Cell):
    def __init__(self, n=32):
        super().__init__()
        self.dense1 = nn.Dense(n, n)
        self.dense2 = nn.Dense(n, n)

    def construct(self, x):
        return self.dense2(self.dense1(x))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block1 = Block()


def test_shard_needs_auto_or_semi_auto_parallel():
    with pytest.raises(AssertionError, match="'auto_parallel' or 'semi_auto_parallel'"):
        ms.shard(lambda x, y: x + y, in_strategy=((2, 1), (2, 1)))
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=8)
    with pytest.raises(AssertionError, match="search_mode must be 'sharding_propagation'"):
        Block().shard(in_strategy=((1, 8),))


@pytest.mark.parametrize("kwargs, match", [
    (dict(in_strategy=[(1, 8)]), "'in_strategy' must be a tuple"),
    (dict(in_strategy=([1, 8],)), "each element of 'in_strategy'"),
    (dict(in_strategy=((1, 8),), out_strategy=[(1, 8)]), "'out_strategy' must be a tuple"),
    (dict(in_strategy=((1, 8),), parameter_plan=[("w", (8, 1))]), "'parameter_plan' must be"),
    (dict(in_strategy=((1, 8),), parameter_plan={"w": [8, 1]}), "keys must be str"),
    (dict(in_strategy=((1, 8),), device=0), "'device' must be a str"),
    (dict(in_strategy=((1, 8),), level="0"), "'level' must be an int"),
])
def test_argument_types_raise_type_error(kwargs, match):
    _auto()
    with pytest.raises(TypeError, match=match):
        ms.shard(Block(), **kwargs)


def test_parameter_plan_names_and_shapes():
    _auto()
    net = Net()
    net.block1.shard(in_strategy=((1, 8),),
                     parameter_plan={"self.block1.dense2.weight": (8, 1)})
    assert net.block1.dense2.weight.planned_cuts == (8, 1)
    assert all(p.is_in_shard for p in net.block1.trainable_params())
    with pytest.raises(ValueError, match=r"'block1.dense1.weight' cuts dim 0 of shape "
                                         r"\(32, 32\) 3 ways"):
        ms.shard(net.block1, in_strategy=((1, 8),),
                 parameter_plan={"self.block1.dense1.weight": (3, 1)})
    with pytest.raises(ValueError, match=r"3 values for a parameter of shape \(32,\)"):
        ms.shard(net.block1, in_strategy=((1, 8),),
                 parameter_plan={"block1.dense1.bias": (1, 2, 4)})
    with pytest.raises(ValueError, match="does not divide device_num 8"):
        ms.shard(net.block1, in_strategy=((1, 8),),
                 parameter_plan={"block1.dense1.weight": (16, 1)})


def test_parameter_plan_skips_unknown_and_already_planned_names(caplog):
    _auto()
    net = Net()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        ms.shard(net.block1, in_strategy=((1, 8),),
                 parameter_plan={"block1.dense9.weight": (8, 1),
                                 "block1.dense2.weight": (8, 1)})
        ms.shard(net.block1, in_strategy=((1, 8),),
                 parameter_plan={"block1.dense2.weight": (1, 8)})
    assert "'block1.dense9.weight', which is not a parameter" in caplog.text
    assert "'block1.dense2.weight' already has a strategy" in caplog.text
    assert net.block1.dense2.weight.planned_cuts == (8, 1)


def test_parameter_plan_needs_a_cell():
    _auto()
    with pytest.raises(TypeError, match="only allowed when 'fn' is a Cell"):
        ms.shard(lambda x: x, in_strategy=((8, 1),), parameter_plan={"w": (8, 1)})


def test_full_batch_is_the_default_output_layout(caplog):
    _auto()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        ms.shard(Block(), in_strategy=((1, 8),))
    assert "set to 'full_batch'" in caplog.text
    assert ms.get_auto_parallel_context("dataset_strategy") == "full_batch"
    ms.reset_auto_parallel_context()
    _auto(dataset_strategy="data_parallel")
    ms.shard(Block(), in_strategy=((1, 8),))
    assert ms.get_auto_parallel_context("dataset_strategy") == "data_parallel"


def test_same_arguments_return_the_cached_wrapper():
    _auto()
    block = Block()
    first = ms.shard(block, in_strategy=((1, 8),))
    assert ms.shard(block, in_strategy=((1, 8),)) is first
    assert ms.shard(block, in_strategy=((8, 1),)) is not first


def test_cell_shard_returns_the_region_and_marks_the_cell(caplog):
    _auto()
    block = Block()
    region = block.shard(in_strategy=((1, 8),))
    assert callable(region) and block._shard_fn is region
    with caplog.at_level(logging.WARNING, logger="minispore"):
        block.shard(in_strategy=((8, 1),))
    assert "configured more than once" in caplog.text


def test_a_shard_function_cannot_replace_its_cell_attribute():
    _auto()

    class NetError(Net):
        def __init__(self):
            super().__init__()
            self.block1 = ms.shard(self.block1, in_strategy=((8, 1),))

    with pytest.raises(TypeError, match="the type of block1 should be cell, but got function"):
        NetError()


def test_one_device_runs_the_function_as_it_is():
    """device_num 1 (MindSpore r2.5+: shard is a no-op on one device)."""
    _auto(device_num=1)
    x = Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    out = ms.shard(lambda a, b: a * b, in_strategy=((1, 1), (1, 1)))(x, x)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy() ** 2)
