"""mindspore.numpy's less common functions: bitwise ops, searchsorted, interp, pad, trapz,
polynomials, convolve, cov, windows, random draws, dtype promotion."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.numpy import array_ops
from minispore.numpy._utils import (cast, check_unsupported, norm_axis, promote_all,
                                    promote_types as _promote, shape_tuple, to_float, to_tensor)
from minispore.ops import functional as F

__all__ = ["argwhere", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert",
           "searchsorted", "interp", "pad", "trapz", "gradient", "polyval", "polyadd",
           "polysub", "polyder", "polyint", "polymul", "convolve", "correlate", "cov",
           "corrcoef", "hamming", "hanning", "bartlett", "blackman", "diag_indices", "ix_",
           "choose", "rand", "randn", "randint", "promote_types", "result_type",
           "apply_along_axis", "apply_over_axes", "unravel_index", "unwrap", "digitize",
           "unique"]


def argwhere(a):
    """The indices of the nonzero elements, one row each (int64, as MindSpore 2.7.2)."""
    return cast(F.nonzero(to_tensor(a, "argwhere")), mstype.int64)


def unique(x, return_inverse=False):
    """The distinct elements of `x` (flattened) in order of first appearance, as MindSpore's
    (numpy sorts them); with return_inverse also each element's index into them."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For mindspore.numpy.unique, the input must be a Tensor, but got "
                        f"{type(x).__name__}.")
    values, inverse = F.unique(array_ops.ravel(x) if x.ndim > 1 else x)
    return (values, inverse) if return_inverse else values


def _ints(fname, *xs):
    out = promote_all([to_tensor(x, fname) for x in xs])
    if out[0].dtype.is_float:
        raise TypeError(f"For mindspore.numpy.{fname}, the inputs must be integers or bools, "
                        f"but got {out[0].dtype}")
    return out


def _out(x, dtype):
    return x if dtype is None else cast(x, dtype)


def bitwise_and(x1, x2, dtype=None):
    return _out(F.bitwise_and(*_ints("bitwise_and", x1, x2)), dtype)


def bitwise_or(x1, x2, dtype=None):
    return _out(F.bitwise_or(*_ints("bitwise_or", x1, x2)), dtype)


def bitwise_xor(x1, x2, dtype=None):
    return _out(F.bitwise_xor(*_ints("bitwise_xor", x1, x2)), dtype)


def invert(x, dtype=None):
    """Bitwise NOT of an integer Tensor (MindSpore 2.7.2 refuses bool here too)."""
    (x,) = _ints("invert", x)
    if x.dtype == mstype.bool_:
        raise TypeError("For mindspore.numpy.invert, bool input is not supported (as MindSpore)")
    return _out(F.invert(x), dtype)


bitwise_not = invert


