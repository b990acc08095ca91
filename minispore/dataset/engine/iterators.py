"""Iterators: run the pipeline on a background thread and hand rows to the training loop."""
import queue
import threading

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.tensor import tensor_of
from minispore.dataset import config
from minispore.dataset.engine.datasets import find_columns, fresh_entropy

_CHUNK, _EPOCH_END, _END, _ERROR = range(4)
_POLL_S = 0.1


def _contiguous(value):
    """A row value as a C-contiguous array; 0-d stays 0-d (np.ascontiguousarray would make 1-d)."""
    arr = np.asarray(value)
    return arr if arr.flags.c_contiguous else arr.copy()


def _to_tensor(arr):
    arr = _contiguous(arr)
    if arr.dtype.kind in "US":
        return arr
    return tensor_of(device.asarray(arr), mstype.to_type(arr.dtype))


def _put(q, stop, item):
    while not stop.is_set():
        try:
            q.put(item, timeout=_POLL_S)
            return True
        except queue.Full:
            continue
    return False


def _produce(dataset, pick, num_epochs, entropy, q, stop):
    """The pipeline thread: chunks, then an epoch-end marker per epoch, then END or ERROR."""
    try:
        epoch = 0
        while num_epochs == -1 or epoch < num_epochs:
            ctx = dataset._next_epoch_context(entropy)
            for chunk in dataset._chunks(ctx):
                if not _put(q, stop, (_CHUNK, [chunk[i] for i in pick])):
                    return
            if not _put(q, stop, (_EPOCH_END, None)):
                return
            epoch += 1
        _put(q, stop, (_END, None))
    except BaseException as e:          # handed to the consumer, which re-raises it
        _put(q, stop, (_ERROR, e))


class _Iterator:
    """One prefetching iterator over `num_epochs` epochs (-1: unlimited).

    A daemon thread runs the pipeline and fills a bounded queue (ds.config prefetch size, in
    chunks), so data preparation overlaps the consumer's work. Each `for` loop over the iterator
    consumes one epoch. An exception in the thread is re-raised here with its message (which
    names the failing operation); `stop()` ends the thread; nothing blocks forever.
    """

    def __init__(self, dataset, columns, num_epochs, output_numpy):
        if not isinstance(num_epochs, int) or isinstance(num_epochs, bool) or \
                (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"num_epochs must be -1 or a positive int, got {num_epochs!r}.")
        names = dataset.get_col_names()
        self._names = names if columns is None else \
            [names[i] for i in find_columns("create_tuple_iterator",
                                            [columns] if isinstance(columns, str) else columns,
                                            names)]
        self._pick = [names.index(n) for n in self._names]
        self._dataset, self._output_numpy = dataset, output_numpy
        self._queue = queue.Queue(maxsize=config.get_prefetch_size())
        self._stop = threading.Event()
        self._rows, self._pos, self._done = None, 0, False
        # The thread gets no reference to self, so a dropped iterator is collected and its
        # __del__ stops the thread.
        self._thread = threading.Thread(
            target=_produce, args=(dataset, self._pick, num_epochs, fresh_entropy(),
                                   self._queue, self._stop),
            name="minispore-dataset", daemon=True)
        self._thread.start()

    def _next_item(self):
        while True:
            try:
                return self._queue.get(timeout=_POLL_S)
            except queue.Empty:
                if not self._thread.is_alive() and self._queue.empty():
                    raise RuntimeError("The dataset pipeline thread stopped without a result.")

    def _next_row(self):
        while self._rows is None or self._pos >= len(self._rows[0]):
            if self._done:
                raise StopIteration
            kind, payload = self._next_item()
            if kind == _CHUNK:
                self._rows, self._pos = payload, 0
            elif kind == _EPOCH_END:
                self._rows = None
                raise StopIteration
            elif kind == _END:
                self._done, self._rows = True, None
                raise StopIteration
            else:
                self.stop()
                raise payload
        i = self._pos
        self._pos += 1
        values = [col[i] for col in self._rows]
        if self._output_numpy:
            return [_contiguous(v) for v in values]
        return [_to_tensor(v) for v in values]

    def __iter__(self):
        return self

    def stop(self):
        """End the background thread and release the queued rows."""
        self._stop.set()
        self._done = True
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break

    close = stop

    def __del__(self):
        if hasattr(self, "_stop"):
            self._stop.set()

    def get_col_names(self):
        return list(self._names)


class TupleIterator(_Iterator):
    """Rows as lists, one Tensor (or numpy array) per column."""

    def __next__(self):
        return self._next_row()


class DictIterator(_Iterator):
    """Rows as {column name: Tensor (or numpy array)}."""

    def __next__(self):
        return dict(zip(self._names, self._next_row()))
