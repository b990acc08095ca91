"""Optimizer update operators: each updates a Parameter and its state buffers in place with one
fused kernel (kernels/<device>/optim.py) and returns the Parameter (Adam and AdamWeightDecay:
the Parameter and its two moments). Not differentiable.

Call signatures follow MindSpore's primitives (ApplyMomentum, SGD, Adam, AdamWeightDecay);
``weight_decay`` and ``gradient_scale`` (1 / loss_scale) are extra attributes so that decay and
loss-scale division fuse into the same pass.
"""
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter
from minispore.common.registry import REGISTRY
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (check_bool, check_dtype, contiguous, is_tensor,
                                            shape_size, shapes_equal)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["ApplyMomentum", "SGD", "Adam", "AdamWeightDecay"]


def _check_float(name, arg_name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{name}', '{arg_name}' must be a float, but got "
                        f"{type(value).__name__}.")
    return float(value)


def _scalar(x, dt):
    """A 0-d/1-element array (on either device) or a Python number as a scalar of dtype dt."""
    return dt.type(x if isinstance(x, numbers.Real) else device.first(x))


def _flat(x, dt):
    return contiguous(x, dtype=dt).reshape(-1)


class _ApplyUpdate(Primitive):
    """Shared contract: tensor inputs named in `tensor_args` (the first is the Parameter) must
    match its shape and float dtype; scalar inputs may be numbers or 1-element Tensors."""
    sharding_rule = rules.optimizer_update

    differentiable = False
    side_effect = True    # writes the Parameter and state in place: graphs keep and order it
    tensor_args = ()
    scalar_args = ()
    # Tensor inputs exempt from the parameter's shape and dtype (SGD's first-step flag, ASGD's
    # per-parameter eta and mu): kept whole, read by the kernel as they are.
    free_args = ("stat",)
    # The call returns the first `returns` tensor inputs: the Parameter, or with MindSpore's
    # ApplyAdagrad / ApplyAdaMax / ... a tuple of it and its updated state.
    returns = 1
    # A parameter-server worker plugs a callable (parameter, gradient) -> bool into the
    # registry's "ops.update_redirect" point that sends the gradient of a set_param_ps
    # parameter to its server instead of updating it here (minispore/ps/worker.py); the server
    # runs the real update.
    redirectable = True

    def __call__(self, *args):
        if getattr(args[0], "mapped_parameter", None) is not None:
            # inside vmap, Parameters given as mapped inputs: the batching rule updates them
            super().__call__(*args)
            return self._result(args)
        if not isinstance(args[0], Parameter):
            raise self.error(f"'{self.tensor_args[0]}' must be a Parameter, but got "
                             f"{type(args[0]).__name__}.", TypeError)
        redirect = REGISTRY.plugged("ops.update_redirect")
        if redirect is not None and self.redirectable and \
                redirect(args[0], args[self.tensor_args.index("gradient")]):
            return self._result(args)
        super().__call__(*args)
        return self._result(args)

    def _result(self, args):
        return args[0] if self.returns == 1 else tuple(args[:self.returns])

    def infer(self, *args):
        names = self.tensor_args + self.scalar_args
        if len(args) != len(names):
            raise self.error(f"expects {len(names)} inputs ({', '.join(names)}), but got "
                             f"{len(args)}.", TypeError)
        var = args[0]
        check_dtype(self, names[0], var, mstype.float_types)
        for name, x in zip(names, args):
            if name in self.tensor_args:
                if not is_tensor(x):
                    raise self.error(f"'{name}' must be a Tensor, but got {type(x).__name__}.",
                                     TypeError)
                if name not in self.free_args and not shapes_equal(self, x.shape, var.shape):
                    raise self.error(f"'{name}' shape {tuple(x.shape)} must equal the shape "
                                     f"of '{names[0]}' {tuple(var.shape)}.")
                if x.dtype != var.dtype and name != "gradient" and name not in self.free_args:
                    raise self.error(f"'{name}' dtype {x.dtype} must equal the dtype of "
                                     f"'{names[0]}' {var.dtype}.", TypeError)
            elif is_tensor(x):
                if shape_size(x.shape) != 1:
                    raise self.error(f"'{name}' must be a scalar or a 1-element Tensor, but "
                                     f"got shape {tuple(x.shape)}.")
            elif isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise self.error(f"'{name}' must be a number or a Tensor, but got "
                                 f"{type(x).__name__}.", TypeError)
        return Aval(var.shape, var.dtype)

    def _views(self, var, *states):
        if not device.is_contiguous(var):
            raise self.error("the parameter buffer must be C-contiguous to be updated in place.",
                             RuntimeError)
        return (var.reshape(-1),) + tuple(s.reshape(-1) for s in states)


class ApplyMomentum(_ApplyUpdate):
    """accumulation = momentum * accumulation + g; variable -= lr * accumulation
    (nesterov: variable -= lr * (g + momentum * accumulation)), where
    g = gradient * gradient_scale + weight_decay * variable.

    ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0, weight_decay=0.0)
    (variable, accumulation, learning_rate, gradient, momentum) -> variable.
    """

    tensor_args = ("variable", "accumulation", "gradient")
    scalar_args = ("learning_rate", "momentum")

    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0,
                 weight_decay=0.0):
        super().__init__()
        self.use_nesterov = check_bool(self.name, "use_nesterov", use_nesterov)
        self.use_locking = check_bool(self.name, "use_locking", use_locking)
        self.gradient_scale = _check_float(self.name, "gradient_scale", gradient_scale)
        self.weight_decay = _check_float(self.name, "weight_decay", weight_decay)
        for k in ("use_nesterov", "use_locking", "gradient_scale", "weight_decay"):
            self.add_prim_attr(k, getattr(self, k))

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        return super().__call__(variable, accumulation, gradient, learning_rate, momentum)

    def impl(self, variable, accumulation, gradient, learning_rate, momentum):
        dt = variable.dtype
        p, acc = self._views(variable, accumulation)
        kernel("optim", "apply_momentum")(
            p, acc, _flat(gradient, dt), _scalar(learning_rate, dt), _scalar(momentum, dt),
            dt.type(self.weight_decay), dt.type(self.gradient_scale), self.use_nesterov)
        return variable


