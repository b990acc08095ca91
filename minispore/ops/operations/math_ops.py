"""Arithmetic, elementwise math, comparison, selection, reduction and broadcasting operators.

They share a module because their bprops call each other: a binary operator's gradient is
summed back over its broadcast axes (ReduceSum, Reshape), ReduceSum's and ReduceMean's are
broadcast back (BroadcastTo, RealDiv), and BroadcastTo's is summed. The matrix products, whose
bprops only call into here, are in matmul_ops."""
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.symbolic import SymDim, is_symbolic
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.interpreter import to_tensor
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (broadcast_shape, cached_op, check_dtype,
                                            check_same_dtype, check_tensor, is_tensor,
                                            normalize_axis, reduce_axes, reduced_shape,
                                            run_middle_reduction, shape_size, shapes_equal,
                                            tensor_ints)
from minispore.ops.operations import _math_grad_ops as G
from minispore.ops.operations.array_ops import (Cast, Reshape, ZerosLike, c_strides,
                                                dim_scalar, is_dim, strided_copy)
from minispore.ops.operations.elementwise import BinaryElementwise, UnaryElementwise
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Add", "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "FloorMod", "Neg", "Maximum", "Minimum", "Pow", "Exp",
           "Log", "Sqrt", "Rsqrt", "Square", "Abs", "Equal", "NotEqual", "Less", "LessEqual",
           "Greater", "GreaterEqual", "Select", "ReduceSum", "ReduceMean", "ReduceMax",
           "ReduceMin", "Argmax", "BroadcastTo", "DynamicBroadcastTo"]

_FLOAT = mstype.float_types
_SIGNED = _FLOAT + (mstype.int8, mstype.int16, mstype.int32, mstype.int64)


# MindSpore's CPU kernels of Add and the comparisons also take the wide unsigned types.
_WITH_UINTS = mstype.number_types + (mstype.uint16, mstype.uint32, mstype.uint64)


class Add(BinaryElementwise):
    """out = x + y, with broadcasting (unsigned sums wrap, as numpy's and MindSpore's do)."""
    kernel_name = "add"
    valid_dtypes = _WITH_UINTS

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return sum_to_shape(dout, x.shape), sum_to_shape(dout, y.shape)


class Sub(BinaryElementwise):
    """out = x - y, with broadcasting."""
    kernel_name = "sub"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return sum_to_shape(dout, x.shape), sum_to_shape(cached_op(Neg)(dout), y.shape)


class Mul(BinaryElementwise):
    """out = x * y, with broadcasting."""
    kernel_name = "mul"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        mul = cached_op(Mul)
        return sum_to_shape(mul(dout, y), x.shape), sum_to_shape(mul(dout, x), y.shape)


class RealDiv(BinaryElementwise):
    """out = x / y, with broadcasting: true division, so integer or bool inputs give float32
    (MindSpore 2.x's ``int / int``)."""
    kernel_name = "realdiv"
    valid_dtypes = mstype.float_types

    def promote(self, x, y):
        x, y = super().promote(x, y)
        if not x.dtype.is_float:
            cast = cached_op(Cast)
            x, y = cast(x, mstype.float32), cast(y, mstype.float32)
        return x, y

    def __call__(self, x, y):
        # True division: with no float on either side (int or bool tensors, int scalars:
        # `t / 2`, `6 / t`) both go to float32 first, as MindSpore's int / int does.
        if not (_floating(x) or _floating(y)):
            cast = cached_op(Cast)
            x = cast(x, mstype.float32) if isinstance(x, Tensor) else _as_float(x)
            y = cast(y, mstype.float32) if isinstance(y, Tensor) else _as_float(y)
        return super().__call__(x, y)

    def bprop(self, inputs, out, dout):
        x, y = inputs
        dx = cached_op(RealDiv)(dout, y)
        # d(x/y)/dy = -(x/y)/y = -out/y: reuses the forward output instead of x / y**2.
        dy = cached_op(Neg)(cached_op(Mul)(dx, out))
        return sum_to_shape(dx, x.shape), sum_to_shape(dy, y.shape)


