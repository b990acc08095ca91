"""Never a silent fallback: every parallel setting or API that minispore accepts but has not
built raises NotImplementedError naming it (at the call that sets it, or when the graph
compiles), and set_auto_parallel_context validates what MindSpore validates. MindSpore's own
tutorial samples for the unbuilt features end with that error instead of training unsharded.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT.parent / "shared" / "samples"


@pytest.fixture(autouse=True)
def clean_context():
    yield
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.PYNATIVE_MODE)


# -- settings refused at the call that sets them ----------------------------------------------
@pytest.mark.parametrize("kwargs, named", [
    ({"grad_accumulation_step": 4}, "grad_accumulation_step=4"),
    ({"pipeline_config": {"pipeline_interleave": True}}, "pipeline_interleave"),
])
def test_unbuilt_settings_are_refused(kwargs, named):
    ms.set_context(mode=ms.GRAPH_MODE)
    before = {key: ms.get_auto_parallel_context(key) for key in kwargs}
    with pytest.raises(NotImplementedError, match="not implemented in minispore yet") as info:
        ms.set_auto_parallel_context(**kwargs)
    assert named in str(info.value)
    # Nothing was stored: the refused setting does not linger.
    assert {key: ms.get_auto_parallel_context(key) for key in kwargs} == before


def test_auto_parallel_is_built_for_every_search_mode_in_graph_mode_only():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="auto_parallel")     # recursive_programming
    for mode in ("sharding_propagation", "dynamic_programming", "recursive_programming"):
        ms.set_auto_parallel_context(search_mode=mode)
        assert ms.get_auto_parallel_context("search_mode") == mode
    ms.reset_auto_parallel_context()
    # PYNATIVE: only shard regions act, and they propagate.
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", search_mode="sharding_propagation")
    ms.reset_auto_parallel_context()
    with pytest.raises(NotImplementedError, match="in PYNATIVE_MODE"):
        ms.set_auto_parallel_context(parallel_mode="auto_parallel",
                                     search_mode="dynamic_programming")


def test_what_is_built_is_still_accepted():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=1,
                                 enable_parallel_optimizer=False, grad_accumulation_step=1,
                                 comm_fusion={"allreduce": {"mode": "size", "config": 32}},
                                 strategy_ckpt_config={"only_trainable_params": True})
    # merged into MindSpore's default config (_ParallelFusionConfig.CONFIG)
    assert ms.get_auto_parallel_context("comm_fusion") == {
        "openstate": True, "allreduce": {"mode": "size", "config": 32},
        "allgather": {"mode": "auto", "config": None},
        "reducescatter": {"mode": "auto", "config": None}}


def test_parameter_server_settings_it_does_not_have_are_refused():
    with pytest.raises(NotImplementedError, match="enable_ssl=True asks for SSL"):
        ms.set_ps_context(enable_ssl=True)
    with pytest.raises(NotImplementedError, match="config_file_path='r.json' asks for "
                                                  "parameter-server disaster recovery"):
        ms.set_ps_context(config_file_path="r.json")
    assert ms.get_ps_context("enable_ssl") is False
    with pytest.raises(TypeError, match="'enable_ps' must be bool"):
        ms.set_ps_context(enable_ps=1)
    with pytest.raises(ValueError, match="'worker_num' is not recognized"):
        ms.set_ps_context(worker_num=2)


# -- validation MindSpore does ------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, match", [
    ({"global_rank": -1}, ValueError, "'global_rank' must be in"),
    ({"device_num": 4, "global_rank": 4}, ValueError, r"\[0, 4\)"),
    ({"global_rank": "0"}, TypeError, "'global_rank' must be int"),
    ({"search_mode": "greedy"}, ValueError, "'search_mode' must be one of"),
    ({"auto_parallel_search_mode": "greedy"}, ValueError, "must be one of"),
    ({"pipeline_stages": True}, TypeError, "'pipeline_stages' must be int"),
    ({"pipeline_stages": 1.5}, TypeError, "'pipeline_stages' must be int"),
    ({"pipeline_stages": 0}, ValueError, "'pipeline_stages' must be >= 1"),
    ({"pipeline_config": {"pipeline_scheduler": "zb"}}, ValueError, "must be one of"),
    ({"pipeline_config": {"interleave": True}}, ValueError, "unknown key 'interleave'"),
    ({"pipeline_config": {"pipeline_interleave": 1}}, TypeError, "must be bool"),
    ({"pipeline_config": "1f1b"}, TypeError, "'pipeline_config' must be dict"),
    ({"pipeline_result_broadcast": 1}, TypeError, "'pipeline_result_broadcast' must be bool"),
    ({"enable_parallel_optimizer": 1}, TypeError, "'enable_parallel_optimizer' must be bool"),
    ({"parallel_optimizer_config": {"threshold": 1}}, ValueError, "unknown config"),
    ({"parallel_optimizer_config": [1]}, TypeError, "must be a dict"),
    ({"strategy_ckpt_config": {"load": "x"}}, ValueError, "unknown key 'load'"),
    ({"strategy_ckpt_config": {"save_file": 3}}, TypeError, "must be str"),
    ({"strategy_ckpt_config": {"only_trainable_params": "yes"}}, TypeError, "must be bool"),
    ({"strategy_ckpt_config": "x.ckpt"}, TypeError, "must be a dict"),
    ({"strategy_ckpt_load_file": 3}, TypeError, "'strategy_ckpt_load_file' must be str"),
])
def test_set_auto_parallel_context_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        ms.set_auto_parallel_context(**kwargs)


def test_search_mode_alias_sets_search_mode():
    ms.set_auto_parallel_context(auto_parallel_search_mode="dynamic_programming")
    assert ms.get_auto_parallel_context("search_mode") == "dynamic_programming"
    ms.set_auto_parallel_context(search_mode="sharding_propagation")
    assert ms.get_auto_parallel_context("auto_parallel_search_mode") == "sharding_propagation"


def test_comm_fusion_reads_back_what_was_set():
    fusion = {"openstate": True, "allreduce": {"mode": "index", "config": [2, 4]}}
    ms.set_auto_parallel_context(comm_fusion=fusion)
    assert ms.get_auto_parallel_context("comm_fusion") == {
        **fusion, "allgather": {"mode": "auto", "config": None},
        "reducescatter": {"mode": "auto", "config": None}}


# -- primitives and cells in the wrong mode ------------------------------------------------------
def test_primitive_recompute_in_pynative_raises_type_error():
    with pytest.raises(TypeError, match=r"For 'ReLU.recompute', recompute is not supported "
                                        r"in PYNATIVE_MODE"):
        ops.ReLU().recompute()


@pytest.mark.parametrize("mode, parallel_mode, match", [
    (ms.PYNATIVE_MODE, "stand_alone", "GRAPH_MODE only"),
    (ms.GRAPH_MODE, "semi_auto_parallel", "parallel_mode 'semi_auto_parallel'"),
    (ms.GRAPH_MODE, "data_parallel", "parallel_mode 'data_parallel'"),
])
def test_place_outside_graph_stand_alone_raises_runtime_error(mode, parallel_mode, match):
    ms.set_context(mode=mode)
    ms.set_auto_parallel_context(parallel_mode=parallel_mode)
    for target in (ops.MatMul(), nn.Dense(2, 2)):
        with pytest.raises(RuntimeError, match=match):
            target.place("MS_WORKER", 0)


def test_pipeline_needs_an_operator_parallel_mode_and_a_divisible_device_number():
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.ones((2, 2), np.float32))
    net = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU())
    net[0].pipeline_stage = 1
    ms.set_auto_parallel_context(pipeline_stages=2)
    with pytest.raises(RuntimeError, match="pipeline_stages=2 needs parallel_mode"):
        net(x)


# -- a sample started without its launch ends with MindSpore's error ---------------------------


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="MindSpore's samples (../shared/samples) are "
                                                 "not beside this checkout")
def test_parameter_server_sample_without_ms_role_ends_with_runtime_error(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MS_")}
    env.update(DATA_PATH=str(tmp_path / "MNIST_Data" / "train"), NUMBA_NUM_THREADS="1",
               PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "minispore",
                          str(SAMPLES / "parameter_server" / "train.py")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "RuntimeError: For 'Parameter.set_param_ps' of 'fc1.weight', parameter-server " \
           "training must be on" in run.stderr and "MS_ROLE is not set" in run.stderr, \
        run.stderr[-2000:]
