"""Functional forms of array and indexing operators (ops.reshape, ops.concat, ops.gather …)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.operations import array_ops as A
from minispore.ops.operations import combine_ops as C
from minispore.ops.operations import debug_ops
from minispore.ops.operations import indexing_ops as I
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.math_ops import broadcast_to  # noqa: F401 - ops.broadcast_to

__all__ = ["reshape", "cast", "identity", "zeros_like", "ones_like", "fill", "broadcast_to",
           "transpose", "expand_dims", "squeeze", "flatten", "concat", "cat", "split",
           "split_equal",
           "tile", "assign", "zeros", "ones", "strided_slice", "strided_slice_grad", "gather",
           "unsorted_segment_sum", "one_hot", "scalar_to_tensor", "print_"]

_reshape, _cast, _identity = A.Reshape(), A.Cast(), A.Identity()
_zeros_like, _ones_like, _fill = A.ZerosLike(), A.OnesLike(), A.Fill()
_transpose, _expand_dims, _flatten, _tile = A.Transpose(), A.ExpandDims(), A.Flatten(), C.Tile()
_assign, _gather, _segment_sum = A.Assign(), I.Gather(), I.UnsortedSegmentSum()
_scalar_to_tensor = A.ScalarToTensor()
_print = debug_ops.Print()


def scalar_to_tensor(input_x, dtype=mstype.float32):
    return _scalar_to_tensor(input_x, dtype)


def reshape(x, shape):
    return _reshape(x, shape if isinstance(shape, Tensor) else tuple(shape))


def cast(x, dtype):
    return _cast(x, dtype)


def identity(x):
    return _identity(x)


def zeros_like(x):
    return _zeros_like(x)


def ones_like(x):
    return _ones_like(x)


def fill(dtype, shape, value):
    return _fill(dtype, shape, value)


def transpose(input, input_perm):
    """out.shape[i] = input.shape[input_perm[i]]."""
    return _transpose(input, tuple(input_perm))


def expand_dims(input_x, axis):
    return _expand_dims(input_x, axis)




def squeeze(input, axis=None):
    """Remove the size-1 dims in `axis` (all of them when None)."""
    axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    return cached_op(A.Squeeze, axis)(input)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Merge dims start_dim..end_dim (default: keep dim 0, as MindSpore's ops.flatten)."""
    if order != "C":
        raise ValueError(f"For 'flatten', 'order' must be 'C', but got {order!r}.")
    if start_dim == 1 and end_dim == -1 and input.ndim >= 1:
        return _flatten(input)
    ndim = max(input.ndim, 1)
    for name, d in (("start_dim", start_dim), ("end_dim", end_dim)):
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"For 'flatten', '{name}' must be an int, but got "
                            f"{type(d).__name__}.")
        if not -ndim <= d < ndim:
            raise ValueError(f"For 'flatten', '{name}' must be in [{-ndim}, {ndim}), "
                             f"but got {d}.")
    start, end = start_dim % ndim, end_dim % ndim
    if start > end:
        raise ValueError(f"For 'flatten', 'start_dim' ({start_dim}) must not come after "
                         f"'end_dim' ({end_dim}).")
    shape = tuple(input.shape) or (1,)
    merged = int(np.prod(shape[start:end + 1], dtype=np.int64))
    return _reshape(input, shape[:start] + (merged,) + shape[end + 1:])




def concat(tensors, axis=0):
    """Join `tensors` (a tuple or list) along `axis`."""
    return cached_op(C.Concat, axis)(tensors)


cat = concat



def split_equal(x, axis=0, output_num=1):
    """`output_num` equal pieces of x along `axis` (a tuple): the Split primitive's form, which
    minispore's layers use (the functional `split` takes piece sizes, as in MindSpore 2.x)."""
    return cached_op(C.Split, axis, output_num)(x)


