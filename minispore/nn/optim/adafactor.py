"""nn.AdaFactor: Adam-like steps from factored (row and column) second-moment estimates, with
relative step sizes and update clipping, composed of existing operators (so it runs eagerly and
compiled alike)."""
import logging

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.tensor import Tensor
from minispore.nn.optim._validate import check_bool, check_non_negative, check_range
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops import functional as F

__all__ = ["AdaFactor"]

logger = logging.getLogger("minispore")


def _rms(x):
    return F.sqrt(F.reduce_mean(F.square(x)))


def _check_args(eps, clip_threshold, decay_rate, weight_decay, scale_parameter, relative_step,
                compression, beta1):
    name = "AdaFactor"
    if not isinstance(eps, (list, tuple)):
        raise TypeError(f"For '{name}', the type of 'eps' should be one of '['list', 'tuple']', "
                        f"but got type '{type(eps).__name__}'.")
    if len(eps) != 2:
        raise ValueError("eps must have 2 value: (eps1, eps2).")
    eps = tuple(check_non_negative(name, f"eps{i}", e) for i, e in enumerate(eps))
    clip_threshold = check_non_negative(name, "clip_threshold", clip_threshold)
    decay_rate = check_range(name, "decay_rate", decay_rate, 0.0, 1.0)
    if not 0.0 <= weight_decay < 1.0:
        raise ValueError(f"For '{name}', the 'weight_decay' must be in range of [0, 1), but got "
                         f"{weight_decay} with type '{type(weight_decay).__name__}'.")
    for arg_name, flag in (("scale_parameter", scale_parameter),
                           ("relative_step", relative_step), ("compression", compression)):
        check_bool(name, arg_name, flag)
    if isinstance(beta1, bool) or not isinstance(beta1, (int, float)):
        raise TypeError(f"For '{name}', the type of 'beta1' should be one of '['int', 'float']', "
                        f"but got type '{type(beta1).__name__}'.")
    return eps, clip_threshold, decay_rate, check_non_negative(name, "beta1", float(beta1))


