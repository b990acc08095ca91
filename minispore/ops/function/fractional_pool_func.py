"""ops.fractional_max_pool2d: max pooling over pseudo-random windows (Graham, "Fractional
Max-Pooling"), as MindSpore's FractionalMaxPoolWithFixedKsize computes it.

Each (sample, channel) plane gets two numbers u in [0, 1) (``_random_samples[n, c]``: the first
places the columns, the second the rows). Along a dim of size `size`, pooled to `out` windows
of `k`: alpha = (size - k) / (out - 1), window i starts at int((i + u) * alpha) - int(u * alpha)
and the last at size - k. The windows are read with GatherD and the maximum picked by its
first index (Argmax), so gradients go to that element only, as MindSpore's backward does.
The window starts are computed on the host from the samples' values: under GRAPH mode the
samples must be a constant Tensor (a Cell attribute), not a graph input.
"""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import index_func as I
from minispore.ops.function import math_func as M
from minispore.ops.function.random_func import rand

__all__ = ["fractional_max_pool2d"]

_NAME = "fractional_max_pool2d"


def _pair(arg, value, kind):
    pair = (value, value) if isinstance(value, kind) and not isinstance(value, bool) else value
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(
            isinstance(v, kind) and not isinstance(v, bool) for v in pair)):
        noun = "an int" if kind is int else "a float"
        raise TypeError(f"For '{_NAME}', '{arg}' must be {noun} or a tuple of two, but got "
                        f"{value!r}.")
    return tuple(pair)


def _starts(u, size, out, k):
    """Window starts (..., out) along a dim, for the samples u (...)."""
    if out == 1:
        return np.full(u.shape + (1,), size - k, np.int64)
    alpha = np.float32(size - k) / np.float32(out - 1)
    i = np.arange(out - 1, dtype=np.float32)
    first = (((i + u[..., None]) * alpha).astype(np.int64) -
             (u[..., None] * alpha).astype(np.int64))
    return np.concatenate([first, np.full(u.shape + (1,), size - k, np.int64)], -1)


def _output_size(h, w, output_size, output_ratio):
    if output_size is not None:
        return _pair("output_size", output_size, int)
    if output_ratio is None:
        raise ValueError(f"For '{_NAME}', 'output_size' and 'output_ratio' can not be None at "
                         f"the same time.")
    ratio = _pair("output_ratio", output_ratio, float)
    for k, r in enumerate(ratio):
        if not 0.0 < r < 1.0:
            raise ValueError(f"For '{_NAME}', the 'output_ratio[{k}]' must be in range of "
                             f"(0.0, 1.0), but got {r}.")
    return int(h * ratio[0]), int(w * ratio[1])


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """(N, C, H, W) or (C, H, W) -> (..., out_h, out_w), and with `return_indices` the Int64
    flat index h * W + w of each maximum. `_random_samples`: (N, C, 2) floats in [0, 1) (None:
    uniform draws)."""
    if not isinstance(input, Tensor) or input.ndim not in (3, 4):
        raise ValueError(f"For '{_NAME}', the input must be a 3-D or 4-D Tensor, but got "
                         f"{tuple(input.shape) if isinstance(input, Tensor) else input!r}.")
    x = input if input.ndim == 4 else A.expand_dims(input, 0)
    n, c, h, w = x.shape
    kh, kw = _pair("kernel_size", kernel_size, int)
    oh, ow = _output_size(h, w, output_size, output_ratio)
    if min(kh, kw, oh, ow) < 1 or oh + kh - 1 > h or ow + kw - 1 > w:
        raise ValueError(f"For '{_NAME}', output size ({oh}, {ow}) with kernel ({kh}, {kw}) "
                         f"needs input of at least ({oh + kh - 1}, {ow + kw - 1}), but got "
                         f"({h}, {w}).")
    samples = rand(n, c, 2) if _random_samples is None else _random_samples
    if tuple(samples.shape) != (n, c, 2):
        raise ValueError(f"For '{_NAME}', '_random_samples' must be of shape {(n, c, 2)}, but "
                         f"got {tuple(samples.shape)}.")
    u = samples.asnumpy().astype(np.float32)
    if not ((u >= 0) & (u < 1)).all():
        raise ValueError(f"For '{_NAME}', '_random_samples' must be in [0, 1).")
    rows = _starts(u[..., 1], h, oh, kh)                                   # (n, c, oh)
    cols = _starts(u[..., 0], w, ow, kw)                                   # (n, c, ow)
    flat = ((rows[:, :, :, None, None, None] + np.arange(kh)[:, None]) * w +
            cols[:, :, None, :, None, None] + np.arange(kw))               # (n, c, oh, ow, kh, kw)
    index = Tensor(flat.reshape(n * c, oh * ow, kh * kw))
    planes = x.reshape(n * c, h * w)
    windows = I.gather_d(planes, 1, index.reshape(n * c, -1)).reshape(n * c, oh * ow, kh * kw)
    best = A.expand_dims(M.argmax(windows, -1), -1)
    out = I.gather_d(windows, 2, best).reshape(n, c, oh, ow)
    indices = I.gather_d(index, 2, best).reshape(n, c, oh, ow).astype(mstype.int64)
    if input.ndim == 3:
        out, indices = out[0], indices[0]
    return (out, indices) if return_indices else out
