"""Source datasets: MnistDataset, FashionMnistDataset, NumpySlicesDataset and GeneratorDataset.

Cifar10Dataset (its own binary format) is in cifar.py."""
import copy
import os

import numpy as np

from minispore.common.dtype import Type
from minispore.dataset import config
from minispore.dataset.engine import chunk as ck
from minispore.dataset.engine.datasets import Dataset, check_columns
from minispore.dataset.engine.class_samplers import PKSampler
from minispore.dataset.engine.samplers import Sampler, select_sampler
from minispore.dataset.mnist_idx import read_idx


class RandomAccessSource(Dataset):
    """A source whose rows can be read by index; a sampler picks each epoch's indices."""

    # whether _class_ids() knows each row's class (what PKSampler draws by)
    _HAS_CLASS_IDS = False

    def __init__(self, column_names, sampler, num_parallel_workers):
        super().__init__((), num_parallel_workers)
        self._names = list(column_names)
        self._check_sampler(sampler)
        self.sampler = sampler

    def _check_sampler(self, sampler):
        if isinstance(sampler, PKSampler) and not self._HAS_CLASS_IDS:
            raise ValueError(f"{type(self).__name__} doesn't support PKSampler.")

    def _class_ids(self):
        """Each row's class (sources with _HAS_CLASS_IDS)."""
        raise NotImplementedError

    def _active_sampler(self):
        if isinstance(self.sampler, PKSampler):
            return self.sampler.bound(self._class_ids())
        return self.sampler

    def _num_rows(self):
        raise NotImplementedError

    def _fetch(self, idx):
        """The chunk of rows `idx` (an int64 array)."""
        raise NotImplementedError

    def get_col_names(self):
        return list(self._names)

    def _size(self):
        return self._active_sampler().get_num_samples(self._num_rows())

    def _chunks(self, ctx):
        idx = self._active_sampler().indices(self._num_rows(), ctx.rng(self), ctx.path)
        for start in range(0, len(idx), ck.CHUNK_ROWS):
            yield self._fetch(idx[start:start + ck.CHUNK_ROWS])

    def _epoch_indices_fixed(self):
        """This source's rows (as its sampler selects them), in index order."""
        idx = self._active_sampler().indices(self._num_rows(),
                                             np.random.default_rng(config.get_seed()),
                                   (0,))
        return np.sort(idx) if self.sampler.is_random() else idx

    def use_sampler(self, new_sampler):
        """Read with `new_sampler` from now on (in place, as MindSpore's use_sampler)."""
        if new_sampler is None:
            raise TypeError("Input sampler can not be None.")
        if not isinstance(new_sampler, Sampler):
            raise TypeError(f"Input sampler is not an instance of a sampler: {new_sampler!r}.")
        self._check_sampler(new_sampler)
        self.sampler, self._size_cache = new_sampler, None

    def _with_sampler(self, sampler):
        new = copy.copy(self)
        new.sampler = sampler
        new._epochs_started, new._size_cache = 0, None
        return new


_MNIST_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
                "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
_MNIST_IMAGE = (28, 28)       # rows, cols: MindSpore's MnistDataset accepts no other size


def _find_file(directory, name):
    """`name` in `directory`, also as name.gz or with the '-idx' written '.idx'."""
    for candidate in (name, name + ".gz", name.replace("-idx", ".idx"),
                      name.replace("-idx", ".idx") + ".gz"):
        path = os.path.join(directory, candidate)
        if os.path.isfile(path):
            return path
    return None


def load_mnist(dataset_dir, usage, who="MnistDataset"):
    """(images uint8 (N, 28, 28, 1), labels uint32 (N,)) from the IDX files of `usage`; `who`
    (the dataset class) names the errors."""
    parts = ["train", "test"] if usage == "all" else [usage]
    images, labels = [], []
    for part in parts:
        img_name, lbl_name = _MNIST_FILES[part]
        img_path, lbl_path = _find_file(dataset_dir, img_name), _find_file(dataset_dir, lbl_name)
        if img_path is None and lbl_path is None and usage == "all":
            continue
        if img_path is None or lbl_path is None:
            missing = img_name if img_path is None else lbl_name
            raise RuntimeError(f"{who}: '{missing}' (or '{missing}.gz') is missing in "
                               f"'{dataset_dir}' (usage='{usage}').")
        img = read_idx(img_path, expected_ndim=3)
        lbl = read_idx(lbl_path, expected_ndim=1)
        if img.dtype != np.uint8 or lbl.dtype != np.uint8:
            raise RuntimeError(f"{who}: '{img_path}' and '{lbl_path}' must hold uint8 "
                               f"data (IDX type 0x08), got {img.dtype} and {lbl.dtype}.")
        if img.shape[1:] != _MNIST_IMAGE:
            raise RuntimeError(f"{who}: '{img_path}' holds images of "
                               f"{img.shape[1]}x{img.shape[2]} pixels; MNIST images are "
                               f"{_MNIST_IMAGE[0]}x{_MNIST_IMAGE[1]}.")
        if len(img) != len(lbl):
            raise RuntimeError(f"{who}: '{img_path}' holds {len(img)} images but "
                               f"'{lbl_path}' holds {len(lbl)} labels.")
        images.append(img[..., None])
        labels.append(lbl.astype(np.uint32))
    if not images:
        raise RuntimeError(f"{who}: no MNIST IDX files (train-images-idx3-ubyte, "
                           f"t10k-images-idx3-ubyte, …) found in '{dataset_dir}'.")
    return np.concatenate(images), np.concatenate(labels)


