"""Batch normalisation operators: BatchNorm (training and inference forward) and BatchNormGrad.

LayerNorm lives with the other row-wise operators in nn_ops.py. x is read as an (N, C, S)
view (S the product of the spatial dims, 1 for 2-D input), which is how the kernels in
kernels/<device>/norm.py loop.
"""
from minispore import device
from minispore.common.parameter import Parameter
from minispore.common.symbolic import SymDim
from minispore.ops import sharding_nn as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_float, check_same_dtype,
                                            check_same_shape, check_tensor, contiguous,
                                            dims_equal, shape_size)
from minispore.ops.operations.array_ops import Assign, dim_scalar
from minispore.ops.primitive import Aval, Primitive

__all__ = ["BatchNorm", "BatchNormGrad"]


def _check_attrs(name, is_training, epsilon, data_format):
    if not isinstance(is_training, bool):
        raise TypeError(f"For '{name}', 'is_training' must be a bool, but got "
                        f"{type(is_training).__name__}.")
    if isinstance(epsilon, bool) or not isinstance(epsilon, float) or not 0 < epsilon <= 1:
        raise ValueError(f"For '{name}', 'epsilon' must be a float in range (0, 1], but got "
                         f"{epsilon!r}.")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"For '{name}', 'data_format' must be 'NCHW' or 'NHWC', but got "
                         f"{data_format!r}.")
    if data_format == "NHWC":
        raise NotImplementedError(f"For '{name}', data_format 'NHWC' is not implemented in "
                                  f"minispore; use 'NCHW' (channels in dim 1).")


def _view(x):
    """x as a C-contiguous (N, C, S) array."""
    return contiguous(x).reshape(x.shape[0], x.shape[1], -1)


class _BatchNormBase(Primitive):
    sharding_rule = rules.batch_norm

    def _check_x(self, arg_name, x):
        check_float(self, arg_name, x)
        if not 2 <= x.ndim <= 5:
            raise self.error(f"'{arg_name}' must be a 2-D to 5-D tensor (N, C, ...), but got "
                             f"shape {tuple(x.shape)}.")

    def _check_channel(self, arg_name, v, x):
        check_tensor(self, arg_name, v)
        check_same_dtype(self, ("input_x", arg_name), (x, v))
        if v.ndim != 1 or not dims_equal(self, v.shape[0], x.shape[1]):
            raise self.error(f"'{arg_name}' must have shape ({x.shape[1]},) (the channels of "
                             f"input_x {tuple(x.shape)}), but got {tuple(v.shape)}.")


