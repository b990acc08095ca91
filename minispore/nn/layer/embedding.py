"""Embedding, EmbeddingLookup and MultiFieldEmbeddingLookup: lookup tables of vocab_size rows
gathered by integer ids (the last pooling weighted rows per field)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops import functional as F
from minispore.ops.operations.indexing_ops import EmbeddingLookup as EmbeddingLookupOp
from minispore.parallel.settings import get_device_num

__all__ = ["Embedding", "EmbeddingLookup", "MultiFieldEmbeddingLookup"]


class Embedding(Cell):
    """out[..., :] = embedding_table[ids[...], :]; table (vocab_size, embedding_size) named
    'embedding_table', initialised 'normal' by default. ``padding_idx`` rows start at zero."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.int32, padding_idx=None):
        super().__init__()
        self.vocab_size = _check_positive_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = _check_positive_int("Embedding", "embedding_size", embedding_size)
        self.use_one_hot = _check_bool("Embedding", "use_one_hot", use_one_hot)
        self.dtype = mstype.to_type(dtype)
        if self.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'Embedding', 'dtype' must be int32 or int64, but got "
                            f"{self.dtype}.")
        if padding_idx is not None and not (isinstance(padding_idx, int)
                                            and -vocab_size <= padding_idx < vocab_size):
            raise ValueError(f"For 'Embedding', 'padding_idx' must be an int in "
                             f"[{-vocab_size}, {vocab_size}), but got {padding_idx!r}.")
        self.padding_idx = padding_idx
        table = initializer(embedding_table, [vocab_size, embedding_size], mstype.float32)
        if padding_idx is not None:
            table.asnumpy()[padding_idx] = 0
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        return F.gather(self.embedding_table, ids, 0)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")


_SLICE_MODES = ("batch_slice", "field_slice", "table_row_slice", "table_column_slice")


class EmbeddingLookup(Cell):
    """``EmbeddingLookup(vocab_size, embedding_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', manual_shapes=None, max_norm=None, sparse=True,
    vocab_cache_size=0, dtype=mstype.float32)``: out = rows `indices` of the table
    'embedding_table' (ops.EmbeddingLookup, offset 0).

    Under semi_auto/auto parallel `slice_mode` shards the lookup over all devices:
    'batch_slice' cuts the indices' first dim (the table is replicated), 'table_row_slice' the
    table's rows, 'table_column_slice' its columns. `target` 'CPU' keeps the table and lookup
    on the host: where they are on device_target 'CPU'; on 'GPU' it raises
    NotImplementedError ('DEVICE' runs them on the GPU). `sparse` is accepted; gradients are
    dense (the same numbers).

    Raises:
        ValueError: a bad target or slice_mode, sparse False with target 'CPU';
            TypeError / ValueError: bad sizes.
        NotImplementedError: slice_mode 'field_slice', manual_shapes, max_norm,
            vocab_cache_size > 0.
    """

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 vocab_cache_size=0, dtype=mstype.float32):
        super().__init__()
        cell = type(self).__name__          # subclasses report under their own name
        self.vocab_size = _check_positive_int(cell, "vocab_size", vocab_size)
        self.embedding_size = _check_positive_int(cell, "embedding_size",
                                                  embedding_size)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{cell}', 'target' must be 'CPU' or 'DEVICE', but "
                             f"got {target!r}.")
        if slice_mode not in _SLICE_MODES:
            raise ValueError(f"For '{cell}', 'slice_mode' must be one of "
                             f"{list(_SLICE_MODES)}, but got {slice_mode!r}.")
        _check_bool(cell, "sparse", sparse)
        if not sparse and target == "CPU":
            raise ValueError(f"For '{cell}', 'sparse' must be True when 'target' is \"CPU\", but "
                             f"got 'sparse': {sparse} and 'target': {target}")
        unbuilt = [name for name, value in (("slice_mode='field_slice'",
                                             slice_mode == "field_slice"),
                                            ("manual_shapes", manual_shapes is not None),
                                            ("max_norm", max_norm is not None),
                                            ("vocab_cache_size", vocab_cache_size))
                   if value]
        if unbuilt:
            raise NotImplementedError(f"For '{cell}', {', '.join(unbuilt)} is not "
                                      f"implemented in minispore.")
        self.target, self.slice_mode, self.sparse = target, slice_mode, sparse
        self.embedding_table = Parameter(
            initializer(param_init, [vocab_size, embedding_size], mstype.to_type(dtype)),
            name="embedding_table")
        self.lookup = EmbeddingLookupOp()
        if target == "CPU":
            self.lookup.set_device("CPU")
        self._shard_by_slice_mode()

    def _shard_by_slice_mode(self):
        from minispore.common.auto_parallel_context import get_auto_parallel_context
        if get_auto_parallel_context("parallel_mode") not in ("semi_auto_parallel",
                                                              "auto_parallel"):
            return
        n = get_device_num()
        if n <= 1:
            return
        strategy = {"batch_slice": ((1, 1), (n, 1)), "table_row_slice": ((n, 1), (1, 1)),
                    "table_column_slice": ((1, n), (1, 1))}[self.slice_mode]
        self.lookup.shard(strategy)

    def construct(self, indices):
        return self.lookup(self.embedding_table, indices, 0)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"target={self.target}, slice_mode={self.slice_mode}")


