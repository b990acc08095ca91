"""Checkpoint files whose index was crafted (with a valid checksum, so only the index checks
stand between the file and numpy): each defect raises CheckpointError naming the file, the
entry and what is wrong."""
import hashlib
import json
import struct

import numpy as np
import pytest

from minispore.train.serialization import MAGIC, CheckpointError, load_checkpoint
from minispore.train.sharded_checkpoints import merge_sharded_checkpoints

DATA = np.arange(4, dtype=np.float32).tobytes() + bytes(48)          # one 64-byte data block
GOOD = {"name": "w", "kind": "tensor", "dtype": "<f4", "ms_dtype": "Float32", "shape": [2, 2],
        "offset": 0, "nbytes": 16, "layout": None}


def write_crafted(path, index, data=DATA):
    """A file in the checkpoint layout around `index` (a dict, or raw JSON bytes), with the
    padding and the SHA-256 digest a real writer produces."""
    raw = index if isinstance(index, bytes) else json.dumps(index).encode()
    head = struct.pack("<8sIQ", MAGIC, 1, len(raw)) + raw
    body = head + bytes(-len(head) % 64) + data
    with open(path, "wb") as f:
        f.write(body + hashlib.sha256(body).digest())
    return str(path)


def entries(*items, data_len=len(DATA)):
    return {"entries": list(items), "data_len": data_len}


def load_error(tmp_path, index):
    path = write_crafted(tmp_path / "crafted.ckpt", index)
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    assert "crafted.ckpt'" in str(info.value)
    return str(info.value)


def test_crafted_file_helper_writes_a_loadable_checkpoint(tmp_path):
    path = write_crafted(tmp_path / "good.ckpt", entries(GOOD))
    np.testing.assert_array_equal(load_checkpoint(path)["w"].asnumpy(), [[0, 1], [2, 3]])


def test_deeply_nested_index(tmp_path):
    nested = b'{"entries": ' + b"[" * 100_000 + b"]" * 100_000 + b', "data_len": 64}'
    assert "the index nests too deeply" in load_error(tmp_path, nested)


@pytest.mark.parametrize("index, why", [
    ([GOOD], "the index is a JSON list, not an object"),
    ({"entries": {"w": GOOD}, "data_len": 64}, "'entries' is of type dict; it must be a list"),
    ({"entries": 3, "data_len": 64}, "'entries' is of type int; it must be a list"),
    ({"data_len": 64}, "'entries' is missing; it must be a list"),
])
def test_entries_not_a_list(tmp_path, index, why):
    assert why in load_error(tmp_path, index)


@pytest.mark.parametrize("entry, what", [([1, 2], "list"), ("w", "str"), (None, "NoneType")])
def test_entry_not_an_object(tmp_path, entry, what):
    assert f"entry 1 of the index is a {what}, not an object" in \
        load_error(tmp_path, entries(GOOD, entry))


@pytest.mark.parametrize("name", [None, "", 7])
def test_entry_without_a_name(tmp_path, name):
    entry = {k: v for k, v in GOOD.items() if k != "name"}
    if name is not None:
        entry["name"] = name
    message = load_error(tmp_path, entries(entry))
    assert f"entry 0 of the index has no name (its 'name' is {name!r}" in message


def test_entry_name_twice(tmp_path):
    message = load_error(tmp_path, entries(GOOD, dict(GOOD, offset=0)))
    assert "the name 'w' appears twice in the index (entries 0 and 1)" in message


@pytest.mark.parametrize("field, value", [("offset", -16), ("nbytes", -16), ("offset", 1.5),
                                          ("offset", True), ("offset", "0")])
def test_negative_or_non_integer_offsets(tmp_path, field, value):
    message = load_error(tmp_path, entries(dict(GOOD, **{field: value})))
    assert f"parameter 'w' from the checkpoint file" in message
    assert f"its {field} is {value!r}; it must be a non-negative int" in message


def test_infinite_offset(tmp_path):
    raw = json.dumps(entries(GOOD)).replace('"offset": 0', '"offset": Infinity').encode()
    assert "its offset is inf; it must be a non-negative int" in load_error(tmp_path, raw)


@pytest.mark.parametrize("offset, nbytes, shape", [(64, 16, [2, 2]), (2 ** 70, 16, [2, 2]),
                                                   (56, 16, [2, 2]), (0, 128, [32])])
def test_offsets_outside_the_data_block(tmp_path, offset, nbytes, shape):
    message = load_error(tmp_path, entries(dict(GOOD, offset=offset, nbytes=nbytes,
                                                shape=shape)))
    assert f"its bytes [{offset}, {offset + nbytes}) lie outside the data block of 64 bytes" \
        in message


@pytest.mark.parametrize("shape", [[-2, -2], [2, -1], [2.0, 2], [[2], 2], "2x2", [1] * 65])
def test_negative_or_malformed_shapes(tmp_path, shape):
    message = load_error(tmp_path, entries(dict(GOOD, shape=shape)))
    assert "is not a list of at most 64 non-negative ints" in message


@pytest.mark.parametrize("shape, nbytes", [
    ([2 ** 32, 2 ** 32], 0),            # 2**64 elements: wraps to 0 in int64
    ([2 ** 62 + 1, 4], 16),             # wraps to 4 elements, 16 bytes of float32
    ([0, 2 ** 62, 2 ** 62], 0),         # empty, but more than numpy can describe
])
def test_overflowing_shapes(tmp_path, shape, nbytes):
    message = load_error(tmp_path, entries(dict(GOOD, shape=shape, nbytes=nbytes)))
    assert f"its shape {shape} is too large for an array" in message


def test_nbytes_disagreeing_with_shape(tmp_path):
    message = load_error(tmp_path, entries(dict(GOOD, shape=[3, 2])))
    assert "its nbytes 16 disagrees with shape [3, 2] of <f4, which needs 24 bytes" in message


