"""mindspore.numpy array creation: array, zeros, arange, linspace, eye, tril, diag, meshgrid ...

Float creation defaults to float32 and Python ints become int32, as MindSpore 2.7.2's mnp.
Constants built from Python values alone (eye, tri, the index helpers) are made host-side;
everything that takes a Tensor goes through operators, so gradients flow through it.
"""
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.numpy._utils import cast, norm_axis, shape_tuple, to_float, to_tensor
from minispore.ops import functional as F

__all__ = ["array", "asarray", "asfarray", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "linspace", "logspace",
           "geomspace", "eye", "identity", "tri", "tril", "triu", "diag", "diagflat",
           "diagonal", "trace", "meshgrid", "vander", "tril_indices", "triu_indices",
           "tril_indices_from", "triu_indices_from", "indices"]


def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor from `obj` (a copy; `ndmin` prepends size-1 axes)."""
    out = to_tensor(obj, "array", dtype)
    if copy and isinstance(obj, Tensor) and out is obj:
        out = F.identity(out)
    if out.ndim < ndmin:
        out = F.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def asarray(a, dtype=None):
    return to_tensor(a, "asarray", dtype)


def asfarray(a, dtype=mstype.float32):
    """`a` as a float Tensor; a non-float `dtype` means float32 (as MindSpore's)."""
    dtype = mstype.to_type(dtype)
    return to_tensor(a, "asfarray", dtype if dtype.is_float else mstype.float32)


def _filled(fname, shape, value, dtype):
    return F.fill(mstype.to_type(dtype), shape_tuple(fname, shape), value)


def zeros(shape, dtype=mstype.float32):
    return _filled("zeros", shape, 0, dtype)


def ones(shape, dtype=mstype.float32):
    return _filled("ones", shape, 1, dtype)


def empty(shape, dtype=mstype.float32):
    """Uninitialised in NumPy; zeros here (MindSpore's CPU result is zeros too)."""
    return _filled("empty", shape, 0, dtype)


def full(shape, fill_value, dtype=None):
    """`fill_value` broadcast to `shape`; without `dtype`, the dtype is fill_value's
    (a Python int: int32, a float: float32, a bool: bool)."""
    if isinstance(fill_value, Tensor) or isinstance(fill_value, (list, tuple)):
        value = to_tensor(fill_value, "full", dtype)
        return F.broadcast_to(value, shape_tuple("full", shape))
    if dtype is None:
        dtype = to_tensor(fill_value, "full").dtype
    return _filled("full", shape, fill_value, dtype)


def _like(fname, a, value, dtype, shape):
    a = to_tensor(a, fname)
    return full(tuple(a.shape) if shape is None else shape, value,
                a.dtype if dtype is None else dtype)


def zeros_like(a, dtype=None, shape=None):
    return _like("zeros_like", a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return _like("ones_like", a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None):
    return _like("empty_like", prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None):
    """Without `dtype`, a's dtype: mnp.full_like(int_tensor, 0.5) is zeros (MindSpore 2.7.2)."""
    return _like("full_like", a, fill_value, dtype, shape)


def arange(start, stop=None, step=None, dtype=None):
    """[start, stop) by step; int32 when every bound is an int, else float32."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"For mindspore.numpy.arange, {name} must be an int or a float, "
                            f"but got {v!r}")
    if step == 0:
        raise ValueError("For mindspore.numpy.arange, step must not be 0")
    all_int = all(isinstance(v, (int, np.integer)) for v in (start, stop, step))
    if dtype is None:
        dtype = mstype.int32 if all_int else mstype.float32
    count = max(0, math.ceil((stop - start) / step))
    # n * step + start keeps float steps from accumulating rounding (NumPy does the same).
    idx = F.arange(0, count, 1, dtype=mstype.float64 if not all_int else mstype.int64)
    return cast(F.add(F.mul(idx, step), start), dtype)


def _space(fname, start, stop, num, endpoint, axis):
    """(values, step): num points from start to stop along a new `axis` (float)."""
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < 0:
        raise ValueError(f"For mindspore.numpy.{fname}, num must be a non-negative int, but "
                         f"got {num!r}")
    start, stop = to_float(start, fname), to_float(stop, fname)
    start, stop = F.broadcast_to(start, _bshape(start, stop)), F.broadcast_to(stop, _bshape(start, stop))
    div = (num - 1) if endpoint else num
    delta = F.sub(stop, start)
    step = F.div(delta, div) if div > 0 else F.mul(delta, float("nan"))
    idx = F.reshape(F.arange(0, num, 1, dtype=start.dtype), (num,) + (1,) * start.ndim)
    out = F.add(F.mul(idx, F.expand_dims(step, 0)), F.expand_dims(start, 0))
    if endpoint and num > 1:
        # The last point is exactly stop, as NumPy's linspace guarantees.
        out = F.concat([out[:num - 1], F.expand_dims(stop, 0)], 0)
    axis = norm_axis(fname, axis, out.ndim)
    if axis != 0:
        out = F.moveaxis(out, 0, axis)
    return out, step


def _bshape(a, b):
    return tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    out, step = _space("linspace", start, stop, num, endpoint, axis)
    out = cast(out, dtype or mstype.float32)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    exps, _ = _space("logspace", start, stop, num, endpoint, axis)
    out = F.pow(to_float(base, "logspace"), exps)
    return cast(out, dtype or mstype.float32)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Points evenly spaced on a log scale from start to stop (both of one sign, nonzero)."""
    start, stop = to_float(start, "geomspace"), to_float(stop, "geomspace")
    exps, _ = _space("geomspace", F.log(start), F.log(stop), num, endpoint, axis)
    out = F.exp(exps)
    return cast(out, dtype or mstype.float32)


def _const(values, dtype):
    return Tensor(np.asarray(values), mstype.to_type(dtype))


def _dim(fname, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"For mindspore.numpy.{fname}, {name} must be a non-negative int, but "
                         f"got {v!r}")
    return int(v)


def eye(N, M=None, k=0, dtype=mstype.float32):
    M = N if M is None else M
    return _const(np.eye(_dim("eye", "N", N), _dim("eye", "M", M), int(k)),
                  mstype.to_type(dtype))


def identity(n, dtype=mstype.float32):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=mstype.float32):
    M = N if M is None else M
    return _const(np.tri(_dim("tri", "N", N), _dim("tri", "M", M), int(k)),
                  mstype.to_type(dtype))


def _at_least_2d(fname, m):
    m = to_tensor(m, fname)
    if m.ndim < 2:
        raise ValueError(f"For mindspore.numpy.{fname}, the input must be at least 2-D, but "
                         f"got shape {tuple(m.shape)}")
    return m


def tril(m, k=0):
    return F.tril(_at_least_2d("tril", m), int(k))


def triu(m, k=0):
    return F.triu(_at_least_2d("triu", m), int(k))


def diag(v, k=0):
    """A 1-D `v`: the 2-D matrix with v on diagonal k; a 2-D `v`: its k-th diagonal."""
    v = to_tensor(v, "diag")
    k = int(k)
    if v.ndim == 2:
        return F.diagonal(v, k, 0, 1)
    if v.ndim != 1:
        raise ValueError(f"For mindspore.numpy.diag, the input must be 1-D or 2-D, but got "
                         f"shape {tuple(v.shape)}")
    out = F.diag(v)
    if k > 0:
        out = F.pad(out, (k, 0, 0, k))
    elif k < 0:
        out = F.pad(out, (0, -k, -k, 0))
    return out


def diagflat(v, k=0):
    return diag(F.reshape(to_tensor(v, "diagflat"), (-1,)), k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal over axes (axis1, axis2), appended as the last axis."""
    return F.diagonal(_at_least_2d("diagonal", a), int(offset), axis1, axis2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    out = F.reduce_sum(diagonal(a, offset, axis1, axis2), -1)
    return out if dtype is None else cast(out, dtype)


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from 1-D vectors ('xy': Cartesian, 'ij': matrix indexing)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For mindspore.numpy.meshgrid, indexing must be 'xy' or 'ij', but "
                         f"got {indexing!r}")
    xs = [F.reshape(to_tensor(x, "meshgrid"), (-1,)) for x in xi]
    n = len(xs)
    shapes = []
    for i, x in enumerate(xs):
        s = [1] * n
        s[i] = x.shape[0]
        if indexing == "xy" and n >= 2 and i < 2:
            s[0], s[1] = s[1], s[0]
        shapes.append(tuple(s))
    out = [F.reshape(x, s) for x, s in zip(xs, shapes)]
    if sparse:
        return tuple(out)
    full_shape = tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    return tuple(F.broadcast_to(o, full_shape) for o in out)


def vander(x, N=None, increasing=False):
    """Columns x^(N-1) ... x^0 (increasing: x^0 ... x^(N-1))."""
    x = to_tensor(x, "vander")
    if x.ndim != 1:
        raise ValueError(f"For mindspore.numpy.vander, x must be 1-D, but got shape "
                         f"{tuple(x.shape)}")
    N = x.shape[0] if N is None else _dim("vander", "N", N)
    powers = np.arange(N) if increasing else np.arange(N)[::-1]
    cols = [F.pow(x, int(p)) if p else F.ones_like(x) for p in powers]
    return F.stack(cols, 1) if cols else F.zeros((x.shape[0], 0), x.dtype)


def tril_indices(n, k=0, m=None):
    r, c = np.tril_indices(_dim("tril_indices", "n", n), int(k), m)
    return _const(r, mstype.int32), _const(c, mstype.int32)


def triu_indices(n, k=0, m=None):
    r, c = np.triu_indices(_dim("triu_indices", "n", n), int(k), m)
    return _const(r, mstype.int32), _const(c, mstype.int32)


def tril_indices_from(arr, k=0):
    arr = _at_least_2d("tril_indices_from", arr)
    return tril_indices(arr.shape[-2], k, arr.shape[-1])


def triu_indices_from(arr, k=0):
    arr = _at_least_2d("triu_indices_from", arr)
    return triu_indices(arr.shape[-2], k, arr.shape[-1])


def indices(dimensions, dtype=mstype.int32, sparse=False):
    dims = shape_tuple("indices", dimensions)
    # A list of grids, one per dimension, as MindSpore 2.7.2 returns (NumPy stacks them).
    return [_const(o, dtype) for o in np.indices(dims, sparse=sparse)]

