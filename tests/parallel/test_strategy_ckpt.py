"""Strategy checkpoint files (minispore/parallel/strategy/ckpt.py): keys, format checks and
errors; saving and loading across runs is tested under MPI in
tests/parallel/test_sharding_propagation_mpi.py."""
import json

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.graph.tracer import trace
from minispore.parallel.strategy.ckpt import FORMAT, load_strategies, operator_keys


def test_repeated_scopes_get_numbered_keys():
    relu = ops.ReLU()
    graph, _ = trace(lambda x: relu(relu(x)), [Tensor(np.ones(2, np.float32))], "f")
    assert sorted(operator_keys(graph).values()) == ["ReLU", "ReLU#1"]


def test_load_checks_format_and_device_count(tmp_path):
    good = tmp_path / "s.json"
    good.write_text(json.dumps({"format": FORMAT, "device_num": 8, "operators": {
        "Net.matmul": {"op": "MatMul", "strategy": [[2, 1], [1, 4]], "from": "user"}},
        "parameters": {}}))
    assert load_strategies(str(good), 8) == {"Net.matmul": ((2, 1), (1, 4))}
    with pytest.raises(ValueError, match="saved for 8 devices, but this compile has 2"):
        load_strategies(str(good), 2)
    with pytest.raises(ValueError, match="does not exist"):
        load_strategies(str(tmp_path / "missing.json"), 8)
    bad = tmp_path / "proto.ckpt"
    bad.write_bytes(b"\x08\x01")
    with pytest.raises(ValueError, match="protobuf files cannot be read"):
        load_strategies(str(bad), 8)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something"}))
    with pytest.raises(ValueError, match="expected 'minispore-strategy/1'"):
        load_strategies(str(other), 8)


def test_strategy_ckpt_settings_are_accepted():
    ms.set_auto_parallel_context(strategy_ckpt_config={"save_file": "a.json",
                                                       "load_file": "b.json",
                                                       "only_trainable_params": False})
    from minispore.common.auto_parallel_context import strategy_ckpt_files
    assert strategy_ckpt_files() == ("b.json", "a.json", False)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(strategy_ckpt_save_file="legacy.json")
    assert strategy_ckpt_files() == ("", "legacy.json", True)
    ms.reset_auto_parallel_context()
