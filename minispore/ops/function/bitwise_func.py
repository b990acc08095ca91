"""Functional integer operators: ops.bitwise_and/or/xor, ops.invert, ops.bitwise_left_shift /
bitwise_right_shift, ops.population_count, ops.gcd, ops.lcm."""
from minispore.common.tensor import Tensor
from minispore.ops.interpreter import to_tensor
from minispore.ops.operations import bitwise_ops as _B
from minispore.ops.operations._base import cached_op

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_left_shift",
           "bitwise_right_shift", "population_count", "gcd", "lcm"]


def bitwise_and(input, other):  # noqa: A002 - MindSpore's argument name
    """input & other elementwise (bool and integer tensors, or one tensor and a number).

    >>> import numpy as np, minispore as ms
    >>> a = ms.Tensor(np.array([1, 4, 3], np.int32))
    >>> ms.ops.bitwise_and(a, ms.Tensor(np.array([3, 4, 1], np.int32))).asnumpy().tolist()
    [1, 4, 1]
    """
    return cached_op(_B.BitwiseAnd)(input, other)


def bitwise_or(input, other):  # noqa: A002
    """input | other elementwise (bool and integer tensors, or one tensor and a number)."""
    return cached_op(_B.BitwiseOr)(input, other)


def bitwise_xor(input, other):  # noqa: A002
    """input ^ other elementwise (bool and integer tensors, or one tensor and a number)."""
    return cached_op(_B.BitwiseXor)(input, other)


def invert(x):
    """~x elementwise: every bit of an integer tensor flipped."""
    return cached_op(_B.Invert)(x)


def population_count(input_x):
    """The number of set bits of each element of an integer tensor, as UInt8."""
    return cached_op(_B.PopulationCount)(input_x)


def _tensors(prim, input, other):  # noqa: A002
    """A number operand becomes a tensor of the other operand's dtype, as MindSpore's
    functional shifts allow (the primitives take tensors only)."""
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        input = to_tensor(input, other)
    elif not isinstance(other, Tensor) and isinstance(input, Tensor):
        other = to_tensor(other, input)
    return prim(input, other)


def bitwise_left_shift(input, other):  # noqa: A002
    """input << other elementwise, integers of one dtype (see LeftShift for counts outside
    the dtype's width).

    >>> import numpy as np, minispore as ms
    >>> ms.ops.bitwise_left_shift(ms.Tensor(np.array([1, 3], np.int32)), 2).asnumpy().tolist()
    [4, 12]
    """
    return _tensors(cached_op(_B.LeftShift), input, other)


def bitwise_right_shift(input, other):  # noqa: A002
    """input >> other elementwise (arithmetic for signed dtypes), integers of one dtype."""
    return _tensors(cached_op(_B.RightShift), input, other)


def gcd(input, other):  # noqa: A002
    """The greatest common divisor of |input| and |other| elementwise (Int16/32/64 tensors)."""
    return cached_op(_B.Gcd)(input, other)


def lcm(input, other):  # noqa: A002
    """The least common multiple of |input| and |other| elementwise (Int32/64 tensors)."""
    return cached_op(_B.Lcm)(input, other)
