"""WeightedRandomSampler and PKSampler: what MindSpore 2.7.2 gives for the same data (row
counts, which rows can come, class grouping), and its argument errors."""
import numpy as np
import pytest

import minispore.dataset as ds
from minispore.dataset.mnist_idx import write_idx

LABELS = [3, 1, 3, 0, 1, 3, 3, 0, 1, 1]          # image i is filled with the value i


@pytest.fixture
def mnist(tmp_path):
    images = np.repeat(np.arange(10, dtype=np.uint8)[:, None, None], 28, 1).repeat(28, 2)
    write_idx(str(tmp_path / "train-images-idx3-ubyte"), images)
    write_idx(str(tmp_path / "train-labels-idx1-ubyte"), np.array(LABELS, np.uint8))
    return str(tmp_path)


def rows(data):
    return [(int(r["image"][0, 0, 0]), int(r["label"]))
            for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]


def numbers(n, sampler):
    data = ds.NumpySlicesDataset({"a": np.arange(n)}, sampler=sampler)
    return data.get_dataset_size(), [int(r["a"]) for r in
                                     data.create_dict_iterator(output_numpy=True, num_epochs=1)]


def test_weighted_draws_only_weighted_rows():
    ds.config.set_seed(1)
    assert numbers(6, ds.WeightedRandomSampler([0, 0, 1, 0, 0, 0], 4)) == (4, [2, 2, 2, 2])
    size, got = numbers(6, ds.WeightedRandomSampler([1, 1, 1, 0, 0, 0], 3, replacement=False))
    assert size == 3 and sorted(got) == [0, 1, 2]
    size, got = numbers(6, ds.WeightedRandomSampler([1, 1], 4))   # rows 0-1 only
    assert size == 4 and set(got) <= {0, 1}


def test_weighted_counts_and_zero_weights_last():
    assert numbers(6, ds.WeightedRandomSampler([1] * 6))[0] == 6
    assert numbers(6, ds.WeightedRandomSampler([1] * 6, 10))[0] == 6   # never above the rows
    assert numbers(6, ds.WeightedRandomSampler([1, 1], 0))[0] == 6
    # without replacement, weight-0 rows come only once the others are used up
    size, got = numbers(6, ds.WeightedRandomSampler([1, 1, 0, 0, 0, 0], 3, replacement=False))
    assert size == 3 and sorted(got[:2]) == [0, 1] and got[2] in (2, 3, 4, 5)


def test_weighted_follows_the_weights_and_the_seed():
    ds.config.set_seed(2)
    _, got = numbers(1000, ds.WeightedRandomSampler([1.0] + [0.0] * 998 + [3.0]))
    assert set(got) == {0, 999} and 0.7 < got.count(999) / 1000 < 0.8
    ds.config.set_seed(2)
    assert numbers(1000, ds.WeightedRandomSampler([1.0] + [0.0] * 998 + [3.0]))[1] == got


@pytest.mark.parametrize("args, error, message", [
    (("ab",), TypeError, r"type of weights element must be number, but got w\[0\]: ab"),
    ((np.array([1.0, 2.0]),), TypeError, "type of weights element must be number"),
    (([1], -1), ValueError, "num_samples"),
    (([1], 1, 1), TypeError, "replacement must be a boolean"),
    (([],), RuntimeError, "must not be empty"),
    (([1, -1],), RuntimeError, "must not contain negative numbers"),
    (([0, 0],), RuntimeError, "must not be all zero"),
])
def test_weighted_errors(args, error, message):
    with pytest.raises(error, match=message):
        ds.WeightedRandomSampler(*args)


def test_weighted_longer_than_the_data():
    data = ds.NumpySlicesDataset({"a": np.arange(6)}, sampler=ds.WeightedRandomSampler([1] * 10))
    with pytest.raises(RuntimeError, match="weight size: 10, num of data: 6"):
        list(data.create_dict_iterator(output_numpy=True))



@pytest.mark.parametrize("num_val", [1, 2, 3, 5])
def test_pk_takes_num_val_rows_of_each_class_in_label_order(mnist, num_val):
    data = ds.MnistDataset(mnist, sampler=ds.PKSampler(num_val))
    got = rows(data)
    # MindSpore 2.7.2 gave, e.g. for num_val=2: [(3, 0), (7, 0), (4, 1), (9, 1), (6, 3), (5, 3)]
    assert data.get_dataset_size() == len(got) == 3 * num_val
    assert [lab for _, lab in got] == [0] * num_val + [1] * num_val + [3] * num_val
    assert all(LABELS[image] == lab for image, lab in got)


def test_pk_num_samples_shuffle_and_class_column(mnist):
    data = ds.MnistDataset(mnist, sampler=ds.PKSampler(2, num_samples=3))
    assert data.get_dataset_size() == 3 and [lab for _, lab in rows(data)] == [0, 0, 1]
    assert ds.MnistDataset(mnist, sampler=ds.PKSampler(2, num_samples=20)) \
        .get_dataset_size() == 6
    orders = set()
    for seed in range(8):
        ds.config.set_seed(seed)
        got = [lab for _, lab in rows(ds.MnistDataset(mnist, sampler=ds.PKSampler(2,
                                                                              shuffle=True)))]
        assert sorted(got) == [0, 0, 1, 1, 3, 3] and got[0::2] == got[1::2]   # still grouped
        orders.add(tuple(got[0::2]))
    assert len(orders) > 1
    # MnistDataset classes rows by its labels whatever class_column says, as MindSpore does
    assert [lab for _, lab in rows(ds.MnistDataset(mnist, sampler=ds.PKSampler(
        1, class_column="image")))] == [0, 1, 3]


def test_pk_errors(mnist):
    with pytest.raises(ValueError, match="doesn't support PKSampler"):
        ds.NumpySlicesDataset({"a": np.arange(4), "label": np.arange(4)},
                              sampler=ds.PKSampler(1))
    with pytest.raises(RuntimeError, match="sampler and sharding"):
        ds.MnistDataset(mnist, sampler=ds.PKSampler(2), num_shards=2, shard_id=0)
    with pytest.raises(NotImplementedError, match="num_class"):
        ds.PKSampler(2, num_class=3)
    with pytest.raises(RuntimeError, match="num_val must be greater than 0"):
        ds.PKSampler(0)
    with pytest.raises(TypeError, match="num_val must be integer"):
        ds.PKSampler(1.5)
    with pytest.raises(TypeError, match="shuffle must be a boolean"):
        ds.PKSampler(1, shuffle=1)
    with pytest.raises(TypeError, match="class_column must be a str"):
        ds.PKSampler(1, class_column=1)
