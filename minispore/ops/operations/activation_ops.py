"""Activation operators (ReLU, Sigmoid, Tanh, GeLU) and bias add, with their gradients.

BiasAddReLU is the fused bias + ReLU that Dense(activation='relu') uses. Backward rules go
through small gradient primitives (ReluGrad, BiasAddGrad …) so every bprop is one kernel.
Kernels take float32 and float64; float16 inputs run the float32 kernel and round back
(Primitive.float16_in_float32).
"""
import math

from minispore import device
from minispore.common import dtype as mstype
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (HALF_FLOATS, cached_op, check_dtype, check_float,
                                            check_same_dtype, check_same_shape, check_tensor,
                                            contiguous, dims_equal)
from minispore.ops.operations.array_ops import Reshape
from minispore.ops.operations.math_ops import Add, Exp, Mul, Sub, broadcast_to, product
from minispore.ops.primitive import Aval, Primitive

__all__ = ["ReLU", "ReluGrad", "Sigmoid", "SigmoidGrad", "Tanh", "TanhGrad", "GeLU", "GeLUGrad", "BiasAdd", "BiasAddReLU", "BiasAddGrad"]


class _Activation(Primitive):
    """y = f(x) elementwise on float16/float32/float64 (float16 computes in float32);
    `kernel_name` names its body in kernels/scalar.py (run by the elementwise kernels, and
    inlined by GRAPH-mode fusion)."""
    sharding_rule = rules.elementwise
    float16_in_float32 = True
    kernel_name = None
    valid_dtypes = HALF_FLOATS

    def infer(self, x):
        check_tensor(self, "input_x", x)
        check_dtype(self, "input_x", x, self.valid_dtypes)
        return Aval(x.shape, x.dtype)

    writes_out = True

    def impl(self, x, out=None):
        return kernel("elementwise", self.kernel_name)(contiguous(x), out=out)


