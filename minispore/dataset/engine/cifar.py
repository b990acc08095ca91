"""Cifar10Dataset: the CIFAR-10 binary version (data_batch_*.bin, test_batch.bin), read and
written strictly.

A file is a sequence of 3073-byte records: one label byte (0-9), then the 32x32 image as
1024 red, 1024 green and 1024 blue bytes, each plane row-major.
"""
import glob
import os

import numpy as np

from minispore.dataset.engine.samplers import select_sampler
from minispore.dataset.engine.sources import RandomAccessSource

_SIDE = 32
_RECORD = 1 + 3 * _SIDE * _SIDE
_CLASSES = 10
_TRAIN_GLOB = "data_batch_*.bin"
_TEST_FILE = "test_batch.bin"


def read_cifar10_bin(path):
    """(images uint8 (N, 32, 32, 3) HWC, labels uint32 (N,)) from one CIFAR-10 binary file.

    Raises RuntimeError naming the file when its size is not a whole number of records or a
    label is outside 0-9.
    """
    try:
        raw = np.fromfile(path, dtype=np.uint8)
    except OSError as e:
        raise RuntimeError(f"Cifar10Dataset: '{path}' could not be read: {e}") from e
    if raw.size % _RECORD:
        raise RuntimeError(f"Cifar10Dataset: '{path}' is {raw.size} bytes, not a whole number of "
                           f"{_RECORD}-byte records (1 label byte + 32*32*3 image bytes); the "
                           f"file is truncated or not the CIFAR-10 binary version.")
    records = raw.reshape(-1, _RECORD)
    labels = records[:, 0]
    bad = np.nonzero(labels >= _CLASSES)[0]
    if bad.size:
        raise RuntimeError(f"Cifar10Dataset: '{path}' record {bad[0]} has label {labels[bad[0]]}; "
                           f"CIFAR-10 labels are 0-{_CLASSES - 1}.")
    planes = records[:, 1:].reshape(-1, 3, _SIDE, _SIDE)
    return np.ascontiguousarray(planes.transpose(0, 2, 3, 1)), labels.astype(np.uint32)


def write_cifar10_bin(path, images, labels):
    """Write uint8 images (N, 32, 32, 3) HWC and labels (N,) in 0-9 as one CIFAR-10 binary
    file."""
    images = np.asarray(images)
    labels = np.asarray(labels)
    if images.dtype != np.uint8 or images.shape[1:] != (_SIDE, _SIDE, 3) or \
            labels.shape != (len(images),):
        raise ValueError(f"write_cifar10_bin: need uint8 images (N, 32, 32, 3) and N labels, got "
                         f"{images.dtype} {images.shape} and {labels.shape}.")
    if labels.size and (labels.min() < 0 or labels.max() >= _CLASSES):
        raise ValueError(f"write_cifar10_bin: labels must be in 0-{_CLASSES - 1}.")
    records = np.empty((len(images), _RECORD), np.uint8)
    records[:, 0] = labels
    records[:, 1:] = images.transpose(0, 3, 1, 2).reshape(len(images), _RECORD - 1)
    records.tofile(path)


def cifar10_files(dataset_dir, usage):
    """The binary files of `usage` in `dataset_dir`: train = data_batch_*.bin (sorted),
    test = test_batch.bin, all = both (whichever exist, at least one)."""
    train = sorted(glob.glob(os.path.join(glob.escape(dataset_dir), _TRAIN_GLOB)))
    test = os.path.join(dataset_dir, _TEST_FILE)
    test = [test] if os.path.isfile(test) else []
    files = {"train": train, "test": test, "all": train + test}[usage]
    if not files:
        wanted = {"train": _TRAIN_GLOB, "test": _TEST_FILE,
                  "all": f"{_TRAIN_GLOB} or {_TEST_FILE}"}[usage]
        raise RuntimeError(f"Cifar10Dataset: no {wanted} found in '{dataset_dir}' "
                           f"(usage='{usage}'); point dataset_dir at the extracted "
                           f"cifar-10-batches-bin folder.")
    return files


class Cifar10Dataset(RandomAccessSource):
    """CIFAR-10 from its binary files: columns `image` (uint8, 32x32x3 HWC) and `label`
    (uint32).

    usage: 'train' (data_batch_1..5.bin), 'test' (test_batch.bin) or 'all'/None (both).
    shuffle=None shuffles unless a sampler is given; num_samples limits the rows;
    num_shards/shard_id give this rank ceil(N/num_shards) rows (see DistributedSampler).

    >>> ds = Cifar10Dataset("cifar-10-batches-bin", usage="train")    # doctest: +SKIP
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        if not isinstance(dataset_dir, (str, os.PathLike)):
            raise TypeError(f"For 'Cifar10Dataset', dataset_dir must be a str, got "
                            f"{dataset_dir!r}.")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or "
                             f"permission denied!")
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError(f"Input usage is not within the valid set of ['train', 'test', "
                             f"'all'], got {usage!r}.")
        if cache is not None:
            raise NotImplementedError("For 'Cifar10Dataset', 'cache' (a DatasetCache server) is "
                                      "not implemented in minispore; leave it None.")
        sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        super().__init__(["image", "label"], sampler, num_parallel_workers)
        self.dataset_dir, self.usage = os.fspath(dataset_dir), usage
        parts = [read_cifar10_bin(f) for f in cifar10_files(self.dataset_dir, usage)]
        self._images = np.concatenate([p[0] for p in parts])
        self._labels = np.concatenate([p[1] for p in parts])

    _HAS_CLASS_IDS = True

    def _num_rows(self):
        return len(self._labels)

    def _class_ids(self):
        return self._labels

    def _fetch(self, idx):
        return [self._images[idx], self._labels[idx]]