Div = RealDiv


class FloorDiv(BinaryElementwise):
    """out = floor(x / y) with broadcasting (``x // y``): ints stay ints (-3 // 2 is -2),
    floats give floored floats. Not differentiable: MindSpore's bprop returns zeros, and so
    does this one."""
    kernel_name = "floordiv"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        zeros = cached_op(ZerosLike)
        return zeros(x), zeros(y)


class FloorMod(BinaryElementwise):
    """out = x - floor(x / y) * y with broadcasting (``x % y``): the remainder has the sign of
    the divisor. Gradients (MindSpore's): dx = dout, dy = -dout * floor(x / y)."""
    kernel_name = "floormod"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        dy = cached_op(Neg)(cached_op(Mul)(dout, cached_op(FloorDiv)(x, y)))
        return sum_to_shape(dout, x.shape), sum_to_shape(dy, y.shape)


def _floating(v):
    if isinstance(v, Tensor):
        return v.dtype.is_float
    return isinstance(v, (float, np.floating))


def _as_float(v):
    # A number becomes a float (then a float32 scalar); anything else is left for the
    # operator's own type error.
    return float(v) if isinstance(v, (numbers.Number, np.generic)) else v


class Neg(UnaryElementwise):
    """out = -x."""
    kernel_name = "neg"
    valid_dtypes = _SIGNED

    def bprop(self, inputs, out, dout):
        return (cached_op(Neg)(dout),)


class Maximum(BinaryElementwise):
    """out = max(x, y) elementwise, with broadcasting; a NaN in either input wins.

    Gradient: dout goes to the larger input; on ties (x == y) each input gets dout / 2, which
    is what central differences measure, and where either input is NaN both get dout (both as
    MindSpore 2.7.2 gives them).
    """
    kernel_name = "maximum"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return (sum_to_shape(G.maximum_grad(x, y, dout), x.shape),
                sum_to_shape(G.maximum_grad(y, x, dout), y.shape))


class Minimum(BinaryElementwise):
    """out = min(x, y) elementwise, with broadcasting; a NaN in either input wins.

    Gradient: dout goes to the smaller input; ties and NaNs as in Maximum.
    """
    kernel_name = "minimum"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return (sum_to_shape(G.minimum_grad(x, y, dout), x.shape),
                sum_to_shape(G.minimum_grad(y, x, dout), y.shape))


class Pow(BinaryElementwise):
    """out = x ** y elementwise, with broadcasting. Integer powers of integers stay integers
    (a negative exponent truncates toward zero: 2 ** -3 is 0, as in MindSpore).

    `y` may be a Tensor or a Python number; a number exponent stays a constant (no gradient is
    computed for it). Gradients: dx = dout * y * x**(y-1); dy = dout * out * log(x), taken as 0
    where x == 0 (NaN where x < 0, where x**y is not real-differentiable in y).
    """
    kernel_name = "pow"
    valid_dtypes = mstype.number_types

    def __call__(self, x, y):
        if isinstance(x, Tensor) and isinstance(y, numbers.Real) and not isinstance(y, bool):
            if not x.dtype.is_float and not isinstance(y, numbers.Integral):
                # An int tensor to a float power is float32, as in MindSpore (xi ** 2.5).
                x = cached_op(Cast)(x, mstype.float32)
            return Primitive.__call__(self, x, y)
        return super().__call__(x, y)

    def infer(self, x, y):
        if is_tensor(y):
            return super().infer(x, y)
        check_dtype(self, "x", x, self.valid_dtypes)
        return Aval(x.shape, x.dtype)

    def impl(self, x, y):
        if isinstance(y, numbers.Real):
            # A number exponent: a scalar of x's dtype, which every device's kernel accepts.
            y = x.dtype.type(y)
        return kernel(self.family, self.kernel_name)(x, y)

    def bprop(self, inputs, out, dout):
        x, y = inputs
        if not isinstance(y, Tensor):
            return sum_to_shape(G.pow_grad_x(x, to_tensor(y, x), dout), x.shape), None
        return (sum_to_shape(G.pow_grad_x(x, y, dout), x.shape),
                sum_to_shape(G.pow_grad_y(x, out, dout), y.shape))


