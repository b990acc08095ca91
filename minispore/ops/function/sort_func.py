"""Functional sorting and scanning operators: ops.cumsum, ops.sort, ops.argsort, ops.topk."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.ops.function.array_func import cast, strided_slice, transpose
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.sort_ops import CumSum, Sort, TopK

__all__ = ["cumsum", "sort", "argsort", "topk"]


def cumsum(x, axis, dtype=None):
    """Cumulative sum of x along `axis` (MindSpore 2.x ops.cumsum); with `dtype`, x is cast to
    it first (to avoid overflow), else the output keeps x's dtype.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.cumsum(ms.Tensor(np.array([[1, 2], [3, 4]], np.int32)), 0).asnumpy().tolist()
    [[1, 2], [4, 6]]
    """
    if dtype is not None:
        x = cast(x, mstype.to_type(dtype))
    return cached_op(CumSum, False, False)(x, axis)


def sort(input_x, axis=-1, descending=False):
    """(values, int32 indices) of a stable sort of input_x along `axis` (MindSpore ops.sort)."""
    return cached_op(Sort, axis, descending)(input_x)


def argsort(input, axis=-1, descending=False):  # noqa: A002 - MindSpore's argument name
    """int32 indices that sort `input` along `axis` (stable: ties keep their order)."""
    return cached_op(Sort, axis, descending)(input)[1]


def _check(name, arg, value, kind):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"For 'topk', '{arg}' must be {name}, but got {type(value).__name__}.")


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
    """The k largest (smallest with largest=False) elements of `input` along `dim` (the last
    axis when None) and their int32 positions (MindSpore 2.x ops.topk). Of equal elements the
    earlier position comes first; NaN counts as the largest value. ``sorted=False`` leaves the
    order unspecified; minispore returns it sorted.

    Raises TypeError for a non-int k or dim, non-bool largest or sorted; ValueError for dim
    out of range or k not in [1, size of dim].

    >>> import numpy as np, minispore as ms
    >>> x = ms.Tensor(np.array([[1., 5., 3.], [4., 2., 6.]], np.float32))
    >>> ms.ops.topk(x, 1, dim=0)[1].asnumpy().tolist()
    [[1, 0, 1]]
    """
    _check("bool", "largest", largest, bool)
    _check("bool", "sorted", sorted, bool)
    _check("an int", "k", k, (int, np.integer))
    ndim = input.ndim
    if dim is None:
        dim = -1
    _check("an int", "dim", dim, (int, np.integer))
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise ValueError(f"For 'topk', 'dim' must be in [{-ndim}, {ndim}), but got {dim}.")
    axis = int(dim) % max(ndim, 1)
    if not largest:
        # An ascending stable sort ranks the smallest first, ties by position, NaN last; the
        # first k along the axis are the answer.
        n = input.shape[axis] if ndim else 1
        if isinstance(n, int) and not 1 <= k <= n:
            raise ValueError(f"For 'topk', 'k' must be in [1, {n}] (dim {dim} of input of "
                             f"shape {tuple(input.shape)}), but got {k}.")
        values, indices = cached_op(Sort, axis, False)(input)
        end = tuple(int(k) if i == axis else d for i, d in enumerate(input.shape))
        begin, strides = (0,) * ndim, (1,) * ndim
        return (strided_slice(values, begin, end, strides),
                strided_slice(indices, begin, end, strides))
    op = cached_op(TopK, sorted)
    if axis == ndim - 1 or ndim == 0:
        return op(input, k)
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    values, indices = op(transpose(input, tuple(perm)), k)
    return transpose(values, tuple(perm)), transpose(indices, tuple(perm))
