"""Mask (an elementwise comparison with a constant, Relational picking which) and Unique (the
distinct values of a tensor with their inverse indices and counts)."""
from enum import Enum

import numpy as np

from minispore.common import dtype as mstype
from minispore.dataset.engine import chunk as ck
from minispore.dataset.transforms.transforms import TensorOperation

__all__ = ["Relational", "Mask", "Unique"]


class Relational(Enum):
    """The comparison Mask applies: element <op> constant."""
    EQ = "EQ"
    NE = "NE"
    GT = "GT"
    GE = "GE"
    LT = "LT"
    LE = "LE"


_COMPARE = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
            Relational.GE: np.greater_equal, Relational.LT: np.less,
            Relational.LE: np.less_equal}


class Mask(TensorOperation):
    """``Mask(operator, constant, dtype=mstype.bool_)``: element <operator> constant, cast to
    dtype. The constant is compared in the column's dtype (a string column takes a str)."""

    def __init__(self, operator, constant, dtype=mstype.bool_):
        if not isinstance(operator, Relational):
            raise TypeError(f"Argument operator with value {operator} is not of type "
                            f"[<enum 'Relational'>], but got {type(operator)}.")
        if isinstance(constant, bool) or not isinstance(constant, (int, float, str, bytes)):
            raise TypeError(f"Argument constant with value {constant!r} is not of type "
                            f"[<class 'str'>, <class 'float'>, <class 'bytes'>, <class 'int'>, "
                            f"<class 'bool'>].")
        self.operator, self.constant = operator, constant
        self.dtype = mstype.to_type(dtype)

    def _compute(self, x, rng):
        text = x.dtype.kind in "US"
        if text != isinstance(self.constant, (str, bytes)):
            raise TypeError(f"Mask: the constant {self.constant!r} cannot be compared with a "
                            f"{x.dtype} column.")
        constant = self.constant if text else np.asarray(self.constant).astype(x.dtype)
        return _COMPARE[self.operator](x, constant).astype(self.dtype.np_dtype)


class Unique(TensorOperation):
    """(values, index, count) of the flattened input: the distinct values in order of first
    occurrence, each element's position among them, and how often each occurs (Int32 index
    and count). MindSpore requires an input of rank 2 or more; so does this."""

    def __call__(self, *arrays):
        if len(arrays) != 1:
            raise TypeError(f"Unique: expected one input array, got {len(arrays)}.")
        return self._one(np.asarray(arrays[0]))

    def _one(self, x):
        if x.ndim < 2:
            raise RuntimeError(f"Unique: input must be at least 2-D in order to do unique op, "
                               f"got rank:{x.ndim}")
        flat = x.reshape(-1)
        values, first, inverse, counts = np.unique(flat, return_index=True,
                                                   return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")        # first-occurrence order
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return (values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32))

    def _compute(self, x, rng):
        rows = [self._one(row) for row in x]
        return tuple(ck.stack([r[j] for r in rows]) for j in range(3))