class Exp(UnaryElementwise):
    """out = e ** x."""
    kernel_name = "exp"

    def bprop(self, inputs, out, dout):
        return (cached_op(Mul)(dout, out),)


class Log(UnaryElementwise):
    """out = ln(x) (-inf at 0, NaN below)."""
    kernel_name = "log"

    def bprop(self, inputs, out, dout):
        return (cached_op(RealDiv)(dout, inputs[0]),)


_INT_OR_BOOL = frozenset(mstype.int_types + (mstype.uint16, mstype.uint32, mstype.uint64,
                                             mstype.bool_))


class Sqrt(UnaryElementwise):
    """out = sqrt(x) (NaN below 0). Integer and bool x give float32, as MindSpore's does."""
    kernel_name = "sqrt"

    def __call__(self, x):
        if getattr(x, "dtype", None) in _INT_OR_BOOL:
            x = cached_op(Cast)(x, mstype.float32)
        return super().__call__(x)

    def bprop(self, inputs, out, dout):
        return (G.sqrt_grad(out, dout),)


class Rsqrt(UnaryElementwise):
    """out = 1 / sqrt(x)."""
    kernel_name = "rsqrt"

    def bprop(self, inputs, out, dout):
        return (G.rsqrt_grad(out, dout),)


class Square(UnaryElementwise):
    """out = x * x."""
    kernel_name = "square"
    valid_dtypes = mstype.number_types

    def bprop(self, inputs, out, dout):
        return (G.square_grad(inputs[0], dout),)


class Abs(UnaryElementwise):
    """out = |x|; its gradient is sign(x) * dout (0 at x == 0)."""
    kernel_name = "abs"
    valid_dtypes = mstype.number_types

    def bprop(self, inputs, out, dout):
        return (G.abs_grad(inputs[0], dout),)


class _Compare(BinaryElementwise):
    """Elementwise comparison with broadcasting; a bool tensor, not differentiable."""
    out_dtype = mstype.bool_
    valid_dtypes = _WITH_UINTS + (mstype.bool_,)
    differentiable = False


class Equal(_Compare):
    """out = (x == y)."""
    kernel_name = "equal"


class NotEqual(_Compare):
    """out = (x != y)."""
    kernel_name = "not_equal"


class Less(_Compare):
    """out = (x < y)."""
    kernel_name = "less"


class LessEqual(_Compare):
    """out = (x <= y)."""
    kernel_name = "less_equal"


class Greater(_Compare):
    """out = (x > y)."""
    kernel_name = "greater"


class GreaterEqual(_Compare):
    """out = (x >= y)."""
    kernel_name = "greater_equal"


