"""No setting is accepted silently (issue 28): every set_context and set_auto_parallel_context
keyword either acts -- the table names where its behaviour is tested -- or logs a warning that
names it and says it has no effect in minispore (or, for what is not built, raises). A new key
in the settings registry fails here until it is put in one of those groups."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, device, nn, ops
from minispore.common.registry import REGISTRY

# set_context keys whose behaviour minispore has, and where it is tested
ACTING_CONTEXT = {
    "mode": "every GRAPH_MODE test; tests/common/test_common.py",
    "device_target": "tests/gpu (device_target='GPU')",
    "device_id": "tests/gpu: the CUDA device opened (minispore/device/cuda.py require)",
    "save_graphs": "tests/graph/test_save_graphs.py",
    "save_graphs_path": "tests/graph/test_save_graphs.py",
    "runtime_num_threads": "tests/communication/test_threads_and_roles.py",
    "print_file_path": "tests/ops/test_print.py",
    "max_call_depth": "test_max_call_depth_limits_nested_cells_while_compiling below",
    "pynative_synchronize": "test_pynative_synchronize_syncs_after_every_eager_op below",
    "deterministic": "tests/gpu/test_ops_gpu.py, tests/kernels/cuda/test_indexing.py",
}

# set_auto_parallel_context keys whose behaviour minispore has, and where it is tested
ACTING_PARALLEL = {
    "parallel_mode": "tests/parallel/test_semi_auto_mpi.py and the other *_mpi.py",
    "device_num": "tests/parallel/test_device_num_default_mpi.py",
    "global_rank": "validated against device_num, set by init(): "
                   "tests/communication/test_management.py",
    "gradients_mean": "tests/parallel/test_data_parallel_config.py",
    "loss_repeated_mean": "tests/parallel/test_semi_auto_ops_mpi.py "
                          "(test_gradient_scale_per_weight_is_mindspores)",
    "full_batch": "tests/parallel/test_parallel_settings.py, "
                  "tests/parallel/test_shard_region_mpi.py",
    "dataset_strategy": "tests/parallel/test_dataset_slice_mpi.py",
    "search_mode": "tests/parallel/test_sharding_propagation_mpi.py",
    "auto_parallel_search_mode": "deprecated alias of search_mode (warns)",
    "enable_alltoall": "tests/parallel/test_redistribution_mpi.py",
    "enable_parallel_optimizer": "tests/parallel/test_optimizer_parallel_mpi.py",
    "parallel_optimizer_config": "tests/parallel/test_optimizer_parallel_mpi.py",
    "pipeline_stages": "tests/parallel/test_pipeline_mpi.py",
    "pipeline_config": "tests/parallel/test_pipeline_mpi.py (gpipe / 1f1b)",
    "pipeline_result_broadcast": "tests/parallel/test_pipeline_mpi.py",
    "strategy_ckpt_config": "tests/parallel/test_strategy_ckpt.py",
    "strategy_ckpt_load_file": "legacy form of strategy_ckpt_config['load_file']",
    "strategy_ckpt_save_file": "legacy form of strategy_ckpt_config['save_file']",
    "all_reduce_fusion_config": "tests/parallel/test_data_parallel_config.py",
    "comm_fusion": "tests/parallel/test_comm_fusion_mpi.py",
}

# keys whose feature is not built: a value asking for it raises NotImplementedError
REFUSED_PARALLEL = {"grad_accumulation_step": 2, "parameter_broadcast": True}


def _warned(caplog, key, setter, value):
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        setter(**{key: value})
    return f"the parameter '{key}' has no effect in minispore" in caplog.text


def test_every_set_context_key_acts_or_warns(caplog):
    for option in REGISTRY.options("context"):
        if option.no_effect is not None:
            value = option.fresh_default()
            assert _warned(caplog, option.name, ms.set_context, value), option.name
            assert ms.get_context(option.name) == value
        else:
            assert option.name in ACTING_CONTEXT, \
                f"set_context key {option.name!r} neither acts nor warns"
    assert set(ACTING_CONTEXT) <= set(REGISTRY.names("context"))


def test_every_set_auto_parallel_context_key_acts_warns_or_refuses(caplog):
    for option in REGISTRY.options("auto_parallel"):
        key = option.name
        if option.no_effect is not None:
            assert _warned(caplog, key, ms.set_auto_parallel_context, False), key
            assert ms.get_auto_parallel_context(key) is False
        elif key in REFUSED_PARALLEL:
            with pytest.raises(NotImplementedError, match=f"{key}=.* is not implemented"):
                ms.set_auto_parallel_context(**{key: REFUSED_PARALLEL[key]})
        else:
            assert key in ACTING_PARALLEL, \
                f"set_auto_parallel_context key {key!r} neither acts, warns nor refuses"


class _Nest(nn.Cell):
    """`depth` cells, each calling the next."""

    def __init__(self, depth):
        super().__init__()
        self.inner = _Nest(depth - 1) if depth > 1 else None

    def construct(self, x):
        return x + 1 if self.inner is None else self.inner(x)


def test_max_call_depth_limits_nested_cells_while_compiling():
    x = Tensor(np.zeros(2, np.float32))
    ms.set_context(mode=ms.GRAPH_MODE, max_call_depth=4)
    np.testing.assert_array_equal(_Nest(4)(x).asnumpy(), [1, 1])
    with pytest.raises(RuntimeError, match=r"Exceed function call depth limit 4 \(cell call "
                                           r"depth: 5, calling _Nest inside"):
        _Nest(5)(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)       # eager calls are Python calls: no limit
    np.testing.assert_array_equal(_Nest(5)(x).asnumpy(), [1, 1])
    with pytest.raises(ValueError, match="'max_call_depth' must be greater than 0, but got 0"):
        ms.set_context(max_call_depth=0)


def test_pynative_synchronize_syncs_after_every_eager_op(monkeypatch):
    calls = []
    monkeypatch.setattr(device, "synchronize", lambda: calls.append(1))
    x = Tensor(np.ones(3, np.float32))
    ops.relu(ops.add(x, x))
    assert calls == []
    ms.set_context(pynative_synchronize=True)
    ops.relu(ops.add(x, x))
    assert len(calls) == 2
    with pytest.raises(TypeError, match="'pynative_synchronize' must be bool"):
        ms.set_context(pynative_synchronize=1)
