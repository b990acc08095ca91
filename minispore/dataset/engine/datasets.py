"""The Dataset base class: a pipeline node's children, epochs and size/shape queries. Its
chainable operations (map, batch, ...) and iterator creation build the nodes that subclass it,
so engine/dataset_methods.py installs them (this module stays below those nodes)."""
import numpy as np

from minispore.dataset import config


class EpochContext:
    """What one pass over the pipeline needs: its epoch path and where randomness comes from.

    Random choices draw from `rng(node)`, a generator keyed by (seed, epoch path, node position),
    so a seeded pipeline repeats exactly while every epoch (and every pass of a repeat) reshuffles
    differently. Without a seed the entropy is fresh per iterator, like MindSpore's unseeded
    shuffles. `path` is (epoch,) extended by one index per enclosing repeat pass.
    """

    def __init__(self, root, epoch, entropy, _keys=None, _path=None):
        self.path = _path or (epoch,)
        self._entropy = entropy
        self._keys = _keys
        if _keys is None:
            self._keys = {}
            stack = [root]
            while stack:
                node = stack.pop()
                self._keys.setdefault(id(node), len(self._keys))
                stack.extend(reversed(node.children))

    def sub(self, index):
        """The context of pass `index` of a repeat."""
        return EpochContext(None, None, self._entropy, self._keys, self.path + (index,))

    def rng(self, node):
        return np.random.default_rng([self._entropy, *self.path, self._keys[id(node)]])


def fresh_entropy():
    seed = config.seed_if_set()
    return seed if seed is not None else int(np.random.SeedSequence().entropy % (1 << 63))


def check_columns(where, names):
    """Normalise a column argument (str or list of str) to a non-empty list of unique names."""
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, (list, tuple)) or not names or \
            not all(isinstance(n, str) and n for n in names):
        raise TypeError(f"For '{where}', columns must be a non-empty str or list of str, "
                        f"got {names!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"For '{where}', column names must be unique, got {list(names)}.")
    return list(names)


def find_columns(where, wanted, available):
    """Positions of `wanted` in `available`, or a ValueError naming the missing column."""
    for name in wanted:
        if name not in available:
            raise ValueError(f"For '{where}', column '{name}' does not exist; the dataset has "
                             f"columns {available}.")
    return [available.index(n) for n in wanted]


class Dataset:
    """A node of the pipeline. Operations return new datasets; iterating runs the pipeline."""

    def __init__(self, children=(), num_parallel_workers=None):
        if num_parallel_workers is not None and (not isinstance(num_parallel_workers, int) or
                                                 isinstance(num_parallel_workers, bool) or
                                                 num_parallel_workers < 1):
            raise ValueError(f"Input num_parallel_workers is not within the required interval "
                             f"of [1, 2147483647], got {num_parallel_workers!r}.")
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._epochs_started = 0
        self._size_cache = None

    # -- what subclasses provide ------------------------------------------------------------
    def _chunks(self, ctx):
        """Yield the chunks (see engine/chunk.py) of one epoch."""
        raise NotImplementedError

    def _size(self):
        """Rows per epoch when known without running the pipeline, else None."""
        raise NotImplementedError

    def get_col_names(self):
        """The names of the columns each row has, in order."""
        raise NotImplementedError

    def __iter__(self):
        return self.create_tuple_iterator(num_epochs=1)

    def _next_epoch_context(self, entropy):
        ctx = EpochContext(self, self._epochs_started, entropy)
        self._epochs_started += 1
        return ctx

    def _first_chunk(self):
        """The first chunk of a throw-away epoch 0 (does not advance the epoch counter)."""
        for chunk in self._chunks(EpochContext(self, 0, fresh_entropy())):
            if len(chunk[0]):
                return chunk
        raise RuntimeError(f"{type(self).__name__}: the dataset is empty, so its output shapes "
                           f"and types are unknown.")

    # -- queries ------------------------------------------------------------------------------
    def get_dataset_size(self):
        """Rows (batches after .batch) per epoch; runs one epoch when the source cannot tell."""
        if self._size_cache is None:
            size = self._size()
            if size is None:
                ctx = EpochContext(self, 0, fresh_entropy())
                size = sum(len(chunk[0]) for chunk in self._chunks(ctx))
            self._size_cache = size
        return self._size_cache

    def output_shapes(self, estimate=False):
        """Shape of each column of the first row."""
        return [list(np.shape(col[0])) for col in self._first_chunk()]

    def output_types(self):
        """numpy dtype of each column of the first row."""
        return [np.asarray(col[0]).dtype for col in self._first_chunk()]

    def get_batch_size(self):
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self):
        return self.children[0].get_repeat_count() if self.children else 1

    def get_class_indexing(self):
        return self.children[0].get_class_indexing() if self.children else {}
