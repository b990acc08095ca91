"""Functional forms of the two-input special functions (ops.igamma, ops.igammac, ops.zeta,
ops.nextafter, ops.polygamma), MindSpore's names and argument order."""
import numbers

from minispore.common.tensor import Tensor
from minispore.ops.function.array_func import broadcast_to
from minispore.ops.operations import special_binary_ops as _S
from minispore.ops.operations._base import cached_op

__all__ = ["igamma", "igammac", "zeta", "nextafter", "polygamma"]


def igamma(input, other):  # noqa: A002 - MindSpore's argument names
    """P(input, other), the regularized lower incomplete gamma function (see ops.Igamma):
    float32 or float64 tensors of one dtype, broadcast together."""
    return cached_op(_S.Igamma)(input, other)


def igammac(input, other):  # noqa: A002
    """Q(input, other) = 1 - P(input, other), the regularized upper incomplete gamma function
    (see ops.Igammac)."""
    return cached_op(_S.Igammac)(input, other)


def zeta(input, other):  # noqa: A002
    """The Hurwitz zeta function zeta(input, other) = sum_{k>=0} (k + other)^-input (see
    ops.Zeta). As MindSpore's: a Python number takes the other input's dtype, and the input
    with fewer elements is broadcast to the shape of the other (a ValueError where it cannot
    be)."""
    if isinstance(input, numbers.Real) and not isinstance(input, bool):
        if not isinstance(other, Tensor):
            raise TypeError("For 'zeta', at least one of the inputs should be Tensor.")
        input = Tensor(input, other.dtype)
    if isinstance(other, numbers.Real) and not isinstance(other, bool):
        if not isinstance(input, Tensor):
            raise TypeError("For 'zeta', at least one of the inputs should be Tensor.")
        other = Tensor(other, input.dtype)
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        if input.size < other.size:
            input = broadcast_to(input, tuple(other.shape))
        elif input.size > other.size:
            other = broadcast_to(other, tuple(input.shape))
    return cached_op(_S.Zeta)(input, other)


def nextafter(input, other):  # noqa: A002
    """The representable value of input's dtype next to input towards other, elementwise (see
    ops.NextAfter)."""
    return cached_op(_S.NextAfter)(input, other)


def polygamma(n, input):  # noqa: A002
    """psi^(n)(input), the n-th derivative of the digamma function; n a 0-d int32 or int64
    Tensor (see ops.Polygamma)."""
    return cached_op(_S.Polygamma)(n, input)
