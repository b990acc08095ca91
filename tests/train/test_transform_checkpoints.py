"""ms.transform_checkpoints: per-rank files saved under one strategy (8 simulated ranks, device
matrix (2, 4)) re-cut for another (2 ranks, other cuts) from a strategy checkpoint file; the new
files hold exactly the new blocks, merge back to the original values, and load into sliced
parameters."""
import json

import numpy as np
import pytest

import minispore as ms
from minispore.common.layout import TensorLayout
from minispore.train.serialization import load_checkpoint
from minispore.train.sharded_checkpoints import merge_sharded_checkpoints
from tests.train.test_sharded_checkpoint import N, rank_net, save_ranks, whole_values

DST = {"fc.weight": TensorLayout((2,), (-1, 0)),       # columns over 2
       "fc.bias": TensorLayout((2,), (0,)),
       "head.weight": TensorLayout((2,), (0, -1))}      # rows over 2 (3 rows: not divisible)


def _strategy_file(path, layouts, shapes, device_num=2):
    data = {"format": "minispore-strategy/1", "device_num": device_num, "operators": {},
            "parameters": {name: {"dev_matrix": list(l.dev_matrix),
                                  "tensor_map": list(l.tensor_map),
                                  "global_shape": list(shapes[name])}
                           for name, l in layouts.items()}}
    path.write_text(json.dumps(data))
    return str(path)


def test_recut_for_another_strategy_and_device_count(tmp_path):
    values = whole_values()
    save_ranks(tmp_path / "src", [rank_net(r) for r in range(N)])
    layouts = {k: v for k, v in DST.items() if k != "head.weight"}
    dst_file = _strategy_file(tmp_path / "dst.json", layouts,
                              {k: values[k].shape for k in layouts})
    written = ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "dst"), "net_",
                                       dst_strategy_file=dst_file)
    assert [p.split("/")[-2:] for p in written] == [["rank_0", "net_0.ckpt"],
                                                    ["rank_1", "net_1.ckpt"]]
    for rank, path in enumerate(written):
        loaded = load_checkpoint(path)
        cols = slice(6 * rank, 6 * rank + 6)
        np.testing.assert_array_equal(loaded["fc.weight"].asnumpy(), values["fc.weight"][:, cols])
        np.testing.assert_array_equal(loaded["fc.bias"].asnumpy(), values["fc.bias"][cols])
        np.testing.assert_array_equal(loaded["head.weight"].asnumpy(), values["head.weight"])
    merged = merge_sharded_checkpoints(written)
    for name, value in values.items():
        np.testing.assert_array_equal(merged[name].asnumpy(), value)


def test_without_a_destination_strategy_one_whole_file(tmp_path):
    values = whole_values()
    save_ranks(tmp_path / "src", [rank_net(r) for r in range(N)])
    (path,) = ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "dst"), "whole_")
    loaded = load_checkpoint(path)
    for name, value in values.items():
        np.testing.assert_array_equal(loaded[name].asnumpy(), value)


def test_errors(tmp_path):
    values = whole_values()
    with pytest.raises(ValueError, match="no checkpoint files were found"):
        ms.transform_checkpoints(str(tmp_path / "nothing"), str(tmp_path / "dst"), "x")
    save_ranks(tmp_path / "src", [rank_net(r) for r in range(N)])
    bad_shape = _strategy_file(tmp_path / "bad.json", {"fc.bias": DST["fc.bias"]},
                               {"fc.bias": (10,)})
    with pytest.raises(ValueError, match=r"global shape \(10,\), but the checkpoint holds "
                                         r"\(12,\)"):
        ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "dst"), "x",
                                 dst_strategy_file=bad_shape)
    proto = tmp_path / "strategy.ckpt"
    proto.write_bytes(b"\x08\x01")
    with pytest.raises(ValueError, match="dst_strategy_file.*protobuf files cannot be read"):
        ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "dst"), "x",
                                 dst_strategy_file=str(proto))
    head = _strategy_file(tmp_path / "head.json", {"head.weight": DST["head.weight"]},
                          {"head.weight": values["head.weight"].shape})
    with pytest.raises(ValueError, match="cannot take layout"):
        ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "dst"), "x",
                                 dst_strategy_file=head)
    with pytest.raises(NotImplementedError, match="output_format='safetensors'"):
        ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "dst"), "x",
                                 output_format="safetensors")