class SGD(_ApplyUpdate):
    """Stochastic gradient descent with momentum, dampening and nesterov; the first step (stat
    > 0) sets accum = g, later steps accum = momentum * accum + (1 - dampening) * g. With
    g = gradient * gradient_scale + weight_decay * parameters.

    SGD(dampening=0.0, weight_decay=0.0, nesterov=False, gradient_scale=1.0)
    (parameters, gradient, learning_rate, accum, momentum, stat) -> parameters.
    """

    tensor_args = ("parameters", "gradient", "accum", "stat")
    scalar_args = ("learning_rate", "momentum")

    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False, gradient_scale=1.0):
        super().__init__()
        self.dampening = _check_float(self.name, "dampening", dampening)
        self.weight_decay = _check_float(self.name, "weight_decay", weight_decay)
        self.nesterov = check_bool(self.name, "nesterov", nesterov)
        self.gradient_scale = _check_float(self.name, "gradient_scale", gradient_scale)
        for k in ("dampening", "weight_decay", "nesterov", "gradient_scale"):
            self.add_prim_attr(k, getattr(self, k))

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat):
        return super().__call__(parameters, gradient, accum, stat, learning_rate, momentum)

    def impl(self, parameters, gradient, accum, stat, learning_rate, momentum):
        dt = parameters.dtype
        p, acc = self._views(parameters, accum)
        kernel("optim", "sgd")(
            p, acc, stat.reshape(-1), _flat(gradient, dt), _scalar(learning_rate, dt),
            _scalar(momentum, dt), dt.type(self.dampening), dt.type(self.weight_decay),
            dt.type(self.gradient_scale), self.nesterov)
        return parameters


class Adam(_ApplyUpdate):
    """Adam: m += (1 - beta1)(g - m); v += (1 - beta2)(g^2 - v);
    var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon)
    (nesterov: beta1 * m + (1 - beta1) * g in place of m), g = gradient * gradient_scale +
    weight_decay * var. beta*_power are beta^t for the current step t (the caller updates them).

    Adam(use_locking=False, use_nesterov=False, gradient_scale=1.0, weight_decay=0.0)
    (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient) -> (var, m, v),
    the tuple MindSpore documents.
    """

    tensor_args = ("var", "m", "v", "gradient")
    returns = 3
    scalar_args = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")

    def __init__(self, use_locking=False, use_nesterov=False, gradient_scale=1.0,
                 weight_decay=0.0):
        super().__init__()
        self.use_locking = check_bool(self.name, "use_locking", use_locking)
        self.use_nesterov = check_bool(self.name, "use_nesterov", use_nesterov)
        self.gradient_scale = _check_float(self.name, "gradient_scale", gradient_scale)
        self.weight_decay = _check_float(self.name, "weight_decay", weight_decay)
        for k in ("use_locking", "use_nesterov", "gradient_scale", "weight_decay"):
            self.add_prim_attr(k, getattr(self, k))

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        return super().__call__(var, m, v, gradient, beta1_power, beta2_power, lr, beta1, beta2,
                                epsilon)

    def impl(self, var, m, v, gradient, beta1_power, beta2_power, lr, beta1, beta2, epsilon):
        dt = var.dtype
        p, mf, vf = self._views(var, m, v)
        b1p, b2p = float(_scalar(beta1_power, np.dtype(np.float64))), \
            float(_scalar(beta2_power, np.dtype(np.float64)))
        lr_t = float(_scalar(lr, np.dtype(np.float64))) * np.sqrt(1.0 - b2p) / (1.0 - b1p)
        kernel("optim", "adam")(
            p, mf, vf, _flat(gradient, dt), dt.type(lr_t), _scalar(beta1, dt),
            _scalar(beta2, dt), _scalar(epsilon, dt), dt.type(self.weight_decay),
            dt.type(self.gradient_scale), self.use_nesterov)
        return var


class AdamWeightDecay(_ApplyUpdate):
    """AdamW without bias correction (MindSpore's): m = beta1 m + (1 - beta1) g;
    v = beta2 v + (1 - beta2) g^2; var -= lr * (m / (sqrt(v) + epsilon) + decay * var).

    AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay, gradient)
    -> (var, m, v), the tuple MindSpore documents.
    """

    tensor_args = ("var", "m", "v", "gradient")
    returns = 3
    scalar_args = ("lr", "beta1", "beta2", "epsilon", "decay")

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(self.name, "use_locking", use_locking)
        self.add_prim_attr("use_locking", use_locking)

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
        return super().__call__(var, m, v, gradient, lr, beta1, beta2, epsilon, decay)

    def impl(self, var, m, v, gradient, lr, beta1, beta2, epsilon, decay):
        dt = var.dtype
        p, mf, vf = self._views(var, m, v)
        kernel("optim", "adam_weight_decay")(
            p, mf, vf, _flat(gradient, dt), _scalar(lr, dt), _scalar(beta1, dt),
            _scalar(beta2, dt), _scalar(epsilon, dt), _scalar(decay, dt))
        return var
