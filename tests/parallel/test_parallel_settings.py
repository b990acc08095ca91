"""How the auto-parallel context reaches the parallel pass: dataset_strategy validation (§2.1),
input layouts and logical shapes (§2.5), and when operator parallelism is on."""
import pytest

import minispore as ms
from minispore.common.layout import TensorLayout
from minispore.parallel.settings import ParallelSettings, operator_parallel_settings


@pytest.mark.parametrize("value, exc, match", [
    ("foo", ValueError, "'data_parallel', 'full_batch'"),
    ([(1, 8)], TypeError, "should be a tuple of tuples"),
    (([1, 8],), TypeError, "each element"),
    (((1, 8.0),), TypeError, "should be an int"),
    (((1, 0),), ValueError, "positive int"),
])
def test_dataset_strategy_validation(value, exc, match):
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(exc, match=match):
        ms.set_auto_parallel_context(dataset_strategy=value)


def test_dataset_strategy_getter_keeps_the_form_it_was_set_in():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(dataset_strategy=((1, 8),))
    assert ms.get_auto_parallel_context("dataset_strategy") == ((1, 8),)
    ms.set_auto_parallel_context(dataset_strategy="full_batch")
    assert ms.get_auto_parallel_context("dataset_strategy") == "full_batch"


def test_tuple_dataset_strategy_is_graph_mode_only():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="GRAPH_MODE"):
        ms.set_auto_parallel_context(dataset_strategy=((1, 8),))


@pytest.mark.parametrize("key", ["full_batch", "enable_alltoall", "loss_repeated_mean"])
def test_bool_keys_reject_other_types(key):
    with pytest.raises(TypeError, match=key):
        ms.set_auto_parallel_context(**{key: 1})


def test_input_layouts_and_logical_shapes():
    dp = ParallelSettings(8, 3, "data_parallel", False, False)
    assert dp.input_layout(0, 4) == TensorLayout((8,), (0, -1, -1, -1))
    assert dp.logical_shape(0, (4, 1, 28, 28)) == (32, 1, 28, 28)
    assert dp.input_layout(1, 0) == TensorLayout((8,), ())
    full = ParallelSettings(8, 3, "full_batch", False, False)
    assert full.logical_shape(0, (32, 784)) == (32, 784)
    assert full.input_layout(0, 2) == TensorLayout((8,), (-1, -1))
    # dim 1 cut 4, the other 2 devices repeat outermost (as MindSpore lays out a dataset
    # strategy): dev matrix (2, 4), dim 1 on its right axis, so rank r feeds block r % 4
    tup = ParallelSettings(8, 3, ((1, 4), (1,)), False, False)
    assert tup.input_layout(0, 2) == TensorLayout((2, 4), (-1, 0))
    assert [tup.input_layout(0, 2).local_slices((16, 28), r)[1].start for r in range(8)] == \
        [0, 7, 14, 21] * 2
    assert tup.logical_shape(0, (16, 7)) == (16, 28)
    with pytest.raises(ValueError, match="has 2 entries, but the network has an input 2"):
        tup.input_cuts(2, 1)
    with pytest.raises(ValueError, match="does not divide device_num 8"):
        ParallelSettings(8, 0, ((3, 1),), False, False).input_layout(0, 2)


def test_operator_parallelism_is_on_only_in_semi_and_auto_modes():
    ms.set_context(mode=ms.GRAPH_MODE)
    assert operator_parallel_settings() is None
    ms.set_auto_parallel_context(parallel_mode="data_parallel", device_num=8)
    assert operator_parallel_settings() is None
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=1)
    assert operator_parallel_settings() is None


def test_semi_auto_on_several_devices_needs_init():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=8)
    with pytest.raises(RuntimeError, match=r"call minispore.communication.init\(\)"):
        operator_parallel_settings()


def test_semi_auto_parallel_needs_graph_mode():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="in PYNATIVE_MODE 'parallel_mode' must be one of"):
        ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    # auto_parallel passes the PYNATIVE check, then is refused as not built
    # (tests/parallel/test_no_silent_fallbacks.py).
    with pytest.raises(NotImplementedError, match="auto_parallel"):
        ms.set_auto_parallel_context(parallel_mode="auto_parallel")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")


@pytest.mark.parametrize("strategy, full_batch", [("full_batch", True), ("data_parallel", False)])
def test_string_dataset_strategy_and_full_batch_are_one_setting(strategy, full_batch):
    # MindSpore's set_dataset_strategy calls set_full_batch; get_dataset_strategy reads it back
    ms.set_auto_parallel_context(dataset_strategy=strategy)
    assert ms.get_auto_parallel_context("full_batch") is full_batch
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(full_batch=full_batch)
    assert ms.get_auto_parallel_context("dataset_strategy") == strategy


COMM_FUSION_DEFAULT = {"openstate": True,
                       "allreduce": {"mode": "auto", "config": None},
                       "allgather": {"mode": "auto", "config": None},
                       "reducescatter": {"mode": "auto", "config": None}}


def test_comm_fusion_default_and_merge():
    ms.set_auto_parallel_context(comm_fusion={"openstate": False,
                                              "allreduce": {"mode": "size", "config": 32}})
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("comm_fusion") == COMM_FUSION_DEFAULT
    # a set merges its keys into the current config; openstate is True unless given
    ms.set_auto_parallel_context(comm_fusion={"allgather": {"mode": "size", "config": 8}})
    assert ms.get_auto_parallel_context("comm_fusion") == dict(
        COMM_FUSION_DEFAULT, allgather={"mode": "size", "config": 8})


@pytest.mark.parametrize("key, value", [
    ("gradient_fp32_sync", 1), ("gradients_mean", 0), ("parameter_broadcast", "yes"),
    ("enable_parallel_optimizer", 1), ("pipeline_result_broadcast", 1),
    ("parallel_mode", 1), ("search_mode", None), ("device_num", "8"), ("global_rank", 1.0),
    ("strategy_ckpt_save_file", 3), ("all_reduce_fusion_config", (1, 2)),
    ("comm_fusion", []), ("pipeline_config", []), ("grad_accumulation_step", "2")])
def test_keys_are_type_checked_as_mindspore_args_type_check(key, value):
    before = ms.get_auto_parallel_context(key)
    with pytest.raises(TypeError, match=f"'{key}' must be .*, but got the type : "
                                        f"{type(value).__name__}"):
        ms.set_auto_parallel_context(**{key: value})
    after = ms.get_auto_parallel_context(key)
    assert after == before and type(after) is type(before)
