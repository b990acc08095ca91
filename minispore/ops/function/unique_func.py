"""ops.unique_consecutive: runs of equal elements (or slices along `dim`) collapsed to their
first, from comparisons of neighbours and one MaskedSelect of the run starts. The output length
depends on the values, so like MaskedSelect it runs eagerly (PYNATIVE) only."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import movedim
from minispore.ops.function.index_func import masked_select
from minispore.ops.function.reduce_compose_func import any as reduce_any
from minispore.ops.function.sort_func import cumsum

__all__ = ["unique_consecutive"]


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
    index of each element's (slice's) run in the output, with `return_counts` each run's
    int64 length, as MindSpore returns them.

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
        results.append(cumsum(A.cast(starts, mstype.int64), 0) - 1)
    if return_counts:
        ends = A.concat((positions[1:], Tensor(np.array([length], np.int64))), 0)
        results.append(ends - positions)
    return results[0] if len(results) == 1 else tuple(results)
