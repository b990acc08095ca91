"""mindspore.mindrecord.FileWriter and mindspore.dataset.MindDataset: round trips, shard sets,
sharded reading and the errors, against what MindSpore 2.7.2 returns for the same writes
(recorded below as literals; MindSpore's files themselves are a different layout)."""
import logging
import os
import sqlite3

import numpy as np
import pytest

import minispore.dataset as ds
from minispore.dataset.engine import mindrecord_format as fmt
from minispore.mindrecord import (FileWriter, MRMAddSchemaError, MRMDefineIndexError,
                                  MRMInvalidSchemaError, ParamTypeError, ParamValueError)

SCHEMA = {"file_name": {"type": "string"}, "label": {"type": "int32"}, "f": {"type": "float64"},
          "data": {"type": "bytes"}, "arr": {"type": "float32", "shape": [2, 3]},
          "vec": {"type": "int64", "shape": [-1]}}


def _rows(n=5):
    return [{"file_name": f"{i}.jpg", "label": i, "f": i * 0.5, "data": bytes([i, 255, 0, i]),
             "arr": np.arange(6, dtype=np.float32).reshape(2, 3) + i,
             "vec": np.arange(i + 1, dtype=np.int64)} for i in range(n)]


def _write(path, schema, rows, shard_num=1, calls=1):
    w = FileWriter(str(path), shard_num=shard_num, overwrite=True)
    w.add_schema(schema, "test")
    per = -(-len(rows) // calls)
    for c in range(calls):
        w.write_raw_data(rows[c * per:(c + 1) * per])
    w.commit()


def _ids(dataset, col="id"):
    return [int(r[col]) for r in dataset.create_dict_iterator(output_numpy=True)]


def test_round_trip_matches_mindspore(tmp_path):
    path = tmp_path / "a.mindrecord"
    w = FileWriter(str(path), shard_num=1, overwrite=True)
    assert w.add_schema(SCHEMA, "test") is None
    assert w.add_index(["file_name", "label"]) is None
    assert w.write_raw_data(_rows()) is None
    assert w.commit() is None
    assert sorted(os.listdir(tmp_path)) == ["a.mindrecord", "a.mindrecord.db"]
    d = ds.MindDataset(str(path), shuffle=False)
    # MindSpore 2.7.2 sorts the columns by name
    assert d.get_col_names() == ["arr", "data", "f", "file_name", "label", "vec"]
    assert d.get_dataset_size() == 5
    got = list(d.create_dict_iterator(output_numpy=True))
    for i, row in enumerate(got):
        # MindSpore: arr float32 (2, 3); data |S4 (1,); f float64 (); file_name <U5 ();
        # label int32 (); vec int64 (i+1,)
        np.testing.assert_array_equal(row["arr"], np.arange(6, dtype=np.float32).reshape(2, 3) + i)
        assert row["arr"].dtype == np.float32 and row["arr"].shape == (2, 3)
        assert row["data"].dtype == np.dtype("S4") and row["data"].shape == (1,)
        assert row["data"].tobytes() == bytes([i, 255, 0, i])
        assert row["f"].dtype == np.float64 and row["f"].shape == () and row["f"] == i * 0.5
        assert row["file_name"].dtype == np.dtype("<U5") and str(row["file_name"]) == f"{i}.jpg"
        assert row["label"].dtype == np.int32 and row["label"].shape == () and row["label"] == i
        assert row["vec"].dtype == np.int64 and row["vec"].tolist() == list(range(i + 1))
    # MindSpore shows row 0's bytes as [b'\x00\xff'] (numpy drops the trailing NULs)
    assert got[0]["data"].tolist() == [b"\x00\xff"]


def test_values_are_cast_and_reshaped_as_mindspore_does(tmp_path, caplog):
    schema = {"f": {"type": "float32"}, "d": {"type": "float64"}, "i": {"type": "int64"},
              "a": {"type": "int32", "shape": [2, -1]}, "s": {"type": "string"}}
    rows = [{"f": 0.1, "d": 0.1, "i": 2 ** 40, "a": np.arange(6, dtype=np.int32), "s": "héllo"},
            # an int for a float64 field: MindSpore leaves the row out with a warning
            {"f": np.float32(2.5), "d": 1, "i": 3, "a": np.arange(4, dtype=np.int32), "s": ""}]
    with caplog.at_level(logging.WARNING, "minispore"):
        _write(tmp_path / "v.mindrecord", schema, rows)
    assert "for schema, 1 th data is wrong, data type: 'float64' for field: 'd' is not " \
           "matched." in caplog.text
    got = list(ds.MindDataset(str(tmp_path / "v.mindrecord"), shuffle=False)
               .create_dict_iterator(output_numpy=True))
    assert len(got) == 1
    row = got[0]
    assert row["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and row["a"].dtype == np.int32
    assert row["f"].dtype == np.float32 and row["f"] == np.float32(0.1)
    assert row["d"].dtype == np.float64 and row["d"] == 0.1
    assert row["i"].dtype == np.int64 and row["i"] == 1099511627776
    assert str(row["s"]) == "héllo"


def test_shard_set_names_and_reading_order(tmp_path):
    base = tmp_path / "p.mindrecord"
    _write(base, {"id": {"type": "int64"}}, [{"id": i} for i in range(6)], shard_num=3)
    names = sorted(os.listdir(tmp_path))
    assert names == ["p.mindrecord0", "p.mindrecord0.db", "p.mindrecord1", "p.mindrecord1.db",
                     "p.mindrecord2", "p.mindrecord2.db"]
    # MindSpore 2.7.2: 6 rows over 3 shards -> [[0, 1], [2, 3], [4, 5]]
    assert [_ids(ds.MindDataset([f"{base}{j}"], shuffle=False)) for j in range(3)] == \
        [[0, 1], [2, 3], [4, 5]]
    # one file of the set reads the whole set in shard order; a list reads just its files
    for j in range(3):
        assert _ids(ds.MindDataset(f"{base}{j}", shuffle=False)) == [0, 1, 2, 3, 4, 5]
    assert _ids(ds.MindDataset([f"{base}2", f"{base}0"], shuffle=False)) == [4, 5, 0, 1]
    # 11 shards name their files with two digits, as MindSpore does
    _write(tmp_path / "w.mindrecord", {"id": {"type": "int64"}}, [{"id": 1}], shard_num=11)
    assert os.path.isfile(tmp_path / "w.mindrecord00") and \
        os.path.isfile(tmp_path / "w.mindrecord10")


def test_uneven_writes_spread_over_the_shards(tmp_path):
    # MindSpore gives each call's remainder rows to randomly chosen shards; minispore to the
    # shards holding fewest rows, so the files stay balanced
    base = tmp_path / "q.mindrecord"
    _write(base, {"id": {"type": "int64"}}, [{"id": i} for i in range(9)], shard_num=4, calls=3)
    parts = [_ids(ds.MindDataset([f"{base}{j}"], shuffle=False)) for j in range(4)]
    assert sorted(sum(parts, [])) == list(range(9))
    assert sorted(len(p) for p in parts) == [2, 2, 2, 3]


def test_num_shards_and_samplers_match_mindspore(tmp_path):
    path = str(tmp_path / "o.mindrecord")
    _write(path, {"id": {"type": "int64"}}, [{"id": i} for i in range(12)])
    expected = {2: [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 11]],
                5: [[0, 5, 10], [1, 6, 11], [2, 7, 0], [3, 8, 1], [4, 9, 2]],
                13: [[i % 12] for i in range(13)]}
    for n, want in expected.items():
        assert [_ids(ds.MindDataset(path, shuffle=False, num_shards=n, shard_id=i))
                for i in range(n)] == want
    assert _ids(ds.MindDataset(path, shuffle=False, num_shards=5, shard_id=2, num_samples=2)) \
        == [2, 7]
    assert _ids(ds.MindDataset(path, shuffle=False, num_samples=4)) == [0, 1, 2, 3]
    assert _ids(ds.MindDataset(path, sampler=ds.SequentialSampler(2, 3))) == [2, 3, 4]
    assert _ids(ds.MindDataset(path, sampler=ds.SubsetSampler([5, 1, 7]))) == [5, 1, 7]
    batches = ds.MindDataset(path, shuffle=False).batch(5, drop_remainder=True)
    assert [b["id"].tolist() for b in batches.create_dict_iterator(output_numpy=True)] == \
        [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    # the default shuffles (Shuffle.ADAPTIVE: global); every shard of a shuffled epoch agrees
    ds.config.set_seed(3)
    shuffled = _ids(ds.MindDataset(path))
    assert sorted(shuffled) == list(range(12)) and shuffled != list(range(12))
    halves = [_ids(ds.MindDataset(path, num_shards=2, shard_id=i)) for i in range(2)]
    assert sorted(halves[0] + halves[1]) == list(range(12))


def test_file_and_infile_shuffles_keep_their_unit(tmp_path):
    base = tmp_path / "s.mindrecord"
    _write(base, {"id": {"type": "int64"}}, [{"id": i} for i in range(12)], shard_num=3)
    ds.config.set_seed(5)
    files = [_ids(ds.MindDataset(f"{base}0", shuffle=ds.Shuffle.FILES)) for _ in range(4)]
    blocks = {(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11)}
    for order in files:
        assert {tuple(order[k:k + 4]) for k in (0, 4, 8)} == blocks
    infile = _ids(ds.MindDataset(f"{base}0", shuffle=ds.Shuffle.INFILE))
    assert [sorted(infile[k:k + 4]) for k in (0, 4, 8)] == [[0, 1, 2, 3], [4, 5, 6, 7],
                                                           [8, 9, 10, 11]]
    with pytest.raises(ValueError, match="cannot be specified at the same time"):
        ds.MindDataset(f"{base}0", shuffle=ds.Shuffle.FILES, num_samples=2)
    with pytest.raises(NotImplementedError, match="num_shards"):
        ds.MindDataset(f"{base}0", shuffle=ds.Shuffle.INFILE, num_shards=2, shard_id=0)


def test_columns_list_and_append(tmp_path):
    path = str(tmp_path / "o.mindrecord")
    _write(path, {"id": {"type": "int64"}, "z": {"type": "float32", "shape": [-1, 2]},
                  "b_first": {"type": "int32"}},
           [{"id": i, "z": np.full(4, i, np.float32), "b_first": -i} for i in range(3)])
    d = ds.MindDataset(path, columns_list=["z", "id"], shuffle=False)
    assert d.get_col_names() == ["z", "id"]
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert rows[2][0].shape == (2, 2) and rows[2][0].tolist() == [[2.0, 2.0], [2.0, 2.0]]
    w = FileWriter.open_for_append(path)
    w.write_raw_data([{"id": 100, "z": np.zeros(2, np.float32), "b_first": 0}])
    w.commit()
    assert _ids(ds.MindDataset(path, shuffle=False)) == [0, 1, 2, 100]
    # appending to a shard set spreads the rows as a new write would (MindSpore 2.7.2 gives
    # [[0, 1, 100], [2, 3, 101], [4, 5, 102]] for this one)
    base = tmp_path / "p.mindrecord"
    _write(base, {"id": {"type": "int64"}}, [{"id": i} for i in range(6)], shard_num=3)
    w = FileWriter.open_for_append(f"{base}1")
    w.write_raw_data([{"id": 100}, {"id": 101}, {"id": 102}])
    w.commit()
    assert [_ids(ds.MindDataset([f"{base}{j}"], shuffle=False)) for j in range(3)] == \
        [[0, 1, 100], [2, 3, 101], [4, 5, 102]]


def test_index_db_companion_holds_the_index_fields(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    w = FileWriter(path, overwrite=True)
    w.add_schema(SCHEMA, "test")
    w.add_index(["label"])
    w.write_raw_data(_rows(3))
    w.commit()
    con = sqlite3.connect(path + ".db")
    assert con.execute("SELECT ROW_ID, label FROM INDEXES").fetchall() == [(0, 0), (1, 1), (2, 2)]
    con.close()


def test_writer_errors_match_mindspore(tmp_path):
    path = str(tmp_path / "c.mindrecord")
    _write(path, {"label": {"type": "int32"}}, [{"label": 1}])
    w = FileWriter(path)                 # MindSpore checks the file when it first writes
    w.add_schema({"label": {"type": "int32"}}, "d")
    with pytest.raises(RuntimeError, match="(?s)mindrecord files already exist.*overwrite"):
        w.write_raw_data([{"label": 1}])
    with pytest.raises(ParamValueError, match=r"shard_num's value: 0 should between 1 and 1000"):
        FileWriter(path, 0)
    with pytest.raises(ParamValueError, match="shard_num's type is not int"):
        FileWriter(path, "2")
    with pytest.raises(ParamValueError, match="overwrite's type is not bool"):
        FileWriter(path, overwrite="yes")
    assert str(ParamValueError("x")) == "[ParamValueError]: Invalid parameter value. x"
    w = FileWriter(str(tmp_path / "e.mindrecord"), overwrite=True)
    bad = [({"a": {"type": "int8"}}, "Field 'a' contain illegal attribute 'int8'."),
           ({"a": {"type": "string", "shape": [2]}}, "Field 'a' contain illegal attribute "
                                                     "'string'."),
           ({"a": {"typ": "int32"}}, "Field '{'typ': 'int32'}' contains illegal attributes."),
           ({"a-b": {"type": "int32"}}, "Field 'a-b' should be composed of '0-9' or 'a-z' or "
                                        "'A-Z' or '_'."),
           ([1], "Schema content should be dict.")]
    for schema, msg in bad:
        with pytest.raises(MRMInvalidSchemaError) as e:
            w.add_schema(schema, "x")
        assert str(e.value) == f"[MRMInvalidSchemaError]: Schema format is error. Detail: {msg}"
    w.add_schema({"a": {"type": "int32"}, "arr": {"type": "float32", "shape": [2]},
                  "b": {"type": "bytes"}}, "x")
    with pytest.raises(MRMAddSchemaError):
        w.add_schema({"b": {"type": "int32"}}, "y")
    for field in ("arr", "b"):
        with pytest.raises(MRMDefineIndexError, match=f"Failed to set field {field} since it's "
                                                      f"not primitive type"):
            w.add_index([field])
    with pytest.raises(ParamTypeError, match="'index_fields' expect list type"):
        w.add_index("a")
    with pytest.raises(RuntimeError, match="'index_fields': zz can not found in schema"):
        w.add_index(["zz"])
    with pytest.raises(ParamTypeError, match="'raw_data' expect list type"):
        w.write_raw_data({"a": 1})
    ok = {"a": 1, "arr": np.zeros(2, np.float32), "b": b"x"}
    for wrong in ({"a": 1, "arr": np.zeros(3, np.float32), "b": b"x"},      # shape
                  {"a": 1, "arr": np.zeros(2, np.float64), "b": b"x"},      # dtype
                  {"a": 1, "arr": [1.0, 2.0], "b": b"x"},                   # a list
                  {"a": 1, "arr": np.zeros(2, np.float32), "b": "x"},       # str for bytes
                  {"a": True, "arr": np.zeros(2, np.float32), "b": b"x"},   # bool
                  {"arr": np.zeros(2, np.float32), "b": b"x"}):             # missing field
        with pytest.raises(RuntimeError, match="There is no valid data which can be written"):
            w.write_raw_data([wrong])
    with pytest.raises(RuntimeError, match="There is no valid data"):
        w.write_raw_data([])
    with pytest.raises(RuntimeError, match=r"field 'a' is int32 but the value 1099511627776"):
        w.write_raw_data([dict(ok, a=2 ** 40)])
    w.write_raw_data([dict(ok, a=np.int32(3))])
    w.commit()
    with pytest.raises(RuntimeError, match="Not allowed to call `write_raw_data` on flushed"):
        w.write_raw_data([ok])
    w = FileWriter(str(tmp_path / "f.mindrecord"), overwrite=True)
    with pytest.raises(RuntimeError, match="schema is not found in header"):
        w.commit()


def test_reader_errors(tmp_path):
    path = str(tmp_path / "v.mindrecord")
    _write(path, {"f": {"type": "float32"}}, [{"f": 1.0}])
    with pytest.raises(ValueError, match="does not exist or permission denied"):
        ds.MindDataset(str(tmp_path / "nope.mindrecord"))
    with pytest.raises(RuntimeError, match="column name: nope can not found in schema"):
        ds.MindDataset(path, columns_list=["nope"])
    with pytest.raises(RuntimeError, match="duplicate column names are not allowed: f"):
        ds.MindDataset(path, columns_list=["f", "f"])
    with pytest.raises(TypeError, match="columns_list"):
        ds.MindDataset(path, columns_list="f")
    with pytest.raises(TypeError, match="shuffle must be of boolean or enum of 'Shuffle'"):
        ds.MindDataset(path, shuffle=3)
    with pytest.raises(RuntimeError, match="sampler and shuffle cannot be specified"):
        ds.MindDataset(path, shuffle=False, sampler=ds.SequentialSampler())
    with pytest.raises(NotImplementedError, match="padded_sample"):
        ds.MindDataset(path, padded_sample={"f": 0.0}, num_padded=1)
    other = tmp_path / "not.mindrecord"
    other.write_bytes(b"\x00" * 64)
    with pytest.raises(RuntimeError, match="not a MindRecord file written by minispore"):
        ds.MindDataset(str(other))


def test_empty_file_reads_as_empty(tmp_path):
    path = str(tmp_path / "e.mindrecord")
    w = FileWriter(path, overwrite=True)
    w.add_schema({"a": {"type": "int32"}, "v": {"type": "int32", "shape": [-1]}}, "x")
    w.commit()
    d = ds.MindDataset(path, shuffle=False)
    assert d.get_dataset_size() == 0 and list(d) == []
    assert fmt.read_header(path)["rows"] == 0


def test_dataset_save_widens_types_as_mindspore(tmp_path, mnist10):
    # MindSpore 2.7.2 writes MNIST's uint8 image as int32 and uint32 label as int64, and a
    # generator's bool/int8/uint8 as int32 (recorded from its MindDataset read-back)
    out = str(tmp_path / "m.mindrecord")
    ds.MnistDataset(mnist10, shuffle=False, num_samples=5).save(out)
    assert os.path.isfile(out) and os.path.isfile(out + ".db")
    back = ds.MindDataset(out, shuffle=False)
    assert back.get_col_names() == ["image", "label"]
    rows = list(back.create_dict_iterator(output_numpy=True))
    assert [int(r["label"]) for r in rows] == [0, 1, 2, 3, 4]
    assert rows[3]["image"].dtype == np.int32 and rows[3]["image"].shape == (28, 28, 1)
    assert (rows[3]["image"] == 3).all() and rows[3]["label"].dtype == np.int64

    def gen():
        for i in range(3):
            yield (np.array([i, i + 1], np.float32), np.int32(i), np.array(i, np.int64),
                   np.array([[1, 2], [3, 4]], np.uint8), f"s{i}", np.float64(i),
                   np.array([True]), np.int8(i))
    names = ["a", "b", "c", "d", "e", "f", "g", "h"]
    out = str(tmp_path / "g.mindrecord")
    ds.GeneratorDataset(gen, names, shuffle=False).save(out)
    got = list(ds.MindDataset(out, shuffle=False).create_dict_iterator(output_numpy=True))
    want = {"a": (np.float32, (2,)), "b": (np.int32, ()), "c": (np.int64, ()),
            "d": (np.int32, (2, 2)), "f": (np.float64, ()), "g": (np.int32, (1,)),
            "h": (np.int32, ())}
    for name, (dtype, shape) in want.items():
        assert got[2][name].dtype == dtype and got[2][name].shape == shape, name
    assert got[2]["a"].tolist() == [2.0, 3.0] and str(got[2]["e"]) == "s2"
    # a batched pipeline's short last batch fits ([-1, ...] shapes); num_files shards
    out = str(tmp_path / "b.mindrecord")
    ds.MnistDataset(mnist10, shuffle=False, num_samples=5).batch(2).save(out, num_files=2)
    assert os.path.isfile(out + "0") and os.path.isfile(out + "1")
    shapes = sorted(r["image"].shape for r in ds.MindDataset(out + "0", shuffle=False)
                    .create_dict_iterator(output_numpy=True))
    assert shapes == [(1, 28, 28, 1), (2, 28, 28, 1), (2, 28, 28, 1)]
    with pytest.raises(RuntimeError, match="mindrecord files already exist"):
        ds.MnistDataset(mnist10, shuffle=False).save(str(tmp_path / "m.mindrecord"))
    with pytest.raises(ValueError, match="tfrecord dataset format is not supported"):
        ds.MnistDataset(mnist10, shuffle=False).save(str(tmp_path / "x"), file_type="tfrecord")
