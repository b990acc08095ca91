"""Schema (JSON as MindSpore 2.7.2 writes and reads it) and RandomDataset (shapes, dtypes, row
counts and seeding; the values are random)."""
import json

import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds


def compact(schema):
    return schema.to_json().replace("\n", "").replace(" ", "")


@pytest.fixture
def image_label():
    s = ds.Schema()
    s.add_column("image", de_type=ms.uint8, shape=[2, 3])
    s.add_column("label", de_type="int32", shape=[1])
    return s


def rows(data, num_epochs=1):
    return list(data.create_dict_iterator(output_numpy=True, num_epochs=num_epochs))


def test_schema_to_json_matches_mindspore(image_label):
    assert image_label.to_json() == (
        '{\n  "columns": [\n    {\n      "name": "image",\n      "rank": 2,\n      "shape": [\n'
        '        2,\n        3\n      ],\n      "type": "uint8"\n    },\n    {\n      "name": '
        '"label",\n      "rank": 1,\n      "shape": [\n        1\n      ],\n      "type": '
        '"int32"\n    }\n  ]\n}')
    assert str(image_label) == image_label.to_json()
    s = ds.Schema()
    s.add_column("x", "float32", [-1])
    s.add_column("y", ms.float64)           # no shape: rank 1, no "shape" key
    assert compact(s) == ('{"columns":[{"name":"x","rank":1,"shape":[-1],"type":"float32"},'
                          '{"name":"y","rank":1,"type":"float64"}]}')


def test_schema_parse_columns_both_forms_replace_columns():
    s = ds.Schema()
    s.add_column("z", "int8")
    s.parse_columns([{"name": "image", "type": "int8", "shape": [3, 3]},
                     {"name": "label", "type": "int8"}])
    assert compact(s) == ('{"columns":[{"name":"image","rank":2,"shape":[3,3],"type":"int8"},'
                          '{"name":"label","rank":0,"shape":[],"type":"int8"}]}')
    s.parse_columns({"image": {"shape": [3, 3], "type": "int8"},
                     "label": {"type": "uint8", "shape": [1]}})
    assert compact(s) == ('{"columns":[{"name":"image","rank":2,"shape":[3,3],"type":"int8"},'
                          '{"name":"label","rank":1,"shape":[1],"type":"uint8"}]}')


def test_schema_from_json_file_and_num_rows(tmp_path):
    s = ds.Schema()
    s.from_json({"columns": {"a": {"type": "int8", "shape": [2]}}, "numRows": 7,
                 "datasetType": "TF"})
    assert compact(s) == ('{"columns":[{"name":"a","rank":1,"shape":[2],"type":"int8"}],'
                          '"datasetType":"TF","numRows":7}')
    assert ds.Schema.get_num_rows(s) == 7
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"columns": {"a": {"type": "float16", "rank": 2,
                                                  "shape": [2, 2]}}, "numRows": 4}))
    assert compact(ds.Schema(str(path))) == \
        '{"columns":[{"name":"a","rank":2,"shape":[2,2],"type":"float16"}],"numRows":4}'
    assert ds.Schema.get_num_rows(str(path)) == 4
    data = ds.RandomDataset(schema=str(path))
    got = rows(data)
    assert len(got) == data.get_dataset_size() == 4
    assert {(r["a"].dtype, r["a"].shape) for r in got} == {(np.dtype(np.float16), (2, 2))}


@pytest.mark.parametrize("call, error, message", [
    (lambda s: s.add_column("a", "nope"), TypeError, "Unknown column type"),
    (lambda s: s.add_column("a", 5), TypeError, "Unknown column type"),
    (lambda s: s.add_column(5, "int8"), TypeError, "Argument name"),
    (lambda s: s.add_column("a", "int8", shape=(2,)), TypeError, "Argument shape"),
    (lambda s: s.add_column("a", "int8", shape=["x"]), TypeError, r"shape\[0\]"),
    (lambda s: s.parse_columns([{"name": "a"}]), RuntimeError, "type is missing"),
    (lambda s: s.parse_columns([{"type": "int8"}]), RuntimeError, "name is missing"),
    (lambda s: s.parse_columns(5), RuntimeError, "columns must be dict or list"),
    (lambda s: s.from_json({"numRows": 7}), RuntimeError, '"columns" node is required'),
    (lambda s: s.from_json({"columns": [], "foo": 1}), RuntimeError, "Unknown field foo"),
])
def test_schema_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(ds.Schema())


def test_schema_file_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ds.Schema(str(tmp_path / "nope.json"))
    with pytest.raises(TypeError, match="is not string"):
        ds.Schema(5)
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"columns": {"a": {"type": "int8", "shape": [2]}}}))
    with pytest.raises(RuntimeError, match='"rank" field of column a'):
        ds.Schema(str(path))


