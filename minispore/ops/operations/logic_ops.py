"""Logical operators and floating-point class tests: LogicalAnd/Or/Xor/Not (a number counts as
true when it is not 0, as in MindSpore: NaN is true) and IsNan/IsInf/IsFinite (an integer is
always finite). Each gives a bool tensor and is not differentiable; the kernels are the bodies
of kernels/scalar.py of their kernel_name on either device."""
from minispore.common import dtype as mstype
from minispore.ops.operations._base import check_dtype, check_tensor
from minispore.ops.operations.elementwise import BinaryElementwise, UnaryElementwise
from minispore.ops.primitive import Aval

__all__ = ["LogicalAnd", "LogicalOr", "LogicalXor", "LogicalNot", "IsNan", "IsInf", "IsFinite"]

_ANY = mstype.number_types + (mstype.bool_,)


class _Logical(BinaryElementwise):
    out_dtype = mstype.bool_
    valid_dtypes = _ANY
    differentiable = False


class LogicalAnd(_Logical):
    """out = x and y (each true when not 0), with broadcasting."""
    kernel_name = "logical_and"


class LogicalOr(_Logical):
    """out = x or y (each true when not 0), with broadcasting."""
    kernel_name = "logical_or"


class LogicalXor(_Logical):
    """out = exactly one of x, y is true (not 0), with broadcasting."""
    kernel_name = "logical_xor"


class _Predicate(UnaryElementwise):
    valid_dtypes = _ANY
    differentiable = False

    def infer(self, x):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, self.valid_dtypes)
        return Aval(x.shape, mstype.bool_)


class LogicalNot(_Predicate):
    """out = not x (x true when not 0)."""
    kernel_name = "logical_not"


class IsNan(_Predicate):
    """out = x is NaN (never for integers)."""
    kernel_name = "isnan"


class IsInf(_Predicate):
    """out = x is +inf or -inf (never for integers)."""
    kernel_name = "isinf"


class IsFinite(_Predicate):
    """out = x is neither NaN nor infinite (always for integers)."""
    kernel_name = "isfinite"
