"""ops.max_unpool1d / max_unpool2d / max_unpool3d over MaxUnpool2D and MaxUnpool3D: unbatched
inputs get a batch axis for the call, and 1-D runs as 2-D with a height of one."""
from minispore.ops.function import array_func as A
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.unpool_ops import MaxUnpool2D, MaxUnpool3D

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _unpool(name, prim, n, x, indices, kernel_size, stride, padding, output_size):
    if x.ndim not in (n + 1, n + 2):
        raise ValueError(f"For '{name}', 'x' must be {n + 1}-D or {n + 2}-D, but got shape "
                         f"{tuple(x.shape)}.")
    unbatched = x.ndim == n + 1
    if unbatched:
        x, indices = A.expand_dims(x, 0), A.expand_dims(indices, 0)
    stride = kernel_size if stride is None else stride
    out_shape = tuple(output_size)[-n:] if output_size else ()
    out = cached_op(prim, _tuple(kernel_size, n), _tuple(stride, n), _tuple(padding, n),
                    out_shape)(x, indices)
    return A.squeeze(out, 0) if unbatched else out


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Values of x placed at `indices` (positions in each (H, W) output plane) of zeros."""
    return _unpool("max_unpool2d", MaxUnpool2D, 2, x, indices, kernel_size, stride, padding,
                   output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Values of x placed at `indices` (positions in each (D, H, W) output volume) of zeros."""
    return _unpool("max_unpool3d", MaxUnpool3D, 3, x, indices, kernel_size, stride, padding,
                   output_size)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Values of x placed at `indices` (positions in each output row) of zeros."""
    if x.ndim not in (2, 3):
        raise ValueError(f"For 'max_unpool1d', 'x' must be 2-D or 3-D, but got shape "
                         f"{tuple(x.shape)}.")
    axis = x.ndim - 1
    x2, i2 = A.expand_dims(x, axis), A.expand_dims(indices, axis)
    k = _tuple(kernel_size, 1)[0]
    s = k if stride is None else _tuple(stride, 1)[0]
    size = (1, tuple(output_size)[-1]) if output_size else None
    out = _unpool("max_unpool1d", MaxUnpool2D, 2, x2, i2, (1, k), (1, s),
                  (0, _tuple(padding, 1)[0]), size)
    return A.squeeze(out, axis)
