"""Adaptive optimizer update operators (MindSpore's ApplyAdagrad, ApplyRMSProp,
ApplyCenteredRMSProp, ApplyAdaMax, ApplyAdadelta, ApplyFtrl, ApplyProximalAdagrad, and the
updates of nn.ASGD and nn.Rprop): each updates a Parameter and its state in place with one fused
kernel (kernels/<device>/optim_adaptive.py). Not differentiable.

Call signatures and results follow MindSpore's primitives; ``gradient_scale`` (1 / loss_scale)
and ``weight_decay`` are extra attributes (neutral by default) so that the nn optimizers fuse
decay and unscaling into the same pass: g = gradient * gradient_scale + weight_decay * var.
"""
import numpy as np

from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import check_bool
from minispore.ops.operations.optim_ops import _ApplyUpdate, _check_float, _flat, _scalar

__all__ = ["ApplyAdagrad", "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdaMax", "ApplyAdadelta",
           "ApplyFtrl", "ApplyProximalAdagrad"]


class _FusedDecay(_ApplyUpdate):
    """Holds the gradient_scale and weight_decay attributes every update here fuses."""

    def __init__(self, gradient_scale=1.0, weight_decay=0.0, **flags):
        super().__init__()
        self.gradient_scale = _check_float(self.name, "gradient_scale", gradient_scale)
        self.weight_decay = _check_float(self.name, "weight_decay", weight_decay)
        for k, v in flags.items():
            setattr(self, k, check_bool(self.name, k, v))
            self.add_prim_attr(k, v)
        self.add_prim_attr("gradient_scale", self.gradient_scale)
        self.add_prim_attr("weight_decay", self.weight_decay)

    def _decay(self, dt):
        return dt.type(self.weight_decay), dt.type(self.gradient_scale)


class ApplyAdagrad(_FusedDecay):
    """accum += g^2 (only when update_slots); var -= lr * g / sqrt(accum).

    ApplyAdagrad(update_slots=True)(var, accum, lr, grad) -> (var, accum).
    MindSpore's CPU kernel updates accum even with update_slots=False; this follows the
    documented rule (and MindSpore's GPU/Ascend kernels): accum is left as it is.
    """

    tensor_args = ("var", "accum", "gradient")
    scalar_args = ("lr",)
    returns = 2

    def __init__(self, update_slots=True, gradient_scale=1.0, weight_decay=0.0):
        super().__init__(gradient_scale, weight_decay, update_slots=update_slots)

    def __call__(self, var, accum, lr, grad):
        return super().__call__(var, accum, grad, lr)

    def impl(self, var, accum, gradient, lr):
        dt = var.dtype
        p, a = self._views(var, accum)
        kernel("optim_adaptive", "apply_adagrad")(
            p, a, _flat(gradient, dt), _scalar(lr, dt), *self._decay(dt), self.update_slots)
        return var