class BatchNorm(_BatchNormBase):
    """``y, batch_mean, batch_variance, reserve_space_1, reserve_space_2 =
    BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW")(input_x,
    scale, bias, mean, variance)``: per channel c (dim 1 of input_x, (N, C) or (N, C, ...)),
    y = (x - mu[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c].

    Training: mu, var are this batch's mean and biased variance over every dim but C, returned
    as batch_mean and batch_variance; when `mean` and `variance` are Parameters they are
    updated in place as MindSpore does, mean = (1 - momentum) * mean + momentum * mu and
    variance = (1 - momentum) * variance + momentum * var * M / (M - 1) (the unbiased
    variance; M = N * spatial size). Inference: mu, var are `mean` and `variance`, returned
    unchanged. reserve_space_1/2 are the mu and 1/sqrt(var + epsilon) used (for the gradient).
    Gradients flow to input_x, scale and bias.

    Raises:
        TypeError: non-float input_x, or parameters of another dtype.
        ValueError: a parameter not of shape (C,), momentum outside [0, 1], a training batch
            with one value per channel.
        NotImplementedError: data_format "NHWC".
    """

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        super().__init__()
        _check_attrs(self.name, is_training, epsilon, data_format)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or \
                not 0 <= momentum <= 1:
            raise ValueError(f"For 'BatchNorm', 'momentum' must be a number in range [0, 1], "
                             f"but got {momentum!r}.")
        self.is_training = is_training
        self.epsilon = epsilon
        self.momentum = float(momentum)
        self.data_format = data_format
        for k in ("is_training", "epsilon", "momentum", "data_format"):
            self.add_prim_attr(k, getattr(self, k))

    def __call__(self, input_x, scale, bias, mean, variance):
        outs = super().__call__(input_x, scale, bias, mean, variance)
        if self.is_training:
            self._update_moving(input_x, mean, variance, outs[1], outs[2])
        return outs

    def _update_moving(self, x, mean, variance, batch_mean, batch_var):
        """The in-place moving-average update (Assign nodes in a graph, so every compiled
        step updates the Parameters)."""
        m = self.momentum
        count = shape_size((x.shape[0],) + tuple(x.shape[2:]))
        if isinstance(count, SymDim):
            n = dim_scalar(count, x.dtype)
            unbiased = batch_var * (n / (n - 1.0))
        else:
            unbiased = batch_var * (count / (count - 1.0))
        for param, stat in ((mean, batch_mean), (variance, unbiased)):
            if isinstance(param, Parameter):
                cached_op(Assign)(param, param * (1.0 - m) + stat * m)

    def infer(self, x, scale, bias, mean, variance):
        self._check_x("input_x", x)
        for name, v in (("scale", scale), ("bias", bias), ("mean", mean),
                        ("variance", variance)):
            self._check_channel(name, v, x)
        count = shape_size((x.shape[0],) + tuple(x.shape[2:]))
        if self.is_training and isinstance(count, int) and count < 2:
            raise self.error(f"training needs more than one value per channel to compute the "
                             f"batch variance, but input_x has shape {tuple(x.shape)}.")
        c = Aval(scale.shape, x.dtype)
        return Aval(x.shape, x.dtype), c, c, c, c

    def impl(self, x, scale, bias, mean, variance):
        xv = _view(x)
        C = xv.shape[1]
        y = device.empty(xv.shape, x.dtype)
        saved_mean, saved_rstd = device.empty(C, x.dtype), device.empty(C, x.dtype)
        if self.is_training:
            batch_var = device.empty(C, x.dtype)
            kernel("norm", "batch_norm_train")(xv, contiguous(scale), contiguous(bias),
                                               self.epsilon, y, saved_mean, batch_var,
                                               saved_rstd)
            return y.reshape(x.shape), saved_mean, batch_var, saved_mean, saved_rstd
        # Copies: an output must not alias the Parameters a later Assign may overwrite.
        mean, variance = device.astype(mean, x.dtype), device.astype(variance, x.dtype)
        kernel("norm", "batch_norm_infer")(xv, contiguous(scale), contiguous(bias), mean,
                                           variance, self.epsilon, y, saved_rstd)
        return y.reshape(x.shape), mean, variance, mean, saved_rstd

    def bprop(self, inputs, out, dout):
        x, scale = inputs[0], inputs[1]
        grad = cached_op(BatchNormGrad, self.is_training, self.epsilon, self.data_format)
        dx, dscale, dbias = grad(dout[0], x, scale, out[3], out[4])
        return dx, dscale, dbias, None, None


class BatchNormGrad(_BatchNormBase):
    """``dx, dscale, dbias = BatchNormGrad(is_training, epsilon, data_format)(dy, x, scale,
    reserve_space_1, reserve_space_2)``: the backward of BatchNorm from the saved mean and
    1/sqrt(var + epsilon). In training the statistics depend on x, which adds the two mean
    terms to dx (see kernels/cpu/norm.py batch_norm_grad)."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    def __init__(self, is_training=False, epsilon=1e-5, data_format="NCHW"):
        super().__init__()
        _check_attrs(self.name, is_training, epsilon, data_format)
        self.is_training = is_training
        self.epsilon = epsilon
        self.data_format = data_format
        for k in ("is_training", "epsilon", "data_format"):
            self.add_prim_attr(k, getattr(self, k))

    def infer(self, dy, x, scale, saved_mean, saved_rstd):
        self._check_x("x", x)
        check_tensor(self, "dy", dy)
        check_same_shape(self, ("dy", "x"), dy, x)
        for name, v in (("scale", scale), ("reserve_space_1", saved_mean),
                        ("reserve_space_2", saved_rstd)):
            self._check_channel(name, v, x)
        c = Aval(scale.shape, x.dtype)
        return Aval(x.shape, x.dtype), c, c

    def impl(self, dy, x, scale, saved_mean, saved_rstd):
        xv = _view(x)
        C = xv.shape[1]
        dx = device.empty(xv.shape, x.dtype)
        dscale, dbias = device.empty(C, x.dtype), device.empty(C, x.dtype)
        kernel("norm", "batch_norm_grad")(_view(dy), xv, contiguous(scale),
                                          contiguous(saved_mean), contiguous(saved_rstd),
                                          self.is_training, dx, dscale, dbias)
        return dx.reshape(x.shape), dscale, dbias