def split(tensor, split_size_or_sections, axis=0):
    """MindSpore 2.x's ``ops.split``: a tuple of pieces of `tensor` along `axis`, each
    `split_size_or_sections` long (an int; the last piece holds what is left) or of the listed
    lengths (a list or tuple that sums to the axis' length).

    >>> [p.shape for p in split(Tensor(np.zeros((5, 2), np.float32)), 2)]
    [(2, 2), (2, 2), (1, 2)]
    """
    ndim = len(tensor.shape)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or \
            not -ndim <= axis < ndim:
        raise ValueError(f"For 'split', 'axis' must be an int in [{-ndim}, {ndim}), "
                         f"but got {axis!r}.")
    axis = int(axis) % ndim
    n = tensor.shape[axis]
    sections = split_size_or_sections
    if isinstance(sections, (int, np.integer)) and not isinstance(sections, bool):
        if sections <= 0:
            raise ValueError(f"For 'split', 'split_size_or_sections' must be positive, "
                             f"but got {sections}.")
        sizes = [int(sections)] * (n // sections) + ([n % sections] if n % sections else [])
    elif isinstance(sections, (list, tuple)):
        sizes = [int(s) for s in sections]
        if sum(sizes) != n:
            raise ValueError(f"For 'split', the sum of 'split_size_or_sections' {list(sizes)} "
                             f"must equal the length {n} of axis {axis}.")
    else:
        raise TypeError(f"For 'split', 'split_size_or_sections' must be an int, list or tuple, "
                        f"but got {type(sections).__name__}.")
    if len(set(sizes)) == 1:
        return split_equal(tensor, axis, len(sizes))
    pieces, start = [], 0
    for size in sizes:
        begin, end = [0] * ndim, list(tensor.shape)
        begin[axis], end[axis] = start, start + size
        pieces.append(strided_slice(tensor, begin, end, [1] * ndim))
        start += size
    return tuple(pieces)


def tile(input, multiples):
    return _tile(input, multiples if isinstance(multiples, Tensor) else tuple(multiples))


def assign(variable, value):
    """Write value into the Parameter variable in place; returns variable."""
    return _assign(variable, value)


def _shape_arg(size):
    return (size,) if isinstance(size, (int, np.integer)) else tuple(size)


def zeros(size, dtype=None):
    """A tensor of zeros; dtype defaults to float32."""
    return _fill(mstype.float32 if dtype is None else dtype, _shape_arg(size), 0)


def ones(shape, dtype=None):
    """A tensor of ones; dtype defaults to float32."""
    return _fill(mstype.float32 if dtype is None else dtype, _shape_arg(shape), 1)




def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    def seq(v):    # a Tensor stays one: StridedSlice reads its values
        return v if isinstance(v, Tensor) else tuple(v)
    return cached_op(I.StridedSlice, *masks)(input_x, seq(begin), seq(end), seq(strides))


def strided_slice_grad(dout, shapex, begin, end, strides, begin_mask=0, end_mask=0,
                       ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0):
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    return cached_op(I.StridedSliceGrad, *masks)(
        dout, tuple(shapex), tuple(begin), tuple(end), tuple(strides))


def gather(input_params, input_indices, axis, batch_dims=0):
    """input_params taken at input_indices along axis."""
    if batch_dims != 0:
        return I.Gather(batch_dims)(input_params, input_indices, axis)
    return _gather(input_params, input_indices, axis)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    return _segment_sum(input_x, segment_ids, num_segments)




def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot encoding. Python on/off values become tensors as MindSpore makes them (an int
    int64, a float float32), so the defaults give an int64 result; the two must then agree."""
    on_value, off_value = (v if isinstance(v, Tensor) else _one_hot_value(name, v)
                           for name, v in (("on_value", on_value), ("off_value", off_value)))
    return cached_op(I.OneHot, axis)(indices, depth, on_value, off_value)


def _one_hot_value(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"For 'one_hot', '{name}' must be an int, a float or a scalar Tensor "
                        f"(float16, float32, int32 or int64), but got {v!r}.")
    return Tensor(v, mstype.int64 if isinstance(v, (int, np.integer)) else mstype.float32)


def print_(*input_x):
    """Print strings and tensors (ops.Print); in a compiled graph, every time it runs."""
    return _print(*input_x)
