"""ops.fractional_max_pool2d / fractional_max_pool3d: max pooling over pseudo-random windows
(Graham, "Fractional Max-Pooling"), as MindSpore's FractionalMaxPoolWithFixedKsize and
FractionalMaxPool3DWithFixedKsize compute them.

Each (sample, channel) plane gets one number u in [0, 1) per pooled dim (``_random_samples[n,
c]``; in 2-D the first places the columns and the second the rows, in 3-D they place depth,
rows and columns in that order, as MindSpore's kernels read them). Along a dim of size `size`,
pooled to `out` windows of `k`: alpha = (size - k) / (out - 1), window i starts at
int((i + u) * alpha) - int(u * alpha) and the last at size - k. The windows are read with
GatherD and the maximum picked by its first index (Argmax), so gradients go to that element
only, as MindSpore's backward does. The window starts are computed on the host from the
samples' values: under GRAPH mode the samples must be a constant Tensor (a Cell attribute), not
a graph input.
"""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import index_func as I
from minispore.ops.function import math_func as M
from minispore.ops.function.random_func import rand

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

# Which component of a plane's samples places each pooled dim (outermost first).
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _tuple(name, arg, value, kind, nd):
    many = (value,) * nd if isinstance(value, kind) and not isinstance(value, bool) else value
    if not (isinstance(many, (tuple, list)) and len(many) == nd and all(
            isinstance(v, kind) and not isinstance(v, bool) for v in many)):
        noun = "an int" if kind is int else "a float"
        count = {2: "two", 3: "three"}[nd]
        raise TypeError(f"For '{name}', '{arg}' must be {noun} or a tuple of {count}, but got "
                        f"{value!r}.")
    return tuple(many)


def _starts(u, size, out, k):
    """Window starts (..., out) along a dim, for the samples u (...)."""
    if out == 1:
        return np.full(u.shape + (1,), size - k, np.int64)
    alpha = np.float32(size - k) / np.float32(out - 1)
    i = np.arange(out - 1, dtype=np.float32)
    first = (((i + u[..., None]) * alpha).astype(np.int64) -
             (u[..., None] * alpha).astype(np.int64))
    return np.concatenate([first, np.full(u.shape + (1,), size - k, np.int64)], -1)


def _output_size(name, sizes, output_size, output_ratio):
    nd = len(sizes)
    if output_size is not None:
        return _tuple(name, "output_size", output_size, int, nd)
    if output_ratio is None:
        raise ValueError(f"For '{name}', 'output_size' and 'output_ratio' can not be None at "
                         f"the same time.")
    ratio = _tuple(name, "output_ratio", output_ratio, float, nd)
    for k, r in enumerate(ratio):
        if not 0.0 < r < 1.0:
            raise ValueError(f"For '{name}', the 'output_ratio[{k}]' must be in range of "
                             f"(0.0, 1.0), but got {r}.")
    return tuple(int(s * r) for s, r in zip(sizes, ratio))


def _fractional_max_pool(name, nd, input, kernel_size, output_size, output_ratio,  # noqa: A002
                         return_indices, samples):
    if not isinstance(input, Tensor) or input.ndim not in (nd + 1, nd + 2):
        got = tuple(input.shape) if isinstance(input, Tensor) else repr(input)
        raise ValueError(f"For '{name}', the input must be a {nd + 1}-D or {nd + 2}-D Tensor, "
                         f"but got {got}.")
    x = input if input.ndim == nd + 2 else A.expand_dims(input, 0)
    n, c, sizes = x.shape[0], x.shape[1], tuple(x.shape[2:])
    kernel = _tuple(name, "kernel_size", kernel_size, int, nd)
    out = _output_size(name, sizes, output_size, output_ratio)
    need = tuple(o + k - 1 for o, k in zip(out, kernel))
    if min(kernel + out) < 1 or any(a > s for a, s in zip(need, sizes)):
        raise ValueError(f"For '{name}', output size {out} with kernel {kernel} needs input of "
                         f"at least {need}, but got {sizes}.")
    samples = rand(n, c, nd) if samples is None else samples
    if tuple(samples.shape) != (n, c, nd):
        raise ValueError(f"For '{name}', '_random_samples' must be of shape {(n, c, nd)}, but "
                         f"got {tuple(samples.shape)}.")
    u = samples.asnumpy().astype(np.float32)
    if not ((u >= 0) & (u < 1)).all():
        raise ValueError(f"For '{name}', '_random_samples' must be in [0, 1).")
    # flat[n, c, o_1..o_nd, k_1..k_nd]: the flat index in its plane of each window element
    flat = np.zeros((n, c) + out + kernel, np.int64)
    stride = 1
    for d in reversed(range(nd)):
        starts = _starts(u[..., _SAMPLE_OF_DIM[nd][d]], sizes[d], out[d], kernel[d])
        starts = starts.reshape((n, c) + tuple(out[d] if e == d else 1 for e in range(nd))
                                + (1,) * nd)
        offsets = np.arange(kernel[d]).reshape(tuple(kernel[d] if e == d else 1
                                                     for e in range(nd)))
        flat = flat + (starts + offsets) * stride
        stride *= sizes[d]
    planes, windows_n, window = n * c, int(np.prod(out)), int(np.prod(kernel))
    index = Tensor(flat.reshape(planes, windows_n, window))
    windows = I.gather_d(x.reshape(planes, stride), 1, index.reshape(planes, -1))
    windows = windows.reshape(planes, windows_n, window)
    best = A.expand_dims(M.argmax(windows, -1), -1)
    y = I.gather_d(windows, 2, best).reshape((n, c) + out)
    indices = I.gather_d(index, 2, best).reshape((n, c) + out).astype(mstype.int64)
    if input.ndim == nd + 1:
        y, indices = y[0], indices[0]
    return (y, indices) if return_indices else y


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """(N, C, H, W) or (C, H, W) -> (..., out_h, out_w), and with `return_indices` the Int64
    flat index h * W + w of each maximum. `_random_samples`: (N, C, 2) floats in [0, 1) (None:
    uniform draws)."""
    return _fractional_max_pool("fractional_max_pool2d", 2, input, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input_x, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """(N, C, D, H, W) or (C, D, H, W) -> (..., out_d, out_h, out_w), and with
    `return_indices` the Int64 flat index (d * H + h) * W + w of each maximum.
    `_random_samples`: (N, C, 3) floats in [0, 1) of the input's dtype, which MindSpore
    requires (None: uniform draws)."""
    if (isinstance(input_x, Tensor) and isinstance(_random_samples, Tensor)
            and input_x.dtype != _random_samples.dtype):
        raise TypeError(f"For 'fractional_max_pool3d', 'input' and '_random_samples' must be "
                        f"same dtype, but got Tensor[{input_x.dtype}] and "
                        f"Tensor[{_random_samples.dtype}].")
    return _fractional_max_pool("fractional_max_pool3d", 3, input_x, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples)
