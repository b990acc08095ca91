"""UniqueWithPad: the distinct values of a 1-D tensor in order of first occurrence, padded to
the input's length, and each element's position among them. The output shapes are the input's
whatever the values, so unlike ops.unique it compiles into graphs."""
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import check_dtype, check_tensor, contiguous
from minispore.ops.primitive import Aval, Primitive

__all__ = ["UniqueWithPad"]

_DTYPES = (mstype.int32, mstype.int64, mstype.float32, mstype.float64)


class UniqueWithPad(Primitive):
    """``y, idx = UniqueWithPad()(x, pad_num)``: y holds the distinct values of the 1-D x in
    order of first occurrence followed by pad_num up to x's length; idx[i] is the position of
    x[i] in y (Int64 for an Int64 x, else Int32, as MindSpore). pad_num: a number or a 0-d
    Tensor. Not differentiable (MindSpore defines no gradient for it)."""
    differentiable = False
    sharding_rule = rules.replicate_only("the distinct values depend on the whole input")

    def __call__(self, x, pad_num):
        if isinstance(pad_num, Tensor):
            if pad_num.ndim != 0 and pad_num.shape != (1,):
                raise ValueError(f"For 'UniqueWithPad', 'pad_num' must be a number or a "
                                 f"scalar Tensor, but got shape {tuple(pad_num.shape)}.")
            pad_num = pad_num.asnumpy().reshape(()).item()
        if isinstance(pad_num, bool) or not isinstance(pad_num, numbers.Real):
            raise TypeError(f"For 'UniqueWithPad', 'pad_num' must be a number or a scalar "
                            f"Tensor, but got {type(pad_num).__name__}.")
        return super().__call__(x, pad_num)

    def infer(self, x, pad_num):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, _DTYPES)
        if len(x.shape) != 1:
            raise self.error(f"the input_shape_size must be equal to 1, but got "
                             f"{len(x.shape)}.")
        idx = mstype.int64 if x.dtype == mstype.int64 else mstype.int32
        return Aval(x.shape, x.dtype), Aval(x.shape, idx)

    def impl(self, x, pad_num):
        y = device.empty(x.shape, x.dtype)
        idx = device.empty(x.shape, np.int64 if x.dtype == np.int64 else np.int32)
        kernel("unique", "unique_with_pad")(contiguous(x), x.dtype.type(pad_num), y, idx)
        return y, idx
