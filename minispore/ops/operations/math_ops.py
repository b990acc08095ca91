"""Arithmetic, elementwise math, comparison, selection, matrix-product and reduction operators."""
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.interpreter import to_tensor
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (BinaryElementwise, broadcast_shape, check_dtype,
                                            check_same_dtype, check_tensor, contiguous,
                                            dim_scalar, dims_equal, is_tensor, normalize_axis,
                                            reduce_axes, reduced_shape, run_middle_reduction,
                                            shape_size, shapes_equal, sum_to_shape,
                                            UnaryElementwise)
from minispore.ops.operations import _math_grad_ops as G
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Add", "Sub", "Mul", "RealDiv", "Div", "Neg", "Maximum", "Minimum", "Pow", "Exp",
           "Log", "Sqrt", "Rsqrt", "Square", "Abs", "Equal", "NotEqual", "Less", "LessEqual",
           "Greater", "GreaterEqual", "Select", "MatMul", "BatchMatMul", "ReduceSum",
           "ReduceMean", "ReduceMax", "ReduceMin", "Argmax"]

_FLOAT = mstype.float_types
_SIGNED = _FLOAT + (mstype.int8, mstype.int16, mstype.int32, mstype.int64)


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
    """out = x / y, with broadcasting: true division, so integer or bool inputs give float32
    (MindSpore 2.x's ``int / int``)."""
    kernel_name = "realdiv"
    valid_dtypes = mstype.float_types

    def promote(self, x, y):
        x, y = super().promote(x, y)
        if not x.dtype.is_float:
            F = _F()
            x, y = F.cast(x, mstype.float32), F.cast(y, mstype.float32)
        return x, y

    def __call__(self, x, y):
        # True division: with no float on either side (int or bool tensors, int scalars:
        # `t / 2`, `6 / t`) both go to float32 first, as MindSpore's int / int does.
        if not (_floating(x) or _floating(y)):
            F = _F()
            x = F.cast(x, mstype.float32) if isinstance(x, Tensor) else _as_float(x)
            y = F.cast(y, mstype.float32) if isinstance(y, Tensor) else _as_float(y)
        return super().__call__(x, y)

    def bprop(self, inputs, out, dout):
        x, y = inputs
        F = _F()
        dx = F.div(dout, y)
        # d(x/y)/dy = -(x/y)/y = -out/y: reuses the forward output instead of x / y**2.
        dy = F.neg(F.mul(dx, out))
        return sum_to_shape(dx, x.shape), sum_to_shape(dy, y.shape)


Div = RealDiv


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
        return (_F().neg(dout),)


class Maximum(BinaryElementwise):
    """out = max(x, y) elementwise, with broadcasting; a NaN in either input wins.

    Gradient: dout goes to the larger input; on ties (x == y) each input gets dout / 2, which
    is what central differences measure (MindSpore gives ties to x; the halves are symmetric).
    """
    kernel_name = "maximum"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return (sum_to_shape(G.maximum_grad(x, y, dout), x.shape),
                sum_to_shape(G.maximum_grad(y, x, dout), y.shape))


class Minimum(BinaryElementwise):
    """out = min(x, y) elementwise, with broadcasting; a NaN in either input wins.

    Gradient: dout goes to the smaller input; ties split it in halves, as in Maximum.
    """
    kernel_name = "minimum"

    def bprop(self, inputs, out, dout):
        x, y = inputs
        return (sum_to_shape(G.minimum_grad(x, y, dout), x.shape),
                sum_to_shape(G.minimum_grad(y, x, dout), y.shape))


class Pow(BinaryElementwise):
    """out = x ** y elementwise (float dtypes), with broadcasting.

    `y` may be a Tensor or a Python number; a number exponent stays a constant (no gradient is
    computed for it). Gradients: dx = dout * y * x**(y-1); dy = dout * out * log(x), taken as 0
    where x == 0 (NaN where x < 0, where x**y is not real-differentiable in y).
    """
    kernel_name = "pow"
    valid_dtypes = _FLOAT

    def __call__(self, x, y):
        if isinstance(x, Tensor) and isinstance(y, numbers.Real) and not isinstance(y, bool):
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
        return (_F().mul(dout, out),)


class Log(UnaryElementwise):
    """out = ln(x) (-inf at 0, NaN below)."""
    kernel_name = "log"

    def bprop(self, inputs, out, dout):
        return (_F().div(dout, inputs[0]),)