class MnistDataset(RandomAccessSource):
    """MNIST from its IDX files: columns `image` (uint8, 28x28x1 HWC) and `label` (uint32).

    usage: 'train' (train-* files), 'test' (t10k-* files) or 'all'/None (whichever pairs the
    directory holds; MindSpore's MNIST_Data/train folder holds only the train pair). Files may be
    gzip-compressed (.gz). shuffle=None shuffles unless a sampler is given; num_shards/shard_id
    give this rank ceil(N/num_shards) rows (see DistributedSampler).

    >>> ds = MnistDataset("MNIST_Data/train", shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        who = type(self).__name__
        if cache is not None:
            raise NotImplementedError(f"For '{who}', 'cache' (a DatasetCache server) is not "
                                      f"implemented in minispore; leave it None.")
        if not isinstance(dataset_dir, (str, os.PathLike)):
            raise TypeError(f"For '{who}', dataset_dir must be a str, got {dataset_dir!r}.")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or "
                             f"permission denied!")
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError(f"Input usage is not within the valid set of ['train', 'test', "
                             f"'all'], got {usage!r}.")
        sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        super().__init__(["image", "label"], sampler, num_parallel_workers)
        self.dataset_dir, self.usage = os.fspath(dataset_dir), usage
        self._images, self._labels = load_mnist(self.dataset_dir, usage, who)

    _HAS_CLASS_IDS = True

    def _num_rows(self):
        return len(self._labels)

    def _class_ids(self):
        return self._labels

    def _fetch(self, idx):
        return [self._images[idx], self._labels[idx]]


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: MNIST's file names and IDX format (28x28 uint8 images, labels 0-9 for
    clothing classes), so the same reader and the same arguments as MnistDataset.

    >>> ds = FashionMnistDataset("fashion-mnist/train", shuffle=False)    # doctest: +SKIP
    """


def _default_names(n):
    return [f"column_{i}" for i in range(n)]