def _auto_parallel():
    from minispore.common.auto_parallel_context import get_auto_parallel_context
    return get_auto_parallel_context("parallel_mode") in ("semi_auto_parallel", "auto_parallel")


def _check_2d(name, x, dtypes):
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'MultiFieldEmbeddingLookup', '{name}' must be a Tensor, but got "
                        f"{type(x).__name__}.")
    if len(x.shape) != 2:
        raise ValueError(f"For 'MultiFieldEmbeddingLookup', the dimension of '{name}' must be "
                         f"2d, but got {len(x.shape)}")
    if x.dtype not in dtypes:
        names = ", ".join(f"mindspore.{str(d).lower()}" for d in dtypes)
        raise TypeError(f"For 'MultiFieldEmbeddingLookup', the '{name}' should be one of "
                        f"[{names}], but got 'mindspore.{str(x.dtype).lower()}'.")


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """``MultiFieldEmbeddingLookup(vocab_size, embedding_size, field_size, param_init='normal',
    target='CPU', slice_mode='batch_slice', feature_num_list=None, max_norm=None, sparse=True,
    operator='SUM', dtype=mstype.float32)(input_indices, input_values, field_ids)``:

        out[b, f] = OP over {s : field_ids[b, s] == f} of input_values[b, s] * table[ids[b, s]]

    for OP 'SUM', 'MEAN' (the sum divided by the sum of |input_values|, 0 where that is 0) or
    'MAX' (entries whose value is 0 are padding and left out; a field with no non-zero value is
    0). input_indices int32/int64, input_values float32, field_ids int32 in [0, field_size),
    all (batch, seq); output float32 (batch, field_size, embedding_size).

    The lookup is EmbeddingLookup's (and shards as its slice_mode says); 'field_slice' and
    `feature_num_list` do nothing outside semi_auto/auto parallel, as in MindSpore, and there
    'field_slice' raises MindSpore's ValueError.

    Raises:
        ValueError / TypeError: bad sizes, operator, inputs' ranks or dtypes (as EmbeddingLookup
            for the table's arguments).
        NotImplementedError: max_norm.
    """

    _NEGATIVE_INF = -3.402823466e38     # float32's lowest, MindSpore's padding fill for MAX

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True,
                 operator="SUM", dtype=mstype.float32):
        if slice_mode == "field_slice" and _auto_parallel():
            what = ("the 'manual_shapes' should not be none when the 'slice_mode' is "
                    "\"filed_slice\", but got None." if not feature_num_list else
                    "the 'slice_mode' must be in ['table_row_slice', 'batch_slice' and "
                    "'table_column_slice'], but got field_slice.")
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', {what}")
        # Outside parallel modes 'field_slice' shards nothing, exactly like 'batch_slice'.
        super().__init__(vocab_size, embedding_size, param_init, target,
                         "batch_slice" if slice_mode == "field_slice" else slice_mode,
                         max_norm=max_norm, sparse=sparse, dtype=dtype)
        self.slice_mode = slice_mode
        self.field_size = _check_positive_int("MultiFieldEmbeddingLookup", "field_size",
                                              field_size)
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'operator' must be str and "
                             f"must be in '['SUM', 'MAX', 'MEAN']', but got {operator!r}.")
        self.operator = operator

    def construct(self, input_indices, input_values, field_ids):
        _check_2d("input_indices", input_indices, (mstype.int32, mstype.int64))
        _check_2d("input_values", input_values, (mstype.float32,))
        _check_2d("field_ids", field_ids, (mstype.int32,))
        batch, seq = input_indices.shape
        segments = batch * self.field_size
        # Row b's fields become segments b * field_size + f, so one segment op pools all rows.
        offsets = np.arange(0, segments, self.field_size, dtype=np.int32).reshape(batch, 1)
        ids = F.add(field_ids, Tensor(offsets))
        weights = F.reshape(input_values, (batch, seq, 1))
        embedding = F.mul(weights, super().construct(input_indices))
        if self.operator == "MAX":
            padding = F.cast(F.equal(weights, 0.0), mstype.float32)
            embedding = F.add(embedding, F.mul(padding, self._NEGATIVE_INF))
            merged = F.unsorted_segment_max(embedding, ids, segments)
            count = F.unsorted_segment_sum(F.abs(input_values), ids, segments)
            merged = F.mul(merged, F.expand_dims(F.cast(F.not_equal(count, 0.0),
                                                        mstype.float32), -1))
        else:
            merged = F.unsorted_segment_sum(embedding, ids, segments)
            if self.operator == "MEAN":
                count = F.unsorted_segment_sum(F.abs(input_values), ids, segments)
                merged = F.div_no_nan(merged, F.expand_dims(count, -1))
        return F.reshape(merged, (batch, self.field_size, -1))

    def extend_repr(self):
        return f"{super().extend_repr()}, field_size={self.field_size}, operator={self.operator}"
