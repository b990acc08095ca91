"""mindspore.numpy products and norms: dot, matmul, inner, outer, tensordot, kron, cross, norm."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.numpy._utils import cast, norm_axes, norm_axis, promote_all, to_tensor
from minispore.ops import functional as F

__all__ = ["dot", "matmul", "inner", "outer", "tensordot", "kron", "cross", "multi_dot", "norm"]


def _pair(fname, a, b):
    return promote_all([to_tensor(a, fname), to_tensor(b, fname)])


def _mm(op, a, b):
    """A (batch) matmul; integer operands (which the MatMul kernels refuse) multiply in
    float64, exact below 2^53, and come back in their dtype as MindSpore's int matmul."""
    if a.dtype.is_float:
        return op(a, b)
    return cast(op(cast(a, mstype.float64), cast(b, mstype.float64)), a.dtype)


def tensordot(a, b, axes=2):
    """The sum of products over a's `axes[0]` and b's `axes[1]` (an int n: a's last n axes
    with b's first n), by transposing both to matrices and one matmul."""
    a, b = _pair("tensordot", a, b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(a.ndim, b.ndim):
            raise ValueError(f"For mindspore.numpy.tensordot, axes={n} exceeds the inputs' "
                             f"ranks {a.ndim} and {b.ndim}")
        ax_a, ax_b = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    else:
        if len(axes) != 2:
            raise ValueError(f"For mindspore.numpy.tensordot, axes must be an int or a pair of "
                             f"axis lists, but got {axes!r}")
        ax_a = norm_axes("tensordot", axes[0], a.ndim)
        ax_b = norm_axes("tensordot", axes[1], b.ndim)
    if len(ax_a) != len(ax_b) or any(a.shape[i] != b.shape[j] for i, j in zip(ax_a, ax_b)):
        raise ValueError(f"For mindspore.numpy.tensordot, the summed axes {ax_a} of shape "
                         f"{tuple(a.shape)} and {ax_b} of shape {tuple(b.shape)} do not match")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    k = int(np.prod([a.shape[i] for i in ax_a], dtype=np.int64))
    am = F.reshape(F.transpose(a, tuple(free_a) + ax_a), (-1, k))
    bm = F.reshape(F.transpose(b, ax_b + tuple(free_b)), (k, -1))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return F.reshape(_mm(F.matmul, am, bm), out_shape)


def dot(a, b):
    """NumPy's dot: a product for 0-D, the inner product of 1-D, matmul of 2-D, and for N-D
    the sum over a's last axis and b's second-to-last."""
    a, b = _pair("dot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (max(b.ndim - 2, 0),)))


def matmul(x1, x2, dtype=None):
    """NumPy's matmul: batch dims broadcast; a 1-D operand is a vector (its axis dropped)."""
    a, b = _pair("matmul", x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("For mindspore.numpy.matmul, the inputs must not be scalars")
    va, vb = a.ndim == 1, b.ndim == 1
    if va:
        a = F.expand_dims(a, 0)
    if vb:
        b = F.expand_dims(b, 1)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For mindspore.numpy.matmul, shapes {tuple(x1.shape)} and "
                         f"{tuple(x2.shape)} do not align (core dims {a.shape[-1]} != "
                         f"{b.shape[-2]})")
    batch = tuple(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    if batch:
        a = F.broadcast_to(a, batch + tuple(a.shape[-2:]))
        b = F.broadcast_to(b, batch + tuple(b.shape[-2:]))
        out = _mm(F.batch_matmul, a, b)
    else:
        out = _mm(F.matmul, a, b)
    if va:
        out = F.squeeze(out, out.ndim - 2)
    if vb:
        out = F.squeeze(out, out.ndim - 1)
    return out if dtype is None else cast(out, dtype)


def inner(a, b):
    """The sum of products over the last axes of a and b."""
    a, b = _pair("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b):
    a, b = _pair("outer", a, b)
    return F.mul(F.reshape(a, (-1, 1)), F.reshape(b, (1, -1)))


def kron(a, b):
    a, b = _pair("kron", a, b)
    nd = max(a.ndim, b.ndim)
    a = F.reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    b = F.reshape(b, (1,) * (nd - b.ndim) + tuple(b.shape))
    # Interleave: a's axis i next to b's axis i, multiply, then merge each pair.
    ae = F.reshape(a, tuple(x for s in a.shape for x in (s, 1)))
    be = F.reshape(b, tuple(x for s in b.shape for x in (1, s)))
    return F.reshape(F.mul(ae, be), tuple(p * q for p, q in zip(a.shape, b.shape)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or the z-component for 2-vectors) along the vector
    axes, broadcasting the rest."""
    a, b = _pair("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = F.moveaxis(a, norm_axis("cross", axisa, a.ndim), -1)
    b = F.moveaxis(b, norm_axis("cross", axisb, b.ndim), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError(f"For mindspore.numpy.cross, the vector axes must have length 2 or 3, "
                         f"but got {na} and {nb}")
    if na != nb:
        raise NotImplementedError("For mindspore.numpy.cross, mixing 2- and 3-vectors is not "
                                  "implemented in minispore")
    c = [a[..., i] for i in range(na)]
    d = [b[..., i] for i in range(nb)]
    if na == 2:
        return F.sub(F.mul(c[0], d[1]), F.mul(c[1], d[0]))
    out = F.stack([F.sub(F.mul(c[1], d[2]), F.mul(c[2], d[1])),
                   F.sub(F.mul(c[2], d[0]), F.mul(c[0], d[2])),
                   F.sub(F.mul(c[0], d[1]), F.mul(c[1], d[0]))], -1)
    return F.moveaxis(out, -1, norm_axis("cross", axisc, out.ndim))


def multi_dot(arrays):
    """dot of a chain of arrays, left to right (the first and last may be 1-D)."""
    if not isinstance(arrays, (list, tuple)) or len(arrays) < 2:
        raise ValueError("For mindspore.numpy.multi_dot, give a list of at least two arrays")
    out = to_tensor(arrays[0], "multi_dot")
    for x in arrays[1:]:
        out = dot(out, x)
    return out


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  (NumPy's name)
    """Vector norms (ord None/2, 1, inf, -inf, 0, any p) over one axis, matrix norms
    (None/'fro', 1, -1, inf, -inf) over two; None/None: the 2-norm of the flattened x."""
    x = to_tensor(x, "norm")
    if not x.dtype.is_float:
        x = cast(x, mstype.float32)
    if axis is None:
        if ord is not None and x.ndim > 2:
            raise ValueError("For mindspore.numpy.norm, ord needs axis for an input above 2-D")
        axes = tuple(range(x.ndim)) if (ord is None or x.ndim == 1) else (0, 1)
        if ord is None:
            out = F.sqrt(F.reduce_sum(F.square(x), axes, keepdims))
            return out
    else:
        axes = norm_axes("norm", axis, x.ndim)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"For mindspore.numpy.norm, axis must name one or two axes, got {axis!r}")


def _vector_norm(x, ord, axes, keepdims):  # noqa: A002
    a = F.abs(x)
    if ord is None or ord == 2:
        return F.sqrt(F.reduce_sum(F.square(x), axes, keepdims))
    if ord == float("inf"):
        return F.reduce_max(a, axes, keepdims)
    if ord == float("-inf"):
        return F.reduce_min(a, axes, keepdims)
    if ord == 0:
        return F.reduce_sum(F.cast(F.not_equal(x, 0), x.dtype), axes, keepdims)
    if ord == 1:
        return F.reduce_sum(a, axes, keepdims)
    if isinstance(ord, str):
        raise ValueError(f"For mindspore.numpy.norm, ord {ord!r} is a matrix norm; a vector "
                         f"norm takes a number")
    return F.pow(F.reduce_sum(F.pow(a, float(ord)), axes, keepdims), 1.0 / float(ord))


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    r, c = axes
    if ord is None or ord == "fro":
        return F.sqrt(F.reduce_sum(F.square(x), axes, keepdims))
    a = F.abs(x)
    if ord in (1, -1):
        col = F.reduce_sum(a, (r,), True)
        out = (F.reduce_max if ord == 1 else F.reduce_min)(col, (c,), True)
    elif ord in (float("inf"), float("-inf")):
        row = F.reduce_sum(a, (c,), True)
        out = (F.reduce_max if ord > 0 else F.reduce_min)(row, (r,), True)
    elif ord in (2, -2, "nuc"):
        raise NotImplementedError(f"For mindspore.numpy.norm, the matrix norm ord={ord!r} needs "
                                  f"singular values, not implemented in minispore")
    else:
        raise ValueError(f"For mindspore.numpy.norm, invalid matrix norm ord {ord!r} (valid: "
                         f"None, 'fro', 1, -1, inf, -inf)")
    return out if keepdims else F.reshape(out, tuple(
        s for i, s in enumerate(x.shape) if i not in axes))
