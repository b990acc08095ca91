"""Single process: comm_fusion / all_reduce_fusion_config / gradients_mean validation
(mindspore_semantics.md §2.1, §11.1) and the gradient bucket plan they select."""
import pytest

import minispore as ms
from minispore import nn
from minispore.nn.wrap.grad_reducer import DEFAULT_BUCKET_MB, bucket_plan, fusion_settings


@pytest.mark.parametrize("fusion, error, match", [
    ([1], TypeError, "'comm_fusion' must be a dict"),
    ({"allreduce": {"mode": "auto", "config": None}, "broadcast": {}}, KeyError,
     "must be one of \\['openstate', 'allreduce', 'allgather', 'reducescatter'\\]"),
    ({"allreduce": "auto"}, TypeError, "config of 'allreduce' must be a dict"),
    ({"allreduce": {"mode": "auto"}}, KeyError, "must contain 'config'"),
    ({"allreduce": {"config": None}}, KeyError, "must contain 'mode'"),
    ({"allreduce": {"mode": "fast", "config": None}}, KeyError, "mode of 'allreduce'"),
    ({"allgather": {"mode": "index", "config": [2]}}, KeyError, "\\['auto', 'size'\\]"),
    ({"openstate": 1}, TypeError, "'openstate' must be bool"),
    ({"allreduce": {"mode": "size", "config": -1}}, ValueError, "must be >= 0"),
    ({"allreduce": {"mode": "size", "config": 1.5}}, TypeError, "must be an int"),
    ({"allreduce": {"mode": "index", "config": [3, 3]}}, ValueError, "strictly ascending"),
    ({"allreduce": {"mode": "index", "config": []}}, ValueError, "must not be empty"),
    ({"allreduce": {"mode": "index", "config": (2, 3)}}, TypeError, "must be a list"),
])
def test_comm_fusion_rejects_bad_config(fusion, error, match):
    with pytest.raises(error, match=match):
        ms.set_auto_parallel_context(comm_fusion=fusion)


def test_all_reduce_fusion_config_and_gradients_mean_checks():
    with pytest.raises(ValueError, match="strictly ascending"):
        ms.set_auto_parallel_context(all_reduce_fusion_config=[5, 2])
    with pytest.raises(TypeError, match="must be an int"):
        ms.set_auto_parallel_context(all_reduce_fusion_config=[1, "2"])
    with pytest.raises(TypeError, match="'gradients_mean' must be bool"):
        ms.set_auto_parallel_context(gradients_mean=1)
    ms.set_auto_parallel_context(all_reduce_fusion_config=[2, 4], gradients_mean=True)
    assert ms.get_auto_parallel_context("all_reduce_fusion_config") == [2, 4]


def test_fusion_settings_default_and_modes():
    assert fusion_settings() == ("size", DEFAULT_BUCKET_MB * 1024 * 1024)
    ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 2}})
    assert fusion_settings() == ("size", 2 * 1024 * 1024)
    ms.set_auto_parallel_context(comm_fusion={"openstate": False,
                                              "allreduce": {"mode": "size", "config": 2}})
    assert fusion_settings() == ("none", None)


def test_bucket_plan_never_mixes_dtypes():
    half = ms.Parameter(ms.Tensor([[1.0]], ms.float16), name="half")
    params = [nn.Dense(3, 4).weight, half, nn.Dense(3, 4).bias]
    assert bucket_plan(params, "size", 1 << 30) == [[0], [1], [2]]
    assert bucket_plan(params, "none", None) == [[0], [1], [2]]


def test_bucket_plan_follows_comm_fusion():
    params = [nn.Dense(12, 16).weight, nn.Dense(12, 16).bias] * 3
    for fusion, expected in [
            (None, [[0, 1, 2, 3, 4, 5]]),
            ({"openstate": False}, [[0], [1], [2], [3], [4], [5]]),
            ({"allreduce": {"mode": "index", "config": [2, 5]}}, [[0, 1], [2, 3, 4], [5]]),
            ({"allreduce": {"mode": "size", "config": 0}}, [[0], [1], [2], [3], [4], [5]])]:
        ms.reset_auto_parallel_context()
        if fusion is not None:
            ms.set_auto_parallel_context(comm_fusion=fusion)
        assert bucket_plan(params, *fusion_settings()) == expected
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(all_reduce_fusion_config=[3])
    assert bucket_plan(params, *fusion_settings()) == [[0, 1, 2], [3, 4, 5]]
    # 1 KB fits one 16x12 float32 weight (768 B) and a bias (64 B), not two weights.
    assert bucket_plan(params, "size", 1024) == [[0, 1], [2, 3], [4, 5]]