class _ActivationGrad(Primitive):
    """The gradient primitive of an activation: two same-shape float inputs, one output."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    sharding_rule = rules.elementwise
    float16_in_float32 = True
    kernel_name = None
    arg_names = ("y", "dy")

    def infer(self, a, b):
        check_float(self, self.arg_names[0], a)
        check_tensor(self, self.arg_names[1], b)
        check_same_shape(self, self.arg_names, a, b)
        return Aval(a.shape, a.dtype)

    writes_out = True

    def impl(self, a, b, out=None):
        return kernel("elementwise", self.kernel_name)(contiguous(a), contiguous(b), out=out)


class ReLU(_Activation):
    """y = max(x, 0). Also accepts int32/int64 (not differentiable there).

    >>> import numpy as np, minispore as ms
    >>> ms.ops.ReLU()(ms.Tensor(np.array([-1.0, 2.0], np.float32))).asnumpy().tolist()
    [0.0, 2.0]
    """
    kernel_name = "relu"
    valid_dtypes = HALF_FLOATS + (mstype.int32, mstype.int64)

    def bprop(self, inputs, out, dout):
        return (_relu_grad(dout, out),)


class ReluGrad(_ActivationGrad):
    """dx = dy where y > 0 else 0: ReluGrad()(dy, y), y the ReLU output."""
    kernel_name = "relu_grad"
    arg_names = ("dy", "y")

    def bprop(self, inputs, out, dout):
        # linear in dy, piecewise constant in y
        return self(dout, inputs[1]), None


class Sigmoid(_Activation):
    """y = 1 / (1 + exp(-x)), overflow-free for large |x|."""
    kernel_name = "sigmoid"

    def bprop(self, inputs, out, dout):
        return (_sigmoid_grad(out, dout),)


class SigmoidGrad(_ActivationGrad):
    """dx = dy * y * (1 - y): SigmoidGrad()(y, dy), y the Sigmoid output."""
    kernel_name = "sigmoid_grad"

    def bprop(self, inputs, out, dout):
        # d/dy = dy (1 - 2 y), d/d(dy) = y (1 - y)
        y, dy = inputs
        one_minus_2y = _sub(1, product(y, 2))
        return product(dout, dy, one_minus_2y), self(y, dout)


class Tanh(_Activation):
    """y = tanh(x)."""
    kernel_name = "tanh"

    def bprop(self, inputs, out, dout):
        return (_tanh_grad(out, dout),)


class TanhGrad(_ActivationGrad):
    """dx = dy * (1 - y^2): TanhGrad()(y, dy), y the Tanh output."""
    kernel_name = "tanh_grad"

    def bprop(self, inputs, out, dout):
        # d/dy = -2 y dy, d/d(dy) = 1 - y^2
        y, dy = inputs
        return product(dout, dy, y, -2), self(y, dout)


def _check_approximate(name, approximate):
    if approximate not in ("tanh", "none"):
        raise ValueError(f"For '{name}', 'approximate' must be 'tanh' or 'none', "
                         f"but got {approximate!r}.")


class GeLU(_Activation):
    """Gaussian error linear unit. ``GeLU()`` is MindSpore's primitive, the tanh approximation
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); ``GeLU(approximate='none')`` (used by
    ``ops.gelu``'s default) is the exact 0.5 x (1 + erf(x / sqrt 2)).
    """

    def __init__(self, approximate="tanh"):
        super().__init__()
        _check_approximate("GeLU", approximate)
        self.approximate = approximate
        self.kernel_name = "gelu_tanh" if approximate == "tanh" else "gelu_erf"
        self.add_prim_attr("approximate", approximate)

    def bprop(self, inputs, out, dout):
        return (_gelu_grads[self.approximate](dout, inputs[0]),)


class GeLUGrad(_ActivationGrad):
    """dx = dy * gelu'(x): GeLUGrad(approximate)(dy, x)."""
    arg_names = ("dy", "x")

    def __init__(self, approximate="tanh"):
        super().__init__()
        _check_approximate("GeLUGrad", approximate)
        self.kernel_name = "gelu_tanh_grad" if approximate == "tanh" else "gelu_erf_grad"
        self.add_prim_attr("approximate", approximate)
        self.approximate = approximate

    def bprop(self, inputs, out, dout):
        # linear in dy; d/dx = dy gelu''(x)
        dy, x = inputs
        return self(dout, x), product(dout, dy, _gelu_second_derivative(x, self.approximate))


def _gelu_second_derivative(x, approximate):
    """gelu''(x): phi(x) (2 - x^2) for the exact GeLU; for the tanh form 0.5 x (1 + t),
    t = tanh(u), u = c (x + a x^3): (1 - t^2) (u' + x u'' / 2 - x t u'^2)."""
    x2 = cached_op(Mul)(x, x)
    if approximate == "none":
        phi = product(cached_op(Exp)(product(x2, -0.5)), 1 / math.sqrt(2 * math.pi))
        return product(phi, _sub(2, x2))
    c, a = math.sqrt(2 / math.pi), 0.044715
    t = cached_op(Tanh)(product(_add(x, product(x2, x, a)), c))
    du = product(_add(product(x2, 3 * a), 1), c)
    terms = _sub(_add(du, product(x, 3 * a * c, x)), product(x, t, du, du))
    return product(_sub(1, cached_op(Mul)(t, t)), terms)


def _add(x, y):
    return cached_op(Add)(x, y)


def _sub(x, y):
    return cached_op(Sub)(x, y)


_relu_grad, _sigmoid_grad, _tanh_grad = ReluGrad(), SigmoidGrad(), TanhGrad()
_gelu_grads = {a: GeLUGrad(a) for a in ("tanh", "none")}


# -- softmax -----------------------------------------------------------------------------


# -- bias add ----------------------------------------------------------------------------
_CHANNEL_LAST = {"NHWC"}
# MindSpore 2.7.2 adds and sums biases of every number type; integers wrap in their type.
_BIAS_DTYPES = mstype.float_types + mstype.int_types + (mstype.uint16, mstype.uint32,
                                                        mstype.uint64)


class _BiasAddBase(Primitive):
    sharding_rule = rules.bias_add
    float16_in_float32 = True
    kernel_name = None

    def __init__(self, data_format="NCHW"):
        super().__init__()
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For '{self.name}', 'data_format' must be 'NCHW', 'NHWC' or "
                             f"'NCDHW', but got {data_format!r}.")
        self.data_format = data_format
        self.add_prim_attr("data_format", data_format)
        self.add_prim_attr("format", data_format)

    def _channel_axis(self, ndim):
        return ndim - 1 if self.data_format in _CHANNEL_LAST else 1

    def _view(self, x):
        """x as (N, C, K): channel-first keeps its layout; channel-last becomes (N*HW, C, 1)."""
        c = self._channel_axis(x.ndim)
        x = contiguous(x)
        if c == x.ndim - 1:
            return x.reshape(-1, x.shape[c], 1)
        return x.reshape(x.shape[0], x.shape[1], -1)

    def infer(self, x, bias):
        check_dtype(self, "input_x", x, _BIAS_DTYPES)
        check_tensor(self, "bias", bias)
        check_same_dtype(self, ("input_x", "bias"), (x, bias))
        if x.ndim < 2 or (self.data_format == "NCDHW" and x.ndim != 5):
            raise self.error(f"'input_x' must have rank >= 2 (5 for NCDHW), but got shape "
                             f"{tuple(x.shape)}.")
        c = x.shape[self._channel_axis(x.ndim)]
        if bias.ndim != 1 or not dims_equal(self, bias.shape[0], c):
            raise self.error(f"'bias' must be 1-D with the channel size {c} of input_x "
                             f"{tuple(x.shape)} ({self.data_format}), but got bias shape "
                             f"{tuple(bias.shape)}.")
        return Aval(x.shape, x.dtype)

    writes_out = True

    def impl(self, x, bias, out=None):
        xv = self._view(x)
        if out is None:
            out = device.empty(x.shape, x.dtype)
        kernel("activation", self.kernel_name)(xv, contiguous(bias), out.reshape(xv.shape))
        return out