class AdaFactor(Optimizer):
    """``AdaFactor(params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
    decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True, relative_step=True,
    warmup_init=False, compression=False, loss_scale=1.0)``.

    At step t (from 1): lr = min(1e-2 (1e-6 t with warmup_init), 1 / sqrt(t)) under
    relative_step, else the given rate; with scale_parameter it is scaled by
    max(eps[1], rms(p)). beta2 = 1 - t^-decay_rate; u = g^2 + eps[0]. Parameters of 2 or more
    dims keep row and column means R = beta2 R + (1 - beta2) mean_-1(u),
    C = beta2 C + (1 - beta2) mean_-2(u) and step along g / sqrt(R / mean(R)) / sqrt(C);
    vectors keep V = beta2 V + (1 - beta2) u and step along g / sqrt(V). The step is divided
    by max(1, rms(step) / clip_threshold), times lr; with beta1 > 0 it is averaged,
    m = beta1 m + (1 - beta1) step; p -= m (or the step), after p -= weight_decay * lr * p
    (decoupled decay, every parameter).

    As in MindSpore, the gradients are used as given: ``loss_scale`` does not divide them,
    and group weight decays are not read (``weight_decay`` applies to all). State names:
    'exp_avg.<name>' (beta1 > 0), 'exp_avg_sq_row_<name>', 'exp_avg_sq_col_<name>',
    'exp_avg_sq_<name>' (float16 for vectors with ``compression``) and 'afactor_step'.
    """

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
                 decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True,
                 relative_step=True, warmup_init=False, compression=False, loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("Cannot combine manual lr and relative_step options", learning_rate)
        if warmup_init and not relative_step:
            raise ValueError("warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("Cannot learning_rate is None and relative_step=False")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        beta1 = 0.0 if beta1 is None else beta1
        scale_lr = isinstance(learning_rate, (float, int))
        if not scale_lr and (relative_step or scale_parameter):
            logger.warning("When learning_rate is learning scheduler, it not support update "
                           "learning rate!")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.scale_lr = scale_lr
        self.eps, self.clip_threshold, self.decay_rate, self.beta1 = _check_args(
            eps, clip_threshold, decay_rate, weight_decay, scale_parameter, relative_step,
            compression, beta1)
        self.weight_decay_flag = bool(weight_decay)
        self.scale_parameter = scale_parameter and self.scale_lr
        self.relative_step = relative_step
        self.warmup_init = bool(warmup_init)
        self.compression = compression
        self.use_first_moment = self.beta1 > 0
        if self.use_first_moment:
            self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        rows, cols, squares = [], [], []
        for p in self.parameters:
            shape, dt = tuple(p.shape), p.dtype
            factored = len(shape) > 1
            row_shape, col_shape = (shape[:-1], shape[:-2] + shape[-1:]) if factored else \
                ((1,), (1,))
            sq_shape = (1,) if factored else shape
            sq_dtype = mstype.float16 if compression and not factored else dt
            rows.append(Parameter(initializer(0, row_shape, dt),
                                  name=f"exp_avg_sq_row_{p.name}", requires_grad=False))
            cols.append(Parameter(initializer(0, col_shape, dt),
                                  name=f"exp_avg_sq_col_{p.name}", requires_grad=False))
            squares.append(Parameter(initializer(0, sq_shape, sq_dtype),
                                     name=f"exp_avg_sq_{p.name}", requires_grad=False))
        self.exp_avg_sq_row = ParameterTuple(rows)
        self.exp_avg_sq_col = ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(squares)
        self.step = Parameter(Tensor(np.zeros(1, np.float32), mstype.float32),
                              name="afactor_step", requires_grad=False)

    def construct(self, gradients):
        self._check_gradients(gradients)
        lrs = self._param_lrs()
        step = F.assign(self.step, F.add(self.step, 1.0))
        if self.scale_lr and self.relative_step:
            min_step = step * 1e-6 if self.warmup_init else \
                Tensor(np.full(1, 1e-2, np.float32), mstype.float32)
            lrs = [F.minimum(min_step, 1.0 / F.sqrt(step))] * len(lrs)
        beta2t = 1.0 - F.pow(step, -self.decay_rate)
        states = (self.exp_avg if self.use_first_moment else (None,) * len(lrs),
                  self.exp_avg_sq_row, self.exp_avg_sq_col, self.exp_avg_sq)
        for p, g, lr, *state in zip(self.parameters, gradients, lrs, *states):
            self._update(p, g, lr, beta2t, *state)
        self._advance_step()
        return True

    def _update(self, param, grad, lr, beta2t, exp_avg, row, col, square):
        """One parameter's step (MindSpore's _run_opt_with_one_number); float16 parameters and
        gradients are computed in float32."""
        work = mstype.float32 if param.dtype == mstype.float16 else param.dtype
        grad = F.cast(grad, work)
        p = F.cast(param, work)
        if self.scale_parameter:
            lr = lr * F.maximum(Tensor(np.float32(self.eps[1]), mstype.float32), _rms(p))
        update = F.square(grad) + self.eps[0]
        keep = 1.0 - beta2t
        if len(param.shape) > 1:
            row_new = F.assign(row, F.cast(F.cast(row, work) * beta2t +
                                           F.reduce_mean(update, -1) * keep, row.dtype))
            col_new = F.assign(col, F.cast(F.cast(col, work) * beta2t +
                                           F.reduce_mean(update, -2) * keep, col.dtype))
            r_factor = F.expand_dims(1.0 / F.sqrt(row_new / F.reduce_mean(row_new, -1, True)), -1)
            update = r_factor * (1.0 / F.sqrt(F.expand_dims(col_new, -2))) * grad
        else:
            sq_new = F.cast(square, work) * beta2t + update * keep
            sq_new = F.cast(F.assign(square, F.cast(sq_new, square.dtype)), work)
            update = 1.0 / F.sqrt(sq_new) * grad
        coff = F.maximum(_rms(update) / self.clip_threshold, Tensor(np.float32(1.0)))
        update = update / coff * lr
        if self.use_first_moment:
            avg = F.cast(exp_avg, work) * self.beta1 + update * (1.0 - self.beta1)
            update = F.cast(F.assign(exp_avg, F.cast(avg, exp_avg.dtype)), work)
        if self.weight_decay_flag:
            p = p + p * (-self.weight_decay) * lr
        F.assign(param, F.cast(p - update, param.dtype))
