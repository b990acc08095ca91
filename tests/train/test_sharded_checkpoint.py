"""Sharded checkpoints in one process: ranks are simulated by slicing whole parameters with
slice_parameter(param, layout, rank); each "rank" saves its file, the files merge back into
the whole values, and whole or per-rank values load into sliced parameters."""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

from minispore import Parameter, ParameterTuple, Tensor
from minispore.common.layout import TensorLayout
from minispore.parallel.checkpoint import merge_sliced_parameter
from minispore.parallel.param_slicing import slice_parameter
from minispore.train import serialization
from minispore.train.serialization import (CheckpointError, load_checkpoint,
                                           load_param_into_net, save_checkpoint)
from minispore.train.sharded_checkpoints import (load_distributed_checkpoint,
                                                 merge_sharded_checkpoints)
from tests.train.test_serialization import ParamHolder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 8
DEV = (2, 4)
LAYOUTS = {"fc.weight": TensorLayout(DEV, (1, 0)),         # dim 0 over 2, dim 1 over 4
           "fc.bias": TensorLayout(DEV, (0,)),             # over 4, replicated over 2
           "head.weight": TensorLayout(DEV, (-1, 1)),      # dim 1 over 2, replicated over 4
           "steps": None}                                  # never sliced


def whole_values(seed=0):
    rng = np.random.default_rng(seed)
    return {"fc.weight": rng.standard_normal((8, 12)).astype(np.float32),
            "fc.bias": rng.standard_normal(12).astype(np.float32),
            "head.weight": rng.standard_normal((3, 4)).astype(np.float64),
            "steps": np.arange(5, dtype=np.int32)}


def rank_net(rank, values=None, layouts=LAYOUTS, momenta=False):
    """A net holding `rank`'s blocks of `values` (and, with momenta, optimizer state cloned
    before slicing, which is sliced alongside)."""
    values = whole_values() if values is None else values
    params = {name: Parameter(arr.copy()) for name, arr in values.items()}
    holder = ParamHolder(**params)
    if momenta:
        moments = ParameterTuple(params.values()).clone("moments", init="ones")
        holder.params.update({m.name: m for m in moments})
    for name, layout in layouts.items():
        if layout is not None:
            slice_parameter(params[name], layout, rank)
    return holder


def save_ranks(tmp_path, nets, name="net.ckpt"):
    files = []
    for rank, net in enumerate(nets):
        path = str(tmp_path / f"rank_{rank}" / name)
        save_checkpoint(net, path, append_dict={"epoch": 3, "tag": "run"})
        files.append(path)
    return files


@pytest.fixture
def rank_files(tmp_path):
    return save_ranks(tmp_path, [rank_net(r) for r in range(N)])


def read_index(path):
    with open(path, "rb") as f:
        blob = f.read()
    _, _, index_len = struct.unpack_from("<8sIQ", blob)
    return {e["name"]: e for e in json.loads(blob[20:20 + index_len])["entries"]}


def test_rank_file_is_self_describing(rank_files):
    index = read_index(rank_files[5])
    assert index["fc.weight"]["layout"] == {"dev_matrix": [2, 4], "tensor_map": [1, 0],
                                            "global_shape": [8, 12], "rank": 5,
                                            "slices": [[4, 8], [3, 6]]}
    assert index["fc.weight"]["shape"] == [4, 3]
    assert index["steps"]["layout"] is None
    loaded = load_checkpoint(rank_files[5])
    w = loaded["fc.weight"]
    assert w.layout == LAYOUTS["fc.weight"] and w.global_shape == (8, 12) and w.layout_rank == 5
    np.testing.assert_array_equal(w.asnumpy(), whole_values()["fc.weight"][4:8, 3:6])
    assert loaded["steps"].layout is None and loaded["tag"] == "run"


def test_merge_round_trip_equals_whole(rank_files, tmp_path):
    out = str(tmp_path / "merged.ckpt")
    merged = merge_sharded_checkpoints(list(reversed(rank_files)), out)
    assert list(merged) == ["fc.weight", "fc.bias", "head.weight", "steps", "epoch", "tag"]
    reloaded = load_checkpoint(out)
    for name, want in whole_values().items():
        for got in (merged[name], reloaded[name]):
            assert got.layout is None and got.dtype == Tensor(want).dtype
            np.testing.assert_array_equal(got.asnumpy(), want)
    assert reloaded["tag"] == "run" and int(reloaded["epoch"].asnumpy()) == 3
    assert all(e["layout"] is None for e in read_index(out).values() if e["kind"] == "tensor")


