"""PaddedDataset and concat + use_sampler(DistributedSampler): the shards MindSpore 2.7.2 gives
for the same rows (recorded as literals)."""
import numpy as np
import pytest

import minispore.dataset as ds


def values(data, name="a"):
    return [r[name].tolist() for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]


def test_padded_rows_keep_their_types():
    data = ds.PaddedDataset([{"image": np.zeros(2, np.uint8), "label": np.array(-1, np.int32)},
                             {"image": np.ones(2, np.uint8), "label": np.array(3, np.int32)}])
    assert data.get_col_names() == ["image", "label"] and data.get_dataset_size() == 2
    got = list(data.create_dict_iterator(output_numpy=True))
    assert [(r["image"].tolist(), r["label"].item()) for r in got] == [([0, 0], -1), ([1, 1], 3)]
    assert {(r["image"].dtype, r["label"].dtype) for r in got} == \
        {(np.dtype(np.uint8), np.dtype(np.int32))}
    row = next(ds.PaddedDataset([{"a": 1, "b": 2.5, "c": "s", "d": [1, 2], "e": b"xy",
                                  "f": True}]).create_dict_iterator(output_numpy=True))
    assert [(row[k].tolist(), row[k].dtype.name) for k in "abcdef"] == \
        [(1, "int64"), (2.5, "float64"), ("s", "str32"), ([1, 2], "int64"), (b"xy", "bytes16"),
         (True, "bool")]


def test_padded_rows_may_differ_in_shape_and_stay_in_order():
    assert values(ds.PaddedDataset([{"a": np.zeros(2)}, {"a": np.zeros(3)}])) == \
        [[0.0, 0.0], [0.0, 0.0, 0.0]]
    assert values(ds.PaddedDataset([{"a": i} for i in range(6)])) == [0, 1, 2, 3, 4, 5]


def concat_shards(sizes, shards):
    out = []
    for s in range(shards):
        parts = [ds.NumpySlicesDataset({"a": np.arange(sizes[0], dtype=np.int64)}, shuffle=False)]
        parts += [ds.PaddedDataset([{"a": np.array(100 * i + j, np.int64)} for j in range(n)])
                  for i, n in enumerate(sizes) if i]
        data = parts[0]
        for p in parts[1:]:
            data = data + p
        data.use_sampler(ds.DistributedSampler(shards, s, shuffle=False))
        out.append((data.get_dataset_size(), values(data)))
    return out


@pytest.mark.parametrize("sizes, shards, expected", [
    ([5, 1], 3, [(2, [0, 3]), (2, [1, 4]), (2, [2, 100])]),
    ([5, 1], 4, [(2, [0, 4]), (2, [1, 100]), (1, [2]), (1, [3])]),
    ([7, 2], 3, [(3, [0, 3, 6]), (3, [1, 4, 100]), (3, [2, 5, 101])]),
    ([2, 1, 3], 4, [(2, [0, 201]), (2, [1, 202]), (1, [100]), (1, [200])]),
    ([1, 1, 1], 2, [(2, [0, 200]), (1, [100])]),
])
def test_concat_use_sampler_deals_rows_round_robin(sizes, shards, expected):
    assert concat_shards(sizes, shards) == expected


def test_source_use_sampler_replaces_its_sampler():
    data = ds.NumpySlicesDataset({"a": np.arange(5)})
    data.use_sampler(ds.SequentialSampler(1, 2))
    assert (data.get_dataset_size(), values(data)) == (2, [1, 2])
    with pytest.raises(TypeError, match="can not be None"):
        data.use_sampler(None)


@pytest.mark.parametrize("sampler, error, message", [
    (ds.DistributedSampler(2, 0, shuffle=True), ValueError, "shuffle of DistributedSampler"),
    (ds.DistributedSampler(2, 0, shuffle=False, num_samples=2), ValueError, "num_samples"),
    (ds.SequentialSampler(), TypeError, "must be DistributedSampler or RandomSampler"),
    (ds.RandomSampler(), NotImplementedError, "RandomSampler"),
])
def test_concat_use_sampler_errors(sampler, error, message):
    data = ds.NumpySlicesDataset({"a": np.arange(3)}) + ds.PaddedDataset([{"a": np.array(1)}])
    with pytest.raises(error, match=message):
        data.use_sampler(sampler)


def test_concat_use_sampler_refuses_streamed_children():
    def gen():
        yield (np.array(1),)
    data = ds.GeneratorDataset(gen, ["a"]) + ds.PaddedDataset([{"a": np.array(1)}])
    with pytest.raises(NotImplementedError, match="GeneratorDataset"):
        data.use_sampler(ds.DistributedSampler(2, 0, shuffle=False))


@pytest.mark.parametrize("samples, error, message", [
    ([], ValueError, "cannot be empty"),
    ({"a": 1}, TypeError, "padded_samples"),
    ([1], TypeError, "padded_element"),
    ([{"a": 1}, {"b": 2}], RuntimeError, "same columns"),
    ([{"a": None}], RuntimeError, "padded_samples\\[0\\]"),
])
def test_padded_errors(samples, error, message):
    with pytest.raises(error, match=message):
        ds.PaddedDataset(samples)