class Select(Primitive):
    """out = x where cond else y, elementwise; cond (bool), x and y broadcast together.

    x or y may be a Python number (it takes the other's dtype). Gradients: dout masked by cond
    to x and by not-cond to y, each summed back to its input's shape; none for cond.
    """
    sharding_rule = rules.elementwise
    kernel_name = "select"

    def __call__(self, cond, x, y):
        if not isinstance(x, Tensor) and not isinstance(y, Tensor):
            raise self.error(f"at least one of 'x' and 'y' must be a Tensor, but got "
                             f"{type(x).__name__} and {type(y).__name__}.", TypeError)
        return super().__call__(cond, to_tensor(x, y), to_tensor(y, x))

    def infer(self, cond, x, y):
        check_tensor(self, "cond", cond)
        if cond.dtype != mstype.bool_:
            raise self.error(f"the dtype of 'cond' must be Bool, but got {cond.dtype}.",
                             TypeError)
        check_same_dtype(self, ("x", "y"), (x, y))
        shape = broadcast_shape(self, x.shape, y.shape)
        return Aval(broadcast_shape(self, cond.shape, shape, ("cond", "x/y")), x.dtype)

    def impl(self, cond, x, y):
        return kernel("elementwise", self.kernel_name)(cond, x, y)

    def bprop(self, inputs, out, dout):
        cond, x, y = inputs
        select = cached_op(Select)
        # The 0-d zero broadcasts inside the kernel: one pass per gradient, no zeros tensor.
        return (None, sum_to_shape(select(cond, dout, 0), x.shape),
                sum_to_shape(select(cond, 0, dout), y.shape))


class _Reduce(Primitive):
    """Base of ReduceSum/Mean/Max/Min: ``Op(keep_dims=False)(x, axis=())``; () or None reduces all."""
    float16_in_float32 = True
    fresh_outputs = True

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
        if isinstance(axis, Tensor):
            axis = tensor_ints(self, "axis", axis)
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
    sharding_rule = rules.reduction("sum")
    kernel_name = "sum_middle"

    def bprop(self, inputs, out, dout):
        x, axis = inputs
        axes = reduce_axes(self, axis, x.ndim)
        kept = cached_op(Reshape)(dout, reduced_shape(x.shape, axes, True))
        return broadcast_to(kept, x.shape), None


class ReduceMean(_Reduce):
    """out = mean of x over `axis` (all axes when axis is () or None); NaN over empty axes.

    Float inputs accumulate in float64 (sum and scale in one kernel); integer inputs truncate.
    """
    sharding_rule = rules.reduction("mean")
    kernel_name = "mean_middle"

    def bprop(self, inputs, out, dout):
        x, axis = inputs
        axes = reduce_axes(self, axis, x.ndim)
        count = dim_scalar(shape_size([x.shape[a] for a in axes]), dout.dtype)
        # Scale the small reduced gradient before broadcasting it: one full-size pass.
        kept = cached_op(Reshape)(cached_op(RealDiv)(dout, count),
                                  reduced_shape(x.shape, axes, True))
        return broadcast_to(kept, x.shape), None


class _ReduceExtremum(_Reduce):
    """ReduceMax / ReduceMin: the gradient flows to the positions equal to the result, shared
    equally among ties (as MindSpore's and TensorFlow's rule)."""

    def infer(self, x, axis):
        aval = super().infer(x, axis)
        empty = [a for a in reduce_axes(self, axis, x.ndim) if x.shape[a] == 0]
        if empty:
            raise self.error(f"cannot reduce x of shape {tuple(x.shape)} over the empty "
                             f"axis {empty[0]}: the reduction has no identity.")
        return aval

    def bprop(self, inputs, out, dout):
        x, axis = inputs
        return G.reduce_extremum_grad(x, out, dout, axis), None


class ReduceMax(_ReduceExtremum):
    """out = max of x over `axis` (all axes when axis is () or None); a NaN wins."""
    sharding_rule = rules.reduction("max")
    kernel_name = "max_middle"


class ReduceMin(_ReduceExtremum):
    """out = min of x over `axis` (all axes when axis is () or None); a NaN wins."""
    sharding_rule = rules.reduction("min")
    kernel_name = "min_middle"


