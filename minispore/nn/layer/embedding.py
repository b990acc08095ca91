"""Embedding: a lookup table of vocab_size rows gathered by integer ids."""
from minispore.common import dtype as mstype
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops import functional as F

__all__ = ["Embedding"]


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