@pytest.mark.parametrize("dtype", ["|O", "<U4", ">f4", "f4,f4", ["<f4"], None])
def test_unsupported_dtypes(tmp_path, dtype):
    message = load_error(tmp_path, entries(dict(GOOD, dtype=dtype)))
    assert f"its dtype {dtype!r} is not one of ['<f2', '<f4'" in message


def test_dtype_disagreeing_with_ms_dtype(tmp_path):
    message = load_error(tmp_path, entries(dict(GOOD, ms_dtype="Int32")))
    assert "dtype <f4 disagrees with ms_dtype 'Int32' (expected 'Float32')" in message


@pytest.mark.parametrize("data_len", [-64, 64.0, None, "64"])
def test_bad_data_len(tmp_path, data_len):
    message = load_error(tmp_path, entries(GOOD, data_len=data_len))
    assert f"the index's 'data_len' is {data_len!r}; it must be a non-negative int" in message


@pytest.mark.parametrize("run", [[1], {"id": 5, "strategy": None}, {"id": "a", "strategy": 3},
                                 {"strategy": None}])
def test_malformed_run_record(tmp_path, run):
    message = load_error(tmp_path, dict(entries(GOOD), run=run))
    assert "the index's 'run' record" in message
    assert "is not {'id': str, 'strategy': str or null}" in message


@pytest.mark.parametrize("pipeline", [
    [0], {"stages": 2, "stage": 0, "stage_size": 1}, {"stages": 2, "stage": 2, "stage_size": 1,
                                                      "rank": 2},
    {"stages": 2, "stage": 1, "stage_size": 2, "rank": 1},          # rank 1 is in stage 0
    {"stages": 2, "stage": True, "stage_size": 1, "rank": 0},
    {"stages": 4096, "stage": 0, "stage_size": 2, "rank": 0},        # more than 4096 devices
    {"stages": 2, "stage": 0, "stage_size": 1, "rank": 0, "extra": 1}])
def test_malformed_pipeline_record(tmp_path, pipeline):
    message = load_error(tmp_path, dict(entries(GOOD), pipeline=pipeline))
    assert "the index's 'pipeline' record" in message
    assert "is not {'stages': int, 'stage': int, 'stage_size': int, 'rank': int} of a rank " \
           "in that stage" in message


def test_merge_refuses_stage_files_of_different_pipelines_or_with_plain_files(tmp_path):
    def crafted(name, pipeline=None):
        index = entries(dict(GOOD, name=name))
        if pipeline is not None:
            index["pipeline"] = dict(zip(("stages", "stage", "stage_size", "rank"), pipeline))
        return write_crafted(tmp_path / f"{name}.ckpt", index)

    first, second = crafted("a", (2, 0, 1, 0)), crafted("b", (2, 1, 1, 1))
    assert set(merge_sharded_checkpoints([first, second])) == {"a", "b"}
    with pytest.raises(ValueError, match=r"none from stage 1 \(rank\(s\) \[1\]\)"):
        merge_sharded_checkpoints([first])
    with pytest.raises(ValueError, match=r"saved by different pipelines \(.*a.ckpt' by a "
                                         r"pipeline of 2 stages of 1 device\(s\); .*c.ckpt' by "
                                         r"a pipeline of 4 stages of 1 device\(s\)\)"):
        merge_sharded_checkpoints([first, crafted("c", (4, 1, 1, 1))])
    with pytest.raises(ValueError, match=r"d.ckpt' was saved without pipeline parallel but "
                                         r".*a.ckpt' by a pipeline stage"):
        merge_sharded_checkpoints([first, second, crafted("d")])


def test_unknown_kind_and_str_entry_without_value(tmp_path):
    assert "its kind is 'pickle'; valid kinds are ['tensor', 'str']" in \
        load_error(tmp_path, entries(dict(GOOD, kind="pickle")))
    assert "parameter 's' from the checkpoint file" in \
        load_error(tmp_path, entries({"name": "s", "kind": "str"}))
    assert "its value is of type list, but a 'str' entry holds a str" in \
        load_error(tmp_path, entries({"name": "s", "kind": "str", "value": [1]}))


LAYOUT = {"dev_matrix": [2], "tensor_map": [0], "global_shape": [4, 2], "rank": 1,
          "slices": [[2, 4], [0, 2]]}


def test_sliced_entry_loads_with_its_layout(tmp_path):
    path = write_crafted(tmp_path / "block.ckpt",
                         entries(dict(GOOD, layout=dict(LAYOUT, tensor_map=[0, -1]))))
    assert load_checkpoint(path)["w"].global_shape == (4, 2)


@pytest.mark.parametrize("layout, why", [
    ([2, 0], "its layout is a list, not an object or null"),
    (dict(LAYOUT, tensor_map=[0, -1], rank=float("inf")), "its layout is corrupted (cannot "
                                                         "convert float infinity to integer"),
    (dict(LAYOUT, dev_matrix=[2 ** 40], tensor_map=[0, -1], global_shape=[2 ** 41, 2]),
     "its layout is corrupted (dev_matrix [1099511627776] spans 1099511627776 devices, more "
     "than the 4096 a run may have"),
])
def test_malformed_layouts(tmp_path, layout, why):
    assert why in load_error(tmp_path, entries(dict(GOOD, layout=layout)))


def test_merge_names_the_crafted_file(tmp_path):
    path = write_crafted(tmp_path / "crafted.ckpt", entries({"kind": "tensor"}))
    with pytest.raises(CheckpointError, match=r"crafted\.ckpt': entry 0 of the index has no "
                                              r"name"):
        merge_sharded_checkpoints([path])