class Argmax(Primitive):
    """out = index of the first maximum of x along `axis` (the first NaN, if any).

    ``Argmax(axis=-1, output_type=mstype.int32)(x)``; the axis is removed from the shape.
    Not differentiable. Raises ValueError for an axis out of range or of size 0.
    """
    float16_in_float32 = True
    sharding_rule = rules.argmax

    differentiable = False

    def __init__(self, axis=-1, output_type=mstype.int32):
        super().__init__()
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"For 'Argmax', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        if output_type not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'Argmax', 'output_type' must be Int32 or Int64, but got "
                            f"{output_type}.")
        self.axis = axis
        self.output_type = output_type
        self.add_prim_attr("axis", axis)
        self.add_prim_attr("output_type", output_type)

    def infer(self, x):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, mstype.number_types)
        if x.ndim == 0:
            raise self.error("the input must have rank >= 1, but got a 0-d tensor.")
        axis = normalize_axis(self, self.axis, x.ndim)
        if x.shape[axis] == 0:
            raise self.error(f"cannot take argmax of x of shape {tuple(x.shape)} along the "
                             f"empty axis {self.axis}.")
        return Aval(x.shape[:axis] + x.shape[axis + 1:], self.output_type)

    def impl(self, x):
        axis = normalize_axis(self, self.axis, x.ndim)
        out = run_middle_reduction(kernel("reduce", "argmax_middle"), x, (axis,),
                                   self.output_type.np_dtype)
        return out.reshape(x.shape[:axis] + x.shape[axis + 1:])


def sum_to_shape(grad, shape):
    """Reduce a broadcast gradient back to `shape` (sum over the broadcast axes)."""
    gshape = grad.shape
    if tuple(gshape) == tuple(shape):
        return grad
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                      if d == 1 and gshape[i + lead] != 1)
    if axes:
        grad = cached_op(ReduceSum, False)(grad, axes)
    return cached_op(Reshape)(grad, tuple(shape))


def broadcast_to(x, shape):
    """x broadcast to `shape` (ops.broadcast_to): a DynamicBroadcastTo when a dim is dynamic,
    so the compiled graph substitutes each call's sizes, else one BroadcastTo per shape."""
    shape = tuple(shape)
    if is_symbolic(shape):
        return cached_op(DynamicBroadcastTo)(x, shape)
    return cached_op(BroadcastTo, shape)(x)


class BroadcastTo(Primitive):
    """out = x broadcast (numpy rules) to `shape`; BroadcastTo(shape)(x). -1 keeps x's dim."""
    sharding_rule = rules.broadcast_to

    def __init__(self, shape):
        super().__init__()
        if not isinstance(shape, (tuple, list)) or not all(is_dim(d) for d in shape):
            raise TypeError(f"For 'BroadcastTo', 'shape' must be a tuple of ints, but got "
                            f"{shape!r}.")
        self.shape = tuple(d if isinstance(d, SymDim) else int(d) for d in shape)
        self.add_prim_attr("shape", self.shape)

    def _target(self, x_shape, shape=None):
        shape = self.shape if shape is None else shape
        lead = len(shape) - len(x_shape)
        return tuple(x_shape[i - lead] if d == -1 and i >= lead else d
                     for i, d in enumerate(shape))

    def infer(self, x, shape=None):
        check_tensor(self, "x", x)
        shape = self.shape if shape is None else shape
        if len(x.shape) > len(shape):
            raise self.error(f"x.shape {tuple(x.shape)} has more dims than the target "
                             f"shape {shape}.")
        target = self._target(x.shape, shape)
        if any(d < 0 for d in target):
            raise self.error(f"-1 in 'shape' {shape} may only stand for an existing dim "
                             f"of x.shape {tuple(x.shape)}.")
        if not shapes_equal(self, broadcast_shape(self, x.shape, target), target):
            raise self.error(f"x.shape {tuple(x.shape)} cannot be broadcast to {target}.")
        return Aval(target, x.dtype)

    def impl(self, x, shape=None):
        # A contiguous copy: later in-place kernels (optimizer updates) must never see a view.
        target = self._target(x.shape, shape)
        lead = len(target) - x.ndim
        xs = c_strides(x.shape)
        src_strides = [0] * lead + [0 if x.shape[i] == 1 else xs[i] for i in range(x.ndim)]
        out = device.empty(target, x.dtype)
        strided_copy(x, 0, out, 0, target, src_strides, c_strides(target))
        return out

    def bprop(self, inputs, out, dout):
        return (sum_to_shape(dout, inputs[0].shape),) + (None,) * (len(inputs) - 1)

    def local_call(self, args, ctx):
        # The target shape is logical; each rank broadcasts its block to the result's block.
        if len(args) > 1:
            return self(args[0], ctx.out_shapes[0])
        return self.with_attrs(shape=ctx.out_shapes[0])(args[0])


