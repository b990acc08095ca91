"""mindspore.dataset.MindDataset: rows of the MindRecord files FileWriter (mindrecord.py) writes,
read through memory maps, with MindSpore's shuffle modes and the shared samplers."""
import os

import numpy as np

from minispore.dataset.engine import mindrecord_format as fmt
from minispore.dataset.engine.datasets import check_columns
from minispore.dataset.engine.file_rows import Shuffle
from minispore.dataset.engine.samplers import Sampler, select_sampler
from minispore.dataset.engine.sources import RandomAccessSource

_PARTIAL_BLOCK = 1_000_000      # Shuffle.PARTIAL permutes blocks of this many rows


class _FileOrderSampler(Sampler):
    """Shuffle.FILES (the files in a fresh random order, each file's rows in order) or
    Shuffle.INFILE (the files in order, each file's rows in a fresh random order)."""

    def __init__(self, counts, mode):
        super().__init__(None)
        self._counts, self._mode = list(counts), mode

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        starts = np.concatenate([[0], np.cumsum(self._counts)[:-1]]).astype(np.int64)
        files = np.arange(len(self._counts))
        if self._mode is Shuffle.FILES:
            files = rng.permutation(files)
        parts = [starts[f] + np.arange(self._counts[f], dtype=np.int64) for f in files]
        if self._mode is Shuffle.INFILE:
            parts = [rng.permutation(p) for p in parts]
        return np.concatenate(parts or [np.zeros(0, np.int64)])


class _PartialSampler(Sampler):
    """Shuffle.PARTIAL: each block of 1,000,000 rows permuted in place of itself."""

    def __init__(self, num_samples):
        super().__init__(num_samples)

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        idx = np.arange(n, dtype=np.int64)
        for start in range(0, n, _PARTIAL_BLOCK):
            idx[start:start + _PARTIAL_BLOCK] = rng.permutation(idx[start:start + _PARTIAL_BLOCK])
        return self._cap(idx)


def _check_path(path):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: {path} is not string")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"The file {os.path.realpath(path)} does not exist or permission "
                         f"denied!")
    return path


def _shuffle_sampler(shuffle, counts, num_samples, num_shards, shard_id):
    """The sampler a Shuffle mode (no `sampler` given) reads with."""
    if shuffle is None or shuffle is True:
        shuffle = Shuffle.ADAPTIVE
    elif shuffle is False:
        shuffle = Shuffle.FALSE
    if not isinstance(shuffle, Shuffle):
        raise TypeError("shuffle must be of boolean or enum of 'Shuffle' values like "
                        "'Shuffle.ADAPTIVE' or 'Shuffle.GLOBAL' or 'Shuffle.PARTIAL' or "
                        "'Shuffle.FILES' or 'Shuffle.INFILE'.")
    if shuffle in (Shuffle.FILES, Shuffle.INFILE):
        if num_samples:
            raise ValueError("'Shuffle.FILES' or 'Shuffle.INFILE' and 'num_samples' cannot be "
                             "specified at the same time.")
        if num_shards is not None:
            raise NotImplementedError(f"MindDataset: shuffle={shuffle} with num_shards is not "
                                      f"implemented in minispore; use Shuffle.GLOBAL or False.")
        select_sampler(None, None, False, None, None)
        return _FileOrderSampler(counts, shuffle)
    # ADAPTIVE is GLOBAL up to 100 million rows, PARTIAL past them (MindSpore's rule)
    if shuffle is Shuffle.ADAPTIVE and sum(counts) > 100_000_000:
        shuffle = Shuffle.PARTIAL
    if shuffle is Shuffle.PARTIAL and num_shards is None:
        select_sampler(num_samples, None, False, None, None)
        return _PartialSampler(num_samples)
    if shuffle is Shuffle.PARTIAL:
        raise NotImplementedError("MindDataset: Shuffle.PARTIAL with num_shards is not "
                                  "implemented in minispore; use Shuffle.GLOBAL or False.")
    return select_sampler(num_samples, None, shuffle is not Shuffle.FALSE, num_shards, shard_id)


