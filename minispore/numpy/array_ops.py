"""mindspore.numpy shape manipulation: reshape, transpose, concatenate, split, flip, roll ..."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.numpy._utils import norm_axes, norm_axis, promote_all, shape_tuple, to_tensor
from minispore.ops import functional as F

__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims",
           "squeeze", "concatenate", "append", "stack", "vstack", "hstack", "dstack",
           "column_stack", "split", "array_split", "hsplit", "vsplit", "dsplit", "flip",
           "fliplr", "flipud", "roll", "rot90", "tile", "repeat", "where", "atleast_1d",
           "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_arrays", "take",
           "take_along_axis", "size", "isscalar", "select"]


def _take_slice(x, axis, start, stop, step=1):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop, step)
    return x[tuple(index)]


def reshape(x, new_shape):
    x = to_tensor(x, "reshape")
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (new_shape,)
    return F.reshape(x, tuple(int(s) for s in new_shape))


def ravel(x):
    return F.reshape(to_tensor(x, "ravel"), (-1,))


def transpose(a, axes=None):
    a = to_tensor(a, "transpose")
    perm = tuple(range(a.ndim))[::-1] if axes is None else norm_axes("transpose", axes, a.ndim)
    if len(perm) != a.ndim:
        raise ValueError(f"For mindspore.numpy.transpose, axes {axes!r} must list each of the "
                         f"{a.ndim} axes once")
    return F.transpose(a, perm)


def swapaxes(x, axis1, axis2):
    x = to_tensor(x, "swapaxes")
    return F.swapaxes(x, norm_axis("swapaxes", axis1, x.ndim), norm_axis("swapaxes", axis2, x.ndim))


def moveaxis(a, source, destination):
    a = to_tensor(a, "moveaxis")
    src, dst = norm_axes("moveaxis", source, a.ndim), norm_axes("moveaxis", destination, a.ndim)
    if len(src) != len(dst):
        raise ValueError("For mindspore.numpy.moveaxis, source and destination must name as many "
                         f"axes, but got {source!r} and {destination!r}")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return F.transpose(a, tuple(order))


def rollaxis(x, axis, start=0):
    """Axis `axis` moved to sit before position `start` (NumPy's older moveaxis)."""
    x = to_tensor(x, "rollaxis")
    axis = norm_axis("rollaxis", axis, x.ndim)
    if not -x.ndim <= start <= x.ndim:
        raise ValueError(f"For mindspore.numpy.rollaxis, start {start} is out of range "
                         f"[{-x.ndim}, {x.ndim}]")
    start = start % (x.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(x, axis, start) if axis != start else x


def expand_dims(a, axis):
    a = to_tensor(a, "expand_dims")
    axes = sorted(norm_axes("expand_dims", axis, a.ndim + len(axis) if isinstance(
        axis, (list, tuple)) else a.ndim + 1))
    for ax in axes:
        a = F.expand_dims(a, ax)
    return a


def squeeze(a, axis=None):
    a = to_tensor(a, "squeeze")
    axes = norm_axes("squeeze", axis, a.ndim)
    if axes is None:
        return F.reshape(a, tuple(s for s in a.shape if s != 1))
    for ax in axes:
        if a.shape[ax] != 1:
            raise ValueError(f"For mindspore.numpy.squeeze, axis {ax} has length "
                             f"{a.shape[ax]}, not 1 (shape {tuple(a.shape)})")
    return F.reshape(a, tuple(s for i, s in enumerate(a.shape) if i not in axes))


def _seq(fname, arrays):
    if isinstance(arrays, Tensor):
        return [arrays[i] for i in range(arrays.shape[0])]
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise ValueError(f"For mindspore.numpy.{fname}, the input must be a non-empty list or "
                         f"tuple of arrays, but got {arrays!r}")
    return [to_tensor(a, fname) for a in arrays]


def concatenate(arrays, axis=0):
    """Join along an existing axis; axis=None joins the flattened arrays."""
    xs = _seq("concatenate", arrays)
    if axis is None:
        xs, axis = [F.reshape(x, (-1,)) for x in xs], 0
    xs = promote_all(xs)
    return F.concat(xs, norm_axis("concatenate", axis, xs[0].ndim))


def append(arr, values, axis=None):
    return concatenate((to_tensor(arr, "append"), to_tensor(values, "append")), axis)


def stack(arrays, axis=0):
    xs = promote_all(_seq("stack", arrays))
    return F.stack(xs, norm_axis("stack", axis, xs[0].ndim + 1))


def vstack(tup):
    return concatenate(atleast_2d(*_seq("vstack", tup), _as_list=True), 0)


def hstack(tup):
    xs = atleast_1d(*_seq("hstack", tup), _as_list=True)
    return concatenate(xs, 0 if xs[0].ndim == 1 else 1)


def dstack(tup):
    return concatenate(atleast_3d(*_seq("dstack", tup), _as_list=True), 2)


def column_stack(tup):
    xs = [F.reshape(x, (-1, 1)) if x.ndim < 2 else x for x in _seq("column_stack", tup)]
    return concatenate(xs, 1)


def _split_points(fname, x, indices_or_sections, axis, even):
    length = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(
            indices_or_sections, bool):
        n = int(indices_or_sections)
        if n <= 0:
            raise ValueError(f"For mindspore.numpy.{fname}, the number of sections must be "
                             f"positive, but got {n}")
        if even and length % n:
            raise ValueError(f"For mindspore.numpy.{fname}, an axis of length {length} does not "
                             f"split into {n} equal sections")
        # array_split: the first length % n pieces get one more element (NumPy's rule).
        sizes = [length // n + (1 if i < length % n else 0) for i in range(n)]
        return list(np.cumsum([0] + sizes))
    if isinstance(indices_or_sections, (list, tuple)):
        return [0] + [int(i) for i in indices_or_sections] + [length]
    raise TypeError(f"For mindspore.numpy.{fname}, indices_or_sections must be an int, a list "
                    f"or a tuple, but got {indices_or_sections!r}")


def _split(fname, x, indices_or_sections, axis, even):
    x = to_tensor(x, fname)
    axis = norm_axis(fname, axis, x.ndim)
    pts = _split_points(fname, x, indices_or_sections, axis, even)
    return tuple(_take_slice(x, axis, a, b) for a, b in zip(pts[:-1], pts[1:]))


def split(x, indices_or_sections, axis=0):
    return _split("split", x, indices_or_sections, axis, True)


def array_split(x, indices_or_sections, axis=0):
    return _split("array_split", x, indices_or_sections, axis, False)


def hsplit(x, indices_or_sections):
    x = to_tensor(x, "hsplit")
    return _split("hsplit", x, indices_or_sections, 0 if x.ndim == 1 else 1, True)


def vsplit(x, indices_or_sections):
    return _split("vsplit", x, indices_or_sections, 0, True)


def dsplit(x, indices_or_sections):
    return _split("dsplit", x, indices_or_sections, 2, True)


def flip(m, axis=None):
    m = to_tensor(m, "flip")
    axes = norm_axes("flip", axis, m.ndim)
    return F.flip(m, tuple(range(m.ndim)) if axes is None else axes)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    """Elements shifted by `shift` along `axis` (None: over the flattened array, then
    reshaped back), wrapping around."""
    a = to_tensor(a, "roll")
    if axis is None:
        return F.reshape(roll(F.reshape(a, (-1,)), shift, 0), tuple(a.shape))
    axes = norm_axes("roll", axis, a.ndim)
    shifts = (shift,) * len(axes) if isinstance(shift, (int, np.integer)) else tuple(shift)
    if len(shifts) != len(axes):
        raise ValueError(f"For mindspore.numpy.roll, shift {shift!r} and axis {axis!r} must "
                         f"have the same length")
    for ax, s in zip(axes, shifts):
        n = a.shape[ax]
        s = int(s) % n if n else 0
        if s:
            a = F.concat([_take_slice(a, ax, n - s, n), _take_slice(a, ax, 0, n - s)], ax)
    return a


def rot90(a, k=1, axes=(0, 1)):
    a = to_tensor(a, "rot90")
    if a.ndim < 2:
        raise ValueError(f"For mindspore.numpy.rot90, the input must be at least 2-D, but got "
                         f"shape {tuple(a.shape)}")
    ax0, ax1 = norm_axes("rot90", axes, a.ndim)
    k = int(k) % 4
    if k == 0:
        return a
    if k == 2:
        return flip(a, (ax0, ax1))
    if k == 1:
        return swapaxes(flip(a, ax1), ax0, ax1)
    return flip(swapaxes(a, ax0, ax1), ax1)


def tile(a, reps):
    a = to_tensor(a, "tile")
    reps = shape_tuple("tile", reps)
    nd = max(a.ndim, len(reps))
    a = F.reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    return F.tile(a, (1,) * (nd - len(reps)) + reps)


def repeat(a, repeats, axis=None):
    a = to_tensor(a, "repeat")
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    axis = norm_axis("repeat", axis, a.ndim)
    if isinstance(repeats, (int, np.integer)):
        return F.repeat_elements(a, int(repeats), axis)
    repeats = [int(r) for r in repeats]
    if len(repeats) != a.shape[axis]:
        raise ValueError(f"For mindspore.numpy.repeat, repeats has {len(repeats)} entries for "
                         f"an axis of length {a.shape[axis]}")
    parts = [F.repeat_elements(_take_slice(a, axis, i, i + 1), r, axis)
             for i, r in enumerate(repeats) if r]
    return F.concat(parts, axis)


def where(condition, x=None, y=None):
    """x where condition else y; with neither x nor y, the indices of the nonzero elements."""
    cond = to_tensor(condition, "where")
    if x is None and y is None:
        nz = F.nonzero(cond)
        return tuple(nz[:, i] for i in range(cond.ndim))
    if x is None or y is None:
        raise ValueError("For mindspore.numpy.where, x and y must be given together")
    if cond.dtype != mstype.bool_:
        cond = F.cast(cond, mstype.bool_)
    x, y = promote_all([to_tensor(x, "where"), to_tensor(y, "where")])
    return F.select(F.broadcast_to(cond, _broadcast(cond, x, y)),
                    F.broadcast_to(x, _broadcast(cond, x, y)),
                    F.broadcast_to(y, _broadcast(cond, x, y)))


def _broadcast(*xs):
    return tuple(np.broadcast_shapes(*[tuple(x.shape) for x in xs]))


def _atleast(fname, arys, nd, as_list):
    out = []
    for a in arys:
        a = to_tensor(a, fname)
        if a.ndim < nd:
            shape = tuple(a.shape)
            if nd == 3 and a.ndim == 1:
                shape = (1,) + shape + (1,)
            elif nd == 3 and a.ndim == 2:
                shape = shape + (1,)
            else:
                shape = (1,) * (nd - a.ndim) + shape
            a = F.reshape(a, shape)
        out.append(a)
    if as_list:
        return out
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys, _as_list=False):
    return _atleast("atleast_1d", arys, 1, _as_list)


def atleast_2d(*arys, _as_list=False):
    return _atleast("atleast_2d", arys, 2, _as_list)


def atleast_3d(*arys, _as_list=False):
    """1-D (N,) becomes (1, N, 1), 2-D (M, N) becomes (M, N, 1), as NumPy."""
    return _atleast("atleast_3d", arys, 3, _as_list)


def broadcast_to(array, shape):
    return F.broadcast_to(to_tensor(array, "broadcast_to"), shape_tuple("broadcast_to", shape))


def broadcast_arrays(*args):
    xs = [to_tensor(a, "broadcast_arrays") for a in args]
    shape = _broadcast(*xs)
    return [F.broadcast_to(x, shape) for x in xs]


def take(a, indices, axis=None, mode="clip"):
    """Elements of `a` at `indices` along `axis` (None: of the flattened a). mode 'clip'
    (MindSpore's default) clamps out-of-range indices, 'wrap' wraps them, 'raise' refuses."""
    a = to_tensor(a, "take")
    idx = to_tensor(indices, "take")
    if idx.dtype.is_float or idx.dtype == mstype.bool_:
        raise TypeError(f"For mindspore.numpy.take, indices must be integers, but got {idx.dtype}")
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    axis = norm_axis("take", axis, a.ndim)
    n = a.shape[axis]
    if mode == "clip":
        # MindSpore 2.7.2 counts a negative index from the end before clipping:
        # take([1, 2, 3], [5, -1]) is [3, 3] (NumPy's clip mode gives [3, 1]).
        idx = F.clip(F.select(F.less(idx, 0), F.add(idx, n), idx), 0, n - 1)
    elif mode == "wrap":
        idx = F.floor_mod(idx, n)
    elif mode == "raise":
        vals = idx.asnumpy()
        if vals.size and (vals.min() < -n or vals.max() >= n):
            raise IndexError(f"For mindspore.numpy.take, an index is out of range for an axis "
                             f"of length {n}")
        idx = F.floor_mod(idx, n)
    else:
        raise ValueError(f"For mindspore.numpy.take, mode must be 'raise', 'wrap' or 'clip', "
                         f"but got {mode!r}")
    return F.gather(a, idx, axis)


def take_along_axis(arr, indices, axis):
    """arr's values at `indices` (same rank as arr) along `axis`."""
    arr, idx = to_tensor(arr, "take_along_axis"), to_tensor(indices, "take_along_axis")
    if axis is None:
        arr, axis = F.reshape(arr, (-1,)), 0
    axis = norm_axis("take_along_axis", axis, arr.ndim)
    if idx.ndim != arr.ndim:
        raise ValueError(f"For mindspore.numpy.take_along_axis, indices must have the rank of "
                         f"arr ({arr.ndim}), but got shape {tuple(idx.shape)}")
    n = arr.shape[axis]
    shape = list(np.broadcast_shapes(tuple(arr.shape[:axis]) + (1,) + tuple(arr.shape[axis + 1:]),
                                     tuple(idx.shape[:axis]) + (1,) + tuple(idx.shape[axis + 1:])))
    arr = F.broadcast_to(arr, tuple(shape[:axis] + [n] + shape[axis + 1:]))
    shape[axis] = idx.shape[axis]
    idx = F.floor_mod(F.cast(F.broadcast_to(idx, tuple(shape)), mstype.int64), n)
    # A flat index into arr: the constant offset of every other coordinate plus idx * stride.
    strides = np.cumprod((tuple(arr.shape) + (1,))[::-1])[::-1][1:]
    grid = np.indices(tuple(shape), dtype=np.int64)
    base = sum(grid[d] * strides[d] for d in range(len(shape)) if d != axis)
    flat = F.add(F.mul(idx, int(strides[axis])), Tensor(np.asarray(base, np.int64)))
    return F.gather(F.reshape(arr, (-1,)), flat, 0)


def size(a, axis=None):
    a = to_tensor(a, "size")
    if axis is None:
        return int(np.prod(a.shape, dtype=np.int64))
    return int(a.shape[norm_axis("size", axis, a.ndim)])


def isscalar(element):
    """True for Python numbers and bools (a Tensor is never a scalar here, as in MindSpore)."""
    return isinstance(element, (int, float, bool, complex, str, bytes, np.generic))


def select(condlist, choicelist, default=0):
    """The choice of the first true condition, element-wise; `default` where none is true."""
    conds, choices = _seq("select", condlist), _seq("select", choicelist)
    if len(conds) != len(choices):
        raise ValueError(f"For mindspore.numpy.select, condlist ({len(conds)}) and choicelist "
                         f"({len(choices)}) must have the same length")
    out = to_tensor(default, "select")
    for cond, choice in zip(reversed(conds), reversed(choices)):
        out = where(cond, choice, out)
    return out

