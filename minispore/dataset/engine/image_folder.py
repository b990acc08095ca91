"""ImageFolderDataset: image files in one folder per class, read as raw bytes."""
import os

import numpy as np

from minispore.dataset.engine import chunk as ck
from minispore.dataset.engine.samplers import select_sampler
from minispore.dataset.engine.sources import RandomAccessSource

_WHO = "ImageFolderDataset"


def _check_args(dataset_dir, extensions, class_indexing, decode, cache, decrypt):
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"For '{_WHO}', dataset_dir must be a str, got {dataset_dir!r}.")
    if not os.path.isdir(dataset_dir):
        raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or "
                         f"permission denied!")
    if extensions is not None and (not isinstance(extensions, list) or
                                   not all(isinstance(e, str) for e in extensions)):
        raise TypeError(f"Argument extensions with value {extensions!r} is not of type "
                        f"[<class 'list'>] of str, but got {type(extensions)}.")
    if class_indexing is not None and (
            not isinstance(class_indexing, dict) or
            not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                    for k, v in class_indexing.items())):
        raise TypeError(f"For '{_WHO}', class_indexing must be a dict of folder name (str) to "
                        f"label (int), got {class_indexing!r}.")
    if not isinstance(decode, bool):
        raise TypeError(f"Argument decode with value {decode!r} is not of type "
                        f"[<class 'bool'>], but got {type(decode)}.")
    if decode:
        raise NotImplementedError(f"For '{_WHO}', 'decode=True' is not implemented in "
                                  f"minispore (it has no image decoder); leave decode=False to "
                                  f"read each image's encoded bytes.")
    if cache is not None:
        raise NotImplementedError(f"For '{_WHO}', 'cache' (a DatasetCache server) is not "
                                  f"implemented in minispore; leave it None.")
    if decrypt is not None:
        raise NotImplementedError(f"For '{_WHO}', 'decrypt' is not implemented in minispore; "
                                  f"leave it None.")


def list_image_folder(dataset_dir, extensions, class_indexing):
    """(paths, labels, class_indexing): the files of every class folder, folders and files in
    sorted order; with class_indexing only its folders, labelled by it."""
    folders = sorted(e.name for e in os.scandir(dataset_dir) if e.is_dir())
    if class_indexing is None:
        class_indexing = {name: i for i, name in enumerate(folders)}
    paths, labels = [], []
    for folder in folders:
        if folder not in class_indexing:
            continue
        for name in sorted(os.listdir(os.path.join(dataset_dir, folder))):
            if extensions is not None and os.path.splitext(name)[1] not in extensions:
                continue
            path = os.path.join(dataset_dir, folder, name)
            if os.path.isdir(path):
                raise RuntimeError(f"Invalid file found: {path}, should be file, but got "
                                   f"directory.")
            paths.append(path)
            labels.append(class_indexing[folder])
    if not paths:
        raise RuntimeError(f"Invalid data, ImageFolderDataset API can't read the data file "
                           f"(interface mismatch or no data found). Check image folder file "
                           f"path: {dataset_dir}")
    return paths, np.array(labels, np.int32), dict(class_indexing)


class ImageFolderDataset(RandomAccessSource):
    """Images in class folders (dataset_dir/<class>/<file>): columns `image` (the file's
    bytes, uint8 of shape (file size,)) and `label` (int32).

    Classes are the sub-folders in sorted order, labelled 0, 1, … (empty ones count); or those
    named in class_indexing {folder: label}, labelled by it. Each class's files are read in
    sorted order; extensions (e.g. ['.png', '.JPEG'], matched exactly) keeps only those files;
    files directly in dataset_dir are not read. shuffle=None shuffles unless a sampler is
    given; num_shards/shard_id as DistributedSampler; PKSampler draws by label.
    decode=True, decrypt and cache raise NotImplementedError.

    >>> ds = ImageFolderDataset("images/train", shuffle=False)    # doctest: +SKIP
    """

    _HAS_CLASS_IDS = True

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None, cache=None, decrypt=None):
        _check_args(dataset_dir, extensions, class_indexing, decode, cache, decrypt)
        sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        super().__init__(["image", "label"], sampler, num_parallel_workers)
        self.dataset_dir = os.fspath(dataset_dir)
        self._paths, self._labels, self._class_indexing = list_image_folder(
            self.dataset_dir, extensions, class_indexing)

    def get_class_indexing(self):
        return dict(self._class_indexing)

    def _num_rows(self):
        return len(self._paths)

    def _class_ids(self):
        return self._labels

    def _fetch(self, idx):
        images = []
        for i in idx:
            try:
                images.append(np.fromfile(self._paths[i], dtype=np.uint8))
            except OSError as e:
                raise RuntimeError(f"{_WHO}: '{self._paths[i]}' could not be read: {e}") from e
        return [ck.stack(images), self._labels[idx]]
