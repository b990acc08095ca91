"""The Bessel functions of order 0 and 1 as elementwise operators (MindSpore's BesselI0 ...
BesselY1): each runs the scalar body of kernels/scalar_bessel.py of its kernel_name on either
device, on float16/float32/float64 (an integer input is a TypeError, as in MindSpore). The bprops
are MindSpore's, composed of these operators and math_ops'."""
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.elementwise import UnaryElementwise
from minispore.ops.operations.math_ops import Add, Equal, Mul, Neg, RealDiv, Select, Sub
from minispore.ops.operations.unary_math_ops import Reciprocal, Sign

__all__ = ["BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1",
           "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1"]


def _mul(a, b):
    return cached_op(Mul)(a, b)


def _sub(a, b):
    return cached_op(Sub)(a, b)


def _over_x(out, x):
    return cached_op(RealDiv)(out, x)


def _half_at_zero(x, slope_at):
    """slope_at(x_safe), with 1/2 where x == 0: the limit of I1', I1e' and J1' there, which
    their formulas (a difference with out / x) cannot give. x_safe is x with 1 at the zeros,
    so nothing divides by 0 in the branch the Select drops."""
    zero = cached_op(Equal)(x, 0.0)
    safe = cached_op(Select)(zero, 1.0, x)
    return cached_op(Select)(zero, 0.5, slope_at(safe))


class BesselI0(UnaryElementwise):
    """out = I0(x), the modified Bessel function of the first kind of order 0;
    dx = dout * I1(x)."""
    kernel_name = "bessel_i0"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, cached_op(BesselI1)(inputs[0])),)


class BesselI0e(UnaryElementwise):
    """out = exp(-|x|) I0(x); dx = dout * (I1e(x) - sign(x) out) (0 at x = 0, MindSpore's
    choice where the left and right derivatives are +1 and -1)."""
    kernel_name = "bessel_i0e"

    def bprop(self, inputs, out, dout):
        x = inputs[0]
        slope = _sub(cached_op(BesselI1e)(x), _mul(cached_op(Sign)(x), out))
        return (_mul(dout, slope),)


class BesselI1(UnaryElementwise):
    """out = I1(x); dx = dout * (I0(x) - out / x), 1/2 at x = 0 (the true limit; MindSpore
    2.7.2's bprop gives 1 there)."""
    kernel_name = "bessel_i1"

    def bprop(self, inputs, out, dout):
        def slope(x):
            return _sub(cached_op(BesselI0)(x), _over_x(out, x))
        return (_mul(dout, _half_at_zero(inputs[0], slope)),)


class BesselI1e(UnaryElementwise):
    """out = exp(-|x|) I1(x); dx = dout * (I0e(x) - out (sign(x) + 1 / x)), 1/2 at x = 0."""
    kernel_name = "bessel_i1e"

    def bprop(self, inputs, out, dout):
        def slope(x):
            factor = cached_op(Add)(cached_op(Sign)(x), cached_op(Reciprocal)(x))
            return _sub(cached_op(BesselI0e)(x), _mul(out, factor))
        return (_mul(dout, _half_at_zero(inputs[0], slope)),)


class BesselJ0(UnaryElementwise):
    """out = J0(x), the Bessel function of the first kind of order 0; dx = -dout * J1(x)."""
    kernel_name = "bessel_j0"

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(_mul(dout, cached_op(BesselJ1)(inputs[0]))),)


class BesselJ1(UnaryElementwise):
    """out = J1(x); dx = dout * (J0(x) - out / x), 1/2 at x = 0."""
    kernel_name = "bessel_j1"

    def bprop(self, inputs, out, dout):
        def slope(x):
            return _sub(cached_op(BesselJ0)(x), _over_x(out, x))
        return (_mul(dout, _half_at_zero(inputs[0], slope)),)


class BesselK0(UnaryElementwise):
    """out = K0(x), the modified Bessel function of the second kind of order 0 (+inf for
    x <= 0, as MindSpore); dx = -dout * K1(x)."""
    kernel_name = "bessel_k0"

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(_mul(dout, cached_op(BesselK1)(inputs[0]))),)


class BesselK0e(UnaryElementwise):
    """out = exp(x) K0(x) (+inf for x <= 0); dx = dout * (out - K1e(x))."""
    kernel_name = "bessel_k0e"

    def bprop(self, inputs, out, dout):
        return (_mul(dout, _sub(out, cached_op(BesselK1e)(inputs[0]))),)


class BesselK1(UnaryElementwise):
    """out = K1(x) (+inf for x <= 0); dx = -dout * (K0(x) + out / x)."""
    kernel_name = "bessel_k1"

    def bprop(self, inputs, out, dout):
        x = inputs[0]
        slope = cached_op(Add)(cached_op(BesselK0)(x), _over_x(out, x))
        return (cached_op(Neg)(_mul(dout, slope)),)


class BesselK1e(UnaryElementwise):
    """out = exp(x) K1(x) (+inf for x <= 0); dx = dout * (out (1 - 1 / x) - K0e(x))."""
    kernel_name = "bessel_k1e"

    def bprop(self, inputs, out, dout):
        x = inputs[0]
        scaled = _mul(out, _sub(1.0, cached_op(Reciprocal)(x)))
        return (_mul(dout, _sub(scaled, cached_op(BesselK0e)(x))),)


class BesselY0(UnaryElementwise):
    """out = Y0(x), the Bessel function of the second kind of order 0 (-inf for x <= 0, as
    MindSpore); dx = -dout * Y1(x)."""
    kernel_name = "bessel_y0"

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(_mul(dout, cached_op(BesselY1)(inputs[0]))),)


class BesselY1(UnaryElementwise):
    """out = Y1(x) (-inf for x <= 0); dx = dout * (Y0(x) - out / x)."""
    kernel_name = "bessel_y1"

    def bprop(self, inputs, out, dout):
        x = inputs[0]
        slope = _sub(cached_op(BesselY0)(x), _over_x(out, x))
        return (_mul(dout, slope),)
