"""MindSpore's restrictions on distributed graph partition (mindspore_semantics.md §7.1, §7.4,
§17 #21), refused with errors that name the cell or node, the value and what is valid: at
place() time, and again when the network compiles (the settings may change in between).
The multi-process partition itself: tests/parallel/test_place_partition_mpi.py."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.common import ps_context


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(2, 2)
        self.relu = ops.ReLU()

    def construct(self, x):
        return self.relu(self.dense(x))


def _net():
    net = Net()
    net.dense.place("MS_WORKER", 0)
    return net


def _parallel_mode(mode):
    search = {"search_mode": "sharding_propagation"} if mode == "auto_parallel" else {}
    ms.set_auto_parallel_context(parallel_mode=mode, **search)


def _x():
    return Tensor(np.ones((2, 2), np.float32))


@pytest.mark.parametrize("role", ["MS_PSERVER", "MS_SCHED", "worker", None])
def test_place_role_other_than_ms_worker_raises_value_error(role):
    for target in (ops.ReLU(), nn.Dense(2, 2)):
        with pytest.raises(ValueError, match=r"'role' must be 'MS_WORKER', but got"):
            target.place(role, 0)


@pytest.mark.parametrize("rank_id, error", [(-1, ValueError), (1.0, TypeError),
                                            (True, TypeError), ("0", TypeError)])
def test_place_rank_id_must_be_a_non_negative_int(rank_id, error):
    for target in (ops.ReLU(), nn.Dense(2, 2)):
        with pytest.raises(error, match="rank_id"):
            target.place("MS_WORKER", rank_id)


def test_place_in_pynative_raises_runtime_error():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for target in (ops.ReLU(), nn.Dense(2, 2)):
        with pytest.raises(RuntimeError, match="GRAPH_MODE only"):
            target.place("MS_WORKER", 0)


@pytest.mark.parametrize("parallel_mode", ["data_parallel", "semi_auto_parallel",
                                           "auto_parallel", "hybrid_parallel"])
def test_place_with_another_parallel_mode_raises_runtime_error(parallel_mode):
    _parallel_mode(parallel_mode)
    for target in (ops.ReLU(), nn.Dense(2, 2)):
        with pytest.raises(RuntimeError, match=f"parallel_mode '{parallel_mode}'"):
            target.place("MS_WORKER", 0)


def test_place_with_the_parameter_server_raises_runtime_error(monkeypatch):
    # enable_ps=True itself is refused until the parameter server is built; place refuses it
    # whatever the order of the calls.
    ps_context.set_ps_context(enable_ps=True)
    for target in (ops.ReLU(), nn.Dense(2, 2)):
        with pytest.raises(RuntimeError, match="parameter server"):
            target.place("MS_WORKER", 0)


@pytest.mark.parametrize("parallel_mode", ["data_parallel", "hybrid_parallel"])
def test_a_parallel_mode_set_after_place_is_refused_at_compile(parallel_mode):
    net = _net()
    _parallel_mode(parallel_mode)
    with pytest.raises(RuntimeError, match=rf"parallel_mode '{parallel_mode}', but node "
                                           rf"'MatMul' \(in Net\.dense\.matmul\) is placed "
                                           rf"on worker 0"):
        net(_x())


def test_the_parameter_server_enabled_after_place_is_refused_at_compile(monkeypatch):
    net = _net()
    ps_context.set_ps_context(enable_ps=True)
    with pytest.raises(RuntimeError, match="parameter server"):
        net(_x())


def test_a_role_set_on_a_primitive_by_hand_is_refused_at_compile():
    net = _net()
    net.relu.add_prim_attr("ms_role", "MS_PSERVER").add_prim_attr("rank_id", 0)
    with pytest.raises(ValueError, match=r"'ReLU' \(in Net\.relu\) is placed with role "
                                         r"'MS_PSERVER'"):
        net(_x())


@pytest.mark.parametrize("mode", ["pynative", "semi_auto_parallel"])
def test_place_in_the_scheduler_returns_at_once(monkeypatch, mode):
    # MindSpore's Primitive.place begins with `if _is_role_sched(): return`: the scheduler runs
    # the script but builds no graph, so nothing is checked or marked there
    monkeypatch.setenv("MS_ROLE", "MS_SCHED")
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        _parallel_mode(mode)
    net, relu = Net(), ops.ReLU()
    assert net.place("MS_WORKER", 0) is net
    assert relu.place("MS_WORKER", 0) is relu
    assert "ms_role" not in relu.attrs and "rank_id" not in relu.attrs
    assert net.dense.place("MS_SERVER", -1) is net.dense
