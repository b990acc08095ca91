"""The dataset operations: map, shuffle, repeat, project, rename, take, skip, split (batch
is in batch.py), and the keyword checks map and batch share."""
import logging

import numpy as np

from minispore.dataset import config
from minispore.dataset.engine import chunk as ck
from minispore.dataset.engine.datasets import Dataset, check_columns, find_columns
from minispore.dataset.engine.samplers import (ConcatShardSampler, DistributedSampler,
                                               RandomSampler, SubsetRandomSampler, SubsetSampler)
from minispore.dataset.engine.sources import RandomAccessSource
from minispore.dataset.transforms.transforms import Compose


logger = logging.getLogger("minispore")


def check_int(where, name, value, low, allow=()):
    if value in allow and not isinstance(value, bool):
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        extra = f" or one of {list(allow)}" if allow else ""
        raise ValueError(f"For '{where}', {name} must be an int >= {low}{extra}, got {value!r}.")


def _flatten(ops):
    """Compose members inlined (recursively), so each runs vectorised on its own."""
    return [m for op in ops for m in (_flatten(op.transforms) if isinstance(op, Compose)
                                      else [op])]


def replaced_columns(where, names, input_columns, output_columns):
    """The column names after `input_columns` are replaced by `output_columns`: the columns
    kept before the first input column, the outputs, then the other kept columns."""
    kept = [n for n in names if n not in input_columns]
    for n in output_columns:
        if n in kept:
            raise ValueError(f"For '{where}', output column '{n}' would duplicate an existing "
                             f"column; columns are {names}.")
    at = min(names.index(n) for n in input_columns)
    before = [n for n in names[:at] if n in kept]
    return before + list(output_columns) + [n for n in kept if n not in before]


def op_name(op):
    return getattr(op, "__name__", None) or type(op).__name__


class MapDataset(Dataset):
    """Rows with `operations` applied to `input_columns`.

    A transform with a `_compute(*columns, rng)` method (every vision/transforms op) runs once on
    a whole chunk when its columns are stacked arrays; plain Python callables run per row.
    """

    def __init__(self, child, operations, input_columns, output_columns, num_parallel_workers):
        super().__init__([child], num_parallel_workers)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        ops = _flatten(ops)
        if not ops or not all(callable(op) for op in ops):
            raise TypeError(f"For 'map', operations must be a callable or a non-empty list of "
                            f"callables, got {operations!r}.")
        self.operations = ops
        names = child.get_col_names()
        self.input_columns = (check_columns("map", input_columns) if input_columns is not None
                              else names[:1])
        self._in_idx = find_columns("map", self.input_columns, names)
        self.output_columns = (check_columns("map", output_columns)
                               if output_columns is not None else list(self.input_columns))
        self._names = replaced_columns("map", names, self.input_columns, self.output_columns)

    def get_col_names(self):
        return list(self._names)

    def _size(self):
        return self.children[0]._size()

    def _apply(self, op, cols, rng):
        n = ck.num_rows(cols)
        compute = getattr(op, "_compute", None)
        if compute is not None and all(isinstance(c, np.ndarray) for c in cols):
            out = compute(*cols, rng=rng)
            return list(out) if isinstance(out, tuple) else [out]
        per_row = []
        for i in range(n):
            args = [c[i] for c in cols]
            if compute is not None:
                res = compute(*[a[None] for a in args], rng=rng)
                res = [r[0] for r in res] if isinstance(res, tuple) else [res[0]]
            else:
                res = op(*args)
                res = [ck.as_array(r) for r in res] if isinstance(res, (tuple, list)) \
                    else [ck.as_array(res)]
            per_row.append(res)
        return [ck.stack([row[j] for row in per_row]) for j in range(len(per_row[0]))]

    def _chunks(self, ctx):
        rng = ctx.rng(self)
        kept_idx = [i for i, n in enumerate(self.children[0].get_col_names())
                    if n not in self.input_columns]
        for chunk in self.children[0]._chunks(ctx):
            cols = [chunk[i] for i in self._in_idx]
            for op in self.operations:
                try:
                    cols = self._apply(op, cols, rng)
                except Exception as e:
                    raise RuntimeError(
                        f"map operation '{op_name(op)}' on input_columns {self.input_columns} "
                        f"failed: {type(e).__name__}: {e}") from e
            if len(cols) != len(self.output_columns):
                raise RuntimeError(
                    f"map operations {[op_name(o) for o in self.operations]} produced "
                    f"{len(cols)} columns but output_columns {self.output_columns} names "
                    f"{len(self.output_columns)}.")
            by_name = dict(zip(self.output_columns, cols))
            names = self.children[0].get_col_names()
            by_name.update({names[i]: chunk[i] for i in kept_idx})
            yield [by_name[n] for n in self._names]


