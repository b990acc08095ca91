"""Every compile-keyed option of the settings registry keys the compile cache (issue 27): flipping
any of them after a first compile compiles the same function again, and logs a warning naming
the option (MindSpore keeps a graph it compiled whatever changes after; minispore recompiles so
a graph never runs with settings that are no longer in force). A new compile-keyed option
fails here until it has a flip below."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.common.registry import REGISTRY

# {qualified name: a value other than the default, valid in one CPU process}. Environment
# options are flipped by setting their variable (the value is its text).
FLIPS = {
    "context.device_id": 1,
    "context.save_graphs": 1,
    "context.save_graphs_path": "{tmp}/graphs",
    "context.max_call_depth": 50,
    "auto_parallel.parallel_mode": "data_parallel",
    "auto_parallel.device_num": 2,
    "auto_parallel.gradients_mean": True,
    "auto_parallel.loss_repeated_mean": False,
    "auto_parallel.full_batch": True,
    "auto_parallel.dataset_strategy": "full_batch",
    "auto_parallel.search_mode": "sharding_propagation",
    "auto_parallel.auto_parallel_search_mode": "dynamic_programming",
    "auto_parallel.enable_alltoall": True,
    "auto_parallel.enable_parallel_optimizer": True,
    "auto_parallel.parallel_optimizer_config": {"parallel_optimizer_threshold": 1},
    "auto_parallel.pipeline_config": {"pipeline_scheduler": "gpipe"},
    "auto_parallel.pipeline_result_broadcast": True,
    "auto_parallel.strategy_ckpt_config": {"only_trainable_params": False},
    "auto_parallel.strategy_ckpt_load_file": "{tmp}/load.json",
    "auto_parallel.strategy_ckpt_save_file": "{tmp}/save.json",
    "auto_parallel.all_reduce_fusion_config": [1, 2],
    "auto_parallel.comm_fusion": {"allreduce": {"mode": "size", "config": 0}},
    "env.MS_COMM_COMPILER_OPT": "-1",
    "env.MS_INTERFERED_SAPP": "1",
    "env.MINISPORE_MEMORY_PLAN": "0",
    "env.MINISPORE_FUSION": "0",
}
# Keyed options a CPU-only process cannot flip and still compile; their keying is checked on
# the PassContext alone.
NOT_RUNNABLE = {
    "context.device_target": ("GPU", "needs a GPU (tests/gpu compiles there)"),
    "auto_parallel.pipeline_stages": (2, "a pipeline needs semi_auto_parallel on several ranks "
                                         "(tests/parallel/test_pipeline_mpi.py)"),
    "ps.enable_ps": (True, "a compile with it on starts serving parameters to the job's "
                           "servers (tests/ps)"),
}
KEYED = sorted(o.qualname for o in REGISTRY.options() if o.keys_compile)


def test_every_compile_keyed_option_has_a_flip():
    assert sorted(set(FLIPS) | set(NOT_RUNNABLE)) == KEYED


def _flip(qualname, value, monkeypatch, tmp_path):
    scope, name = qualname.split(".", 1)
    if isinstance(value, str):
        value = value.format(tmp=tmp_path)
    if scope == "env":
        monkeypatch.setenv(name, value)
    elif scope == "context":
        ms.set_context(**{name: value})
    else:
        ms.set_auto_parallel_context(**{name: value})


@pytest.mark.parametrize("qualname", sorted(FLIPS))
def test_flipping_a_compile_keyed_option_compiles_again(qualname, monkeypatch, tmp_path,
                                                        caplog):
    monkeypatch.chdir(tmp_path)     # save_graphs writes into save_graphs_path, "." by default
    ms.set_context(mode=ms.GRAPH_MODE)

    @ms.jit
    def f(x):
        return ops_chain(x)

    x = Tensor(np.arange(4, dtype=np.float32))
    expected = f(x).asnumpy()
    assert f.compile_cache_info()["compiles"] == 1
    f(x)
    assert f.compile_cache_info()["compiles"] == 1        # a hit while nothing changed
    with caplog.at_level(logging.WARNING, logger="minispore"):
        _flip(qualname, FLIPS[qualname], monkeypatch, tmp_path)
    np.testing.assert_array_equal(f(x).asnumpy(), expected)
    assert f.compile_cache_info()["compiles"] == 2, qualname
    if not qualname.startswith("env."):
        assert f"'{qualname.split('.', 1)[1]}' changed from" in caplog.text


def ops_chain(x):
    return (x * 2.0 + 1.0) * x


@pytest.mark.parametrize("qualname", sorted(NOT_RUNNABLE))
def test_options_a_cpu_process_cannot_flip_still_key_the_compile(qualname):
    """The options a PassContext carries (and so the compile key) change with them."""
    before = REGISTRY.compile_options()
    scope, name = qualname.split(".", 1)
    saved = REGISTRY.snapshot()
    try:
        REGISTRY.store(scope, {name: NOT_RUNNABLE[qualname][0]})    # past set_*'s checks
        after = REGISTRY.compile_options()
    finally:
        REGISTRY.restore(saved)
    assert after != before and after[qualname] == NOT_RUNNABLE[qualname][0]


def test_an_option_set_to_its_current_value_keeps_the_compiled_graph(caplog):
    ms.set_context(mode=ms.GRAPH_MODE)

    @ms.jit
    def f(x):
        return ops_chain(x)

    x = Tensor(np.ones(3, np.float32))
    f(x)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        ms.set_auto_parallel_context(gradients_mean=False)
    f(x)
    assert f.compile_cache_info()["compiles"] == 1
    assert "changed from" not in caplog.text


def test_passes_read_only_compile_keyed_options():
    from minispore.graph.jit import current_pass_context
    with pytest.raises(KeyError, match="'context.mode' is not a compile-keyed option"):
        current_pass_context().option("context.mode")
