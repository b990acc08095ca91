"""Dataset operations: map, batch, shuffle, repeat, project, rename, take, skip, split, queries."""
import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds
import minispore.dataset.vision as vision
from minispore import Tensor
from minispore.common import dtype as mstype
from minispore.dataset import transforms


def rows(data, **kw):
    return list(data.create_tuple_iterator(output_numpy=True, **kw))


def numbers(n=10):
    return ds.NumpySlicesDataset({"x": np.arange(n), "y": np.arange(n) * 10}, shuffle=False)


def test_semantics_minimal_example(mnist10):
    """mindspore_semantics.md §14.6's minimal test."""
    base = ds.MnistDataset(mnist10, shuffle=False).map(vision.Rescale(1 / 255, 0), "image") \
        .map(vision.HWC2CHW(), "image")
    batches = rows(base.batch(4))
    assert len(batches) == 3 and base.batch(4).get_dataset_size() == 3
    assert batches[0][0].shape == (4, 1, 28, 28) and batches[0][0].dtype == np.float32
    assert batches[0][1].dtype == np.uint32 and batches[2][0].shape[0] == 2
    cast = base.map(transforms.TypeCast(mstype.int32), "label").batch(4)
    assert rows(cast)[0][1].dtype == np.int32
    assert len(rows(base.batch(4, drop_remainder=True))) == 2
    assert ds.MnistDataset(mnist10, num_shards=2, shard_id=1).get_dataset_size() == 5
    assert len(rows(ds.MnistDataset(mnist10, num_shards=2, shard_id=1))) == 5


def test_iterating_yields_tensors(mnist10):
    image, label = next(iter(ds.MnistDataset(mnist10, shuffle=False)))
    assert isinstance(image, Tensor) and image.dtype == mstype.uint8 and image.shape == (28, 28, 1)
    assert isinstance(label, Tensor) and label.dtype == mstype.uint32 and label.shape == ()
    d = next(numbers().create_dict_iterator())
    assert set(d) == {"x", "y"} and isinstance(d["y"], Tensor)


def test_map_lambda_multi_column_and_output_columns():
    data = numbers(6).map(lambda x, y: (x + y, x * y), input_columns=["x", "y"],
                          output_columns=["s", "p"])
    assert data.get_col_names() == ["s", "p"]
    got = rows(data)
    assert [int(r[0]) for r in got] == [11 * i for i in range(6)]
    assert [int(r[1]) for r in got] == [10 * i * i for i in range(6)]
    one_to_two = numbers(3).map(lambda x: (x, -x), "x", ["a", "b"])
    assert one_to_two.get_col_names() == ["a", "b", "y"]
    assert [r[1].item() for r in rows(one_to_two)] == [0, -1, -2]


def test_map_defaults_to_first_column_and_accepts_compose():
    data = numbers(4).map(transforms.Compose([lambda x: x + 1, lambda x: x * 2]))
    assert [int(r[0]) for r in rows(data)] == [2, 4, 6, 8]
    nested = numbers(4).map(transforms.Compose([transforms.Compose([lambda x: x + 1]),
                                                lambda x: x * 3]))
    assert [int(r[0]) for r in rows(nested)] == [3, 6, 9, 12]


def test_map_errors_name_column_and_operation():
    with pytest.raises(ValueError, match="column 'z' does not exist; the dataset has columns"):
        numbers().map(lambda x: x, input_columns="z")
    with pytest.raises(TypeError, match="operations must be a callable"):
        numbers().map(3, "x")
    with pytest.raises(ValueError, match="would duplicate an existing column"):
        numbers().map(lambda x: x, "x", "y")

    def bad(x):
        raise ZeroDivisionError("boom")
    with pytest.raises(RuntimeError, match=r"map operation 'bad' on input_columns \['x'\] "
                                           r"failed: ZeroDivisionError: boom"):
        rows(numbers().map(bad, "x"))
    with pytest.raises(RuntimeError, match=r"produced 2 columns but output_columns \['x'\]"):
        rows(numbers().map(lambda x: (x, x), "x"))