def test_merge_derived_optimizer_state(tmp_path):
    nets = [rank_net(r, momenta=True) for r in range(N)]
    for r, net in enumerate(nets):       # each rank's momentum block differs from the start
        m = net.params["moments.fc.weight"]
        assert m.layout == LAYOUTS["fc.weight"]
        m.set_data(np.full(m.shape, float(r), np.float32))
    merged = merge_sharded_checkpoints(save_ranks(tmp_path, nets))
    want = np.repeat(np.repeat(np.arange(8, dtype=np.float32).reshape(2, 4), 4, 0), 3, 1)
    np.testing.assert_array_equal(merged["moments.fc.weight"].asnumpy(), want)
    np.testing.assert_array_equal(merged["moments.steps"].asnumpy(), np.ones(5, np.int32))


def test_merge_needs_only_one_replica_per_block(tmp_path):
    layouts = {"w": TensorLayout(DEV, (1, -1))}            # dim 0 over 2, replicated over 4
    values = {"w": np.arange(12, dtype=np.float32).reshape(4, 3)}
    files = save_ranks(tmp_path, [rank_net(r, values, layouts) for r in range(N)])
    merged = merge_sharded_checkpoints([files[0], files[7]])
    np.testing.assert_array_equal(merged["w"].asnumpy(), values["w"])
    with pytest.raises(ValueError, match=r"block\(s\) \[\(1, 0\)\].*rank\(s\) \[4, 5, 6, 7\]"):
        merge_sharded_checkpoints(files[:4])


def test_merge_missing_rank_names_it(rank_files):
    with pytest.raises(ValueError, match=r"'fc.weight'.*\[\(1, 1\)\]; they live on rank\(s\) "
                                         r"\[5\].*got ranks \[0, 1, 2, 3, 4, 6, 7\]"):
        merge_sharded_checkpoints(rank_files[:5] + rank_files[6:])


def test_merge_mismatched_global_shapes(rank_files, tmp_path):
    other = whole_values()
    other["fc.weight"] = np.zeros((16, 12), np.float32)
    odd = save_ranks(tmp_path / "other", [rank_net(r, other) for r in range(N)])
    with pytest.raises(ValueError, match=r"'fc.weight': the files describe different layouts.*"
                                         r"global shape \[8, 12\].*global shape \[16, 12\]"):
        merge_sharded_checkpoints(rank_files[:3] + odd[3:])


def test_merge_mismatched_layout_and_whole_vs_sliced(rank_files, tmp_path):
    layouts = dict(LAYOUTS, **{"fc.weight": TensorLayout(DEV, (0, 1))})
    other = save_ranks(tmp_path / "other", [rank_net(r, layouts=layouts) for r in range(N)])
    with pytest.raises(ValueError, match=r"'fc.weight'.*different layouts.*tensor_map=\(1, 0\)"
                                         r".*tensor_map=\(0, 1\)"):
        merge_sharded_checkpoints(rank_files[:4] + other[4:])
    sliced_steps = dict(LAYOUTS, steps=TensorLayout(DEV, (1,)))
    values = dict(whole_values(), steps=np.arange(6, dtype=np.int32))
    other = save_ranks(tmp_path / "steps", [rank_net(r, values, sliced_steps) for r in range(N)])
    with pytest.raises(ValueError, match=r"'steps'.*rank_0/net.ckpt' holds a whole tensor of "
                                         r"shape \[5\], .*rank_1/net.ckpt' holds blocks of "
                                         r"global shape \[6\]"):
        merge_sharded_checkpoints(rank_files[:1] + other[1:])


def test_merge_replicas_must_agree(tmp_path):
    nets = [rank_net(r) for r in range(N)]
    bias = nets[6].params["fc.bias"]                        # rank 6 holds the replica of rank 2
    bias.set_data(bias.asnumpy() + 1e-3)
    with pytest.raises(ValueError, match=r"'fc.bias'.*rank_6.*rank_2.*replicas of block \(2,\)"
                                         r".*disagree \(max \|difference\| 0.001\)"):
        merge_sharded_checkpoints(save_ranks(tmp_path / "bias", nets))
    merge_sharded_checkpoints(save_ranks(tmp_path / "bias", nets), rtol=0, atol=2e-3)
    nets = [rank_net(r) for r in range(N)]
    nets[3].params["steps"].set_data(np.zeros(5, np.int32))
    with pytest.raises(ValueError, match=r"'steps'.*saved whole by every rank but .*rank_3.*"
                                         r"disagrees.*4 differing elements"):
        merge_sharded_checkpoints(save_ranks(tmp_path / "steps", nets), rtol=1e-2, atol=1e-2)