class BiasAdd(_BiasAddBase):
    """y = x + bias broadcast along the channel dim (1 for NCHW/NCDHW, last for NHWC)."""
    kernel_name = "bias_add"

    def bprop(self, inputs, out, dout):
        return dout, cached_op(BiasAddGrad, self.data_format)(dout)


class BiasAddReLU(_BiasAddBase):
    """y = max(x + bias, 0) in one kernel pass: the Dense/Conv bias followed by ReLU."""
    kernel_name = "bias_add_relu"

    def bprop(self, inputs, out, dout):
        dz = _relu_grad(dout, out)
        return dz, cached_op(BiasAddGrad, self.data_format)(dz)


class BiasAddGrad(_BiasAddBase):
    """db = dy summed over every dim but the channel dim: BiasAddGrad(data_format)(dy)."""
    sharding_rule = rules.bias_add_grad

    def bprop(self, inputs, out, dout):
        # linear: each channel's cotangent spread over every element of that channel
        dy = inputs[0]
        c = self._channel_axis(dy.ndim)
        column = cached_op(Reshape)(dout, tuple(-1 if d == c else 1 for d in range(dy.ndim)))
        return (broadcast_to(column, tuple(dy.shape)),)

    def infer(self, dy):
        check_dtype(self, "dout", dy, _BIAS_DTYPES)
        if dy.ndim < 2:
            raise self.error(f"'dout' must have rank >= 2, but got shape {tuple(dy.shape)}.")
        return Aval((dy.shape[self._channel_axis(dy.ndim)],), dy.dtype)

    writes_out = True

    def impl(self, dy, out=None):
        v = self._view(dy)
        db = device.empty(v.shape[1], dy.dtype) if out is None else out
        if dy.dtype.kind in "iu":
            kernel("activation", "int_bias_add_grad")(v, db)
        else:
            kernel("activation", "bias_add_grad")(v, db)
        return db


# -- losses ------------------------------------------------------------------------------