def test_random_dataset_follows_the_schema(image_label):
    data = ds.RandomDataset(schema=image_label, total_rows=5)
    got = rows(data)
    assert data.get_col_names() == ["image", "label"] and data.get_dataset_size() == len(got) == 5
    for r in got:
        assert (r["image"].dtype, r["image"].shape) == (np.uint8, (2, 3))
        assert (r["label"].dtype, r["label"].shape) == (np.int32, (1,))
        # one random byte fills the whole tensor, as MindSpore's RandomDataOp memsets it
        assert len(set(r["image"].ravel().tolist())) == 1
        byte = int(r["label"].view(np.uint8)[0])
        assert r["label"].view(np.uint8).tolist() == [byte] * 4
    assert data.output_types() == [np.uint8, np.int32]
    assert data.output_shapes() == [[2, 3], [1]]


def test_random_dataset_unknown_dims_scalars_and_bool():
    s = ds.Schema()
    s.add_column("x", "float32", [-1, 2])
    s.add_column("y", ms.float64)
    s.add_column("z", ms.bool_, [2])
    s.add_column("w", "int16", [])
    got = rows(ds.RandomDataset(schema=s, total_rows=40))
    firsts = {r["x"].shape[0] for r in got}
    assert all(1 <= d <= 32 for d in firsts) and len(firsts) > 1      # drawn per row
    assert {r["x"].shape[1] for r in got} == {2}
    assert {(r["y"].shape, r["w"].shape) for r in got} == {((), ())}
    assert {r["z"].dtype for r in got} == {np.dtype(np.bool_)}


def test_random_dataset_row_count_rules(image_label):
    # MindSpore 2.7.2: a schema's rows ignore num_samples; without a schema num_samples counts
    assert ds.RandomDataset(schema=image_label, total_rows=5, num_samples=2) \
        .get_dataset_size() == 5
    assert ds.RandomDataset(total_rows=5, num_samples=2).get_dataset_size() == 2
    counted = ds.RandomDataset(schema=image_label)
    assert 1 <= counted.get_dataset_size() <= 1024
    # shuffle and shards are checked and change nothing, as in MindSpore
    assert ds.RandomDataset(schema=image_label, total_rows=5, num_shards=2, shard_id=1,
                            shuffle=True).get_dataset_size() == 5


def test_random_dataset_without_schema():
    data = ds.RandomDataset(total_rows=3)
    names = data.get_col_names()
    assert 1 <= len(names) <= 4 and names == [f"c{i}" for i in range(len(names))]
    shapes = data.output_shapes()
    assert all(1 <= len(s) <= 4 and all(1 <= d <= 32 for d in s) for s in shapes)
    assert len(rows(data)) == 3


def test_random_dataset_seed_repeats_and_epochs_agree(image_label):
    ds.config.set_seed(5)
    first = [r["image"].tolist() for r in rows(ds.RandomDataset(schema=image_label, total_rows=6))]
    ds.config.set_seed(5)
    data = ds.RandomDataset(schema=image_label, total_rows=6)
    both = [r["image"].tolist() for r in rows(data, num_epochs=1)]
    assert both == first
    ds.config.set_seed(6)
    other = [r["image"].tolist() for r in rows(ds.RandomDataset(schema=image_label, total_rows=6))]
    assert other != first
    ds.config.set_seed(5)
    it = ds.RandomDataset(schema=image_label, total_rows=6) \
        .create_dict_iterator(output_numpy=True, num_epochs=2)
    assert [r["image"].tolist() for r in it] == [r["image"].tolist() for r in it] == first


def test_random_dataset_columns_list_and_pipeline(image_label):
    data = ds.RandomDataset(schema=image_label, total_rows=5, columns_list=["label", "image"])
    assert data.get_col_names() == ["label", "image"]
    batches = rows(data.batch(2, drop_remainder=True))
    assert [b["image"].shape for b in batches] == [(2, 2, 3)] * 2


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(schema=5), TypeError, "schema must be a Schema"),
    (dict(total_rows=-1), ValueError, "total_rows"),
    (dict(total_rows=1, cache=object()), NotImplementedError, "cache"),
    (dict(total_rows=1, columns_list="a"), TypeError, "columns_list"),
    (dict(total_rows=1, shuffle=ds.Shuffle.FILES), TypeError, "shuffle"),
    (dict(total_rows=1, num_shards=2), RuntimeError, "num_shards and shard_id"),
    (dict(schema=ds.Schema(), total_rows=2), RuntimeError, "columns"),
])
def test_random_dataset_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        ds.RandomDataset(**kwargs)


def test_random_dataset_refuses_missing_and_string_columns(image_label):
    with pytest.raises(RuntimeError, match="failed to find column: nope"):
        ds.RandomDataset(schema=image_label, total_rows=3, columns_list=["nope"])
    s = ds.Schema()
    s.add_column("w", "string")
    with pytest.raises(RuntimeError, match="string"):
        ds.RandomDataset(schema=s, total_rows=3)