class NumpySlicesDataset(RandomAccessSource):
    """Rows sliced along axis 0 of numpy data: a list/array (one column), a tuple of them
    (one column each) or a dict {name: data}.

    >>> list(NumpySlicesDataset([1, 2], shuffle=False).create_tuple_iterator(output_numpy=True))
    [[array(1)], [array(2)]]
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        if isinstance(data, dict):
            names, cols = list(data.keys()), [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            names, cols = None, [np.asarray(v) for v in data]
        else:
            names, cols = None, [np.asarray(data)]
        if column_names is not None:
            names = check_columns("NumpySlicesDataset", column_names)
        names = names or _default_names(len(cols))
        if len(names) != len(cols):
            raise ValueError(f"For 'NumpySlicesDataset', column_names {names} name {len(names)} "
                             f"columns but the data has {len(cols)}.")
        for name, col in zip(names, cols):
            if col.ndim == 0 or col.dtype == object:
                raise TypeError(f"For 'NumpySlicesDataset', column '{name}' must be an array "
                                f"of numbers with at least one dim, got {col.dtype} "
                                f"shape {col.shape}.")
            if len(col) != len(cols[0]):
                raise ValueError(f"For 'NumpySlicesDataset', all columns need the same number of "
                                 f"rows; '{names[0]}' has {len(cols[0])}, '{name}' {len(col)}.")
        sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        super().__init__(names, sampler, num_parallel_workers)
        self._cols = [np.ascontiguousarray(c) for c in cols]

    def _num_rows(self):
        return len(self._cols[0])

    def _fetch(self, idx):
        return [c[idx] for c in self._cols]


def _row_values(where, row, names, types=None):
    values = list(row) if isinstance(row, (tuple, list)) else [row]
    if len(values) != len(names):
        raise RuntimeError(f"{where} gave {len(values)} values but column_names {names} names "
                           f"{len(names)}.")
    values = [ck.as_array(v) for v in values]
    for name, value, want in zip(names, values, types or ()):
        # MindSpore's GeneratorOp checks, it does not cast (generator_op.cc PyRowToTensorRow)
        if want is not None and value.dtype != want.np_dtype:
            raise RuntimeError(f"{where}: the type of returned data in 'GeneratorDataset' "
                               f"should be same with specified column_types, but column "
                               f"'{name}' is {value.dtype} and its column type is {want}.")
    return values


def _check_column_types(column_types, names):
    """column_types: None, or one minispore dtype (or None: unchecked) per column."""
    if column_types is None:
        return None
    if not isinstance(column_types, (list, tuple)) or len(column_types) != len(names) or \
            not all(t is None or isinstance(t, Type) for t in column_types):
        raise TypeError(f"For 'GeneratorDataset', column_types must be a list of "
                        f"{len(names)} dtypes (one per column of {names}), got "
                        f"{column_types!r}.")
    return list(column_types)


class GeneratorDataset(RandomAccessSource):
    """Rows from Python: a random-access source (`__getitem__` + `__len__`), an iterable, or
    a callable returning an iterator (called again each epoch). Each row is a tuple with one
    value per column (a bare array is accepted for one column).

    Only random-access sources can be shuffled, sampled or sharded (MindSpore's rule); for them
    shuffle=None means shuffle.

    >>> def gen():
    ...     for i in range(3):
    ...         yield (np.array([i]),)
    >>> GeneratorDataset(gen, ["x"]).get_dataset_size()
    3
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        if column_names is None:
            raise ValueError("For 'GeneratorDataset', column_names must be given "
                             "(schema is not supported).")
        names = check_columns("GeneratorDataset", column_names)
        self.column_types = _check_column_types(column_types, names)
        self.source = source
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if self._random_access:
            sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        else:
            if not (callable(source) or hasattr(source, "__iter__")):
                raise TypeError(f"For 'GeneratorDataset', source must be callable, iterable or "
                                f"random-accessible, got {type(source).__name__}.")
            for arg, value in (("shuffle", shuffle), ("sampler", sampler),
                               ("num_shards", num_shards), ("shard_id", shard_id)):
                if value not in (None, False):
                    raise ValueError(f"For 'GeneratorDataset', {arg} needs a random-accessible "
                                     f"source (with __getitem__ and __len__), got "
                                     f"{type(source).__name__}.")
            select_sampler(num_samples, None, False, None, None)
            sampler = None
        self.num_samples = num_samples
        super().__init__(names, sampler, num_parallel_workers)

    def _num_rows(self):
        return len(self.source)

    def _size(self):
        if self._random_access:
            return super()._size()
        if hasattr(self.source, "__len__"):
            n = len(self.source)
            return min(n, self.num_samples) if self.num_samples else n
        return None

    def _fetch(self, idx):
        rows = []
        for i in idx:
            try:
                row = self.source[int(i)]
            except Exception as e:
                raise RuntimeError(f"GeneratorDataset: source[{int(i)}] raised "
                                   f"{type(e).__name__}: {e}") from e
            rows.append(_row_values(f"GeneratorDataset: source[{int(i)}]", row, self._names,
                                    self.column_types))
        return [ck.stack(list(col)) for col in zip(*rows)]

    def _chunks(self, ctx):
        if self._random_access:
            yield from super()._chunks(ctx)
            return
        it = self.source() if callable(self.source) and not hasattr(self.source, "__iter__") \
            else self.source
        it = iter(it)
        rows, count = [], 0
        while not self.num_samples or count < self.num_samples:
            try:
                row = next(it)
            except StopIteration:
                break
            except Exception as e:
                raise RuntimeError(f"GeneratorDataset: the source raised {type(e).__name__} at "
                                   f"row {count}: {e}") from e
            rows.append(_row_values(f"GeneratorDataset: row {count}", row, self._names,
                                    self.column_types))
            count += 1
            if len(rows) == ck.CHUNK_ROWS:
                yield [ck.stack(list(col)) for col in zip(*rows)]
                rows = []
        if rows:
            yield [ck.stack(list(col)) for col in zip(*rows)]


class PaddedDataset(RandomAccessSource):
    """Rows given as a list of dicts {column: value}, read in order: the padding rows one
    concatenates to a dataset so that DistributedSampler shards come out equal
    (``(data + PaddedDataset(pad)).use_sampler(DistributedSampler(n, i, shuffle=False))``).

    Every dict needs the first one's keys, which name the columns in order; values are numbers,
    strings, bytes or arrays of them (Python ints become int64, floats float64).

    >>> PaddedDataset([{"a": 1}, {"a": 2}]).get_dataset_size()
    2
    """

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list):
            raise TypeError(f"Argument padded_samples with value {padded_samples!r} is not of "
                            f"type [<class 'list'>], but got {type(padded_samples)}.")
        if not padded_samples:
            raise ValueError("padded_samples cannot be empty.")
        for sample in padded_samples:
            if not isinstance(sample, dict):
                raise TypeError(f"Argument padded_element with value {sample!r} is not of type "
                                f"[<class 'dict'>], but got {type(sample)}.")
        names = list(padded_samples[0])
        rows = []
        for i, sample in enumerate(padded_samples):
            if list(sample) != names:
                raise RuntimeError(f"For 'PaddedDataset', padded_samples[{i}] has the keys "
                                   f"{list(sample)} but the first sample has {names}: every "
                                   f"sample needs the same columns.")
            try:
                rows.append([ck.as_array(sample[n]) for n in names])
            except TypeError as e:
                raise RuntimeError(f"For 'PaddedDataset', padded_samples[{i}]: {e}.") from None
        super().__init__(check_columns("PaddedDataset", names),
                         select_sampler(None, None, False, None, None), None)
        self.padded_samples = padded_samples
        self._cols = [ck.stack(list(col)) for col in zip(*rows)]

    def _num_rows(self):
        return len(self.padded_samples)

    def _fetch(self, idx):
        return [ck.select(c, idx) for c in self._cols]