def searchsorted(a, v, side="left", sorter=None):
    """Insertion indices of v into the sorted 1-D a (int32, as MindSpore 2.7.2)."""
    check_unsupported("searchsorted", sorter=(sorter, None))
    if side not in ("left", "right"):
        raise ValueError(f"For mindspore.numpy.searchsorted, side must be 'left' or 'right', but "
                         f"got {side!r}")
    a, v = promote_all([to_tensor(a, "searchsorted"), to_tensor(v, "searchsorted")])
    return cast(F.searchsorted(a, v, right=side == "right"), mstype.int32)


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of (xp, fp) at x (xp increasing); left/right (default
    fp[0] / fp[-1]) outside [xp[0], xp[-1]]."""
    x, xp, fp = (to_float(t, "interp") for t in (x, xp, fp))
    x, xp, fp = promote_all([x, xp, fp])
    n = xp.shape[0]
    if xp.ndim != 1 or fp.shape != xp.shape or n < 1:
        raise ValueError(f"For mindspore.numpy.interp, xp and fp must be 1-D of one non-zero "
                         f"length, but got {tuple(xp.shape)} and {tuple(fp.shape)}")
    if n == 1:
        out = F.broadcast_to(fp, tuple(x.shape))
    else:
        i = F.clip(F.sub(F.searchsorted(xp, x, right=True), 1), 0, n - 2)
        x0, x1 = F.gather(xp, i, 0), F.gather(xp, F.add(i, 1), 0)
        y0, y1 = F.gather(fp, i, 0), F.gather(fp, F.add(i, 1), 0)
        out = F.add(y0, F.mul(F.div(F.sub(x, x0), F.sub(x1, x0)), F.sub(y1, y0)))
    lo = fp[0] if left is None else to_tensor(left, "interp", x.dtype)
    hi = fp[n - 1] if right is None else to_tensor(right, "interp", x.dtype)
    out = F.select(F.less(x, xp[0]), F.broadcast_to(lo, tuple(x.shape)), out)
    return F.select(F.greater(x, xp[n - 1]), F.broadcast_to(hi, tuple(x.shape)), out)


def _pad_widths(fname, pad_width, ndim):
    w = np.asarray(pad_width, dtype=np.int64)
    if w.ndim == 0:
        w = np.full((ndim, 2), int(w))
    elif w.shape == (2,) or w.shape == (1, 2):
        w = np.tile(w.reshape(1, 2), (ndim, 1))
    elif w.shape == (1,):
        w = np.full((ndim, 2), int(w[0]))
    if w.shape != (ndim, 2) or (w < 0).any():
        raise ValueError(f"For mindspore.numpy.{fname}, pad_width {pad_width!r} must give "
                         f"non-negative (before, after) pairs for {ndim} axes")
    return w


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """Padding by mode 'constant' (a scalar constant_values), 'edge', 'reflect' or 'wrap'."""
    if kwargs:
        raise NotImplementedError(f"For mindspore.numpy.pad, the arguments {sorted(kwargs)} are "
                                  f"not implemented in minispore")
    check_unsupported("pad", stat_length=(stat_length, None), end_values=(end_values, 0),
                      reflect_type=(reflect_type, "even"))
    x = to_tensor(arr, "pad")
    w = _pad_widths("pad", pad_width, x.ndim)
    if mode == "constant":
        if not isinstance(constant_values, (int, float, bool)):
            raise NotImplementedError("For mindspore.numpy.pad, constant_values other than one "
                                      "scalar is not implemented in minispore")
        flat = tuple(int(v) for pair in w[::-1] for v in pair)
        return F.pad(x, flat, "constant", constant_values) if w.any() else x
    if mode not in ("edge", "reflect", "wrap"):
        raise NotImplementedError(f"For mindspore.numpy.pad, mode {mode!r} is not implemented in "
                                  f"minispore (valid: 'constant', 'edge', 'reflect', 'wrap')")
    for ax, (before, after) in enumerate(w):
        n = x.shape[ax]
        limit = n - 1 if mode == "reflect" else n
        if max(before, after) > limit:
            raise NotImplementedError(f"For mindspore.numpy.pad, mode {mode!r} pads of "
                                      f"{max(before, after)} beyond the axis length {n} are not "
                                      f"implemented in minispore")
        sl = array_ops._take_slice  # noqa: SLF001  (the package's own slicing helper)
        if mode == "edge":
            parts = [F.broadcast_to(sl(x, ax, 0, 1), _with(x, ax, before)), x,
                     F.broadcast_to(sl(x, ax, n - 1, n), _with(x, ax, after))]
        elif mode == "wrap":
            parts = [sl(x, ax, n - before, n), x, sl(x, ax, 0, after)]
        else:
            parts = [F.flip(sl(x, ax, 1, before + 1), (ax,)), x,
                     F.flip(sl(x, ax, n - 1 - after, n - 1), (ax,))]
        x = F.concat([p for p in parts if p.shape[ax]], ax)
    return x


def _with(x, ax, n):
    return tuple(n if i == ax else s for i, s in enumerate(x.shape))


def trapz(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal integral of y along axis (sample points x, else spacing dx)."""
    y = to_float(y, "trapz")
    axis = norm_axis("trapz", axis, y.ndim)
    n = y.shape[axis]
    sl = array_ops._take_slice  # noqa: SLF001
    mid = F.mul(F.add(sl(y, axis, 1, n), sl(y, axis, 0, n - 1)), 0.5)
    if x is None:
        return F.mul(F.reduce_sum(mid, (axis,), False), float(dx))
    x = cast(to_tensor(x, "trapz"), y.dtype)
    d = F.sub(x[1:], x[:-1]) if x.ndim == 1 else F.sub(sl(x, axis, 1, n), sl(x, axis, 0, n - 1))
    if x.ndim == 1:
        d = F.reshape(d, tuple(n - 1 if i == axis else 1 for i in range(y.ndim)))
    return F.reduce_sum(F.mul(mid, d), (axis,), False)


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided at the edges, with scalar spacings."""
    check_unsupported("gradient", edge_order=(edge_order, 1))
    f = to_float(f, "gradient")
    axes = tuple(range(f.ndim)) if axis is None else tuple(
        norm_axis("gradient", a, f.ndim) for a in ((axis,) if isinstance(axis, int) else axis))
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = list(varargs) * len(axes)
    else:
        spacing = list(varargs)
    if len(spacing) != len(axes) or not all(isinstance(h, (int, float)) for h in spacing):
        raise NotImplementedError("For mindspore.numpy.gradient, only scalar spacings (one, or "
                                  "one per axis) are implemented in minispore")
    sl = array_ops._take_slice  # noqa: SLF001
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < 2:
            raise ValueError(f"For mindspore.numpy.gradient, axis {ax} needs at least 2 points")
        first = F.div(F.sub(sl(f, ax, 1, 2), sl(f, ax, 0, 1)), float(h))
        last = F.div(F.sub(sl(f, ax, n - 1, n), sl(f, ax, n - 2, n - 1)), float(h))
        inner = F.div(F.sub(sl(f, ax, 2, n), sl(f, ax, 0, n - 2)), 2.0 * h)
        out.append(F.concat([p for p in (first, inner, last) if p.shape[ax]], ax))
    return out[0] if len(out) == 1 else out


def polyval(p, x):
    """p[0] * x**(n-1) + ... + p[n-1] by Horner's rule (float32 for int input, as MindSpore)."""
    p, x = promote_all([to_float(p, "polyval"), to_float(x, "polyval")])
    out = F.broadcast_to(p[0], tuple(x.shape))
    for i in range(1, p.shape[0]):
        out = F.add(F.mul(out, x), p[i])
    return out


