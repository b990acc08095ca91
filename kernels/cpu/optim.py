"""Fused optimizer updates: one pass per parameter updating the parameter and its state in place.

Every kernel takes flat (1-D, C-contiguous) views of the parameter, its state buffers and the
gradient, all of one float dtype, and scalars already cast to that dtype by the caller, so float32
parameters are updated in float32. The gradient is first rescaled and decayed:
g = grad[i] * g_scale + wd * param[i] (g_scale = 1 / loss_scale; the optimizer chooses wd so
that MindSpore's order of decay and unscaling is kept).
"""
import numpy as np
from numba import njit

from .. import scalar


# The per-element math is shared with kernels/cuda/optim.py through kernels/scalar.py.
_momentum_update = njit(cache=True)(scalar.momentum_update)
_sgd_update = njit(cache=True)(scalar.sgd_update)
_adam_update = njit(cache=True)(scalar.adam_update)
_adam_weight_decay_update = njit(cache=True)(scalar.adam_weight_decay_update)


@njit(cache=True)
def apply_momentum(param, accum, grad, lr, momentum, wd, g_scale, nesterov):
    """Momentum (scalar.momentum_update) over every element.

    Loop nest: for i in range(n) (serial, vectorised).
    Preconditions: param, accum, grad 1-D, same length and dtype; scalars of that dtype.
    """
    for i in range(np.uint64(param.size)):
        param[i], accum[i] = _momentum_update(param[i], accum[i], grad[i], lr, momentum, wd,
                                              g_scale, nesterov)


@njit(cache=True)
def sgd(param, accum, stat, grad, lr, momentum, dampening, wd, g_scale, nesterov):
    """SGD with momentum and dampening (scalar.sgd_update: the first step sets v = g), then
    stat[0] = 0 (first step done).

    Loop nest: for i in range(n). Preconditions: 1-D views of one dtype; stat has 1 element.
    """
    first = stat[0] > 0
    for i in range(np.uint64(param.size)):
        param[i], accum[i] = _sgd_update(param[i], accum[i], grad[i], lr, momentum, dampening,
                                         wd, g_scale, nesterov, first)
    stat[0] = 0


@njit(cache=True)
def adam(param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale, nesterov):
    """Adam (scalar.adam_update; the bias correction is folded into lr_t by the caller:
    lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)).

    Loop nest: for i in range(n). Preconditions: 1-D views of one dtype; scalars of that dtype.
    """
    for i in range(np.uint64(param.size)):
        param[i], m[i], v[i] = _adam_update(param[i], m[i], v[i], grad[i], lr_t, beta1, beta2,
                                            eps, wd, g_scale, nesterov)


@njit(cache=True)
def adam_weight_decay(param, m, v, grad, lr, beta1, beta2, eps, wd):
    """AdamWeightDecay (scalar.adam_weight_decay_update: decoupled decay, no bias correction).

    Loop nest: for i in range(n). Preconditions: 1-D views of one dtype; scalars of that dtype.
    """
    for i in range(np.uint64(param.size)):
        param[i], m[i], v[i] = _adam_weight_decay_update(param[i], m[i], v[i], grad[i], lr,
                                                         beta1, beta2, eps, wd)