class Sqrt(UnaryElementwise):
    """out = sqrt(x) (NaN below 0)."""
    kernel_name = "sqrt"

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
    valid_dtypes = mstype.number_types + (mstype.bool_,)
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
        F = _F()
        # The 0-d zero broadcasts inside the kernel: one pass per gradient, no zeros tensor.
        return (None, sum_to_shape(F.select(cond, dout, 0), x.shape),
                sum_to_shape(F.select(cond, 0, dout), y.shape))


class _MatMulBase(Primitive):
    """Shared attributes and bprop of MatMul and BatchMatMul (`_product` is the functional op)."""
    float16_in_float32 = True
    sharding_rule = rules.matmul

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        for name, v in (("transpose_a", transpose_a), ("transpose_b", transpose_b)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{name}' must be bool, but got "
                                f"{type(v).__name__}.")
        self.transpose_a = transpose_a
        self.transpose_b = transpose_b
        self.add_prim_attr("transpose_a", transpose_a)
        self.add_prim_attr("transpose_b", transpose_b)

    def _check_operands(self, x, y, min_rank):
        check_tensor(self, "x", x)
        check_tensor(self, "y", y)
        if x.ndim < min_rank or y.ndim < min_rank:
            raise self.error(f"the inputs must be at least {min_rank}-D, but got x.shape "
                             f"{tuple(x.shape)} and y.shape {tuple(y.shape)}.")
        check_dtype(self, "x", x, mstype.float_types)
        check_same_dtype(self, ("x", "y"), (x, y))
        m, k = (x.shape[-1], x.shape[-2]) if self.transpose_a else x.shape[-2:]
        k2, n = (y.shape[-1], y.shape[-2]) if self.transpose_b else y.shape[-2:]
        if not dims_equal(self, k, k2):
            raise self.error(f"the contracted dims must be equal, but x.shape {tuple(x.shape)} "
                             f"(transpose_a={self.transpose_a}) gives {k} and y.shape "
                             f"{tuple(y.shape)} (transpose_b={self.transpose_b}) gives {k2}.")
        return m, n

    def _product(self, a, b, transpose_a, transpose_b):
        raise NotImplementedError

    def bprop(self, inputs, out, dout):
        x, y = inputs
        ta, tb = self.transpose_a, self.transpose_b
        mm = self._product
        # With C = A B (A = op(x), B = op(y)): dA = dC B^T, dB = A^T dC; transposes fold into
        # the GEMM flags so no transpose is ever materialised. A batch dim that was broadcast
        # (BatchMatMul) sums its gradient back over the batches it fed.
        # Each gradient is a deferred product: the tape runs it only for inputs that need one
        # (a first layer's input never does, which saves a whole GEMM per step).
        if ta:
            dx = lambda: sum_to_shape(mm(y, dout, tb, True), x.shape)  # noqa: E731
        else:
            dx = lambda: sum_to_shape(mm(dout, y, False, not tb), x.shape)  # noqa: E731
        if tb:
            dy = lambda: sum_to_shape(mm(dout, x, True, ta), y.shape)  # noqa: E731
        else:
            dy = lambda: sum_to_shape(mm(x, dout, not ta, False), y.shape)  # noqa: E731
        return dx, dy


class MatMul(_MatMulBase):
    """out = op(x) @ op(y) for 2-D x, y, where op transposes when transpose_a / transpose_b.

    Shapes: x (M, K) (or (K, M) with transpose_a), y (K, N) (or (N, K)); out (M, N).
    Raises ValueError when the contracted dims differ, TypeError for non-float or mixed dtypes.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.MatMul()(ms.Tensor(np.ones((2, 3), np.float32)),
    ...                 ms.Tensor(np.ones((3, 4), np.float32))).shape
    (2, 4)
    """

    def infer(self, x, y):
        if is_tensor(x) and is_tensor(y) and (x.ndim != 2 or y.ndim != 2):
            raise self.error(f"the inputs must be 2-D, but got x.shape {tuple(x.shape)} and "
                             f"y.shape {tuple(y.shape)}.")
        return Aval(self._check_operands(x, y, 2), x.dtype)

    writes_out = True

    def impl(self, x, y, out=None):
        if out is None:
            m = x.shape[1] if self.transpose_a else x.shape[0]
            n = y.shape[0] if self.transpose_b else y.shape[1]
            out = device.empty((m, n), x.dtype)
        return kernel("matmul", "matmul_into")(x, y, self.transpose_a, self.transpose_b, out)

    def _product(self, a, b, transpose_a, transpose_b):
        return _F().matmul(a, b, transpose_a, transpose_b)


