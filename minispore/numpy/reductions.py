"""mindspore.numpy reductions and scans: sum, mean, std, amax, argmax, cumsum, nansum ..."""
import builtins

from minispore.common import dtype as mstype
from minispore.numpy._utils import cast, check_unsupported, norm_axes, norm_axis, to_tensor
from minispore.ops import functional as F

__all__ = ["sum", "mean", "std", "var", "amax", "amin", "max", "min", "argmax", "argmin",
           "cumsum", "cumprod", "nancumsum", "ptp", "average", "nansum", "nanmean", "nanmax",
           "nanmin", "nanvar", "nanstd", "count_nonzero", "diff", "ediff1d", "sometrue"]


def _axes(fname, a, axis):
    """MindSpore reductions take () for "every axis"."""
    axes = norm_axes(fname, axis, a.ndim)
    return () if axes is None else axes


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001
    """The sum over `axis`; int and bool inputs sum in int64 (MindSpore 2.7.2's result)."""
    a = to_tensor(a, "sum")
    if dtype is not None:
        a = cast(a, dtype)
    elif not a.dtype.is_float:
        a = cast(a, mstype.int64)
    out = F.reduce_sum(a, _axes("sum", a, axis), keepdims)
    return out if initial is None else F.add(out, initial)


def mean(a, axis=None, keepdims=False, dtype=None):
    """The mean over `axis`; an int input gives an int (truncated) mean, as MindSpore 2.7.2."""
    a = to_tensor(a, "mean")
    if a.dtype == mstype.bool_:
        raise TypeError("For mindspore.numpy.mean, bool input is not supported (as MindSpore)")
    out = F.reduce_mean(a, _axes("mean", a, axis), keepdims)
    return out if dtype is None else cast(out, dtype)


def var(x, axis=None, ddof=0, keepdims=False):
    x = to_tensor(x, "var")
    return F.var(x, norm_axes("var", axis, x.ndim), ddof, keepdims)


def std(x, axis=None, ddof=0, keepdims=False):
    x = to_tensor(x, "std")
    return F.std(x, norm_axes("std", axis, x.ndim), ddof, keepdims)


def _extreme(fname, reduce_op, pick, a, axis, keepdims, initial, where):
    check_unsupported(fname, where=(where, True))
    a = to_tensor(a, fname)
    if a.dtype == mstype.bool_:
        raise TypeError(f"For mindspore.numpy.{fname}, bool input is not supported "
                        f"(as MindSpore)")
    out = reduce_op(a, _axes(fname, a, axis), keepdims)
    return out if initial is None else pick(out, initial)


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    return _extreme("amax", F.reduce_max, F.maximum, a, axis, keepdims, initial, where)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    return _extreme("amin", F.reduce_min, F.minimum, a, axis, keepdims, initial, where)


def max(a, axis=None, keepdims=False, initial=None, where=True):  # noqa: A001
    return _extreme("max", F.reduce_max, F.maximum, a, axis, keepdims, initial, where)


def min(a, axis=None, keepdims=False, initial=None, where=True):  # noqa: A001
    return _extreme("min", F.reduce_min, F.minimum, a, axis, keepdims, initial, where)


def _arg(fname, op, a, axis, dtype):
    a = to_tensor(a, fname)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    return cast(op(a, norm_axis(fname, axis, a.ndim)), dtype)


def argmax(a, axis=None):
    """The index of the first maximum (over the flattened array when axis is None), int64."""
    return _arg("argmax", F.argmax, a, axis, mstype.int64)


def argmin(a, axis=None):
    """The index of the first minimum, int32 (MindSpore 2.7.2's argmin is int32, argmax
    int64)."""
    return _arg("argmin", F.argmin, a, axis, mstype.int32)


def _scan(fname, op, a, axis, dtype):
    a = to_tensor(a, fname)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    if dtype is not None:
        a = cast(a, dtype)
    elif a.dtype == mstype.bool_:
        a = cast(a, mstype.int32)  # MindSpore 2.7.2: cumsum of bool is int32
    return op(a, norm_axis(fname, axis, a.ndim))


def cumsum(a, axis=None, dtype=None):
    return _scan("cumsum", F.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    return _scan("cumprod", F.cumprod, a, axis, dtype)


def _nan_to(a, value):
    """a with its NaNs replaced by `value` (a where-select, so gradients reach the rest)."""
    return F.select(F.isnan(a), F.full_like(a, value), a) if a.dtype.is_float else a


def nancumsum(a, axis=None, dtype=None):
    a = to_tensor(a, "nancumsum")
    return cumsum(_nan_to(a, 0), axis, dtype)


def ptp(x, axis=None, keepdims=False):
    """max - min over `axis`."""
    x = to_tensor(x, "ptp")
    axes = _axes("ptp", x, axis)
    return F.sub(F.reduce_max(x, axes, keepdims), F.reduce_min(x, axes, keepdims))


def average(x, axis=None, weights=None, returned=False):
    """The (weighted) mean over `axis`; `weights` is as long as that axis or shaped like x.
    With `returned`, also the sum of the weights."""
    x = to_tensor(x, "average")
    if weights is None:
        out = mean(x, axis)
        count = F.full_like(out, x.size // builtins.max(out.size, 1))
        return (out, count) if returned else out
    w = to_tensor(weights, "average")
    if tuple(w.shape) != tuple(x.shape):
        if axis is None or isinstance(axis, (tuple, list)) or w.ndim != 1:
            raise ValueError(f"For mindspore.numpy.average, weights of shape {tuple(w.shape)} "
                             f"need x's shape {tuple(x.shape)} or a 1-D length along one axis")
        ax = norm_axis("average", axis, x.ndim)
        if w.shape[0] != x.shape[ax]:
            raise ValueError(f"For mindspore.numpy.average, weights has length {w.shape[0]}, "
                             f"axis {axis} of x has {x.shape[ax]}")
        w = F.reshape(w, tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim)))
    if not x.dtype.is_float:
        x = cast(x, mstype.float32)
    w = cast(w, x.dtype)
    axes = _axes("average", x, axis)
    wsum = F.reduce_sum(F.broadcast_to(w, tuple(x.shape)), axes, False)
    out = F.div(F.reduce_sum(F.mul(x, w), axes, False), wsum)
    return (out, wsum) if returned else out