def test_batch_shapes_remainder_and_ragged():
    b = numbers(10).batch(4)
    got = rows(b)
    assert [r[0].tolist() for r in got] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert b.get_batch_size() == 4 and b.get_dataset_size() == 3
    assert numbers(10).batch(4, True).get_dataset_size() == 2
    assert numbers(300).batch(7).get_dataset_size() == 43
    assert sum(len(r[0]) for r in rows(numbers(300).batch(7))) == 300
    ragged = ds.GeneratorDataset(lambda: ((np.zeros(i),) for i in range(1, 4)), ["v"])
    with pytest.raises(RuntimeError, match="rows of column 'v' differ in shape"):
        rows(ragged.batch(2))
    with pytest.raises(ValueError, match="batch_size must be an int >= 1"):
        numbers().batch(0)


def test_shuffle_is_a_permutation_and_seeded():
    ds.config.set_seed(7)
    a = [int(r[0]) for r in rows(numbers(50).shuffle(8))]
    b = [int(r[0]) for r in rows(numbers(50).shuffle(8))]
    assert sorted(a) == list(range(50)) and a != list(range(50)) and a == b
    full = [int(r[0]) for r in rows(numbers(50).shuffle(1000))]
    assert sorted(full) == list(range(50))
    with pytest.raises(ValueError, match="buffer_size must be an int >= 2"):
        numbers().shuffle(1)


def test_shuffle_keeps_rows_together_and_reshuffles_per_epoch():
    ds.config.set_seed(3)
    it = numbers(40).shuffle(10).create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1 = [(int(x), int(y)) for x, y in it]
    e2 = [(int(x), int(y)) for x, y in it]
    assert all(y == 10 * x for x, y in e1 + e2)
    assert sorted(e1) == sorted(e2) and e1 != e2
    assert list(it) == []


def test_ms_set_seed_also_seeds_the_dataset():
    ms.set_seed(11)
    a = [int(r[0]) for r in rows(ds.NumpySlicesDataset(np.arange(30)))]
    ms.set_seed(11)
    b = [int(r[0]) for r in rows(ds.NumpySlicesDataset(np.arange(30)))]
    assert a == b and sorted(a) == list(range(30))
    assert ds.config.get_seed() == 11
    ds.config.set_seed(5)
    assert ds.config.get_seed() == 5


def test_repeat_take_skip_project_rename():
    assert [int(r[0]) for r in rows(numbers(3).repeat(2))] == [0, 1, 2, 0, 1, 2]
    assert numbers(3).repeat(2).get_dataset_size() == 6
    assert numbers(3).repeat(4).get_repeat_count() == 4
    assert [int(r[0]) for r in rows(numbers(10).take(3))] == [0, 1, 2]
    assert [int(r[0]) for r in rows(numbers(10).skip(7))] == [7, 8, 9]
    assert numbers(10).skip(12).get_dataset_size() == 0 and rows(numbers(10).skip(12)) == []
    assert [int(r[0]) for r in rows(numbers(400).skip(130).take(2))] == [130, 131]
    p = numbers(3).project(["y", "x"])
    assert p.get_col_names() == ["y", "x"] and rows(p)[1][0] == 10
    r = numbers(3).rename(["x"], ["a"])
    assert r.get_col_names() == ["a", "y"]
    with pytest.raises(ValueError, match="column 'q' does not exist"):
        numbers().project("q")
    with pytest.raises(ValueError, match="same length"):
        numbers().rename(["x", "y"], ["a"])
    with pytest.raises(ValueError, match="count must be an int >= 1 or one of"):
        numbers().take(0)


def test_repeat_reshuffles_each_pass():
    ds.config.set_seed(1)
    got = [int(r[0]) for r in rows(ds.NumpySlicesDataset(np.arange(20)).repeat(2))]
    assert sorted(got[:20]) == sorted(got[20:]) == list(range(20)) and got[:20] != got[20:]