# batch's keywords that only tune MindSpore's worker processes: the pipeline here runs in the
# calling process, so they change nothing (a warning says so).
_NO_EFFECT_BATCH_KEYS = ("python_multiprocessing", "max_rowsize")


def check_no_effect_keys(kwargs, where="batch", no_effect=_NO_EFFECT_BATCH_KEYS,
                          valid="per_batch_map, input_columns, output_columns, "
                                "python_multiprocessing, max_rowsize and pad_info"):
    for key, value in kwargs.items():
        if key not in no_effect:
            raise TypeError(f"For '{where}', the keyword argument {key!r} is not supported; "
                            f"the keywords are {valid}.")
        if key in ("python_multiprocessing", "offload") and not isinstance(value, bool):
            raise TypeError(f"For '{where}', {key} must be a bool, got {value!r}.")
        logger.warning("For '%s', %s=%r has no effect in minispore: the pipeline runs in the "
                       "calling process, on the host.", where, key, value)


def check_map_keywords(kwargs):
    """map's MindSpore keywords (validators.py get_map_kwargs_from_dict): the worker and
    offload ones warn; a cache server or callbacks are not built."""
    kwargs = dict(kwargs)
    for key, what in (("cache", "a DatasetCache server"), ("callbacks", "dataset callbacks")):
        if kwargs.pop(key, None) is not None:
            raise NotImplementedError(f"For 'map', '{key}' ({what}) is not implemented in "
                                      f"minispore; leave it None.")
    check_no_effect_keys(kwargs, "map", ("python_multiprocessing", "max_rowsize", "offload"),
                          "python_multiprocessing, max_rowsize, cache, callbacks and offload")


class ShuffleDataset(Dataset):
    """Rows passed through a random buffer of `buffer_size` rows.

    Each incoming row, once the buffer is full, replaces a uniformly chosen buffered row, which
    is emitted; at the end the buffer drains in random order.
    """

    def __init__(self, child, buffer_size):
        super().__init__([child])
        check_int("shuffle", "buffer_size", buffer_size, 2)
        self.buffer_size = buffer_size

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _size(self):
        return self.children[0]._size()

    def _chunks(self, ctx):
        rng, size = ctx.rng(self), self.buffer_size
        filling, have, buf = [], 0, None
        for chunk in self.children[0]._chunks(ctx):
            chunk = [_as_gatherable(c) for c in chunk]
            if buf is None:
                take = min(size - have, ck.num_rows(chunk))
                filling.append([c[:take] for c in chunk])
                have += take
                chunk = [c[take:] for c in chunk]
                if have == size:
                    buf = [_join([f[j] for f in filling]) for j in range(len(chunk))]
                if not ck.num_rows(chunk):
                    continue
            yield [_from_gatherable(c) for c in self._exchange(buf, chunk, rng)]
        if buf is None:
            buf = [_join([f[j] for f in filling]) for j in range(len(filling[0]))] \
                if filling else []
        if buf and ck.num_rows(buf):
            order = rng.permutation(ck.num_rows(buf))
            for start in range(0, len(order), ck.CHUNK_ROWS):
                yield [_from_gatherable(c[order[start:start + ck.CHUNK_ROWS]]) for c in buf]

    def _exchange(self, buf, chunk, rng):
        """Each incoming row t replaces buffer slot j_t, whose row is emitted. The index-level
        loop resolves repeated slots in order; the row data moves by fancy indexing."""
        size, k = self.buffer_size, ck.num_rows(chunk)
        draws = rng.integers(0, size, size=k).tolist()
        replaced, refs = {}, []
        for t, j in enumerate(draws):
            refs.append(replaced.get(j, j))
            replaced[j] = size + t
        refs = np.asarray(refs)
        from_buf = refs < size
        slots = np.fromiter(replaced.keys(), np.int64, len(replaced))
        incoming = np.fromiter(replaced.values(), np.int64, len(replaced)) - size
        out = []
        for b, c in zip(buf, chunk):
            o = np.empty_like(c)
            o[from_buf] = b[refs[from_buf]]
            o[~from_buf] = c[refs[~from_buf] - size]
            b[slots] = c[incoming]
            out.append(o)
        return out


