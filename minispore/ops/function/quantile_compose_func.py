"""quantile, nanquantile and kthvalue composed of Sort and elementwise operators: the sorted
values are picked at the interpolation points by comparing their position with the wanted
one (Equal + Select + ReduceSum, exact: the other terms add zeros), so the positions may
differ per slice (nanquantile counts each slice's non-NaN values) and the result is
differentiable in the input."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import where as _where
from minispore.ops.function.sort_func import sort as _sort

__all__ = ["quantile", "nanquantile", "kthvalue"]


def _pick(sorted_x, position, axis):
    """sorted_x's value at the integer `position` (a Tensor broadcast against sorted_x with
    axis kept as size 1) along axis, axis reduced."""
    n = sorted_x.shape[axis]
    shape = [1] * sorted_x.ndim
    shape[axis] = n
    index = Tensor(np.arange(n, dtype=np.float64).reshape(shape).astype(
        sorted_x.dtype.np_dtype))
    hit = M.equal(index, position)
    return M.reduce_sum(_where(hit, sorted_x, A.zeros_like(M.add(sorted_x, position))), axis)


def _quantile(name, input, q, axis, keepdims, ignore_nan):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{name}', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}.")
    if input.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For primitive[Quantile], the input argument[input] must be a type of "
                        f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{input.dtype}].")
    if isinstance(q, Tensor):
        if q.dtype != input.dtype:
            raise TypeError(f"For primitive[Quantile], the input type must be same: input is "
                            f"Tensor[{input.dtype}], q is Tensor[{q.dtype}].")
        if q.ndim > 1:
            raise ValueError(f"For 'Quantile', the input q must be a scalar or 1D tensor,but got "
                             f"dimension = {q.ndim}.")
        values = q.asnumpy().reshape(-1)
    elif isinstance(q, numbers.Real) and not isinstance(q, bool):
        values = np.asarray([q], np.float64)
    else:
        raise TypeError(f"For '{name}', 'q' must be a float or a Tensor, but got "
                        f"{type(q).__name__}.")
    for v in values:
        if not 0 <= v <= 1:
            raise ValueError(f"For 'Quantile', the 'q' must in the range [0, 1], but got: {v}.")
    x = input
    if axis is None:
        x = A.reshape(input, (-1,))
        axis = 0
    if not isinstance(axis, int) or isinstance(axis, bool) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"For '{name}', 'axis' must be None or an int in [{-x.ndim}, "
                         f"{x.ndim}), but got {axis!r}.")
    axis %= x.ndim
    sorted_x, _ = _sort(x, axis)                # NaN sorts last
    nan = M.isnan(sorted_x)
    clean = _where(nan, A.zeros_like(sorted_x), sorted_x)
    if ignore_nan:
        count = M.reduce_sum(A.cast(M.logical_not(nan), x.dtype), axis, True)
    else:
        count = A.fill(x.dtype, (1,) * x.ndim, x.shape[axis])
    last = M.maximum(M.sub(count, 1), 0)
    outs = []
    for v in values:
        position = M.mul(last, float(v))
        low = M.floor(position)
        high = M.minimum(M.add(low, 1), last)
        frac = M.sub(position, low)
        lo_v, hi_v = _pick(clean, low, axis), _pick(clean, high, axis)
        out = M.add(lo_v, M.mul(A.squeeze(frac, (axis,)), M.sub(hi_v, lo_v)))
        # NaN where the slice has any NaN (quantile) or only NaN (nanquantile)
        undefined = M.equal(A.squeeze(count, (axis,)), 0) if ignore_nan else \
            M.greater(M.reduce_sum(A.cast(nan, x.dtype), axis), 0)
        out = _where(undefined, M.add(A.zeros_like(out), float("nan")), out)
        outs.append(A.expand_dims(out, axis) if keepdims else out)
    if isinstance(q, Tensor) and q.ndim == 1:
        return A.concat([A.expand_dims(o, 0) for o in outs], 0)
    return outs[0]


def quantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """The q-th quantiles of input along axis (all values when None), linear interpolation
    between the sorted neighbours; q a float or a 0-D / 1-D Tensor in [0, 1] (a 1-D q adds a
    leading dim). A slice holding NaN gives NaN."""
    return _quantile("quantile", input, q, axis, keepdims, ignore_nan=False)


def nanquantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """quantile ignoring NaN values (a slice of only NaN gives NaN)."""
    return _quantile("nanquantile", input, q, axis, keepdims, ignore_nan=True)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """(values, int64 indices) of the k-th smallest element (k from 1) along dim: a stable
    sort's k-th entry."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'kthvalue', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}.")
    ndim = max(input.ndim, 1)
    if not isinstance(dim, int) or isinstance(dim, bool) or not -ndim <= dim < ndim:
        raise ValueError(f"For 'kthvalue', 'dim' must be an int in [{-ndim}, {ndim}), but got "
                         f"{dim!r}.")
    x = A.reshape(input, (1,)) if input.ndim == 0 else input
    dim %= ndim
    n = x.shape[dim]
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= n:
        raise ValueError(f"For 'kthvalue', 'k' must be an int in [1, {n}], but got {k!r}.")
    values, indices = _sort(x, dim)
    begin, end = [0] * x.ndim, list(x.shape)
    begin[dim], end[dim] = k - 1, k
    pick = [A.strided_slice(t, begin, end, [1] * x.ndim) for t in (values, indices)]
    if not keepdim:
        pick = [A.squeeze(t, (dim,)) for t in pick]
    if input.ndim == 0:
        pick = [A.reshape(t, ()) for t in pick]
    return pick[0], A.cast(pick[1], mstype.int64)
