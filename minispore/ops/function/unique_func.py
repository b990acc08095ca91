"""ops.unique and ops.unique_consecutive: equal elements (or consecutive runs of equal elements
or slices along `dim`) kept once, from a stable sort or comparisons of neighbours and one
MaskedSelect of the group starts. The output length depends on the values, so like
MaskedSelect they run eagerly (PYNATIVE) only."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import movedim
from minispore.ops.function.index_func import masked_select
from minispore.ops.function.reduce_compose_func import any as reduce_any
from minispore.ops.function.sort_func import argsort, cumsum, sort

__all__ = ["unique", "unique_consecutive", "UniqueConsecutive", "unique_with_pad"]


def _check(input, return_inverse, return_counts, dim):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'UniqueConsecutive', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}.")
    for name, flag in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(flag, bool):
            raise TypeError(f"For 'UniqueConsecutive', '{name}' must be a bool, but got "
                            f"{type(flag).__name__}.")
    if dim is not None:
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"For 'UniqueConsecutive', 'dim' must be an int or None, but got "
                            f"{type(dim).__name__}.")
        if not -input.ndim <= dim < input.ndim:
            raise ValueError(f"For 'UniqueConsecutive', the value of 'dim' should be in "
                             f"[{-input.ndim}, {input.ndim}), but got {dim}")


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """``ops.unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)``:
    the input (flattened when `dim` is None) with each run of equal consecutive elements, or
    of equal consecutive slices along `dim`, kept once; with `return_inverse` also the int64
    index of each element's run in the output (in the input's shape; with `dim`, one per
    slice), with `return_counts` each run's int64 length, as MindSpore returns them.

    >>> import numpy as np, minispore as ms
    >>> from minispore import ops
    >>> x = ms.Tensor(np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int32))
    >>> out, inverse, counts = ops.unique_consecutive(x, True, True)
    >>> out.asnumpy().tolist(), inverse.asnumpy().tolist(), counts.asnumpy().tolist()
    ([1, 2, 3, 1, 2], [0, 0, 1, 1, 2, 3, 3, 4], [2, 2, 1, 2, 1])
    """
    _check(input, return_inverse, return_counts, dim)
    axis = 0 if dim is None else dim % input.ndim
    rows = A.reshape(input, (-1,)) if dim is None else movedim(input, axis, 0)
    length = rows.shape[0]
    if length > 1:
        changed = M.not_equal(rows[1:], rows[:-1])
        if changed.ndim > 1:        # a slice differs where any of its elements does
            changed = reduce_any(changed, tuple(range(1, changed.ndim)))
        starts = A.concat((Tensor(np.ones(1, np.bool_)), changed), 0)
    else:
        starts = Tensor(np.ones(length, np.bool_))
    positions = masked_select(Tensor(np.arange(length, dtype=np.int64)), starts)
    out = A.gather(rows, positions, 0)
    out = out if dim is None else movedim(out, 0, axis)
    results = [out]
    if return_inverse:
        inverse = cumsum(A.cast(starts, mstype.int64), 0) - 1
        # dim None: one index per element, in the input's shape (MindSpore's)
        results.append(A.reshape(inverse, tuple(input.shape)) if dim is None else inverse)
    if return_counts:
        ends = A.concat((positions[1:], Tensor(np.array([length], np.int64))), 0)
        results.append(ends - positions)
    return results[0] if len(results) == 1 else tuple(results)


class UniqueConsecutive:
    """``ops.UniqueConsecutive(return_inverse=False, return_counts=False, dim=None)(input)``:
    ``unique_consecutive``'s results, always three: (output, inverse, counts), an output not
    asked for a 0-d Int64 placeholder (0 here; MindSpore leaves its value unspecified)."""

    def __init__(self, return_inverse=False, return_counts=False, dim=None):
        self.return_inverse, self.return_counts, self.dim = return_inverse, return_counts, dim

    def __call__(self, input):  # noqa: A002
        got = unique_consecutive(input, self.return_inverse, self.return_counts, self.dim)
        got = list(got) if isinstance(got, tuple) else [got]
        placeholder = Tensor(np.zeros((), np.int64))
        inverse = got.pop(1) if self.return_inverse else placeholder
        counts = got.pop(1) if self.return_counts else placeholder
        return got[0], inverse, counts

    def __repr__(self):
        return "Prim[UniqueConsecutive]"


def unique(input):  # noqa: A002 - MindSpore's argument name
    """``ops.unique(input)`` -> (output, idx): the distinct elements of the flattened input in
    the order they first appear, and for each input element the position of its value in
    output (input's shape; int64 for an int64 input, else int32, as MindSpore's Unique).

    A stable sort groups equal values with their first appearance leading each group; the
    groups' leaders, ordered by position, are the output, and each element's group rank in
    that order, scattered back through the sort's permutation, is its idx.

    >>> import numpy as np, minispore as ms
    >>> from minispore import ops
    >>> out, idx = ops.unique(ms.Tensor(np.array([3, 1, 3, 2, 1, 5], np.int32)))
    >>> out.asnumpy().tolist(), idx.asnumpy().tolist()
    ([3, 1, 2, 5], [0, 1, 0, 2, 1, 3])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'Unique', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}.")
    flat = A.reshape(input, (-1,))
    n = flat.shape[0]
    index_dtype = mstype.int64 if input.dtype == mstype.int64 else mstype.int32
    if n == 0:
        return flat, A.cast(A.reshape(input, tuple(input.shape)), index_dtype)
    values, perm = sort(flat)
    perm = A.cast(perm, mstype.int64)
    starts = A.concat((Tensor(np.ones(1, np.bool_)), M.not_equal(values[1:], values[:-1])), 0)
    leaders = masked_select(Tensor(np.arange(n, dtype=np.int64)), starts)
    first = A.gather(perm, leaders, 0)              # each value's first position, by value
    order = A.cast(argsort(first), mstype.int64)    # the groups by first appearance
    output = A.gather(flat, A.gather(first, order, 0), 0)
    rank = A.cast(argsort(order), mstype.int64)     # each group's place in output
    group = cumsum(A.cast(starts, mstype.int64), 0) - 1
    idx = A.unsorted_segment_sum(A.gather(rank, group, 0), perm, n)
    return output, A.cast(A.reshape(idx, tuple(input.shape)), index_dtype)


def unique_with_pad(x, pad_num):
    """``ops.unique_with_pad(x, pad_num)`` -> (y, idx): UniqueWithPad (x 1-D; y the distinct
    values in order of first occurrence padded with pad_num to x's length, idx each element's
    position in y)."""
    from minispore.ops.operations.unique_ops import UniqueWithPad
    return UniqueWithPad()(x, pad_num)
