"""Compositions that sum rows into place (so they differentiate as the scatter does): fold and
col2im (TensorScatterAdd of sliding-block columns, the adjoint of unfold) and
sparse_segment_mean (UnsortedSegmentSum of gathered rows)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.index_func import tensor_scatter_add

__all__ = ["fold", "col2im", "sparse_segment_mean"]


def _pair(name, arg, value, minimum):
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    if (not isinstance(value, (tuple, list)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise TypeError(f"For '{name}', '{arg}' must be an int or a tuple of two ints, but got "
                        f"{value!r}.")
    if any(v < minimum for v in value):
        raise ValueError(f"For '{name}', '{arg}' must be >= {minimum}, but got {tuple(value)}.")
    return tuple(value)


def _output_size(output_size):
    if not isinstance(output_size, Tensor):
        raise TypeError(f"For Primitive[Col2Im], the type of input argument[output_size] must be "
                        f"Tensor but got {type(output_size).__name__}.")
    if output_size.dtype not in (mstype.int32, mstype.int64) or output_size.shape != (2,):
        raise ValueError(f"For 'Col2Im', 'output_size' must be a 1-D int32/int64 Tensor of two "
                         f"values, but got {output_size.dtype} of shape {output_size.shape}.")
    h, w = (int(v) for v in output_size.asnumpy())
    if h < 1 or w < 1:
        raise ValueError(f"For 'Col2Im', 'output_size' must be positive, but got {(h, w)}.")
    return h, w


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """The adjoint of unfold: columns input_x (N, C, kh * kw, L) summed back into images
    (N, C, H, W), each column entry added at its block offset; L must equal the number of
    block positions over the zero-padded (H, W)."""
    name = "Col2Im"
    if not isinstance(input_x, Tensor):
        raise TypeError(f"For '{name}', 'input_x' must be a Tensor, but got "
                        f"{type(input_x).__name__}.")
    if input_x.ndim != 4:
        raise ValueError(f"For primitive[Col2Im], the x dimension must be equal to 4, but got "
                         f"{input_x.ndim}.")
    h, w = _output_size(output_size)
    kh, kw = _pair(name, "kernel_size", kernel_size, 1)
    dh, dw = _pair(name, "dilation", dilation, 1)
    ph, pw = _pair(name, "padding_value", padding_value, 0)
    sh, sw = _pair(name, "stride", stride, 1)
    n, c, k, length = input_x.shape
    if k != kh * kw:
        raise ValueError(f"For '{name}', input's 3rd dimension must be kernel_size[0] * "
                         f"kernel_size[1] = {kh * kw}, but got {k}.")
    hp, wp = h + 2 * ph, w + 2 * pw
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1 or length != oh * ow:
        raise ValueError(f"For '{name}', size of input's 4th dimension must be equal to "
                         f"calculated number of sliding blocks, but got input.size[3]: {length}, "
                         f"calculated number of sliding blocks: {max(oh, 0) * max(ow, 0)}.")
    # padded-image position of (kernel offset ki, kj) at block (p, q), in input's K-major order
    rows = (np.arange(kh)[:, None, None, None] * dh + np.arange(oh)[None, None, :, None] * sh)
    cols = (np.arange(kw)[None, :, None, None] * dw + np.arange(ow)[None, None, None, :] * sw)
    where = (rows * wp + cols).reshape(-1, 1).astype(np.int64)
    updates = A.transpose(A.reshape(input_x, (n * c, k * length)), (1, 0))
    canvas = A.fill(input_x.dtype, (hp * wp, n * c), 0)
    summed = tensor_scatter_add(canvas, Tensor(where), updates)
    image = A.reshape(A.transpose(summed, (1, 0)), (n, c, hp, wp))
    return A.strided_slice(image, (0, 0, ph, pw), (n, c, ph + h, pw + w), (1, 1, 1, 1))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """Columns (N, C * kh * kw, L) summed back into images (N, C, H, W): col2im after splitting
    the channel dim into (C, kh * kw)."""
    if not isinstance(input, Tensor) or input.ndim != 3:
        raise ValueError(f"For 'fold', 'input' must be a 3-D Tensor (N, C * kh * kw, L), but "
                         f"got {getattr(input, 'shape', type(input).__name__)}.")
    kh, kw = _pair("fold", "kernel_size", kernel_size, 1)
    n, ck, length = input.shape
    if ck % (kh * kw):
        raise ValueError(f"For 'fold', input's 2nd dimension ({ck}) must be divisible by "
                         f"kernel_size[0] * kernel_size[1] = {kh * kw}.")
    x = A.reshape(input, (n, ck // (kh * kw), kh * kw, length))
    return col2im(x, output_size, (kh, kw), dilation, padding, stride)


def sparse_segment_mean(x, indices, segment_ids):
    """out[s] = mean of x[indices[j]] over the j with segment_ids[j] == s; segment_ids sorted,
    out has segment_ids[-1] + 1 rows (a segment no j names is zeros)."""
    name = "SparseSegmentMean"
    if not isinstance(x, Tensor) or x.dtype not in (mstype.float16, mstype.float32,
                                                    mstype.float64):
        raise TypeError(f"For primitive[{name}], the input argument[x] must be a type of "
                        f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got "
                        f"{getattr(x, 'dtype', type(x).__name__)}.")
    for arg, t in (("indices", indices), ("segment_ids", segment_ids)):
        if not isinstance(t, Tensor) or t.dtype not in (mstype.int32, mstype.int64) \
                or t.ndim != 1:
            raise TypeError(f"For '{name}', '{arg}' must be a 1-D int32/int64 Tensor, but got "
                            f"{getattr(t, 'dtype', type(t).__name__)}.")
    if x.ndim < 1 or indices.shape != segment_ids.shape:
        raise ValueError(f"For '{name}', x must have at least 1 dim and indices and segment_ids "
                         f"the same length, but got shapes {x.shape}, {indices.shape} and "
                         f"{segment_ids.shape}.")
    ids, idx = segment_ids.asnumpy(), indices.asnumpy()
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise RuntimeError(f"For '{name}', the input 'segment_ids' must be sorted and "
                           f"non-negative, but got {ids.tolist()}.")
    if np.any((idx < 0) | (idx >= x.shape[0])):
        raise RuntimeError(f"For '{name}', 'indices' must be in [0, {x.shape[0]}), but got "
                           f"{idx.tolist()}.")
    segments = int(ids[-1]) + 1 if ids.size else 0
    rows = A.gather(x, indices, 0)
    sums = A.unsorted_segment_sum(rows, segment_ids, segments)
    counts = np.maximum(np.bincount(ids, minlength=segments), 1).astype(x.dtype.np_dtype)
    counts = Tensor(counts.reshape((segments,) + (1,) * (x.ndim - 1)))
    return M.div(sums, counts)
