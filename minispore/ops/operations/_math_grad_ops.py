"""Backward kernels exposed as (internal, non-differentiable) operators for the math bprops."""
import numpy as np

from minispore import device
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import broadcast_shape, contiguous, middle_view, reduce_axes
from minispore.ops.primitive import Aval, Primitive


class FusedGrad(Primitive):
    """A backward kernel exposed as an operator, so bprops stay written in operators: out =
    kernel(*inputs) elementwise, broadcast over all inputs, in the last input's dtype (the
    incoming gradient). Each defines its second-order bprop where it has one."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    sharding_rule = rules.elementwise

    kernel_name = None

    def infer(self, *xs):
        shape = xs[0].shape
        for x in xs[1:]:
            shape = broadcast_shape(self, shape, x.shape)
        return Aval(shape, xs[-1].dtype)

    def impl(self, *xs):
        return kernel("elementwise", self.kernel_name)(*xs)


class MaximumGrad(FusedGrad):
    """(x, y, dout) -> dout where x > y, dout / 2 where x == y, else 0 (the gradient to x)."""
    kernel_name = "maximum_grad"

    def bprop(self, inputs, out, dout):
        # piecewise linear in dout, piecewise constant in x and y
        x, y, _ = inputs
        return None, None, self(x, y, dout)


class MinimumGrad(FusedGrad):
    """(x, y, dout) -> dout where x < y, dout / 2 where x == y, else 0 (the gradient to x)."""
    kernel_name = "minimum_grad"

    def bprop(self, inputs, out, dout):
        x, y, _ = inputs
        return None, None, self(x, y, dout)


class PowGradX(FusedGrad):
    """(x, y, dout) -> dout * y * x ** (y - 1). Its bprop, and those of PowGradY, SqrtGrad and
    RsqrtGrad, need math_ops' arithmetic, which imports this module: math_ops defines them."""
    kernel_name = "pow_grad_x"


class PowGradY(FusedGrad):
    """(x, out, dout) -> dout * out * log(x), 0 where x == 0."""
    kernel_name = "pow_grad_y"


class SqrtGrad(FusedGrad):
    """(out, dout) -> dout / (2 out) with out = sqrt(x)."""
    kernel_name = "sqrt_grad"


class RsqrtGrad(FusedGrad):
    """(out, dout) -> -dout * out**3 / 2 with out = rsqrt(x)."""
    kernel_name = "rsqrt_grad"


class SquareGrad(FusedGrad):
    """(x, dout) -> 2 x dout."""
    kernel_name = "square_grad"

    def bprop(self, inputs, out, dout):
        x, d = inputs
        return self(dout, d), self(x, dout)


class AbsGrad(FusedGrad):
    """(x, dout) -> sign(x) dout."""
    kernel_name = "abs_grad"

    def bprop(self, inputs, out, dout):
        return None, self(inputs[0], dout)


maximum_grad, minimum_grad = MaximumGrad(), MinimumGrad()
pow_grad_x, pow_grad_y = PowGradX(), PowGradY()
sqrt_grad, rsqrt_grad, square_grad, abs_grad = SqrtGrad(), RsqrtGrad(), SquareGrad(), AbsGrad()


class ReduceExtremumGrad(Primitive):
    """(x, out, dout, axis) -> dx: dout / n at the n positions of each reduced slice equal to
    `out` (the max or min), 0 elsewhere; out and dout have the reduced shape (keep_dims or
    not). One fused kernel (count, then write)."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    sharding_rule = rules.reduce_extremum_grad


    def infer(self, x, out, dout, axis):
        return Aval(x.shape, dout.dtype)

    def impl(self, x, out, dout, axis):
        axes = reduce_axes(self, axis, x.ndim)
        view, perm = middle_view(x, axes)
        outer, _, inner = view.shape
        dx = device.empty(view.shape, dout.dtype)
        kernel("reduce", "minmax_grad_middle")(
            view, contiguous(out).reshape(outer, inner),
            contiguous(dout).reshape(outer, inner), dx)
        if perm is None:
            return dx.reshape(x.shape)
        moved = dx.reshape(tuple(x.shape[p] for p in perm))
        return contiguous(device.transpose(moved, np.argsort(perm)))


reduce_extremum_grad = ReduceExtremumGrad()