def _poly_align(fname, a1, a2):
    a, b = promote_all([to_tensor(a1, fname), to_tensor(a2, fname)])
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"For mindspore.numpy.{fname}, the coefficients must be 1-D")
    n = max(a.shape[0], b.shape[0])
    return F.pad(a, (n - a.shape[0], 0)), F.pad(b, (n - b.shape[0], 0))


def polyadd(a1, a2):
    return F.add(*_poly_align("polyadd", a1, a2))


def polysub(a1, a2):
    return F.sub(*_poly_align("polysub", a1, a2))


def polyder(p, m=1):
    """The m-th derivative's coefficients (dtype kept, as MindSpore 2.7.2)."""
    p = to_tensor(p, "polyder")
    for _ in range(int(m)):
        n = p.shape[0]
        if n <= 1:
            return F.zeros((1,), p.dtype)
        powers = Tensor(np.arange(n - 1, 0, -1), p.dtype)
        p = F.mul(p[:n - 1], powers)
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative's coefficients, integration constants k (default 0)."""
    p = to_float(p, "polyint")
    ks = [0.0] * int(m) if k is None else (list(k) if isinstance(k, (list, tuple)) else [k] * m)
    if len(ks) != m:
        raise ValueError(f"For mindspore.numpy.polyint, k needs {m} constants, but got {k!r}")
    for const in ks:
        n = p.shape[0]
        p = F.concat([F.div(p, Tensor(np.arange(n, 0, -1), p.dtype)),
                      F.reshape(to_tensor(const, "polyint", p.dtype), (1,))], 0)
    return p


