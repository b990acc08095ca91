"""num_shards/shard_id: equal-sized shards covering every row, MindSpore's argument errors."""
import math

import numpy as np
import pytest

import minispore.dataset as ds


def shard_values(n, shards, shuffle, **kw):
    out = []
    for s in range(shards):
        data = ds.NumpySlicesDataset(np.arange(n), shuffle=shuffle, num_shards=shards, shard_id=s,
                                     **kw)
        vals = [int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)]
        assert len(vals) == data.get_dataset_size() == math.ceil(n / shards)
        out.append(vals)
    return out


@pytest.mark.parametrize("shuffle", [False, True])
def test_shards_disjoint_and_cover_when_divisible(shuffle):
    ds.config.set_seed(4)
    parts = shard_values(24, 4, shuffle)
    flat = sorted(v for p in parts for v in p)
    assert flat == list(range(24))


@pytest.mark.parametrize("shuffle", [False, True])
def test_shards_wrap_around_when_not_divisible(shuffle):
    parts = shard_values(10, 4, shuffle)          # ceil(10/4) = 3 rows each, 2 rows repeated
    flat = [v for p in parts for v in p]
    assert len(flat) == 12 and set(flat) == set(range(10))
    assert len(flat) - len(set(flat)) == 2


def test_unshuffled_shards_interleave():
    assert shard_values(10, 4, False) == [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]


def test_shards_agree_on_permutation_without_explicit_seed_and_reshuffle_per_epoch():
    its = [ds.NumpySlicesDataset(np.arange(16), num_shards=2, shard_id=s)
           .create_tuple_iterator(num_epochs=2, output_numpy=True) for s in range(2)]
    for _ in range(2):
        epoch = [[int(r[0]) for r in it] for it in its]
        assert sorted(epoch[0] + epoch[1]) == list(range(16))
    again = ds.NumpySlicesDataset(np.arange(16), num_shards=2, shard_id=0)
    first = [int(r[0]) for r in again.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    second = [int(r[0]) for r in again.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert first != second


def test_mnist_shards_and_num_samples(mnist10):
    sizes = [ds.MnistDataset(mnist10, num_shards=3, shard_id=s).get_dataset_size()
             for s in range(3)]
    assert sizes == [4, 4, 4]
    assert ds.MnistDataset(mnist10, num_shards=3, shard_id=0, num_samples=2) \
        .get_dataset_size() == 2


def test_shard_argument_errors(mnist10):
    with pytest.raises(RuntimeError, match="num_shards and shard_id need to be passed in together"):
        ds.MnistDataset(mnist10, shard_id=0)
    with pytest.raises(RuntimeError, match="num_shards and shard_id need to be passed in together"):
        ds.MnistDataset(mnist10, num_shards=2)
    with pytest.raises(ValueError, match=r"shard_id is not within the required interval of "
                                         r"\[0, 1\], got 2"):
        ds.MnistDataset(mnist10, num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="num_shards is not within"):
        ds.MnistDataset(mnist10, num_shards=0, shard_id=0)
    with pytest.raises(RuntimeError, match="sampler and shuffle cannot be specified"):
        ds.MnistDataset(mnist10, sampler=ds.SequentialSampler(), shuffle=True)
    with pytest.raises(RuntimeError, match="sampler and sharding"):
        ds.MnistDataset(mnist10, sampler=ds.SequentialSampler(), num_shards=2, shard_id=0)


def test_samplers():
    data = np.arange(10)
    seq = ds.NumpySlicesDataset(data, sampler=ds.SequentialSampler(start_index=3, num_samples=4))
    assert [int(r[0]) for r in seq.create_tuple_iterator(output_numpy=True)] == [3, 4, 5, 6]
    sub = ds.NumpySlicesDataset(data, sampler=[9, 1, 4])
    assert [int(r[0]) for r in sub.create_tuple_iterator(output_numpy=True)] == [9, 1, 4]
    rnd = ds.NumpySlicesDataset(data, sampler=ds.SubsetRandomSampler([2, 5, 7]))
    assert sorted(int(r[0]) for r in rnd.create_tuple_iterator(output_numpy=True)) == [2, 5, 7]
    rep = ds.NumpySlicesDataset(data, sampler=ds.RandomSampler(replacement=True, num_samples=25))
    assert rep.get_dataset_size() == 25
    bad = ds.NumpySlicesDataset(data, sampler=[3, 12])
    with pytest.raises(RuntimeError, match=r"index out of range \[0, 10\)"):
        list(bad.create_tuple_iterator())
