"""ops.histc and ops.bincount: counts gathered by UnsortedSegmentSum at computed bin indices.
histc has a fixed length (`bins`), so it compiles; bincount's length is the largest value + 1,
so it runs eagerly (PYNATIVE) only, as an operator whose output shape depends on values."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.parameter import DataDependentShape
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M

__all__ = ["histc", "bincount"]


def _check_tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', 'input' must be a Tensor, but got {type(x).__name__}.")


def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002 - MindSpore's argument names
    """``ops.histc(input, bins=100, min=0., max=0.)``: the counts of the elements in `bins`
    equal bins spanning [min, max] (the last one closed); elements outside are not counted.
    min == max takes the data's own range (MindSpore's). The bin of x is
    floor((x - min) / (max - min) * bins) in float32, MindSpore's formula, so edges fall where
    they fall there. Counts have the input's dtype (float32 for float inputs)."""
    name = "Histogram"
    _check_tensor(name, input)
    if not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0:
        raise ValueError(f"For '{name}', the 'bins' must be int and must > 0, but got "
                         f"'{bins}' with type '{type(bins).__name__}'.")
    if min > max:
        raise ValueError(f"For '{name}', the 'min' should be <= max: {max}, but got {min}.")
    flat = A.reshape(input, (-1,))
    values = flat if flat.dtype == mstype.float32 else A.cast(flat, mstype.float32)
    if min == max:
        low, high = M.reduce_min(values), M.reduce_max(values)
    else:
        low = Tensor(np.float32(min))
        high = Tensor(np.float32(max))
    inside = M.logical_and(M.greater_equal(values, low), M.less_equal(values, high))
    position = M.floor((values - low) / (high - low) * float(bins))
    index = A.cast(M.minimum(M.maximum(position, 0.0), float(bins - 1)), mstype.int32)
    ones = A.cast(inside, input.dtype if input.dtype != mstype.bool_ else mstype.float32)
    return A.unsorted_segment_sum(ones, index, bins)


def bincount(input, weights=None, minlength=0):  # noqa: A002 - MindSpore's argument name
    """``ops.bincount(input, weights=None, minlength=0)``: out[i] = the number of times i
    occurs in the 1-D integer input (or the sum of its weights), for i up to
    max(input.max() + 1, minlength); negative values are not counted (MindSpore's CPU kernel).
    Counts are float32, or the weights' dtype."""
    name = "bincount"
    _check_tensor(name, input)
    if input.ndim != 1 or not input.dtype.is_int:
        raise ValueError(f"For '{name}', 'input' must be a 1-D integer Tensor, but got a "
                         f"{input.ndim}-D {input.dtype} Tensor.")
    if not isinstance(minlength, int) or isinstance(minlength, bool) or minlength < 0:
        raise ValueError(f"For '{name}', 'minlength' must be a non-negative int, but got "
                         f"{minlength!r}.")
    if weights is not None and (not isinstance(weights, Tensor)
                                or tuple(weights.shape) != tuple(input.shape)):
        raise ValueError(f"For '{name}', 'weights' must be a Tensor of the input's shape "
                         f"{tuple(input.shape)}, but got {getattr(weights, 'shape', weights)}.")
    if input.traced:
        raise DataDependentShape(
            f"For '{name}', the output length depends on the values of 'input', which are not "
            f"known while compiling in GRAPH_MODE or under ms.jit (ops.histc has a fixed number "
            f"of bins).")
    data = input.asnumpy()
    length = max(int(data.max()) + 1 if data.size else 0, minlength)
    counted = M.greater_equal(input, 0)
    values = (A.cast(counted, mstype.float32) if weights is None
              else M.select(counted, weights, A.zeros_like(weights)))
    index = M.select(counted, input, A.zeros_like(input))
    return A.unsorted_segment_sum(values, index, length)

