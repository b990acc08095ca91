"""Fused optimizer updates on the GPU: one grid-stride pass per parameter updating it and its
state in place (device twins of kernels/cpu/optim.py, same names, signatures and formulas).

Parameter, state and gradient are flat (1-D, C-contiguous) device arrays of one float dtype;
scalars arrive already cast to that dtype (numpy scalars), so float32 parameters update in
float32 (the constant 1 is type(lr)(1): `lr - lr + 1`, as the CPU kernels write it, types as
float64 and would promote the float32 update to float64). g = grad[i] * g_scale + wd * param[i] as on the CPU.
"""
import math

from numba import cuda

from . import launch


@cuda.jit
def _apply_momentum(param, accum, grad, lr, momentum, wd, g_scale, nesterov):
    """for i (grid-stride): v = momentum*v + g; p -= lr*v, or lr*(g + momentum*v) (nesterov)."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i] * g_scale + wd * param[i]
        v = momentum * accum[i] + g
        accum[i] = v
        if nesterov:
            param[i] -= lr * (g + momentum * v)
        else:
            param[i] -= lr * v


def apply_momentum(param, accum, grad, lr, momentum, wd, g_scale, nesterov):
    """Momentum: v = momentum * v + g; p -= lr * v, or with nesterov p -= lr * (g + momentum * v).

    One thread per element (grid-stride). Preconditions: param, accum, grad 1-D, same length and
    dtype; scalars of that dtype.
    """
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_momentum[blocks, threads](param, accum, grad, lr, momentum, wd, g_scale, nesterov)


@cuda.jit
def _sgd(param, accum, stat, grad, lr, momentum, dampening, wd, g_scale, nesterov):
    """for i (grid-stride): the SGD step of `sgd`; stat[0] is only read here."""
    first = stat[0] > 0
    one = type(lr)(1)
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
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


@cuda.jit
def _clear_first_step(stat):
    """stat[0] = 0, one thread, launched after _sgd on the same stream."""
    if cuda.grid(1) == 0:
        stat[0] = 0


def sgd(param, accum, stat, grad, lr, momentum, dampening, wd, g_scale, nesterov):
    """SGD with momentum and dampening (MindSpore's rule: the first step sets v = g).

    for i: g = grad*g_scale + wd*p
           if momentum > 0: v = g if first step else momentum*v + (1 - dampening)*g
                            step = g + momentum*v if nesterov else v
           else: step = g
           p -= lr * step
    then stat[0] = 0 (first step done) in a second launch: every thread of the update reads the
    flag, and blocks do not run in lockstep, so clearing it inside the update would race.
    Preconditions: 1-D device views of one dtype; stat has 1 element.
    """
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _sgd[blocks, threads](param, accum, stat, grad, lr, momentum, dampening, wd, g_scale,
                              nesterov)
    _clear_first_step[1, 1](stat)


@cuda.jit
def _adam(param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale, nesterov):
    """for i (grid-stride): the Adam step of `adam`."""
    one = type(lr_t)(1)
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i] * g_scale + wd * param[i]
        mi = m[i] + (one - beta1) * (g - m[i])
        vi = v[i] + (one - beta2) * (g * g - v[i])
        m[i] = mi
        v[i] = vi
        if nesterov:
            num = beta1 * mi + (one - beta1) * g
        else:
            num = mi
        param[i] -= lr_t * num / (math.sqrt(vi) + eps)


def adam(param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale, nesterov):
    """Adam (MindSpore/TF form; the bias correction is folded into lr_t by the caller:
    lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)).

    for i: g = grad*g_scale + wd*p
           m = m + (1 - beta1)(g - m);  v = v + (1 - beta2)(g*g - v)
           p -= lr_t * (beta1*m + (1 - beta1)*g if nesterov else m) / (sqrt(v) + eps)
    One thread per element (grid-stride). Preconditions: 1-D device views of one dtype;
    scalars of that dtype.
    """
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _adam[blocks, threads](param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale, nesterov)


@cuda.jit
def _adam_weight_decay(param, m, v, grad, lr, beta1, beta2, eps, wd):
    """for i (grid-stride): the AdamWeightDecay step of `adam_weight_decay`."""
    one = type(lr)(1)
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        g = grad[i]
        mi = beta1 * m[i] + (one - beta1) * g
        vi = beta2 * v[i] + (one - beta2) * g * g
        m[i] = mi
        v[i] = vi
        param[i] -= lr * (mi / (math.sqrt(vi) + eps) + wd * param[i])


def adam_weight_decay(param, m, v, grad, lr, beta1, beta2, eps, wd):
    """AdamWeightDecay (decoupled decay, no bias correction, as MindSpore's):

    for i: m = beta1*m + (1 - beta1)*g;  v = beta2*v + (1 - beta2)*g*g
           p -= lr * (m / (sqrt(v) + eps) + wd * p)
    One thread per element (grid-stride). Preconditions: 1-D device views of one dtype;
    scalars of that dtype.
    """
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _adam_weight_decay[blocks, threads](param, m, v, grad, lr, beta1, beta2, eps, wd)
