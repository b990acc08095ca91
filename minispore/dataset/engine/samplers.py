"""Samplers: which row indices of a random-access source an epoch reads, and in what order."""
import math

import numpy as np

from minispore.dataset import config


def _check_count(name, value, low=0, allow_none=True):
    if value is None and allow_none:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"Input {name} is not within the required interval of "
                         f"[{low}, 2147483647], got {value!r}.")


class Sampler:
    """Base class. `indices(n, rng, path)`: one epoch's int64 row indices (see EpochContext)."""

    def __init__(self, num_samples=None):
        _check_count("num_samples", num_samples)
        self.num_samples = num_samples

    def _cap(self, idx):
        return idx if not self.num_samples else idx[:self.num_samples]

    def get_num_samples(self, n):
        """Rows per epoch over a source of n rows."""
        full = self._full_count(n)
        return min(full, self.num_samples) if self.num_samples else full

    def _full_count(self, n):
        return n

    def is_random(self):
        return False

    def __repr__(self):
        return f"{type(self).__name__}(num_samples={self.num_samples})"


class SequentialSampler(Sampler):
    """Rows start_index, start_index+1, … in order."""

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        _check_count("start_index", start_index)
        self.start_index = start_index or 0

    def _full_count(self, n):
        return max(n - self.start_index, 0)

    def indices(self, n, rng, path):
        if self.start_index >= max(n, 1):
            raise RuntimeError(f"SequentialSampler: start_index {self.start_index} is beyond the "
                               f"dataset size {n}.")
        return self._cap(np.arange(self.start_index, n, dtype=np.int64))


class RandomSampler(Sampler):
    """A fresh random permutation every epoch (or draws with replacement)."""

    def __init__(self, replacement=False, num_samples=None):
        super().__init__(num_samples)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got {replacement!r}.")
        self.replacement = replacement

    def get_num_samples(self, n):
        if self.replacement and self.num_samples:
            return self.num_samples
        return super().get_num_samples(n)

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        if self.replacement:
            return rng.integers(0, n, size=self.get_num_samples(n), dtype=np.int64)
        return self._cap(rng.permutation(n).astype(np.int64))


class DistributedSampler(Sampler):
    """Shard s of num_shards: ceil(N / num_shards) rows, row i being perm[(i*num_shards + s) % N].

    Every shard has the same length; the short ones wrap around to the start of the (permuted)
    sequence, so a few rows appear on two shards when num_shards does not divide N (MindSpore's
    DistributedSampler rule). With shuffle, the permutation comes from the dataset seed
    (ds.config.get_seed(), 5489 when unset) and the epoch, so all ranks agree on it.
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        check_shard_args(num_shards, shard_id)
        if not isinstance(shuffle, bool):
            raise TypeError(f"DistributedSampler: shuffle must be a bool, got {shuffle!r}.")
        if offset != -1:
            raise ValueError("DistributedSampler: only offset=-1 is supported.")
        self.num_shards, self.shard_id, self.shuffle = num_shards, shard_id, shuffle

    def _full_count(self, n):
        return math.ceil(n / self.num_shards) if n else 0

    def is_random(self):
        return self.shuffle

    def indices(self, n, rng, path):
        if n == 0:
            return np.zeros(0, np.int64)
        if self.shuffle:
            order = np.random.default_rng([config.get_seed(), *path]).permutation(n)
        else:
            order = np.arange(n)
        i = np.arange(self._full_count(n), dtype=np.int64)
        return self._cap(order[(i * self.num_shards + self.shard_id) % n].astype(np.int64))

    def __repr__(self):
        return (f"DistributedSampler(num_shards={self.num_shards}, shard_id={self.shard_id}, "
                f"shuffle={self.shuffle}, num_samples={self.num_samples})")


class ConcatShardSampler(Sampler):
    """Row i of a concatenated child whose first row is row `offset` of the concatenation (mod
    num_shards) goes to shard (i + offset) % num_shards: what ConcatDataset.use_sampler gives
    each child, so row g of the whole concatenation lands on shard g % num_shards."""

    def __init__(self, num_shards, shard_id, offset):
        super().__init__(None)
        self.num_shards, self.shard_id, self.offset = num_shards, shard_id, offset

    def _full_count(self, n):
        return len(self.indices(n, None, None))

    def indices(self, n, rng, path):
        i = np.arange(n, dtype=np.int64)
        return i[(i + self.offset) % self.num_shards == self.shard_id]


class SubsetSampler(Sampler):
    """The given indices, in the given order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        idx = np.asarray(list(indices))
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise TypeError(f"{type(self).__name__}: indices must be a sequence of ints, "
                            f"got {indices!r}.")
        self._idx = idx.astype(np.int64)

    def _full_count(self, n):
        return len(self._idx)

    def _checked(self, n):
        if self._idx.size and (self._idx.min() < 0 or self._idx.max() >= n):
            raise RuntimeError(f"{type(self).__name__}: index out of range [0, {n}) in "
                               f"{self._idx.tolist()[:10]}…")
        return self._idx

    def indices(self, n, rng, path):
        return self._cap(self._checked(n).copy())


class SubsetRandomSampler(SubsetSampler):
    """The given indices in a fresh random order every epoch."""

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        return self._cap(rng.permutation(self._checked(n)))


def check_shard_args(num_shards, shard_id):
    """MindSpore's rules: both or neither; num_shards >= 1; 0 <= shard_id < num_shards."""
    if (num_shards is None) != (shard_id is None):
        raise RuntimeError(f"num_shards and shard_id need to be passed in together, got "
                           f"num_shards={num_shards!r}, shard_id={shard_id!r}.")
    if num_shards is None:
        return
    for name, v in (("num_shards", num_shards), ("shard_id", shard_id)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"Argument {name} with value {v!r} is not of type int.")
    if num_shards < 1:
        raise ValueError(f"Input num_shards is not within the required interval of "
                         f"[1, 2147483647], got {num_shards}.")
    if not 0 <= shard_id < num_shards:
        raise ValueError(f"Input shard_id is not within the required interval of "
                         f"[0, {num_shards - 1}], got {shard_id}.")


def select_sampler(num_samples, sampler, shuffle, num_shards, shard_id):
    """The sampler a source uses, from MindSpore's (sampler, shuffle, shards) combination rules."""
    _check_count("num_samples", num_samples)
    if shuffle is not None and not isinstance(shuffle, bool):
        raise TypeError(f"Argument shuffle with value {shuffle!r} is not of type bool.")
    if sampler is not None:
        if shuffle is not None:
            raise RuntimeError("sampler and shuffle cannot be specified at the same time.")
        if num_shards is not None or shard_id is not None:
            raise RuntimeError("sampler and sharding (num_shards/shard_id) cannot be specified "
                               "at the same time.")
        if isinstance(sampler, Sampler):
            return sampler
        if isinstance(sampler, (list, tuple, range, np.ndarray)):
            return SubsetSampler(sampler, num_samples)
        raise TypeError(f"sampler must be a Sampler or a sequence of indices, got {sampler!r}.")
    check_shard_args(num_shards, shard_id)
    shuffle = True if shuffle is None else shuffle
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle, num_samples)
    if shuffle:
        return RandomSampler(num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)