class MindDataset(RandomAccessSource):
    """Rows of MindRecord files written by minispore's FileWriter (not MindSpore's: see
    mindrecord_format.py).

    dataset_files: one file of a shard set (str: every file of its set is read, in shard
    order) or a list of files (exactly those, in the list's order). columns_list: the columns
    to read, in that order (default: every field, sorted by name, as MindSpore orders them).
    shuffle: None/True (Shuffle.ADAPTIVE: global up to 100 million rows), False, or a Shuffle;
    num_shards/shard_id and sampler as for the other mappable sources (DistributedSampler's
    rule). Values come back as written: numeric scalars as 0-d arrays of the schema's type,
    arrays in the schema's shape (-1 dims as written), strings as numpy str, bytes as a (1,)
    array of dtype S<len>.

    >>> ds = MindDataset("/tmp/x.mindrecord", shuffle=False)     # doctest: +SKIP
    """

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
                 num_shards=None, shard_id=None, sampler=None, padded_sample=None,
                 num_padded=None, num_samples=None, cache=None):
        for arg, value in (("padded_sample", padded_sample), ("num_padded", num_padded),
                           ("cache", cache)):
            if value is not None:
                raise NotImplementedError(f"MindDataset: '{arg}' is not implemented in "
                                          f"minispore; leave it None.")
        if isinstance(dataset_files, list):
            paths = [_check_path(p) for p in dataset_files]
            if not paths:
                raise ValueError("MindDataset: dataset_files is an empty list.")
        else:
            first = _check_path(dataset_files)
            names = fmt.read_header(first)["shard_names"]
            paths = [os.path.join(os.path.dirname(first), n) for n in names]
            for p in paths:
                if not os.path.isfile(p):
                    raise RuntimeError(f"Invalid file, '{p}' of the MindRecord shard set of "
                                       f"'{first}' ({len(paths)} files) does not exist.")
        if columns_list is not None and not isinstance(columns_list, list):
            raise TypeError(f"Argument columns_list with value {columns_list} is not of type "
                            f"[<class 'list'>], but got {type(columns_list)}.")
        self._files = [fmt.ShardFile(p) for p in paths]
        schema = self._files[0].schema
        for f in self._files[1:]:
            if f.schema != schema:
                raise RuntimeError(f"Invalid file, '{f.path}' has the schema {f.schema} but "
                                   f"'{self._files[0].path}' has {schema}: MindDataset reads "
                                   f"files of one schema.")
        if columns_list is None:
            names = sorted(schema)
        else:
            dups = [c for c in columns_list if columns_list.count(c) > 1]
            if dups:
                raise RuntimeError(f"MindDataset: 'columns_list' : Invalid parameter, duplicate "
                                   f"column names are not allowed: {dups[0]}")
            names = check_columns("MindDataset", columns_list)
            for name in names:
                if name not in schema:
                    raise RuntimeError(f"Invalid data, column name: {name} can not found in "
                                       f"schema. Please check the 'column_list'; the files hold "
                                       f"{sorted(schema)}.")
        counts = [f.rows for f in self._files]
        self._starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        if sampler is None:
            sampler = _shuffle_sampler(shuffle, counts, num_samples, num_shards, shard_id)
        else:
            sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        super().__init__(names, sampler, num_parallel_workers)
        self.dataset_files, self.columns_list = dataset_files, columns_list

    def _num_rows(self):
        return int(self._starts[-1])

    def _fetch(self, idx):
        idx = np.asarray(idx, np.int64)
        which = np.searchsorted(self._starts, idx, side="right") - 1
        used = np.unique(which)
        out = []
        for name in self._names:
            parts = {int(f): self._files[f].take(name, idx[which == f] - self._starts[f])
                     for f in used}
            if len(used) == 1:
                out.append(parts[int(used[0])])
                continue
            first = next(iter(parts.values()))
            if isinstance(first, np.ndarray):
                col = np.empty((len(idx),) + first.shape[1:],
                               np.result_type(*[p.dtype for p in parts.values()]))
                for f, p in parts.items():
                    col[which == f] = p
            else:
                col = [None] * len(idx)
                for f, p in parts.items():
                    for pos, value in zip(np.nonzero(which == f)[0], p):
                        col[pos] = value
            out.append(col)
        return out
