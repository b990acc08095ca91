"""Elementwise math of two float inputs beyond math_ops' arithmetic: Atan2 and Hypot, with
broadcasting, MindSpore's names and bprops composed from math_ops (each gradient summed back
over the axes its input was broadcast along)."""
from minispore.common import dtype as mstype
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.elementwise import BinaryElementwise
from minispore.ops.operations.math_ops import Add, Mul, Neg, RealDiv, Square, sum_to_shape

__all__ = ["Atan2", "Hypot"]


class Atan2(BinaryElementwise):
    """out = atan2(y, x), the angle of the point (x, y) in (-pi, pi]: Atan2()(y, x).
    dy = dout * x / (x^2 + y^2), dx = -dout * y / (x^2 + y^2)."""
    kernel_name = "atan2"
    valid_dtypes = mstype.float_types

    def bprop(self, inputs, out, dout):
        y, x = inputs
        square, mul, div = cached_op(Square), cached_op(Mul), cached_op(RealDiv)
        scale = div(dout, cached_op(Add)(square(x), square(y)))
        return (sum_to_shape(mul(scale, x), y.shape),
                sum_to_shape(cached_op(Neg)(mul(scale, y)), x.shape))


class Hypot(BinaryElementwise):
    """out = sqrt(x^2 + y^2) without overflow in the squares; dx = dout * x / out,
    dy = dout * y / out."""
    kernel_name = "hypot"
    valid_dtypes = mstype.float_types

    def bprop(self, inputs, out, dout):
        x, y = inputs
        scale = cached_op(RealDiv)(dout, out)
        mul = cached_op(Mul)
        return sum_to_shape(mul(scale, x), x.shape), sum_to_shape(mul(scale, y), y.shape)
