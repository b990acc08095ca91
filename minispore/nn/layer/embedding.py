"""Embedding and EmbeddingLookup: lookup tables of vocab_size rows gathered by integer ids."""
from minispore.common import dtype as mstype
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops import functional as F
from minispore.ops.operations.indexing_ops import EmbeddingLookup as EmbeddingLookupOp
from minispore.parallel.settings import get_device_num

__all__ = ["Embedding", "EmbeddingLookup"]


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
        ValueError: a bad target or slice_mode; TypeError / ValueError: bad sizes.
        NotImplementedError: slice_mode 'field_slice', manual_shapes, max_norm,
            vocab_cache_size > 0.
    """

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 vocab_cache_size=0, dtype=mstype.float32):
        super().__init__()
        self.vocab_size = _check_positive_int("EmbeddingLookup", "vocab_size", vocab_size)
        self.embedding_size = _check_positive_int("EmbeddingLookup", "embedding_size",
                                                  embedding_size)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For 'EmbeddingLookup', 'target' must be 'CPU' or 'DEVICE', but "
                             f"got {target!r}.")
        if slice_mode not in _SLICE_MODES:
            raise ValueError(f"For 'EmbeddingLookup', 'slice_mode' must be one of "
                             f"{list(_SLICE_MODES)}, but got {slice_mode!r}.")
        _check_bool("EmbeddingLookup", "sparse", sparse)
        unbuilt = [name for name, value in (("slice_mode='field_slice'",
                                             slice_mode == "field_slice"),
                                            ("manual_shapes", manual_shapes is not None),
                                            ("max_norm", max_norm is not None),
                                            ("vocab_cache_size", vocab_cache_size))
                   if value]
        if unbuilt:
            raise NotImplementedError(f"For 'EmbeddingLookup', {', '.join(unbuilt)} is not "
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
