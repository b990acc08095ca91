"""Integer operators: BitwiseAnd/Or/Xor, Invert, LeftShift/RightShift, PopulationCount, Gcd
and Lcm. None is differentiable (integer outputs); the kernels are the bodies of
kernels/scalar_bits.py on either device. The dtypes each accepts, and whether it promotes mixed
dtypes or takes Python scalars, are MindSpore 2.7's (checked against it)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (broadcast_shape, check_dtype, check_same_dtype,
                                            check_tensor)
from minispore.ops.operations.elementwise import BinaryElementwise, UnaryElementwise
from minispore.ops.primitive import Aval, Primitive

__all__ = ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift",
           "PopulationCount", "Gcd", "Lcm"]

INTEGERS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64,
            mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64)

# The unsigned dtype of each width: PopulationCount counts the bits of that view.
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class _Bitwise(BinaryElementwise):
    """Bitwise logic on bool and integer tensors; mixed dtypes promote (int8 with uint8 is
    int16, bool with int32 is int32) and a Python scalar takes the tensor's dtype."""
    valid_dtypes = INTEGERS + (mstype.bool_,)
    differentiable = False


class BitwiseAnd(_Bitwise):
    """out = x & y elementwise, with broadcasting (see ops.bitwise_and for an example)."""
    kernel_name = "bitwise_and"


class BitwiseOr(_Bitwise):
    """out = x | y elementwise, with broadcasting."""
    kernel_name = "bitwise_or"


class BitwiseXor(_Bitwise):
    """out = x ^ y elementwise, with broadcasting."""
    kernel_name = "bitwise_xor"


class Invert(UnaryElementwise):
    """out = ~x (every bit flipped) on integer tensors: -x - 1 for signed dtypes, MAX - x for
    unsigned ones. Bool is refused, as in MindSpore (use LogicalNot)."""
    kernel_name = "invert"
    valid_dtypes = INTEGERS
    differentiable = False


class PopulationCount(UnaryElementwise):
    """out = the number of set bits of each element, as UInt8; a negative value counts the
    bits of its two's complement in its own width (-1 of Int8 has 8)."""
    kernel_name = "population_count"
    valid_dtypes = INTEGERS
    differentiable = False

    def infer(self, x):
        check_tensor(self, "input_x", x)
        check_dtype(self, "input_x", x, self.valid_dtypes)
        return Aval(x.shape, mstype.uint8)

    writes_out = True

    def impl(self, x, out=None):
        return kernel(self.family, self.kernel_name)(x.view(_UNSIGNED[x.dtype.itemsize]),
                                                     out=out)


class _Shift(BinaryElementwise):
    """x shifted by y bits elementwise, with broadcasting, on two integer tensors of one dtype
    (MindSpore neither promotes nor takes a Python scalar here; ops.bitwise_left_shift does
    take one). The count is taken modulo 32 for dtypes of up to 32 bits and modulo 64 for the
    64-bit ones, as MindSpore's CPU kernel (C++ on x86) gives: 1 << 33 is 2, 1 << -1 is
    1 << 31."""
    valid_dtypes = INTEGERS
    differentiable = False

    def __call__(self, x, y):
        for name, v in (("x", x), ("y", y)):
            if not isinstance(v, Tensor):
                raise self.error(f"the input '{name}' must be a Tensor, but got "
                                 f"{type(v).__name__}.", TypeError)
        return Primitive.__call__(self, x, y)

    def infer(self, x, y):
        check_dtype(self, "x", x, self.valid_dtypes)
        check_same_dtype(self, ("x", "y"), (x, y))
        return Aval(broadcast_shape(self, x.shape, y.shape), x.dtype)

    writes_out = True

    def impl(self, x, y, out=None):
        if x.dtype.itemsize == 8:       # the count is masked by 63 there, by 31 below
            return kernel(self.family, self.kernel_name64)(x, y, out=out)
        return kernel(self.family, self.kernel_name)(x, y, out=out)


class LeftShift(_Shift):
    """out = x << y elementwise (bits shifted out of the dtype's width are lost)."""
    kernel_name, kernel_name64 = "left_shift", "left_shift64"


class RightShift(_Shift):
    """out = x >> y elementwise: arithmetic (sign-filling) for signed dtypes, logical for
    unsigned ones."""
    kernel_name, kernel_name64 = "right_shift", "right_shift64"


class _Divisors(BinaryElementwise):
    """Gcd and Lcm: two tensors (a Python scalar is refused, as in MindSpore), mixed dtypes
    promoted (Int16 with Int32 is Int32) before the dtype check."""
    differentiable = False

    def __call__(self, x, y):
        for name, v in (("x1", x), ("x2", y)):
            if not isinstance(v, Tensor):
                raise self.error(f"the input '{name}' must be a Tensor, but got "
                                 f"{type(v).__name__}.", TypeError)
        return BinaryElementwise.__call__(self, x, y)


class Gcd(_Divisors):
    """out = the greatest common divisor of |x1| and |x2| elementwise (0 where both are 0),
    with broadcasting; Int16, Int32 or Int64."""
    kernel_name = "gcd"
    valid_dtypes = (mstype.int16, mstype.int32, mstype.int64)


class Lcm(_Divisors):
    """out = the least common multiple of |x1| and |x2| elementwise (0 where either is 0),
    with broadcasting; Int32 or Int64 (an overflow wraps, as in MindSpore)."""
    kernel_name = "lcm"
    valid_dtypes = (mstype.int32, mstype.int64)
