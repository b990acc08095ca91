"""Functional running extremes and binary search: ops.cummax, ops.cummin, ops.searchsorted."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.scan_ops import Cummax, Cummin, SearchSorted

__all__ = ["cummax", "cummin", "searchsorted"]


def _axis(name, axis):
    """axis checked here: cached_op's key would take 1.0 for the instance of 1 (equal hashes)."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"For '{name}', 'axis' must be an int, but got {type(axis).__name__}.")
    return int(axis)


def cummax(input, axis):  # noqa: A002 - MindSpore's argument name
    """(values, Int64 indices): the running maximum of `input` along `axis` and where it was
    found (the later of equal values; a NaN wins and stays).

    >>> import numpy as np, minispore as ms
    >>> v, i = ms.ops.cummax(ms.Tensor(np.array([[3., 1., 3., 5.]], np.float32)), 1)
    >>> v.asnumpy().tolist(), i.asnumpy().tolist()
    ([[3.0, 3.0, 3.0, 5.0]], [[0, 0, 2, 3]])
    """
    return cached_op(Cummax, _axis("Cummax", axis))(input)


def cummin(input, axis):  # noqa: A002
    """(values, Int32 indices): the running minimum of `input` along `axis` and where it was
    found (the later of equal values; a NaN wins and stays)."""
    return cached_op(Cummin, _axis("Cummin", axis))(input)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where `values` would be inserted into `sorted_sequence` along its last axis to keep it
    sorted: the first position whose element is >= the value, or > with ``right=True`` /
    ``side='right'`` (numpy.searchsorted's side). Int64, or Int32 with `out_int32`. `sorter`
    (Int64, the sequence's shape) gives the order in which sorted_sequence is sorted along
    its last axis, as numpy's.

    Raises ValueError for a side other than 'left'/'right' or one opposite to `right`.

    >>> import numpy as np, minispore as ms
    >>> seq = ms.Tensor(np.array([1, 2, 2, 3], np.int32))
    >>> ms.ops.searchsorted(seq, ms.Tensor(np.array([2, 4], np.int32))).asnumpy().tolist()
    [1, 4]
    """
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For 'searchsorted', 'side' must be 'left' or 'right', but got "
                             f"{side!r}.")
        if side == "left" and right:
            raise ValueError(f"For 'searchsorted', side and right can't be set to opposites, "
                             f"got side of {side} while right was {right}.")
        right = side == "right"
    dtype = mstype.int32 if out_int32 else mstype.int64
    return cached_op(SearchSorted, dtype, bool(right))(sorted_sequence, values, sorter)