def _as_gatherable(column):
    """Ragged columns as 1-d object arrays, so every column supports fancy indexing."""
    if isinstance(column, np.ndarray):
        return column
    arr = np.empty(len(column), object)
    arr[:] = [None] * len(column)
    for i, r in enumerate(column):
        arr[i] = r
    return arr


def _from_gatherable(column):
    return ck.stack(list(column)) if column.dtype == object else column


def _join(parts):
    if len(parts) > 1 and any(p.dtype == object for p in parts):
        parts = [_as_gatherable(list(p)) for p in parts]
    return ck.concat(parts) if len(parts) > 1 else parts[0].copy()


class RepeatDataset(Dataset):
    """The rows below, `count` times over (None or -1: forever); each pass reshuffles."""

    def __init__(self, child, count):
        super().__init__([child])
        if count is None:
            count = -1
        check_int("repeat", "count", count, 1, allow=(-1,))
        self.count = count

    def get_col_names(self):
        return self.children[0].get_col_names()

    def get_repeat_count(self):
        return self.count

    def _size(self):
        n = self.children[0]._size()
        if n is None or self.count == -1:
            return n
        return n * self.count

    def _chunks(self, ctx):
        r = 0
        while self.count == -1 or r < self.count:
            yield from self.children[0]._chunks(ctx.sub(r))
            r += 1


class ProjectDataset(Dataset):
    """Only the named columns, in the given order."""

    def __init__(self, child, columns):
        super().__init__([child])
        self.columns = check_columns("project", columns)
        self._idx = find_columns("project", self.columns, child.get_col_names())

    def get_col_names(self):
        return list(self.columns)

    def _size(self):
        return self.children[0]._size()

    def _chunks(self, ctx):
        for chunk in self.children[0]._chunks(ctx):
            yield [chunk[i] for i in self._idx]


