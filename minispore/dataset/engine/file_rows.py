"""Sources that read rows from a list of files in order (MindSpore's non-mappable leaves): the
Shuffle enum, file-pattern expansion, and the shard / worker-interleave order they share."""
import enum
import glob
import math
import os

import numpy as np

from minispore.dataset import config
from minispore.dataset.engine import chunk as ck
from minispore.dataset.engine.datasets import Dataset
from minispore.dataset.engine.samplers import _check_count, check_shard_args


class Shuffle(enum.Enum):
    """How a file-based source shuffles (mindspore.dataset.Shuffle)."""
    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def check_file_list(where, dataset_files):
    """MindSpore's validator: a str or a non-empty list."""
    if not isinstance(dataset_files, (str, list)):
        raise TypeError(f"Argument dataset files with value {dataset_files!r} is not of type "
                        f"[<class 'str'>, <class 'list'>], but got "
                        f"{type(dataset_files)}.")
    if not dataset_files:
        raise ValueError(f"Input dataset_files can not be empty, but got '{dataset_files}'.")


def find_files(patterns):
    """The files matching glob `patterns` (a str or a list), sorted lexicographically as
    MindSpore sorts them; ValueError lists the patterns that match no file."""
    patterns = patterns if isinstance(patterns, list) else [patterns]
    files, unmatched = [], []
    for pattern in patterns:
        if not isinstance(pattern, (str, os.PathLike)):
            raise TypeError(f"dataset_files must hold str paths, got {pattern!r}.")
        matches = [m for m in glob.glob(os.fspath(pattern), recursive=True) if os.path.isfile(m)]
        if matches:
            files.extend(matches)
        else:
            unmatched.append(pattern)
    if unmatched:
        raise ValueError(f"The following patterns did not match any files: {unmatched}.")
    return sorted(files)


def shuffle_flags(shuffle):
    """(shuffle the file order, shuffle the rows) for a `shuffle` argument.

    MindSpore's text and CSV readers act on GLOBAL (True, None) and FILES only; INFILE, PARTIAL
    and ADAPTIVE read as False does (checked against MindSpore 2.7.2), and so do they here.
    """
    if shuffle is None or shuffle is True:
        return True, True
    if shuffle is False:
        return False, False
    if not isinstance(shuffle, Shuffle):
        raise TypeError("shuffle must be of boolean or enum of 'Shuffle' values like "
                        "'Shuffle.ADAPTIVE' or 'Shuffle.GLOBAL' or 'Shuffle.PARTIAL' or "
                        "'Shuffle.FILES' or 'Shuffle.INFILE'.")
    return shuffle in (Shuffle.GLOBAL, Shuffle.FILES), shuffle is Shuffle.GLOBAL


def check_reader_args(num_samples, shuffle, num_shards, shard_id):
    """The arguments every file reader checks before it opens a file."""
    _check_count("num_samples", num_samples)
    shuffle_flags(shuffle)
    check_shard_args(num_shards, shard_id)


def default_workers():
    """MindSpore's default reader count: the config's workers, at most one per CPU."""
    return max(1, min(config.get_num_parallel_workers(), os.cpu_count() or 1))


class FileRowsSource(Dataset):
    """Rows held per file (already parsed); each epoch reads them in MindSpore's order.

    The order, for files f_0..f_k (shuffled when the file order is), is:
    1. the shard: rows [s*R, (s+1)*R) of the files read one after another and over again from
       the first (R = ceil(total / num_shards)), cut into one block per file touched;
    2. the workers: block b goes to worker b % W, which reads its blocks in turn; the output
       takes one row from each worker in turn, skipping the finished ones (MindSpore's
       JaggedConnector), so with shuffle=False and W >= 2 the files interleave row by row;
    3. num_samples keeps the first rows of that; a global shuffle then permutes them.
    W is num_parallel_workers, or min(ds.config.get_num_parallel_workers(), CPUs).
    """

    def __init__(self, who, names, file_columns, num_samples, num_parallel_workers, shuffle,
                 num_shards, shard_id):
        super().__init__((), num_parallel_workers)
        check_reader_args(num_samples, shuffle, num_shards, shard_id)
        self._shuffle_files, self._shuffle_rows = shuffle_flags(shuffle)
        self._names = list(names)
        self._counts = np.array([len(cols[0]) if cols else 0 for cols in file_columns], np.int64)
        self._offsets = np.concatenate([[0], np.cumsum(self._counts)[:-1]]).astype(np.int64)
        self._cols = [_join([cols[i] for cols in file_columns if len(cols[0])])
                      for i in range(len(names))]
        self.num_samples = num_samples or None
        self.num_shards, self.shard_id = num_shards or 1, shard_id or 0
        self._who = who

    def get_col_names(self):
        return list(self._names)

    def _per_shard(self):
        return math.ceil(int(self._counts.sum()) / self.num_shards)

    def _size(self):
        n = self._per_shard()
        return min(n, self.num_samples) if self.num_samples else n

    def _blocks(self, file_order):
        """This shard's rows as one index array per (file, range) block, in reading order."""
        start = self.shard_id * self._per_shard()
        end = start + self._per_shard()
        blocks, pos = [], 0
        while pos < end:
            for f in file_order:
                lo, hi = max(start, pos), min(end, pos + self._counts[f])
                if lo < hi:
                    blocks.append(self._offsets[f] + np.arange(lo - pos, hi - pos))
                pos += self._counts[f]
                if pos >= end:
                    break
        return blocks

    def _order(self, ctx):
        files = np.arange(len(self._counts))
        if self._shuffle_files:
            # every shard must draw the same file order, so it comes from the dataset seed and
            # the epoch only (as DistributedSampler's permutation does)
            files = np.random.default_rng([config.get_seed(), *ctx.path]).permutation(files)
        blocks = self._blocks(files)
        workers = self.num_parallel_workers or default_workers()
        streams = [np.concatenate(blocks[w::workers] or [np.zeros(0, np.int64)])
                   for w in range(workers)]
        # one row from each unfinished worker in turn == sort by (position in stream, worker)
        pos = np.concatenate([np.arange(len(s)) for s in streams])
        worker = np.concatenate([np.full(len(s), w) for w, s in enumerate(streams)])
        order = np.concatenate(streams)[np.lexsort((worker, pos))].astype(np.int64)
        if self.num_samples:
            order = order[:self.num_samples]
        if self._shuffle_rows:
            order = ctx.rng(self).permutation(order)
        return order

    def _chunks(self, ctx):
        order = self._order(ctx)
        for start in range(0, len(order), ck.CHUNK_ROWS):
            idx = order[start:start + ck.CHUNK_ROWS]
            yield [col[idx] for col in self._cols]


def _join(parts):
    """One column from the files' columns (numpy str arrays widen to the longest string)."""
    return np.concatenate(parts) if parts else np.zeros(0, np.str_)