def polymul(a1, a2):
    return convolve(a1, a2)


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D arrays ('full', 'same' or 'valid'), as a sum
    of shifted products (one per element of the shorter array)."""
    a, v = promote_all([to_tensor(a, "convolve"), to_tensor(v, "convolve")])
    if a.ndim != 1 or v.ndim != 1 or not a.shape[0] or not v.shape[0]:
        raise ValueError("For mindspore.numpy.convolve, the inputs must be non-empty 1-D arrays")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"For mindspore.numpy.convolve, mode must be 'full', 'same' or "
                         f"'valid', but got {mode!r}")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    full = None
    for j in range(m):
        term = F.mul(F.pad(a, (j, m - 1 - j)), v[j])
        full = term if full is None else F.add(full, term)
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    return full[m - 1:n]


def correlate(a, v, mode="valid"):
    """The cross-correlation c[k] = sum_n a[n + k] * v[n] of two 1-D arrays."""
    a, v = to_tensor(a, "correlate"), to_tensor(v, "correlate")
    if v.ndim == 1 and a.ndim == 1 and v.shape[0] > a.shape[0]:
        # NumPy's rule for a longer v: the correlation of the swapped pair, reversed.
        return F.flip(convolve(v, F.flip(a, (0,)), mode), (0,))
    return convolve(a, F.flip(v, (0,)) if v.ndim == 1 else v, mode)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables (rows when rowvar) of m (and y); float32 for int
    input, as MindSpore 2.7.2."""
    check_unsupported("cov", fweights=(fweights, None), aweights=(aweights, None))
    x = to_float(m, "cov")
    if x.ndim > 2:
        raise ValueError(f"For mindspore.numpy.cov, m must be 1-D or 2-D, got {tuple(x.shape)}")
    x = F.reshape(x, (1, -1)) if x.ndim == 1 else x
    if not rowvar and x.shape[0] != 1:
        x = F.transpose(x, (1, 0))
    if y is not None:
        yt = to_float(y, "cov")
        yt = F.reshape(yt, (1, -1)) if yt.ndim == 1 else yt
        if not rowvar and yt.shape[0] != 1:
            yt = F.transpose(yt, (1, 0))
        x, yt = promote_all([x, yt])
        x = F.concat([x, yt], 0)
    n = x.shape[1]
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    xc = F.sub(x, F.reduce_mean(x, (1,), True))
    out = F.div(F.matmul(xc, F.transpose(xc, (1, 0))), float(n - ddof))
    if out.shape == (1, 1):
        out = F.reshape(out, ())
    return _out(out, dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return _out(F.div(c, c), dtype)
    d = F.sqrt(F.diagonal(c, 0, 0, 1))
    out = F.div(F.div(c, F.reshape(d, (-1, 1))), F.reshape(d, (1, -1)))
    return _out(F.clip(out, -1.0, 1.0), dtype)


def _window(fname, M, fn):
    if isinstance(M, bool) or not isinstance(M, (int, np.integer)):
        raise TypeError(f"For mindspore.numpy.{fname}, M must be an int, but got {M!r}")
    return Tensor(np.asarray(fn(int(M)), np.float32), mstype.float32)


def hamming(M):
    return _window("hamming", M, np.hamming)


def hanning(M):
    return _window("hanning", M, np.hanning)


def bartlett(M):
    return _window("bartlett", M, np.bartlett)


def blackman(M):
    return _window("blackman", M, np.blackman)


def diag_indices(n, ndim=2):
    idx = Tensor(np.arange(int(n)), mstype.int32)
    return tuple(idx for _ in range(int(ndim)))


def ix_(*args):
    """Open-mesh index arrays: the k-th of N 1-D inputs shaped to run along axis k."""
    xs = [to_tensor(a, "ix_") for a in args]
    for x in xs:
        if x.ndim != 1:
            raise ValueError(f"For mindspore.numpy.ix_, every input must be 1-D, but got shape "
                             f"{tuple(x.shape)}")
    n = len(xs)
    return tuple(F.reshape(x, tuple(-1 if i == k else 1 for i in range(n)))
                 for k, x in enumerate(xs))


def choose(a, choices, mode="clip"):
    """choices[a[i]][i] element-wise (all broadcast together); out-of-range indices 'clip'
    (the default) or 'wrap'; 'raise' checks them first."""
    idx = to_tensor(a, "choose")
    cs = promote_all(array_ops.broadcast_arrays(idx, *choices)[1:])
    n = len(cs)
    idx = F.broadcast_to(idx, tuple(cs[0].shape))
    if mode == "clip":
        idx = F.clip(idx, 0, n - 1)
    elif mode == "wrap":
        idx = F.floor_mod(idx, n)
    elif mode == "raise":
        vals = idx.asnumpy()
        if vals.size and (vals.min() < 0 or vals.max() >= n):
            raise ValueError(f"For mindspore.numpy.choose, an index is outside [0, {n})")
    else:
        raise ValueError(f"For mindspore.numpy.choose, mode must be 'raise', 'wrap' or 'clip', "
                         f"but got {mode!r}")
    stacked = F.stack(cs, 0)
    return array_ops.take_along_axis(stacked, F.expand_dims(idx, 0), 0)[0]


def _shape_args(fname, shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    return shape_tuple(fname, tuple(shape))


def rand(*shape, dtype=mstype.float32):
    """Uniform draws in [0, 1) (the global seed applies)."""
    dtype = mstype.to_type(dtype)
    if not dtype.is_float:
        raise TypeError(f"For mindspore.numpy.rand, dtype must be a float type, got {dtype}")
    return cast(F.uniform(_shape_args("rand", shape), Tensor(0.0, mstype.float32),
                          Tensor(1.0, mstype.float32)), dtype)


def randn(*shape, dtype=mstype.float32):
    """Standard normal draws (the global seed applies)."""
    dtype = mstype.to_type(dtype)
    if not dtype.is_float:
        raise TypeError(f"For mindspore.numpy.randn, dtype must be a float type, got {dtype}")
    return cast(F.standard_normal(_shape_args("randn", shape)), dtype)


def randint(minval, maxval=None, shape=None, dtype=mstype.int32):
    """Integers drawn uniformly from [minval, maxval) ([0, minval) when maxval is None)."""
    if maxval is None:
        minval, maxval = 0, minval
    if maxval <= minval:
        raise ValueError(f"For mindspore.numpy.randint, maxval {maxval} must exceed minval "
                         f"{minval}")
    shape = () if shape is None else shape_tuple("randint", shape)
    u = F.uniform(shape, Tensor(float(minval), mstype.float32),
                  Tensor(float(maxval), mstype.float32))
    # floor, then keep the float32 rounding of a draw near maxval inside the range
    return cast(F.clip(F.floor(u), float(minval), float(maxval - 1)), dtype)


def _dtype_of(x):
    if isinstance(x, mstype.Type):
        return x
    if isinstance(x, Tensor):
        return x.dtype
    return to_tensor(x, "result_type").dtype


def promote_types(type1, type2):
    """The dtype both promote to: a float wins with its own width (int32 with float16 is
    float16, as MindSpore 2.7.2)."""
    return _promote(mstype.to_type(type1), mstype.to_type(type2))


def result_type(*arrays_and_dtypes):
    """The promoted dtype of Tensors, dtypes and Python scalars (a Python float is float32)."""
    if not arrays_and_dtypes:
        raise ValueError("For mindspore.numpy.result_type, give at least one array or dtype")
    return _promote(*[_dtype_of(x) for x in arrays_and_dtypes])


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to every 1-D slice along axis; its outputs (scalars or 1-D) are stacked
    back in place of that axis."""
    arr = to_tensor(arr, "apply_along_axis")
    axis = norm_axis("apply_along_axis", axis, arr.ndim)
    moved = F.moveaxis(arr, axis, -1)
    rest = tuple(moved.shape[:-1])
    rows = F.reshape(moved, (-1, moved.shape[-1]))
    outs = [to_tensor(func1d(rows[i], *args, **kwargs), "apply_along_axis")
            for i in range(rows.shape[0])]
    if not outs:
        raise ValueError("For mindspore.numpy.apply_along_axis, arr has no slices to apply to")
    res = F.reshape(F.stack(outs, 0), rest + tuple(outs[0].shape))
    if outs[0].ndim == 0:
        return res
    if outs[0].ndim != 1:
        raise NotImplementedError("For mindspore.numpy.apply_along_axis, func1d results of more "
                                  "than 1 dimension are not implemented in minispore")
    return F.moveaxis(res, -1, axis)


def apply_over_axes(func, a, axes):
    """func(a, axis) applied for each axis in turn, the reduced axis kept (size 1)."""
    a = to_tensor(a, "apply_over_axes")
    for ax in ((axes,) if isinstance(axes, int) else axes):
        ax = norm_axis("apply_over_axes", ax, a.ndim)
        out = to_tensor(func(a, ax), "apply_over_axes")
        if out.ndim == a.ndim - 1:
            out = F.expand_dims(out, ax)
        elif out.ndim != a.ndim:
            raise ValueError("For mindspore.numpy.apply_over_axes, func must keep the rank or "
                             "drop the one axis")
        a = out
    return a


def unravel_index(indices, shape, order="C"):
    """The coordinates (int32 Tensors, one per dim) of flat indices into an array of `shape`."""
    if order not in ("C", "F"):
        raise ValueError(f"For mindspore.numpy.unravel_index, order must be 'C' or 'F', but got "
                         f"{order!r}")
    shape = shape_tuple("unravel_index", shape)
    idx = cast(to_tensor(indices, "unravel_index"), mstype.int32)
    size = int(np.prod(shape, dtype=np.int64))
    idx = F.select(F.less(idx, 0), F.add(idx, size), idx)  # a negative index counts from the end
    dims = list(shape) if order == "C" else list(shape)[::-1]
    out = []
    for d in reversed(dims):
        out.append(F.floor_mod(idx, d))
        idx = F.floor_divide(idx, d)
    out = out[::-1]
    return tuple(out if order == "C" else out[::-1])


def unwrap(p, discont=np.pi, axis=-1):
    """p with jumps between neighbours larger than `discont` replaced by their 2*pi
    complement (NumPy's unwrap), computed in float."""
    p = to_float(p, "unwrap")
    axis = norm_axis("unwrap", axis, p.ndim)
    n = p.shape[axis]
    if n < 2:
        return p
    sl = array_ops._take_slice  # noqa: SLF001
    dd = F.sub(sl(p, axis, 1, n), sl(p, axis, 0, n - 1))
    ddmod = F.sub(F.floor_mod(F.add(dd, np.pi), 2 * np.pi), np.pi)
    # -pi stays pi where the jump was upward, as NumPy's
    ddmod = F.select(F.logical_and(F.equal(ddmod, -np.pi), F.greater(dd, 0)),
                     F.full_like(ddmod, np.pi), ddmod)
    correct = F.sub(ddmod, dd)
    correct = F.select(F.less(F.abs(dd), float(discont)), F.zeros_like(correct), correct)
    return F.concat([sl(p, axis, 0, 1), F.add(sl(p, axis, 1, n), F.cumsum(correct, axis))], axis)


def digitize(x, bins, right=False):
    """The index of the bin each x falls in (int32); bins must be monotonic (increasing or
    decreasing, read once on the host to tell which)."""
    x, bins = promote_all([to_tensor(x, "digitize"), to_tensor(bins, "digitize")])
    b = bins.asnumpy()
    if b.ndim != 1:
        raise ValueError(f"For mindspore.numpy.digitize, bins must be 1-D, got {b.shape}")
    d = np.diff(b)
    if (d >= 0).all():
        return cast(F.searchsorted(bins, x, right=not right), mstype.int32)
    if (d <= 0).all():
        rev = F.flip(bins, (0,))
        return cast(F.sub(b.shape[0], F.searchsorted(rev, x, right=right)), mstype.int32)
    raise ValueError("For mindspore.numpy.digitize, bins must be monotonically increasing or "
                     "decreasing")