class ApplyRMSProp(_FusedDecay):
    """mean_square = decay * mean_square + (1 - decay) * g^2;
    moment = momentum * moment + lr * g / sqrt(mean_square + epsilon); var -= moment.

    ApplyRMSProp(use_locking=False)(var, mean_square, moment, learning_rate, grad, decay,
    momentum, epsilon) -> var.
    """

    tensor_args = ("var", "mean_square", "moment", "gradient")
    scalar_args = ("learning_rate", "decay", "momentum", "epsilon")

    def __init__(self, use_locking=False, gradient_scale=1.0, weight_decay=0.0):
        super().__init__(gradient_scale, weight_decay, use_locking=use_locking)

    def __call__(self, var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
        return super().__call__(var, mean_square, moment, grad, learning_rate, decay, momentum,
                                epsilon)

    def impl(self, var, mean_square, moment, gradient, learning_rate, decay, momentum, epsilon):
        dt = var.dtype
        p, ms, mom = self._views(var, mean_square, moment)
        kernel("optim_adaptive", "apply_rms_prop")(
            p, ms, mom, _flat(gradient, dt), _scalar(learning_rate, dt), _scalar(decay, dt),
            _scalar(momentum, dt), _scalar(epsilon, dt), *self._decay(dt))
        return var


class ApplyCenteredRMSProp(_FusedDecay):
    """RMSProp over the centred second moment: mean_gradient = decay * mean_gradient +
    (1 - decay) * g; moment = momentum * moment + lr * g / sqrt(mean_square - mean_gradient^2
    + epsilon); var -= moment.

    ApplyCenteredRMSProp(use_locking=False)(var, mean_gradient, mean_square, moment, grad,
    learning_rate, decay, momentum, epsilon) -> var.
    """

    tensor_args = ("var", "mean_gradient", "mean_square", "moment", "gradient")
    scalar_args = ("learning_rate", "decay", "momentum", "epsilon")

    def __init__(self, use_locking=False, gradient_scale=1.0, weight_decay=0.0):
        super().__init__(gradient_scale, weight_decay, use_locking=use_locking)

    def impl(self, var, mean_gradient, mean_square, moment, gradient, learning_rate, decay,
             momentum, epsilon):
        dt = var.dtype
        p, mg, ms, mom = self._views(var, mean_gradient, mean_square, moment)
        kernel("optim_adaptive", "apply_centered_rms_prop")(
            p, mg, ms, mom, _flat(gradient, dt), _scalar(learning_rate, dt), _scalar(decay, dt),
            _scalar(momentum, dt), _scalar(epsilon, dt), *self._decay(dt))
        return var


class ApplyAdaMax(_FusedDecay):
    """m = beta1 * m + (1 - beta1) * g; v = max(beta2 * v, |g|);
    var -= lr / (1 - beta1_power) * m / (v + epsilon), beta1_power = beta1^t for this step.

    ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad) -> (var, m, v).
    """

    tensor_args = ("var", "m", "v", "gradient")
    scalar_args = ("beta1_power", "lr", "beta1", "beta2", "epsilon")
    returns = 3

    def __call__(self, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
        return super().__call__(var, m, v, grad, beta1_power, lr, beta1, beta2, epsilon)

    def impl(self, var, m, v, gradient, beta1_power, lr, beta1, beta2, epsilon):
        dt = var.dtype
        p, mf, vf = self._views(var, m, v)
        f64 = np.dtype(np.float64)
        lr_t = float(_scalar(lr, f64)) / (1.0 - float(_scalar(beta1_power, f64)))
        kernel("optim_adaptive", "apply_ada_max")(
            p, mf, vf, _flat(gradient, dt), dt.type(lr_t), _scalar(beta1, dt),
            _scalar(beta2, dt), _scalar(epsilon, dt), *self._decay(dt))
        return var


class ApplyAdadelta(_FusedDecay):
    """accum = rho * accum + (1 - rho) * g^2;
    update = sqrt(accum_update + epsilon) * g / sqrt(accum + epsilon);
    accum_update = rho * accum_update + (1 - rho) * update^2; var -= lr * update.

    ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)
    -> (var, accum, accum_update).
    """

    tensor_args = ("var", "accum", "accum_update", "gradient")
    scalar_args = ("lr", "rho", "epsilon")
    returns = 3

    def __call__(self, var, accum, accum_update, lr, rho, epsilon, grad):
        return super().__call__(var, accum, accum_update, grad, lr, rho, epsilon)

    def impl(self, var, accum, accum_update, gradient, lr, rho, epsilon):
        dt = var.dtype
        p, a, au = self._views(var, accum, accum_update)
        kernel("optim_adaptive", "apply_adadelta")(
            p, a, au, _flat(gradient, dt), _scalar(lr, dt), _scalar(rho, dt),
            _scalar(epsilon, dt), *self._decay(dt))
        return var


class ApplyFtrl(_FusedDecay):
    """FTRL-proximal: accum_new = accum + g^2;
    linear += g - (accum_new^-lr_power - accum^-lr_power) / lr * var;
    var = (sign(linear) * l1 - linear) / (accum_new^-lr_power / lr + 2 * l2) if |linear| > l1
    else 0; accum = accum_new.

    ApplyFtrl(use_locking=False)(var, accum, linear, grad, lr, l1, l2, lr_power) -> var.
    (MindSpore 2.7's CPU kernel, with l1 > 0 and lr_power != -0.5, adds l1 to |linear| instead
    of taking it off; this follows the documented rule, which its lr_power == -0.5 path keeps.)
    """

    tensor_args = ("var", "accum", "linear", "gradient")
    scalar_args = ("lr", "l1", "l2", "lr_power")

    def __init__(self, use_locking=False, gradient_scale=1.0, weight_decay=0.0):
        super().__init__(gradient_scale, weight_decay, use_locking=use_locking)

    def impl(self, var, accum, linear, gradient, lr, l1, l2, lr_power):
        dt = var.dtype
        p, a, lin = self._views(var, accum, linear)
        kernel("optim_adaptive", "apply_ftrl")(
            p, a, lin, _flat(gradient, dt), _scalar(lr, dt), _scalar(l1, dt), _scalar(l2, dt),
            _scalar(lr_power, dt), *self._decay(dt))
        return var


class ApplyProximalAdagrad(_FusedDecay):
    """accum += g^2; with r = lr / sqrt(accum): prox_v = var - r * g;
    var = sign(prox_v) / (1 + r * l2) * max(|prox_v| - r * l1, 0).

    ApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad) -> (var, accum).
    (MindSpore documents lr in the shrinkage terms; its kernels, as TensorFlow's, use the
    adapted rate r, and so does this one.)
    """

    tensor_args = ("var", "accum", "gradient")
    scalar_args = ("lr", "l1", "l2")
    returns = 2

    def __init__(self, use_locking=False, gradient_scale=1.0, weight_decay=0.0):
        super().__init__(gradient_scale, weight_decay, use_locking=use_locking)

    def __call__(self, var, accum, lr, l1, l2, grad):
        return super().__call__(var, accum, grad, lr, l1, l2)

    def impl(self, var, accum, gradient, lr, l1, l2):
        dt = var.dtype
        p, a = self._views(var, accum)
        kernel("optim_adaptive", "apply_proximal_adagrad")(
            p, a, _flat(gradient, dt), _scalar(lr, dt), _scalar(l1, dt), _scalar(l2, dt),
            *self._decay(dt))
        return var


class ASGDUpdate(_FusedDecay):
    """nn.ASGD's update at step `step` (1-based; MindSpore has no primitive for it): on step 1
    eta = lr; var = var * (1 - lambd * eta) - eta * g; ax += (var - ax) * mu (ax = var while
    mu == 1); then eta = lr / (1 + lambd * lr * step)^alpha and mu = 1 / max(1, step - t0).

    ASGDUpdate(lambd, alpha, t0)(var, ax, eta, mu, grad, lr, step) -> var; eta and mu are the
    parameter's 0-d float32 state.
    """

    tensor_args = ("var", "ax", "eta", "mu", "gradient")
    scalar_args = ("lr", "step")
    free_args = ("eta", "mu")

    def __init__(self, lambd=1e-4, alpha=0.75, t0=1e6, gradient_scale=1.0, weight_decay=0.0):
        super().__init__(gradient_scale, weight_decay)
        for k, v in (("lambd", lambd), ("alpha", alpha), ("t0", t0)):
            setattr(self, k, _check_float(self.name, k, v))
            self.add_prim_attr(k, getattr(self, k))

    def impl(self, var, ax, eta, mu, gradient, lr, step):
        dt = var.dtype
        p, a = self._views(var, ax)
        kernel("optim_adaptive", "asgd")(
            p, a, eta.reshape(-1), mu.reshape(-1), _flat(gradient, dt), _scalar(lr, dt),
            dt.type(self.lambd), dt.type(self.alpha), dt.type(self.t0), _scalar(step, dt),
            *self._decay(dt))
        return var


class RpropUpdate(_FusedDecay):
    """nn.Rprop's update (MindSpore has no primitive for it): with s = lr on step 1, else the
    stored step size: s *= etaplus where g * prev > 0, etaminus where < 0 (and g counts as 0
    there), clipped to [step_min, step_max]; var -= sign(g) * s; prev = g; step_size = s.

    RpropUpdate(etaminus, etaplus, step_min, step_max)(var, prev, step_size, grad, lr, step)
    -> var.
    """

    tensor_args = ("var", "prev", "step_size", "gradient")
    scalar_args = ("lr", "step")

    def __init__(self, etaminus=0.5, etaplus=1.2, step_min=1e-6, step_max=50.0,
                 gradient_scale=1.0, weight_decay=0.0):
        super().__init__(gradient_scale, weight_decay)
        for k, v in (("etaminus", etaminus), ("etaplus", etaplus), ("step_min", step_min),
                     ("step_max", step_max)):
            setattr(self, k, _check_float(self.name, k, v))
            self.add_prim_attr(k, getattr(self, k))

    def impl(self, var, prev, step_size, gradient, lr, step):
        dt = var.dtype
        p, pv, ss = self._views(var, prev, step_size)
        first = bool(_scalar(step, np.dtype(np.float64)) == 1)
        kernel("optim_adaptive", "rprop")(
            p, pv, ss, _flat(gradient, dt), _scalar(lr, dt), dt.type(self.etaminus),
            dt.type(self.etaplus), dt.type(self.step_min), dt.type(self.step_max),
            *self._decay(dt), first)
        return var
