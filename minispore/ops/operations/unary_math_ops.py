"""Elementwise math of one input beyond math_ops' core set: trigonometric and hyperbolic
functions, rounding, sign, reciprocal and the special functions (Sin ... Erfc, MindSpore's
names). Each runs the scalar body of kernels/scalar.py of its kernel_name on either device;
the bprops compose math_ops' operators (float inputs; rounding and sign have zero gradient,
as in MindSpore)."""
import math

from minispore.common import dtype as mstype
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.array_ops import Cast, ZerosLike
from minispore.ops.operations.elementwise import UnaryElementwise
from minispore.ops.operations.math_ops import (Add, Exp, Mul, Neg, RealDiv, Sqrt, Square,
                                               Sub)

__all__ = ["Sin", "Cos", "Tan", "Sinh", "Cosh", "Asin", "ACos", "Atan", "Floor", "Ceil",
           "Sign", "Reciprocal", "Log1p", "Expm1", "Erf", "Erfc", "Lgamma", "Digamma", "Erfinv"]


def _mul(a, b):
    return cached_op(Mul)(a, b)


class Sin(UnaryElementwise):
    """out = sin(x); dx = dout * cos(x)."""
    kernel_name = "sin"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(Cos)(inputs[0])),)


class Cos(UnaryElementwise):
    """out = cos(x); dx = -dout * sin(x)."""
    kernel_name = "cos"

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(_mul(dout, cached_op(Sin)(inputs[0]))),)


class Tan(UnaryElementwise):
    """out = tan(x); dx = dout * (1 + out^2)."""
    kernel_name = "tan"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(Add)(cached_op(Square)(out), 1.0)),)


class Sinh(UnaryElementwise):
    """out = sinh(x); dx = dout * cosh(x)."""
    kernel_name = "sinh"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(Cosh)(inputs[0])),)


class Cosh(UnaryElementwise):
    """out = cosh(x); dx = dout * sinh(x)."""
    kernel_name = "cosh"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(Sinh)(inputs[0])),)


def _one_minus_square_root(x):
    return cached_op(Sqrt)(cached_op(Sub)(1.0, cached_op(Square)(x)))


class Asin(UnaryElementwise):
    """out = arcsin(x) (NaN outside [-1, 1]); dx = dout / sqrt(1 - x^2)."""
    kernel_name = "asin"

    def bprop(self, inputs, out, dout):
        return (cached_op(RealDiv)(dout, _one_minus_square_root(inputs[0])),)


class ACos(UnaryElementwise):
    """out = arccos(x) (NaN outside [-1, 1]); dx = -dout / sqrt(1 - x^2)."""
    kernel_name = "acos"

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(cached_op(RealDiv)(dout, _one_minus_square_root(inputs[0]))),)


class Atan(UnaryElementwise):
    """out = arctan(x); dx = dout / (1 + x^2)."""
    kernel_name = "atan"

    def bprop(self, inputs, out, dout):
        return (cached_op(RealDiv)(dout, cached_op(Add)(cached_op(Square)(inputs[0]), 1.0)),)


class _Piecewise(UnaryElementwise):
    """Piecewise constant: its gradient is zero (MindSpore's bprop returns zeros)."""

    def bprop(self, inputs, out, dout):
        return (cached_op(ZerosLike)(inputs[0]),)


class Floor(_Piecewise):
    """out = the largest integer <= x (as x's float dtype)."""
    kernel_name = "floor"


class Ceil(_Piecewise):
    """out = the smallest integer >= x (as x's float dtype)."""
    kernel_name = "ceil"


class Sign(_Piecewise):
    """out = 1, -1 or 0 by the sign of x (NaN stays NaN); Int32, Int64 and floats, as
    MindSpore 2.7.2 takes them."""
    kernel_name = "sign"
    valid_dtypes = (mstype.int32, mstype.int64) + tuple(mstype.float_types)


class Reciprocal(UnaryElementwise):
    """out = 1 / x; dx = -dout * out^2. An integer x gives float32, as MindSpore's does."""
    kernel_name = "reciprocal"

    def __call__(self, x):
        if getattr(x, "dtype", None) in mstype.int_types:
            x = cached_op(Cast)(x, mstype.float32)
        return super().__call__(x)

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(_mul(dout, cached_op(Square)(out))),)


class Log1p(UnaryElementwise):
    """out = log(1 + x), exact for small x; dx = dout / (1 + x)."""
    kernel_name = "log1p"

    def bprop(self, inputs, out, dout):
        return (cached_op(RealDiv)(dout, cached_op(Add)(inputs[0], 1.0)),)


class Expm1(UnaryElementwise):
    """out = exp(x) - 1, exact for small x; dx = dout * (out + 1)."""
    kernel_name = "expm1"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(Add)(out, 1.0)),)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf_slope(x):
    """2 / sqrt(pi) * exp(-x^2)."""
    return _mul(cached_op(Exp)(cached_op(Neg)(cached_op(Square)(x))), _TWO_OVER_SQRT_PI)


class Erf(UnaryElementwise):
    """out = erf(x); dx = dout * 2 / sqrt(pi) * exp(-x^2)."""
    kernel_name = "erf"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, _erf_slope(inputs[0])),)


class Erfc(UnaryElementwise):
    """out = 1 - erf(x), exact in the tail; dx = -dout * 2 / sqrt(pi) * exp(-x^2)."""
    kernel_name = "erfc"

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(_mul(dout, _erf_slope(inputs[0]))),)


class Lgamma(UnaryElementwise):
    """out = log|Gamma(x)| (+inf at the poles 0, -1, ...); dx = dout * digamma(x)."""
    kernel_name = "lgamma"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(Digamma)(inputs[0])),)


class Digamma(UnaryElementwise):
    """out = psi(x), the derivative of log Gamma (-inf at 0, NaN at the negative integers);
    dx = dout * psi'(x) (the trigamma function)."""
    kernel_name = "digamma"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(_Trigamma)(inputs[0])),)


class _Trigamma(UnaryElementwise):
    """psi'(x), Digamma's derivative (minispore's own operator: MindSpore's Polygamma(1, x))."""
    kernel_name = "trigamma"

    def bprop(self, inputs, out, dout):
        raise NotImplementedError("The gradient of the trigamma function (a third derivative "
                                  "of Lgamma, a second of Digamma) is not implemented in "
                                  "minispore.")


_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


class Erfinv(UnaryElementwise):
    """out = the y with erf(y) = x (+-inf at +-1, NaN outside [-1, 1]);
    dx = dout * sqrt(pi) / 2 * exp(out^2)."""
    kernel_name = "erfinv"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, _mul(cached_op(Exp)(cached_op(Square)(out)), _HALF_SQRT_PI)),)
