"""Fused optimizer updates: one pass per parameter updating the parameter and its state in place.

Every kernel takes flat (1-D, C-contiguous) views of the parameter, its state buffers and the
gradient, all of one float dtype, and scalars already cast to that dtype by the caller, so float32
parameters are updated in float32. The gradient is first rescaled and decayed:
g = grad[i] * g_scale + wd * param[i] (g_scale = 1 / loss_scale; the optimizer chooses wd so
that MindSpore's order of decay and unscaling is kept).
"""
import numpy as np
from numba import njit


@njit(cache=True)
def apply_momentum(param, accum, grad, lr, momentum, wd, g_scale, nesterov):
    """Momentum: v = momentum * v + g; p -= lr * v, or with nesterov p -= lr * (g + momentum * v).

    Loop nest: for i in range(n) (serial, vectorised).
    Preconditions: param, accum, grad 1-D, same length and dtype; scalars of that dtype.
    """
    n = np.uint64(param.size)
    for i in range(n):
        g = grad[i] * g_scale + wd * param[i]
        v = momentum * accum[i] + g
        accum[i] = v
        if nesterov:
            param[i] -= lr * (g + momentum * v)
        else:
            param[i] -= lr * v


@njit(cache=True)
def sgd(param, accum, stat, grad, lr, momentum, dampening, wd, g_scale, nesterov):
    """SGD with momentum and dampening (MindSpore's rule: the first step sets v = g).

    for i: g = grad*g_scale + wd*p
           if momentum > 0: v = g if first step else momentum*v + (1 - dampening)*g
                            step = g + momentum*v if nesterov else v
           else: step = g
           p -= lr * step
    then stat[0] = 0 (first step done). Preconditions: 1-D views of one dtype; stat has 1 element.
    """
    n = np.uint64(param.size)
    first = stat[0] > 0
    one = type(lr)(1)  # lr - lr + 1 would type as float64 and promote the whole update
    for i in range(n):
        g = grad[i] * g_scale + wd * param[i]
        if momentum > 0:
            if first:
                v = g
            else:
                v = momentum * accum[i] + (one - dampening) * g
            accum[i] = v
            if nesterov:
                g = g + momentum * v
            else:
                g = v
        param[i] -= lr * g
    stat[0] = 0


@njit(cache=True)
def adam(param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale, nesterov):
    """Adam (MindSpore/TF form; the bias correction is folded into lr_t by the caller:
    lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)).

    for i: g = grad*g_scale + wd*p
           m = m + (1 - beta1)(g - m);  v = v + (1 - beta2)(g*g - v)
           p -= lr_t * (beta1*m + (1 - beta1)*g if nesterov else m) / (sqrt(v) + eps)
    Preconditions: 1-D views of one dtype; scalars of that dtype.
    """
    n = np.uint64(param.size)
    one = type(lr_t)(1)  # lr_t - lr_t + 1 would type as float64 and promote the update
    for i in range(n):
        g = grad[i] * g_scale + wd * param[i]
        mi = m[i] + (one - beta1) * (g - m[i])
        vi = v[i] + (one - beta2) * (g * g - v[i])
        m[i] = mi
        v[i] = vi
        if nesterov:
            num = beta1 * mi + (one - beta1) * g
        else:
            num = mi
        param[i] -= lr_t * num / (np.sqrt(vi) + eps)


@njit(cache=True)
def adam_weight_decay(param, m, v, grad, lr, beta1, beta2, eps, wd):
    """AdamWeightDecay (decoupled decay, no bias correction, as MindSpore's):

    for i: m = beta1*m + (1 - beta1)*g;  v = beta2*v + (1 - beta2)*g*g
           p -= lr * (m / (sqrt(v) + eps) + wd * p)
    Preconditions: 1-D views of one dtype; scalars of that dtype.
    """
    n = np.uint64(param.size)
    one = type(lr)(1)  # lr - lr + 1 would type as float64 and promote the whole update
    for i in range(n):
        g = grad[i]
        mi = beta1 * m[i] + (one - beta1) * g
        vi = beta2 * v[i] + (one - beta2) * g * g
        m[i] = mi
        v[i] = vi
        param[i] -= lr * (mi / (np.sqrt(vi) + eps) + wd * param[i])