class BatchMatMul(_MatMulBase):
    """out[..., :, :] = op(x[...]) @ op(y[...]) over leading (batch) dims that broadcast.

    Shapes: x (*Bx, M, K) (or (*Bx, K, M) with transpose_a), y (*By, K, N) (or (*By, N, K));
    out (*B, M, N) with B the numpy broadcast of Bx and By, e.g. (2, 1, 3, 4) x (1, 5, 4, 6)
    -> (2, 5, 3, 6). x and y have equal ranks >= 3 (MindSpore's rule; ops.matmul pads ranks).
    The gradient of a broadcast batch dim is summed over the batches it fed.
    Raises ValueError for unequal ranks, batch dims that do not broadcast or unequal
    contracted dims; TypeError for non-float or mixed dtypes.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.BatchMatMul()(ms.Tensor(np.ones((5, 2, 3), np.float32)),
    ...                      ms.Tensor(np.ones((5, 3, 4), np.float32))).shape
    (5, 2, 4)
    >>> ms.ops.BatchMatMul(transpose_b=True)(ms.Tensor(np.ones((2, 1, 3, 4), np.float32)),
    ...                                      ms.Tensor(np.ones((1, 5, 6, 4), np.float32))).shape
    (2, 5, 3, 6)
    """

    def infer(self, x, y):
        m, n = self._check_operands(x, y, 3)
        if x.ndim != y.ndim:
            raise self.error(f"x and y must have equal ranks, but got x.shape {tuple(x.shape)} "
                             f"and y.shape {tuple(y.shape)}; ops.matmul broadcasts mixed ranks.")
        try:
            batch = broadcast_shape(self, x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise self.error(f"the batch dims of x and y must be equal or broadcastable (numpy "
                             f"rules), but got x.shape {tuple(x.shape)} and y.shape "
                             f"{tuple(y.shape)}.") from None
        return Aval(tuple(batch) + (m, n), x.dtype)

    def impl(self, x, y):
        batch = tuple(np.broadcast_shapes(x.shape[:-2], y.shape[:-2]))
        a = _batch_operand(x, batch)
        b = _batch_operand(y, batch)
        m = x.shape[-1] if self.transpose_a else x.shape[-2]
        n = y.shape[-2] if self.transpose_b else y.shape[-1]
        out = device.empty((shape_size(batch), m, n), x.dtype)
        if out.shape[0]:
            kernel("matmul", "batch_matmul")(a, b, self.transpose_a, self.transpose_b, out)
        return out.reshape(batch + (m, n))

    def _product(self, a, b, transpose_a, transpose_b):
        return _F().batch_matmul(a, b, transpose_a, transpose_b)


def _batch_operand(x, batch):
    """x as the 3-D contiguous (Bx, rows, cols) operand of the batch_matmul kernel, which
    reads batch z of the (prod(batch), ., .) output from x[z % Bx].

    Flattened batch z % Bx is x's batch exactly when x's batch dims, after leading 1s, equal
    the trailing dims of `batch` (equal batches, or x repeated over leading dims): then no
    copy. Otherwise (a 1 inside, as (2, 1) against (2, 5)) only the dims from the first
    non-1 on are materialised by broadcasting.
    """
    xb = tuple(x.shape[:-2])
    lead = 0
    while lead < len(xb) and xb[lead] == 1:
        lead += 1
    if xb[lead:] != batch[lead:]:
        x = device.broadcast_to(x, batch[lead:] + tuple(x.shape[-2:]))
    return contiguous(x).reshape((shape_size(x.shape[:-2]),) + tuple(x.shape[-2:]))


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
        F = _F()
        axes = reduce_axes(self, axis, x.ndim)
        kept = F.reshape(dout, reduced_shape(x.shape, axes, True))
        return F.broadcast_to(kept, x.shape), None


class ReduceMean(_Reduce):
    """out = mean of x over `axis` (all axes when axis is () or None); NaN over empty axes.

    Float inputs accumulate in float64 (sum and scale in one kernel); integer inputs truncate.
    """
    sharding_rule = rules.reduction("mean")
    kernel_name = "mean_middle"

    def bprop(self, inputs, out, dout):
        x, axis = inputs
        F = _F()
        axes = reduce_axes(self, axis, x.ndim)
        count = dim_scalar(shape_size([x.shape[a] for a in axes]), dout.dtype)
        # Scale the small reduced gradient before broadcasting it: one full-size pass.
        kept = F.reshape(F.div(dout, count), reduced_shape(x.shape, axes, True))
        return F.broadcast_to(kept, x.shape), None


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