def nansum(a, axis=None, dtype=None, keepdims=False):
    a = to_tensor(a, "nansum")
    return sum(_nan_to(a, 0), axis, dtype, keepdims)


def _nan_count(fname, a, axis, keepdims):
    valid = F.cast(F.logical_not(F.isnan(a)), a.dtype)
    return F.reduce_sum(valid, _axes(fname, a, axis), keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    a = to_tensor(a, "nanmean")
    if not a.dtype.is_float:
        return mean(a, axis, keepdims, dtype)
    total = F.reduce_sum(_nan_to(a, 0), _axes("nanmean", a, axis), keepdims)
    out = F.div(total, _nan_count("nanmean", a, axis, keepdims))
    return out if dtype is None else cast(out, dtype)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    a = to_tensor(a, "nanvar")
    if not a.dtype.is_float:
        return var(a, axis, ddof, keepdims)
    mu = nanmean(a, axis, keepdims=True)
    dev = _nan_to(F.square(F.sub(a, mu)), 0)
    total = F.reduce_sum(dev, _axes("nanvar", a, axis), keepdims)
    out = F.div(total, F.sub(_nan_count("nanvar", a, axis, keepdims), float(ddof)))
    return out if dtype is None else cast(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return F.sqrt(nanvar(a, axis, dtype, ddof, keepdims))


def nanmax(a, axis=None, dtype=None, keepdims=False):
    a = to_tensor(a, "nanmax")
    out = amax(_nan_to(a, float("-inf")), axis, keepdims)
    # An all-NaN slice gives NaN, as NumPy's.
    if a.dtype.is_float:
        all_nan = F.all(F.isnan(a), _axes("nanmax", a, axis), keepdims)
        out = F.select(all_nan, F.full_like(out, float("nan")), out)
    return out if dtype is None else cast(out, dtype)


def nanmin(a, axis=None, dtype=None, keepdims=False):
    a = to_tensor(a, "nanmin")
    out = amin(_nan_to(a, float("inf")), axis, keepdims)
    if a.dtype.is_float:
        all_nan = F.all(F.isnan(a), _axes("nanmin", a, axis), keepdims)
        out = F.select(all_nan, F.full_like(out, float("nan")), out)
    return out if dtype is None else cast(out, dtype)


def count_nonzero(x, axis=None, keepdims=False):
    """The number of nonzero elements over `axis` (int32, MindSpore 2.7.2's dtype)."""
    x = to_tensor(x, "count_nonzero")
    nz = F.cast(F.not_equal(x, 0) if x.dtype != mstype.bool_ else x, mstype.int32)
    return F.reduce_sum(nz, _axes("count_nonzero", x, axis), keepdims)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along `axis`; prepend/append (scalars broadcast) are
    joined to `a` first."""
    a = to_tensor(a, "diff")
    axis = norm_axis("diff", axis, a.ndim)
    edge = tuple(1 if i == axis else s for i, s in enumerate(a.shape))
    parts = []
    for extra in (prepend, a, append):
        if extra is None:
            continue
        t = to_tensor(extra, "diff")
        if t is not a and t.ndim == 0:
            t = F.broadcast_to(t, edge)
        parts.append(cast(t, a.dtype))
    if len(parts) > 1:
        a = F.concat(parts, axis)
    if n < 0:
        raise ValueError(f"For mindspore.numpy.diff, n must be non-negative, but got {n}")
    for _ in range(int(n)):
        length = a.shape[axis]
        hi = a[tuple(slice(1, None) if i == axis else slice(None) for i in range(a.ndim))]
        lo = a[tuple(slice(0, length - 1) if i == axis else slice(None) for i in range(a.ndim))]
        a = F.sub(hi, lo)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened array, with to_begin / to_end joined around them."""
    d = diff(F.reshape(to_tensor(ary, "ediff1d"), (-1,)))
    parts = [F.reshape(cast(to_tensor(t, "ediff1d"), d.dtype), (-1,))
             for t in (to_begin,) if t is not None] + [d] + \
            [F.reshape(cast(to_tensor(t, "ediff1d"), d.dtype), (-1,))
             for t in (to_end,) if t is not None]
    return F.concat(parts, 0) if len(parts) > 1 else d


def sometrue(a, axis=None, keepdims=False):
    """Whether any element over `axis` is true (nonzero)."""
    a = to_tensor(a, "sometrue")
    if a.dtype != mstype.bool_:
        a = F.not_equal(a, 0)
    return F.any(a, _axes("sometrue", a, axis), keepdims)