class DynamicBroadcastTo(BroadcastTo):
    """BroadcastTo with the target shape as a call argument: DynamicBroadcastTo()(x, shape).
    A shape holding dynamic dims must be an argument, not an attribute, so the compiled graph
    can substitute the sizes of each call (ops.broadcast_to picks this form for them)."""

    def __init__(self):
        Primitive.__init__(self)

    def __call__(self, x, shape):
        if not isinstance(shape, (tuple, list)) or not all(is_dim(d) for d in shape):
            raise self.error(f"'shape' must be a tuple of ints, but got {shape!r}.", TypeError)
        return Primitive.__call__(self, x, tuple(shape))


# -- second-order gradients of the fused backward kernels that need the arithmetic above -----
# (_math_grad_ops holds the kernels and is imported here, so their bprops live here; the
# others, SquareGrad, AbsGrad, Maximum/MinimumGrad, close over themselves and live there.)
def product(*xs):
    """xs[0] * xs[1] * ... as Mul operators (the second-order bprops' products)."""
    out = xs[0]
    for x in xs[1:]:
        out = cached_op(Mul)(out, x)
    return out


def _pow_grad_x_bprop(self, inputs, out, dout):
    # f = d * y * x^(y-1): df/dx = d * y * (y-1) * x^(y-2), df/dy = d * x^(y-1) * (1 + y ln x)
    # (each gradient deferred: the tape computes only those of live inputs; y is often a
    # constant exponent, whose term would take the log of a negative base)
    x, y, d = inputs
    y_1 = cached_op(Sub)(y, 1)
    return (lambda: sum_to_shape(G.pow_grad_x(x, y_1, product(dout, d, y)), x.shape),
            lambda: sum_to_shape(product(dout, d, cached_op(Pow)(x, y_1),
                                      cached_op(Add)(product(y, cached_op(Log)(x)), 1)), y.shape),
            lambda: sum_to_shape(G.pow_grad_x(x, y, dout), d.shape))


def _pow_grad_y_bprop(self, inputs, out, dout):
    # f = d * p * ln x (0 where x == 0), p = x^y: df/dx = d * p / x, df/dp = d * ln x
    x, p, d = inputs
    return (lambda: sum_to_shape(cached_op(RealDiv)(product(dout, d, p), x), x.shape),
            lambda: sum_to_shape(G.pow_grad_y(x, d, dout), p.shape),
            lambda: sum_to_shape(G.pow_grad_y(x, p, dout), d.shape))


def _sqrt_grad_bprop(self, inputs, out, dout):
    # f = d / (2 s): df/ds = -d / (2 s^2) = -f / s, df/dd = 1 / (2 s)
    s, d = inputs
    return (cached_op(Neg)(cached_op(RealDiv)(product(out, dout), s)), G.sqrt_grad(s, dout))


def _rsqrt_grad_bprop(self, inputs, out, dout):
    # f = -d r^3 / 2: df/dr = -3 d r^2 / 2, df/dd = -r^3 / 2
    r, d = inputs
    return (product(dout, d, r, r, -1.5), G.rsqrt_grad(r, dout))


G.PowGradX.bprop = _pow_grad_x_bprop
G.PowGradY.bprop = _pow_grad_y_bprop
G.SqrtGrad.bprop = _sqrt_grad_bprop
G.RsqrtGrad.bprop = _rsqrt_grad_bprop
