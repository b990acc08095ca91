"""Dataset's chainable operations (map, batch, shuffle, ...) and iterator creation, installed onto
engine.datasets.Dataset by `install()` when minispore.dataset is imported (as minispore.ops
installs Tensor's methods): each builds a node that subclasses Dataset, so the base class cannot
name them itself."""
from minispore.dataset.engine.batch import BatchDataset
from minispore.dataset.engine.datasets import Dataset
from minispore.dataset.engine.iterators import DictIterator, TupleIterator
from minispore.dataset.engine.mindrecord import save_dataset
from minispore.dataset.engine.transfer import TransferDataset
from minispore.dataset.engine.operations import (ConcatDataset, MapDataset, ProjectDataset,
                                                 RenameDataset, RepeatDataset, ShuffleDataset,
                                                 SkipDataset, TakeDataset, ZipDataset,
                                                 _dataset_list, check_map_keywords,
                                                 split_dataset)


class _DatasetMethods:
    """The methods `install` puts on Dataset (written as a class body so they read as methods)."""

    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            **kwargs):
        """Apply `operations` (one transform or a list, in order) to `input_columns` of each row.

        MindSpore's keywords: ``python_multiprocessing``, ``max_rowsize`` and ``offload`` are
        accepted with a warning (the pipeline runs in the calling process, on the host);
        ``cache`` and ``callbacks`` other than None raise NotImplementedError; any other keyword
        raises TypeError naming it."""
        check_map_keywords(kwargs)
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack `batch_size` consecutive rows along a new axis 0.

        Keyword arguments (MindSpore's): ``per_batch_map`` (called with one list of row arrays
        per input column and a BatchInfo; returns one list or array of rows per output column),
        ``input_columns`` (the columns it takes; only with per_batch_map; default every
        column), ``output_columns`` (the names of what it returns; default the input columns),
        ``python_multiprocessing`` and ``max_rowsize`` (accepted, with a warning: the
        pipeline runs in this process), and ``pad_info`` (MindSpore 1.x's spelling of
        padded_batch's). Any other keyword raises TypeError naming it.
        """
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        """batch, each column's rows first padded at the end of every dim: ``pad_info`` maps a
        column to (pad_shape, pad_value); a None shape (or dim) pads to the batch's largest, a
        None value pads with 0; a column not named is padded to the batch's largest with 0.
        pad_info=None pads nothing."""
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers,
                            pad_info=pad_info)

    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of `buffer_size` rows (>= dataset size: full shuffle)."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """Run the pipeline below `count` times per epoch (None or -1: forever)."""
        return RepeatDataset(self, count)

    def project(self, columns):
        """Keep only `columns`, in the given order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        return RenameDataset(self, input_columns, output_columns)

    def take(self, count=-1):
        """The first `count` rows (-1: all)."""
        return TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first `count`."""
        return SkipDataset(self, count)

    def concat(self, datasets):
        """This dataset's rows, then those of `datasets` (one Dataset or a list), in order."""
        return ConcatDataset([self] + _dataset_list("concat", datasets, (Dataset, list)))

    def __add__(self, datasets):
        return self.concat(datasets)

    def zip(self, datasets):
        """This dataset's columns beside those of `datasets` (one Dataset or a tuple)."""
        return ZipDataset([self] + _dataset_list("zip", datasets, (Dataset, tuple)))

    def split(self, sizes, randomize=True):
        """Split into len(sizes) datasets; sizes are row counts or fractions summing to 1."""
        return split_dataset(self, sizes, randomize)

    def save(self, file_name, num_files=1, file_type="mindrecord"):
        """Write one epoch of this pipeline to MindRecord file(s) `file_name` (num_files > 1:
        file_name0, file_name1, ...), read back by MindDataset (see mindrecord.save_dataset)."""
        save_dataset(self, file_name, num_files, file_type)

    # -- iteration ------------------------------------------------------------------------
    def device_que(self, send_epoch_end=True, create_data_info_queue=False, queue_name=""):
        """This dataset bound to the data queue `queue_name` (a new name when empty) that
        ops.GetNext reads; ``send()`` fills it (engine/transfer.py)."""
        return TransferDataset(self, send_epoch_end, create_data_info_queue, queue_name)

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        """An iterator over rows as lists of Tensors (numpy arrays with output_numpy=True)."""
        return TupleIterator(self, columns, num_epochs, output_numpy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator over rows as {column name: Tensor} dicts."""
        return DictIterator(self, None, num_epochs, output_numpy)


def install(cls=Dataset):
    """Set every method of _DatasetMethods on `cls` (Dataset; every pipeline node inherits them)."""
    for name, member in vars(_DatasetMethods).items():
        if callable(member):
            setattr(cls, name, member)
