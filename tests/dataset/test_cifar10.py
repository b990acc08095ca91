"""Cifar10Dataset (the CIFAR-10 binary format, strictly read), its synthetic stand-in, and
FashionMnistDataset (MNIST's reader)."""
import os

import numpy as np
import pytest

import minispore.dataset as ds
from minispore.dataset import vision
from minispore.dataset.engine.cifar import read_cifar10_bin, write_cifar10_bin
from minispore.dataset.mnist_idx import write_idx
from minispore.dataset.synth_cifar10 import render_cifar


def _records(labels, rng):
    images = rng.integers(0, 256, (len(labels), 32, 32, 3)).astype(np.uint8)
    return images, np.asarray(labels, np.uint8)


def test_binary_layout_is_label_then_rgb_planes(tmp_path):
    rng = np.random.default_rng(0)
    images, labels = _records([3, 7], rng)
    path = str(tmp_path / "data_batch_1.bin")
    write_cifar10_bin(path, images, labels)
    raw = np.fromfile(path, np.uint8)
    assert raw.size == 2 * 3073 and raw[0] == 3 and raw[3073] == 7
    # the record's bytes 1..1024 are the red plane, row-major
    assert np.array_equal(raw[1:1025].reshape(32, 32), images[0, :, :, 0])
    assert np.array_equal(raw[3073 + 2049:2 * 3073].reshape(32, 32), images[1, :, :, 2])
    got_images, got_labels = read_cifar10_bin(path)
    assert np.array_equal(got_images, images) and got_labels.tolist() == [3, 7]


def test_cifar10_usage_and_columns(tmp_path):
    rng = np.random.default_rng(1)
    for name, labels in (("data_batch_1.bin", [0, 1, 2]), ("data_batch_2.bin", [3, 4]),
                         ("test_batch.bin", [9])):
        write_cifar10_bin(str(tmp_path / name), *_records(labels, rng))
    d = str(tmp_path)
    assert ds.Cifar10Dataset(d, usage="train").get_dataset_size() == 5
    assert ds.Cifar10Dataset(d, usage="test").get_dataset_size() == 1
    assert ds.Cifar10Dataset(d).get_dataset_size() == 6
    data = ds.Cifar10Dataset(d, usage="train", shuffle=False)
    assert data.get_col_names() == ["image", "label"]
    rows = list(data.create_tuple_iterator(output_numpy=True))
    assert rows[0][0].shape == (32, 32, 3) and rows[0][0].dtype == np.uint8
    assert rows[4][1].dtype == np.uint32 and [int(r[1]) for r in rows] == [0, 1, 2, 3, 4]


def test_cifar10_num_samples_shuffle_and_shards(tmp_path):
    d = ds.synth_cifar10(str(tmp_path), num_train=20, num_test=4, seed=0, num_batches=2)
    assert ds.Cifar10Dataset(d, usage="train", num_samples=7).get_dataset_size() == 7
    ordered = [int(r[1]) for r in ds.Cifar10Dataset(d, usage="train", shuffle=False)
               .create_tuple_iterator(output_numpy=True)]
    shuffled = [int(r[1]) for r in ds.Cifar10Dataset(d, usage="train", shuffle=True)
                .create_tuple_iterator(output_numpy=True)]
    assert sorted(ordered) == sorted(shuffled)
    shards = [list(ds.Cifar10Dataset(d, usage="train", num_shards=3, shard_id=s, shuffle=False)
                   .create_tuple_iterator(output_numpy=True)) for s in range(3)]
    assert [len(s) for s in shards] == [7, 7, 7]     # ceil(20 / 3) each, as MnistDataset


def test_cifar10_errors(tmp_path):
    with pytest.raises(ValueError, match=r"does not exist"):
        ds.Cifar10Dataset(str(tmp_path / "missing"))
    with pytest.raises(RuntimeError, match=r"no data_batch_\*\.bin found"):
        ds.Cifar10Dataset(str(tmp_path), usage="train")
    (tmp_path / "test_batch.bin").write_bytes(b"\x01" * 3000)
    with pytest.raises(RuntimeError, match=r"test_batch.bin' is 3000 bytes, not a whole number"):
        ds.Cifar10Dataset(str(tmp_path), usage="test")
    (tmp_path / "test_batch.bin").write_bytes(b"\x0c" * 3073)
    with pytest.raises(RuntimeError, match=r"record 0 has label 12"):
        ds.Cifar10Dataset(str(tmp_path), usage="test")
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set"):
        ds.Cifar10Dataset(str(tmp_path), usage="val")
    with pytest.raises(NotImplementedError, match=r"'cache'"):
        ds.Cifar10Dataset(str(tmp_path), cache=object())


def test_synth_cifar10_layout_and_determinism(tmp_path):
    a = ds.synth_cifar10(str(tmp_path / "a"), 30, 10, seed=4)
    ds.synth_cifar10(str(tmp_path / "b"), 30, 10, seed=4)
    names = sorted(os.listdir(a))
    assert names == ["batches.meta.txt"] + [f"data_batch_{i}.bin" for i in range(1, 6)] + \
        ["test_batch.bin"]
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert ds.Cifar10Dataset(a, usage="train").get_dataset_size() == 30


def test_synth_cifar10_is_learnable():
    """Per-class mean colour and a linear classifier separate the classes well above chance."""
    rng = np.random.default_rng(0)
    ytr, yte = rng.integers(0, 10, 2000), rng.integers(0, 10, 500)
    xtr = render_cifar(ytr, rng).reshape(2000, -1) / 255.0
    xte = render_cifar(yte, rng).reshape(500, -1) / 255.0
    mu = xtr.mean(0)
    w, b = np.zeros((xtr.shape[1], 10)), np.zeros(10)
    for _ in range(30):
        for i in range(0, 2000, 100):
            x, y = xtr[i:i + 100] - mu, ytr[i:i + 100]
            z = x @ w + b
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            p[np.arange(len(y)), y] -= 1
            w -= 0.05 * x.T @ p / len(y)
            b -= 0.05 * p.mean(0)
    acc = ((xte - mu) @ w + b).argmax(1) == yte
    assert acc.mean() > 0.5


def test_resnet_tutorial_transform_chain(tmp_path):
    d = ds.synth_cifar10(str(tmp_path), 8, 2, seed=0, num_batches=1)
    data = ds.Cifar10Dataset(d, usage="train", shuffle=False)
    trans = [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(prob=0.5),
             vision.Resize(32), vision.Rescale(1.0 / 255.0, 0.0),
             vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]),
             vision.HWC2CHW()]
    data = data.map(trans, "image").map(ds.transforms.TypeCast(np.int32), "label").batch(4)
    image, label = next(data.create_tuple_iterator(output_numpy=True))
    assert image.shape == (4, 3, 32, 32) and image.dtype == np.float32
    assert label.dtype == np.int32


def test_fashion_mnist_reads_mnist_layout(tmp_path):
    write_idx(str(tmp_path / "train-images-idx3-ubyte"), np.zeros((3, 28, 28), np.uint8))
    write_idx(str(tmp_path / "train-labels-idx1-ubyte"), np.array([1, 2, 9], np.uint8))
    data = ds.FashionMnistDataset(str(tmp_path), usage="train", shuffle=False)
    assert [int(r[1]) for r in data.create_tuple_iterator(output_numpy=True)] == [1, 2, 9]
    with pytest.raises(RuntimeError, match=r"FashionMnistDataset: 't10k-images-idx3-ubyte'"):
        ds.FashionMnistDataset(str(tmp_path), usage="test")