def test_split_sizes_and_disjointness():
    ds.config.set_seed(2)
    a, b = ds.NumpySlicesDataset(np.arange(10), shuffle=False).split([0.7, 0.3])
    ra, rb = [int(r[0]) for r in rows(a)], [int(r[0]) for r in rows(b)]
    assert len(ra) == 7 and len(rb) == 3 and sorted(ra + rb) == list(range(10))
    c, d = ds.NumpySlicesDataset(np.arange(10), shuffle=False).split([4, 6], randomize=False)
    assert [int(r[0]) for r in rows(c)] == [0, 1, 2, 3]
    e, f = numbers(10).map(lambda x: x).split([5, 5], randomize=False)
    assert [int(r[0]) for r in rows(f)] == [5, 6, 7, 8, 9]
    with pytest.raises(RuntimeError, match="randomize=True needs a random-access source"):
        numbers(10).map(lambda x: x).split([5, 5])
    with pytest.raises(RuntimeError, match="sum to the dataset size 10"):
        numbers(10).split([3, 3])


def test_queries(mnist10):
    data = ds.MnistDataset(mnist10).map(vision.Resize((32, 32)), "image").batch(3)
    assert data.output_shapes() == [[3, 32, 32, 1], [3]]
    assert data.output_types() == [np.uint8, np.uint32]
    assert data.get_dataset_size() == 4 and data.get_col_names() == ["image", "label"]
    assert data.get_batch_size() == 3 and data.get_repeat_count() == 1
    it = data.create_tuple_iterator(columns=["label"], output_numpy=True)
    assert len(next(it)) == 1
    with pytest.raises(ValueError, match="num_epochs must be -1 or a positive int"):
        data.create_tuple_iterator(num_epochs=0)


def test_generator_sources():
    def gen():
        for i in range(5):
            yield np.array([i, i]), i
    g = ds.GeneratorDataset(gen, ["a", "b"])
    assert g.get_dataset_size() == 5
    assert [r[1].item() for r in rows(g)] == [0, 1, 2, 3, 4]
    assert len(rows(g)) == 5                      # a generator function is called again per epoch
    listed = ds.GeneratorDataset([(np.float32(i),) for i in range(4)], ["v"], num_samples=3,
                                 shuffle=False)
    assert [float(r[0]) for r in rows(listed)] == [0.0, 1.0, 2.0]

    class Stream:
        def __iter__(self):
            return iter([(np.int64(i),) for i in range(4)])
    assert [int(r[0]) for r in rows(ds.GeneratorDataset(Stream(), ["v"]))] == [0, 1, 2, 3]

    class Source:
        def __getitem__(self, i):
            return np.full((2,), i, np.int32), np.array(i % 2)

        def __len__(self):
            return 9
    ra = ds.GeneratorDataset(Source(), ["x", "y"], shuffle=False)
    assert [int(r[0][0]) for r in rows(ra)] == list(range(9))
    assert ds.GeneratorDataset(Source(), ["x", "y"], num_shards=2, shard_id=0) \
        .get_dataset_size() == 5
    with pytest.raises(ValueError, match="shuffle needs a random-accessible source"):
        ds.GeneratorDataset(gen, ["a", "b"], shuffle=True)
    with pytest.raises(ValueError, match="column_names must be given"):
        ds.GeneratorDataset(gen)
    with pytest.raises(RuntimeError, match=r"row 0 gave 2 values but column_names \['a'\]"):
        rows(ds.GeneratorDataset(gen, ["a"]))

    def broken():
        yield (np.zeros(1),)
        raise KeyError("disk gone")
    with pytest.raises(RuntimeError, match="source raised KeyError at row 1"):
        rows(ds.GeneratorDataset(broken, ["a"]))


def test_numpy_slices_forms():
    assert ds.NumpySlicesDataset([1, 2, 3]).get_col_names() == ["column_0"]
    t = ds.NumpySlicesDataset((np.zeros((4, 2)), np.arange(4)), column_names=["f", "l"],
                              shuffle=False)
    assert t.get_col_names() == ["f", "l"] and rows(t)[2][1] == 2
    with pytest.raises(ValueError, match="need the same number of rows"):
        ds.NumpySlicesDataset({"a": np.zeros(3), "b": np.zeros(4)})
    with pytest.raises(ValueError, match="name 1 columns but the data has 2"):
        ds.NumpySlicesDataset((np.zeros(3), np.zeros(3)), column_names=["a"])