def test_merge_missing_parameter_duplicate_rank_and_corrupt_file(rank_files, tmp_path):
    lacking = str(tmp_path / "lacking" / "net.ckpt")
    net = rank_net(1)
    del net.params["head.weight"]
    save_checkpoint(net, lacking)
    with pytest.raises(ValueError, match=r"lacking/net.ckpt' lacks parameter\(s\) "
                                         r"\['head.weight', 'epoch', 'tag'\]"):
        merge_sharded_checkpoints([rank_files[0], lacking])
    with pytest.raises(ValueError, match=r"rank_1/net.ckpt' and .*rank_1/net.ckpt' both hold "
                                         r"rank 1's blocks"):
        merge_sharded_checkpoints(rank_files + [rank_files[1]])
    blob = bytearray(open(rank_files[2], "rb").read())
    blob[-40] ^= 0xFF
    open(rank_files[2], "wb").write(bytes(blob))
    with pytest.raises(CheckpointError, match=r"rank_2/net.ckpt'.*checksum"):
        merge_sharded_checkpoints(rank_files)
    with pytest.raises(ValueError, match="rank_9/net.ckpt' does not exist"):
        merge_sharded_checkpoints([str(tmp_path / "rank_9" / "net.ckpt")])
    with pytest.raises(TypeError, match="must be a list of str"):
        merge_sharded_checkpoints(rank_files[0])


@pytest.mark.parametrize("meta, why", [
    ({"dev_matrix": [2, 4], "tensor_map": [1, 0], "global_shape": [8, 12], "rank": 8,
      "slices": [[0, 4], [0, 3]]}, "rank 8 is outside the 8 devices"),
    ({"dev_matrix": [2, 4], "tensor_map": [1, 0], "global_shape": [8, 12], "rank": 1,
      "slices": [[0, 4], [0, 3]]}, r"slices .* disagree with rank 1's block"),
    ({"dev_matrix": [2, 4], "tensor_map": [1, 0], "global_shape": [8, 16], "rank": 0,
      "slices": [[0, 4], [0, 4]]}, r"a block of shape \[4, 3\] cannot be rank 0's block"),
    ({"dev_matrix": [2, 4], "tensor_map": [1, 0]}, "'global_shape'"),
])
def test_corrupt_layout_metadata_names_file_and_parameter(tmp_path, meta, why):
    path = str(tmp_path / "bad.ckpt")
    serialization._write(path, [("fc.weight", np.zeros((4, 3), np.float32), meta)])
    with pytest.raises(CheckpointError, match=rf"parameter 'fc.weight' from the checkpoint file "
                                              rf"'.*bad.ckpt': its layout is corrupted \({why}"):
        load_checkpoint(path)


def test_load_whole_checkpoint_slices_to_each_rank(rank_files, tmp_path):
    out = str(tmp_path / "merged.ckpt")
    merge_sharded_checkpoints(rank_files, out)
    whole = whole_values()
    for rank in (0, 5):
        net = rank_net(rank, {k: np.zeros_like(v) for k, v in whole.items()}, momenta=True)
        param_not_load, ckpt_not_load = load_param_into_net(net, load_checkpoint(out))
        assert sorted(param_not_load) == sorted(n for n in net.params if n.startswith("moments"))
        assert ckpt_not_load == ["epoch", "tag"]
        for name, layout in LAYOUTS.items():
            p = net.params[name]
            want = whole[name] if layout is None else \
                whole[name][layout.local_slices(whole[name].shape, rank)]
            assert p.layout == layout and p.dtype == Tensor(want).dtype
            np.testing.assert_array_equal(p.asnumpy(), want)


def test_load_same_rank_block_as_is(rank_files):
    net = rank_net(3, {k: np.zeros_like(v) for k, v in whole_values().items()})
    load_checkpoint(rank_files[3], net=net)
    np.testing.assert_array_equal(net.params["fc.weight"].asnumpy(),
                                  whole_values()["fc.weight"][0:4, 9:12])
    # rank 7 holds the same bias block as rank 3 (a replica): also loads as is
    load_param_into_net(net, {"fc.bias": load_checkpoint(rank_files[7])["fc.bias"]})


def test_load_errors_name_parameter_shapes_and_layout(rank_files):
    net = rank_net(3)
    with pytest.raises(RuntimeError, match=r"'fc.weight' in the argument 'net' is sliced: rank 3 "
                                           r"holds its block of shape \[4, 3\] of global shape "
                                           r"\[8, 12\] under TensorLayout\(dev_matrix=\(2, 4\), "
                                           r"tensor_map=\(1, 0\)\).*rank_2/net.ckpt'\) has block "
                                           r"shape \[4, 3\] .*\(rank 2's block\)"):
        load_checkpoint(rank_files[2], net=net)
    with pytest.raises(RuntimeError, match=r"'fc.weight' .* sliced.*has shape \[4, 3\], which is "
                                           r"neither the whole value nor this rank's block"):
        load_param_into_net(net, {"fc.weight": Parameter(np.zeros((4, 3), np.float32))})
    with pytest.raises(RuntimeError, match=r"has shape \[8, 13\]"):
        load_param_into_net(net, {"fc.weight": Parameter(np.zeros((8, 13), np.float32))})
    other = rank_net(3, layouts=dict(LAYOUTS, **{"fc.weight": TensorLayout(DEV, (0, 1))}))
    with pytest.raises(RuntimeError, match=r"tensor_map=\(0, 1\).*has block shape \[4, 3\] of "
                                           r"global shape \[8, 12\] under .*tensor_map=\(1, 0\)"):
        load_param_into_net(other, load_checkpoint(rank_files[3]))


