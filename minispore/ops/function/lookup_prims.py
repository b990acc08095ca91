"""MindSpore Primitive classes that look values up in a table or a sorted sequence, composed of
existing operators: ``ops.LowerBound`` / ``ops.UpperBound`` (row-wise binary search, through
SearchSorted) and ``ops.DataFormatDimMap`` (an axis of one layout's dims renumbered for
another, through FloorMod and Gather). Their attributes are checked at construction, their
inputs when called, with MindSpore 2.7.2's errors."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.scan_func import searchsorted

__all__ = ["LowerBound", "UpperBound", "DataFormatDimMap"]


class _Bound:
    """out[i, k] = the first j with sorted_x[i, j] >= values[i, k] (LowerBound) or
    > values[i, k] (UpperBound): rows of a 2-D sorted_x searched for the same row of a 2-D
    values; out_type Int32 (default) or Int64. Not differentiable (MindSpore has no bprop)."""

    right = False

    def __init__(self, out_type=mstype.int32):
        name = type(self).__name__
        if out_type not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{name}', the 'out_type' should be one of [mindspore.int32, "
                            f"mindspore.int64], but got 'mindspore.{str(out_type).lower()}'.")
        self.name, self.out_type = name, out_type

    def __call__(self, sorted_x, values):
        for arg, x in (("sorted_x", sorted_x), ("values", values)):
            if not isinstance(x, Tensor):
                raise TypeError(f"For '{self.name}', '{arg}' must be a Tensor, but got "
                                f"{type(x).__name__}.")
            if x.ndim != 2:
                raise ValueError(f"For '{self.name}', the rank of '{arg}' must be 2, but got: "
                                 f"{x.ndim}.")
        if sorted_x.shape[0] != values.shape[0]:
            raise ValueError(f"For '{self.name}', the first dimension of the shape of "
                             f"'sorted_x' must be equal to that of 'values', but got shape of "
                             f"'values': {tuple(values.shape)}, shape of 'sorted_x':"
                             f"{tuple(sorted_x.shape)}.")
        if sorted_x.dtype != values.dtype:
            raise TypeError(f"For primitive[{self.name}], the input type must be same.")
        return searchsorted(sorted_x, values, out_int32=self.out_type == mstype.int32,
                            right=self.right)

    def __repr__(self):
        return f"Prim[{self.name}]"


class LowerBound(_Bound):
    __doc__ = _Bound.__doc__


class UpperBound(_Bound):
    __doc__ = _Bound.__doc__
    right = True


_FORMATS = ("NHWC", "NCHW")


class DataFormatDimMap:
    """out = the index in `src_format` of dim ``dst_format[x mod 4]``: the position an axis
    numbered in `dst_format`'s order has in `src_format`'s (NHWC -> NCHW maps
    [0, 1, 2, 3] to [0, 3, 1, 2]). x Int32 or Int64, any shape; out of x's dtype and shape."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        for arg, fmt in (("src_format", src_format), ("dst_format", dst_format)):
            if not isinstance(fmt, str) or fmt not in _FORMATS:
                raise ValueError(f"For 'DataFormatDimMap', the '{arg}' must be str and must be "
                                 f"in '{list(_FORMATS)}', but got '{fmt}'.")
        self.src_format, self.dst_format = src_format, dst_format
        self._table = [src_format.index(dim) for dim in dst_format]

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor) or input_x.dtype not in (mstype.int32, mstype.int64):
            got = f"Tensor[{input_x.dtype}]" if isinstance(input_x, Tensor) else \
                type(input_x).__name__
            raise TypeError(f"For primitive[DataFormatDimMap], the input argument[input type] "
                            f"must be a type of {{Tensor[Int32], Tensor[Int64]}}, but got {got}.")
        table = Tensor(np.asarray(self._table, input_x.dtype.np_dtype))
        return A.gather(table, M.floor_mod(input_x, 4), 0)

    def __repr__(self):
        return "Prim[DataFormatDimMap]"