class RenameDataset(Dataset):
    """The same rows with some columns renamed."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        src = check_columns("rename", input_columns)
        dst = check_columns("rename", output_columns)
        if len(src) != len(dst):
            raise ValueError(f"For 'rename', input_columns {src} and output_columns {dst} must "
                             f"have the same length.")
        names = child.get_col_names()
        find_columns("rename", src, names)
        mapping = dict(zip(src, dst))
        self._names = [mapping.get(n, n) for n in names]
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"For 'rename', the result has duplicate columns: {self._names}.")

    def get_col_names(self):
        return list(self._names)

    def _size(self):
        return self.children[0]._size()

    def _chunks(self, ctx):
        return self.children[0]._chunks(ctx)


class TakeDataset(Dataset):
    """The first `count` rows (-1: all of them)."""

    def __init__(self, child, count):
        super().__init__([child])
        check_int("take", "count", count, 1, allow=(-1,))
        self.count = count

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _size(self):
        n = self.children[0]._size()
        return n if n is None or self.count == -1 else min(n, self.count)

    def _chunks(self, ctx):
        left = self.count
        if left == -1:
            yield from self.children[0]._chunks(ctx)
            return
        for chunk in self.children[0]._chunks(ctx):
            k = ck.num_rows(chunk)
            if k >= left:
                yield [ck.select(c, slice(0, left)) for c in chunk]
                return
            left -= k
            yield chunk


class SkipDataset(Dataset):
    """All rows after the first `count`."""

    def __init__(self, child, count):
        super().__init__([child])
        check_int("skip", "count", count, 0)
        self.count = count

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _size(self):
        n = self.children[0]._size()
        return None if n is None else max(n - self.count, 0)

    def _chunks(self, ctx):
        left = self.count
        for chunk in self.children[0]._chunks(ctx):
            k = ck.num_rows(chunk)
            if left >= k:
                left -= k
                continue
            yield [ck.select(c, slice(left, None)) for c in chunk] if left else chunk
            left = 0


def _split_counts(sizes, n):
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"For 'split', sizes must be a non-empty list, got {sizes!r}.")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if min(sizes) < 1 or sum(sizes) != n:
            raise RuntimeError(f"For 'split', int sizes must be >= 1 and sum to the dataset "
                               f"size {n}, got {list(sizes)}.")
        return list(sizes)
    if all(isinstance(s, float) for s in sizes):
        if min(sizes) <= 0 or max(sizes) > 1 or abs(sum(sizes) - 1) > 1e-6:
            raise ValueError(f"For 'split', float sizes must lie in (0, 1] and sum to 1, "
                             f"got {list(sizes)}.")
        counts = [round(s * n) for s in sizes]
        counts[0] += n - sum(counts)     # MindSpore puts the rounding remainder on the first split
        if min(counts) < 1:
            raise RuntimeError(f"For 'split', sizes {list(sizes)} of {n} rows give an empty "
                               f"split {counts}.")
        return counts
    raise TypeError(f"For 'split', sizes must be all ints or all floats, got {list(sizes)}.")


def split_dataset(dataset, sizes, randomize):
    """Disjoint datasets covering `dataset`; see Dataset.split.

    On a random-access source each split reads its own index subset (randomly chosen from the
    dataset seed when randomize, and read in a fresh random order every epoch); otherwise
    (randomize=False only) consecutive rows via skip/take.
    """
    counts = _split_counts(sizes, dataset.get_dataset_size())
    if not isinstance(dataset, RandomAccessSource):
        if randomize:
            raise RuntimeError("For 'split', randomize=True needs a random-access source dataset "
                               "(MnistDataset, NumpySlicesDataset, GeneratorDataset over a "
                               "__getitem__ source) with no operations applied.")
        out, start = [], 0
        for c in counts:
            out.append(dataset.skip(start).take(c))
            start += c
        return out
    order = dataset._epoch_indices_fixed()
    if randomize:
        order = np.random.default_rng(config.get_seed()).permutation(order)
    out, start = [], 0
    for c in counts:
        part = order[start:start + c]
        sampler = SubsetRandomSampler(part) if randomize else SubsetSampler(part)
        out.append(dataset._with_sampler(sampler))
        start += c
    return out


def check_tree(datasets):
    """MindSpore's pipelines are trees: a node that two consumers in one pipeline would read
    (``a + a``, ``zip((a, a.take(2)))``) is refused, as MindSpore refuses it."""
    seen = set()
    for dataset in datasets:
        stack = [dataset]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                raise ValueError("The data pipeline is not a tree (i.e., one node has 2 "
                                 "consumers): a dataset appears twice in the datasets joined.")
            seen.add(id(node))
            stack.extend(node.children)


def _dataset_list(where, datasets, kinds):
    if isinstance(datasets, Dataset) and Dataset in kinds:
        return [datasets]
    if not isinstance(datasets, tuple(k for k in kinds if k is not Dataset)) or \
            not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError(f"Argument datasets with value {datasets!r} is not of type "
                        f"{[k.__name__ for k in kinds]}, but got {type(datasets).__name__}; "
                        f"'{where}' takes datasets.")
    return list(datasets)


class ConcatDataset(Dataset):
    """The rows of every dataset in turn (``a + b``, ``a.concat([b, c])``). They must have the
    same columns; a column whose dtype or rank changes between them raises RuntimeError when
    the rows meet, as MindSpore's pipeline does."""

    def __init__(self, datasets):
        check_tree(datasets)
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise RuntimeError(f"For 'concat', every dataset must have the columns {names}, "
                                   f"but one has {d.get_col_names()}.")
        super().__init__(datasets)

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _size(self):
        sizes = [d._size() for d in self.children]
        return None if None in sizes else sum(sizes)

    def use_sampler(self, sampler):
        """Shard the concatenation: with DistributedSampler(n, i, shuffle=False), row g of the
        rows read in order goes to shard g % n (each child's own sampler is replaced), so
        padding rows (PaddedDataset) can even the shards out. As in MindSpore, only an
        unshuffled DistributedSampler without num_samples is taken."""
        if isinstance(sampler, RandomSampler):
            raise NotImplementedError("For 'concat', use_sampler(RandomSampler) is not "
                                      "implemented in minispore; use a DistributedSampler.")
        if not isinstance(sampler, DistributedSampler):
            raise TypeError(f"The parameter {sampler!r} of concat must be DistributedSampler or "
                            f"RandomSampler!")
        if sampler.shuffle:
            raise ValueError("The parameter shuffle of DistributedSampler must be False!")
        if sampler.num_samples is not None:
            raise ValueError("The parameter num_samples of DistributedSampler is not support to "
                             "be set!")
        leaves = self._leaves()
        for child in leaves:
            # (a GeneratorDataset over an iterable streams its rows: it has no sampler)
            if not isinstance(child, RandomAccessSource) or child.sampler is None:
                raise NotImplementedError(
                    f"For 'concat', use_sampler needs every dataset joined to be a "
                    f"random-access source (NumpySlicesDataset, MnistDataset, PaddedDataset, "
                    f"...); sharding a concatenated {type(child).__name__} is not implemented "
                    f"in minispore.")
            if child.sampler.num_samples:
                raise ValueError(f"The parameter NumSamples of {type(child).__name__} is not "
                                 f"support to be set!")
        # the sources' sizes before any sharding (MindSpore counts them when concatenating)
        if not hasattr(self, "_leaf_rows"):
            self._leaf_rows = [child.get_dataset_size() for child in leaves]
        offset = 0
        for child, rows in zip(leaves, self._leaf_rows):
            child.use_sampler(ConcatShardSampler(sampler.num_shards, sampler.shard_id, offset))
            offset = (offset + rows) % sampler.num_shards
        self._forget_sizes()

    def _leaves(self):
        """The datasets joined, with nested concatenations (``a + b + c``) opened up."""
        return [leaf for child in self.children
                for leaf in (child._leaves() if isinstance(child, ConcatDataset) else [child])]

    def _forget_sizes(self):
        self._size_cache = None
        for child in self.children:
            if isinstance(child, ConcatDataset):
                child._forget_sizes()

    def _chunks(self, ctx):
        dtypes = None
        for i, child in enumerate(self.children):
            for chunk in child._chunks(ctx):
                if not ck.num_rows(chunk):
                    continue
                firsts = [np.asarray(ck.rows_of(c)[0]) for c in chunk]
                kinds = [f"{a.dtype} of rank {a.ndim}" for a in firsts]
                if dtypes is None:
                    dtypes = kinds
                elif kinds != dtypes:
                    raise RuntimeError(f"For 'concat', dataset {i}'s columns hold {kinds} where "
                                       f"the first dataset's hold {dtypes}: they must be equal "
                                       f"(batch all of them, or none).")
                yield chunk


class ZipDataset(Dataset):
    """Row i of every dataset side by side (``ds.zip((a, b))``): their columns, in order, which
    must not repeat a name; as many rows as the shortest dataset."""

    def __init__(self, datasets):
        check_tree(datasets)
        names = [n for d in datasets for n in d.get_col_names()]
        if len(set(names)) != len(names):
            raise RuntimeError(f"For 'zip', the datasets' column names must be unique, but "
                               f"they are {names}: rename one with .rename().")
        super().__init__(datasets)
        self._names = names

    def get_col_names(self):
        return list(self._names)

    def _size(self):
        sizes = [d._size() for d in self.children]
        return None if None in sizes else min(sizes)

    def _chunks(self, ctx):
        streams = [child._chunks(ctx) for child in self.children]
        pending = [None] * len(streams)
        while True:
            for i, stream in enumerate(streams):
                while pending[i] is None or not ck.num_rows(pending[i]):
                    pending[i] = next(stream, None)
                    if pending[i] is None:
                        return
            k = min(ck.num_rows(p) for p in pending)
            yield [ck.select(c, slice(0, k)) for p in pending for c in p]
            pending = [[ck.select(c, slice(k, None)) for c in p] for p in pending]