def test_load_block_into_whole_net_asks_for_merge(rank_files):
    whole_net = ParamHolder(**{n: Parameter(v) for n, v in whole_values().items()})
    with pytest.raises(RuntimeError, match=r"'fc.weight' in the argument 'net' is whole \(shape "
                                           r"\[8, 12\]\) but .* is one rank's slice.*"
                                           r"merge_checkpoints.py"):
        load_checkpoint(rank_files[0], net=whole_net)


def test_load_distributed_checkpoint(rank_files):
    whole = whole_values()
    whole_net = ParamHolder(**{n: Parameter(np.zeros_like(v)) for n, v in whole.items()})
    load_distributed_checkpoint(whole_net, rank_files)
    np.testing.assert_array_equal(whole_net.params["fc.weight"].asnumpy(), whole["fc.weight"])
    sliced = rank_net(6, {k: np.zeros_like(v) for k, v in whole.items()})
    load_distributed_checkpoint(sliced, rank_files)
    np.testing.assert_array_equal(sliced.params["fc.bias"].asnumpy(), whole["fc.bias"][6:9])
    with pytest.raises(ValueError, match="'predict_strategy' is not supported"):
        load_distributed_checkpoint(sliced, rank_files, predict_strategy={})


def test_merge_sliced_parameter():
    whole = whole_values()["fc.weight"]
    layout = LAYOUTS["fc.weight"]
    slices = [Parameter(whole[layout.local_slices(whole.shape, r)], name="fc.weight")
              for r in range(N)]
    merged = merge_sliced_parameter(slices, {"fc.weight": layout})
    assert merged.name == "fc.weight"
    np.testing.assert_array_equal(merged.asnumpy(), whole)
    rows = [Parameter(whole[2 * i:2 * i + 2], name="t") for i in range(4)]
    np.testing.assert_array_equal(merge_sliced_parameter(rows).asnumpy(), whole)
    carried = [rank_net(r).params["fc.weight"] for r in range(N)]
    np.testing.assert_array_equal(merge_sliced_parameter(carried).asnumpy(), whole)
    with pytest.raises(KeyError):
        merge_sliced_parameter(slices, {"other": layout})
    with pytest.raises(TypeError, match="'strategy' must be a dict"):
        merge_sliced_parameter(slices, [layout])
    with pytest.raises(TypeError, match="non-empty list of Parameter"):
        merge_sliced_parameter([Tensor(whole)])
    with pytest.raises(ValueError, match=r"no file holds its block\(s\) \[\(1, 3\)\]"):
        merge_sliced_parameter(slices[:7], {"fc.weight": layout})


def test_async_save_keeps_layout(tmp_path):
    net = rank_net(4)
    path = str(tmp_path / "a.ckpt")
    save_checkpoint(net, path, async_save=True)
    net.params["fc.weight"].set_data(np.zeros((4, 3), np.float32))
    w = load_checkpoint(path)["fc.weight"]
    assert w.layout_rank == 4
    np.testing.assert_array_equal(w.asnumpy(), whole_values()["fc.weight"][4:8, 0:3])


def run_tool(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "merge_checkpoints.py"),
                           *args], capture_output=True, text=True, cwd=ROOT)


def test_merge_tool(rank_files, tmp_path):
    out = str(tmp_path / "merged.ckpt")
    done = run_tool("-o", out, "--dir", str(tmp_path), "--name", "net.ckpt")
    assert done.returncode == 0, done.stderr
    assert f"merged 8 files into {out}: 5 tensors" in done.stdout
    np.testing.assert_array_equal(load_checkpoint(out)["fc.weight"].asnumpy(),
                                  whole_values()["fc.weight"])
    os.unlink(rank_files[4])
    failed = run_tool("-o", str(tmp_path / "m2.ckpt"), *rank_files[:4], *rank_files[5:])
    assert failed.returncode == 1
    assert "merge_checkpoints: Cannot merge parameter 'fc.weight'" in failed.stderr
    assert "rank(s) [4]" in failed.stderr and not os.path.exists(tmp_path / "m2.ckpt")
