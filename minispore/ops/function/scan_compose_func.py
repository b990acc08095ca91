"""Products, scans and order statistics composed of existing primitives: prod and cumprod
(pairwise products in log2(n) rounds), logcumsumexp (a Hillis-Steele scan of logaddexp),
median / nth_element / msort (Sort), ops.max / ops.min with their indices, top_k and the
like. Each runs O(log n) primitive calls along the axis, never a Python loop over elements."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function import sort_func as S
from minispore.ops.function.array_compose_func import _dim, _split_at, flip
from minispore.ops.function.composite_func import argmin as _argmin
from minispore.ops.function.math_compose_func import logaddexp

__all__ = ["prod", "cumprod", "logcumsumexp", "median", "nanmedian", "nth_element", "msort",
           "top_k", "max", "min", "trapz", "cov", "vecdot", "batch_dot", "vander", "bucketize"]


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _fill_like_slice(x, axis, length, value):
    shape = list(x.shape)
    shape[axis] = length
    return A.fill(x.dtype, tuple(shape), value)


def _reduce_pairwise(x, axis, combine, identity):
    """combine over axis by halving: pad to even with `identity`, combine the halves."""
    while x.shape[axis] > 1:
        n = x.shape[axis]
        if n % 2:
            x = A.concat([x, _fill_like_slice(x, axis, 1, identity)], axis)
            n += 1
        lo, hi = _split_at("prod", x, [n // 2], axis)
        x = combine(lo, hi)
    return x


def prod(input, axis=None, keep_dims=False, dtype=None):  # noqa: A002
    """The product over axis (all dims when None): pairwise Muls, log2(n) rounds per axis,
    so its gradient is exact even where elements are 0."""
    _check_tensor("prod", "input", input)
    x = input if dtype is None else A.cast(input, mstype.to_type(dtype))
    if x.dtype == mstype.bool_:
        x = A.cast(x, mstype.int64)
    axes = range(x.ndim) if axis in (None, ()) else (
        axis if isinstance(axis, (tuple, list)) else (axis,))
    axes = sorted({_dim("prod", a, x.ndim) for a in axes})
    for a in axes:
        if x.shape[a] == 0:
            x = _fill_like_slice(x, a, 1, 1)
        else:
            x = _reduce_pairwise(x, a, M.mul, 1)
    if not keep_dims and axes:
        x = A.squeeze(x, tuple(axes))
    return x


def _scan(x, axis, combine, identity):
    """Inclusive Hillis-Steele scan along axis: after the round with shift s every position
    holds the combination of the 2s elements ending at it."""
    n = x.shape[axis]
    shift = 1
    while shift < n:
        head = _fill_like_slice(x, axis, shift, identity)
        body = _split_at("scan", x, [n - shift], axis)[0]
        x = combine(x, A.concat([head, body], axis))
        shift *= 2
    return x


def cumprod(input, dim, dtype=None):  # noqa: A002
    """The cumulative product along dim (a scan of Muls, log2(n) rounds)."""
    _check_tensor("cumprod", "input", input)
    x = input if dtype is None else A.cast(input, mstype.to_type(dtype))
    return _scan(x, _dim("cumprod", dim, x.ndim), M.mul, 1)


def logcumsumexp(input, axis):  # noqa: A002
    """log(cumsum(exp(input))) along axis, a scan of the overflow-free logaddexp."""
    _check_tensor("logcumsumexp", "input", input)
    return _scan(input, _dim("logcumsumexp", axis, input.ndim), logaddexp, float("-inf"))


def _pick(x, axis, i):
    return A.squeeze(_split_at("pick", x, [i, i + 1], axis)[1], (axis,))


def median(input, axis=-1, keepdims=False):  # noqa: A002
    """(values, int64 indices) of the lower median along axis (the ((n - 1) // 2)-th smallest).
    Ties may pick a different index than MindSpore's kernel."""
    _check_tensor("median", "input", input)
    axis = _dim("median", axis, input.ndim)
    values, indices = S.sort(input, axis)
    k = (input.shape[axis] - 1) // 2
    v, i = _pick(values, axis, k), A.cast(_pick(indices, axis, k), mstype.int64)
    if keepdims:
        v, i = A.expand_dims(v, axis), A.expand_dims(i, axis)
    return v, i


def nanmedian(input, axis=-1, keepdims=False):  # noqa: A002
    """median for inputs without NaN; a NaN input raises (the NaN-skipping count is
    data-dependent)."""
    if bool(M.reduce_max(A.cast(M.isnan(input), mstype.float32)).asnumpy()):
        raise NotImplementedError("For 'nanmedian', inputs holding NaN are not implemented in "
                                  "minispore.")
    return median(input, axis, keepdims)


def nth_element(input, n, reverse=False):  # noqa: A002
    """The n-th smallest (largest when reverse) element along the last dim."""
    _check_tensor("nth_element", "input", input)
    if isinstance(n, Tensor):
        n = int(n.asnumpy())
    values = S.sort(input, -1, bool(reverse))[0]
    return _pick(values, input.ndim - 1, int(n))


def msort(input):  # noqa: A002
    """input sorted along dim 0."""
    _check_tensor("msort", "input", input)
    return S.sort(input, 0)[0]


def top_k(input_x, k, sorted=True):  # noqa: A002
    """(values, int32 indices) of the k largest along the last dim."""
    return S.topk(input_x, k, -1, True, sorted)


def _extreme(name, reduce, arg, input, axis, keepdims, initial, where):
    _check_tensor(name, "input", input)
    if initial is not None or where is not None:
        raise NotImplementedError(f"For '{name}', 'initial' and 'where' are not implemented in "
                                  f"minispore.")
    if axis is None:
        return reduce(input), A.cast(arg(A.reshape(input, (-1,)), 0), mstype.int64)
    return (reduce(input, axis, keepdims),
            A.cast(arg(input, axis, keepdims), mstype.int64))


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002
    """(values, int64 indices) of the maximum along axis; axis None reduces everything and
    gives the index into the flattened input."""
    return _extreme("max", M.reduce_max, M.argmax, input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002
    """(values, int64 indices) of the minimum along axis (see max)."""
    return _extreme("min", M.reduce_min, _argmin, input, axis, keepdims, initial, where)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoid rule along dim: sum((y[i] + y[i + 1]) / 2 * dx_i)."""
    _check_tensor("trapz", "y", y)
    dim = _dim("trapz", dim, y.ndim)
    n = y.shape[dim]
    lo, hi = _split_at("trapz", y, [n - 1], dim)[0], _split_at("trapz", y, [1], dim)[1]
    avg = M.mul(M.add(lo, hi), 0.5)
    if x is not None:
        xn = x.shape[-1] if x.ndim == 1 else x.shape[dim]
        xd = 0 if x.ndim == 1 else dim
        step = M.sub(_split_at("trapz", x, [1], xd)[1], _split_at("trapz", x, [xn - 1], xd)[0])
        return M.reduce_sum(M.mul(avg, step), dim)
    return M.mul(M.reduce_sum(avg, dim), float(dx))


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    """The covariance of the rows (variables) over the columns (observations)."""
    _check_tensor("cov", "input", input)
    if fweights is not None or aweights is not None:
        raise NotImplementedError("For 'cov', 'fweights' and 'aweights' are not implemented in "
                                  "minispore.")
    x = input if input.ndim == 2 else A.reshape(input, (1, -1))
    n = x.shape[1]
    centred = M.sub(x, M.reduce_mean(x, 1, True))
    out = M.div(M.matmul(centred, centred, transpose_b=True), float(n - correction))
    return out if input.ndim == 2 else A.reshape(out, ())


def vecdot(x, y, *, axis=-1):
    """sum(x * y) along axis."""
    return M.reduce_sum(M.mul(x, y), axis)


def batch_dot(x1, x2, axes=None):
    """Row-wise dot products of two 2-D inputs: (N, 1) (MindSpore's default axes)."""
    _check_tensor("batch_dot", "x1", x1)
    if axes is not None or x1.ndim != 2 or x2.ndim != 2:
        raise NotImplementedError("For 'batch_dot', only 2-D inputs with the default axes are "
                                  "implemented in minispore.")
    return M.reduce_sum(M.mul(x1, x2), 1, True)


def vander(x, N=None):
    """Columns x^(N-1), ..., x^1, x^0 of a 1-D x: the cumulative product of [1, x, x, ...]
    (no pow, so the gradient at x = 0 stays finite), reversed."""
    _check_tensor("vander", "x", x)
    n = x.shape[0] if N is None else int(N)
    col = A.reshape(x, (-1, 1))
    parts = [A.ones_like(col)] + [col] * (n - 1)
    powers = cumprod(A.concat(parts, 1), 1) if n > 1 else parts[0]
    return flip(powers, 1)


def bucketize(input, boundaries, *, right=False):  # noqa: A002
    """int32 bucket of each element among the sorted boundaries (a list): the number of
    boundaries below it (at or below it when right), i.e. numpy's searchsorted side='left'
    ('right')."""
    _check_tensor("bucketize", "input", input)
    bounds = Tensor(np.asarray(list(boundaries), input.dtype.np_dtype))
    x = A.expand_dims(input, -1)
    below = M.less_equal(bounds, x) if right else M.less(bounds, x)
    return M.reduce_sum(A.cast(below, mstype.int32), -1)
