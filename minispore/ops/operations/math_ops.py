"""Arithmetic, matrix-product and reduction operators."""
from minispore.common import dtype as mstype
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (BinaryElementwise, UnaryElementwise, check_dtype,
                                            check_same_dtype, check_tensor, reduce_axes,
                                            reduced_shape, run_middle_reduction, sum_to_shape)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Add", "Sub", "Mul", "RealDiv", "Div", "Neg", "MatMul", "ReduceSum"]


def _F():
    from minispore.ops import functional
    return functional


class Add(BinaryElementwise):
    """out = x + y, with broadcasting."""
    kernel_name = "add"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return sum_to_shape(dout, x.shape), sum_to_shape(dout, y.shape)


class Sub(BinaryElementwise):
    """out = x - y, with broadcasting."""
    kernel_name = "sub"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return sum_to_shape(dout, x.shape), sum_to_shape(_F().neg(dout), y.shape)


class Mul(BinaryElementwise):
    """out = x * y, with broadcasting."""
    kernel_name = "mul"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        F = _F()
        return sum_to_shape(F.mul(dout, y), x.shape), sum_to_shape(F.mul(dout, x), y.shape)


class RealDiv(BinaryElementwise):
    """out = x / y, with broadcasting (float inputs)."""
    kernel_name = "realdiv"
    valid_dtypes = mstype.float_types

    def bprop(self, inputs, out, dout):
        x, y = inputs
        F = _F()
        dx = F.div(dout, y)
        # d(x/y)/dy = -(x/y)/y = -out/y: reuses the forward output instead of x / y**2.
        dy = F.neg(F.mul(dx, out))
        return sum_to_shape(dx, x.shape), sum_to_shape(dy, y.shape)


Div = RealDiv


class Neg(UnaryElementwise):
    """out = -x."""
    kernel_name = "neg"
    valid_dtypes = mstype.float_types + (mstype.int8, mstype.int16, mstype.int32, mstype.int64)

    def bprop(self, inputs, out, dout):
        return (_F().neg(dout),)


class MatMul(Primitive):
    """out = op(x) @ op(y) for 2-D x, y, where op transposes when transpose_a / transpose_b.

    Shapes: x (M, K) (or (K, M) with transpose_a), y (K, N) (or (N, K)); out (M, N).
    Raises ValueError when the contracted dims differ, TypeError for non-float or mixed dtypes.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.MatMul()(ms.Tensor(np.ones((2, 3), np.float32)),
    ...                 ms.Tensor(np.ones((3, 4), np.float32))).shape
    (2, 4)
    """

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        for name, v in (("transpose_a", transpose_a), ("transpose_b", transpose_b)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'MatMul', '{name}' must be bool, but got "
                                f"{type(v).__name__}.")
        self.transpose_a = transpose_a
        self.transpose_b = transpose_b
        self.add_prim_attr("transpose_a", transpose_a)
        self.add_prim_attr("transpose_b", transpose_b)

    def infer(self, x, y):
        check_tensor(self, "x", x)
        check_tensor(self, "y", y)
        if x.ndim != 2 or y.ndim != 2:
            raise self.error(f"the inputs must be 2-D, but got x.shape {tuple(x.shape)} and "
                             f"y.shape {tuple(y.shape)}.")
        check_dtype(self, "x", x, mstype.float_types)
        check_same_dtype(self, ("x", "y"), (x, y))
        m, k = (x.shape[1], x.shape[0]) if self.transpose_a else x.shape
        k2, n = (y.shape[1], y.shape[0]) if self.transpose_b else y.shape
        if k != k2:
            raise self.error(f"the contracted dims must be equal, but x.shape {tuple(x.shape)} "
                             f"(transpose_a={self.transpose_a}) gives {k} and y.shape "
                             f"{tuple(y.shape)} (transpose_b={self.transpose_b}) gives {k2}.")
        return Aval((m, n), x.dtype)

    def impl(self, x, y):
        return kernel("matmul", "matmul")(x, y, self.transpose_a, self.transpose_b)

    def bprop(self, inputs, out, dout):
        x, y = inputs
        ta, tb = self.transpose_a, self.transpose_b
        F = _F()
        # With C = A B (A = op(x), B = op(y)): dA = dC B^T, dB = A^T dC; transposes fold into
        # the GEMM flags so no transpose is ever materialised.
        if ta:
            dx = F.matmul(y, dout, transpose_a=tb, transpose_b=True)
        else:
            dx = F.matmul(dout, y, transpose_a=False, transpose_b=not tb)
        if tb:
            dy = F.matmul(dout, x, transpose_a=True, transpose_b=ta)
        else:
            dy = F.matmul(x, dout, transpose_a=not ta, transpose_b=False)
        return dx, dy


class _Reduce(Primitive):
    """Base of ReduceSum/Mean/Max/Min: ``Op(keep_dims=False)(x, axis=())``; () or None reduces all."""

    kernel_name = None
    valid_dtypes = mstype.number_types

    def __init__(self, keep_dims=False):
        super().__init__()
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For '{self.name}', 'keep_dims' must be bool, but got "
                            f"{type(keep_dims).__name__}.")
        self.keep_dims = keep_dims
        self.add_prim_attr("keep_dims", keep_dims)

    def __call__(self, x, axis=()):
        return super().__call__(x, axis)

    def infer(self, x, axis):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, self.valid_dtypes)
        axes = reduce_axes(self, axis, x.ndim)
        return Aval(reduced_shape(x.shape, axes, self.keep_dims), x.dtype)

    def impl(self, x, axis):
        axes = reduce_axes(self, axis, x.ndim)
        out = run_middle_reduction(kernel("reduce", self.kernel_name), x, axes)
        return out.reshape(reduced_shape(x.shape, axes, self.keep_dims))


class ReduceSum(_Reduce):
    """out = sum of x over `axis` (all axes when axis is () or None)."""
    kernel_name = "sum_middle"

    def bprop(self, inputs, out, dout):
        x, axis = inputs
        F = _F()
        axes = reduce_axes(self, axis, x.ndim)
        kept = F.reshape(dout, reduced_shape(x.shape, axes, True))
        return F.broadcast_to(kept, x.shape), None
