"""Fused optimizer updates on the GPU: one grid-stride pass per parameter updating it and its
state in place (device twins of kernels/cpu/optim.py, same names, signatures and formulas).

Parameter, state and gradient are flat (1-D, C-contiguous) device arrays of one float dtype;
scalars arrive already cast to that dtype (numpy scalars), so float32 parameters update in
float32. The per-element math is shared with the CPU kernels through kernels/scalar.py.
"""
from numba import cuda

from .. import scalar
from . import launch

_momentum_update = cuda.jit(device=True)(scalar.momentum_update)
_sgd_update = cuda.jit(device=True)(scalar.sgd_update)
_adam_update = cuda.jit(device=True)(scalar.adam_update)
_adam_weight_decay_update = cuda.jit(device=True)(scalar.adam_weight_decay_update)


@cuda.jit
def _apply_momentum(param, accum, grad, lr, momentum, wd, g_scale, nesterov):
    """for i (grid-stride): scalar.momentum_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], accum[i] = _momentum_update(param[i], accum[i], grad[i], lr, momentum, wd,
                                              g_scale, nesterov)


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
    """for i (grid-stride): scalar.sgd_update; stat[0] is only read here."""
    first = stat[0] > 0
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], accum[i] = _sgd_update(param[i], accum[i], grad[i], lr, momentum, dampening,
                                         wd, g_scale, nesterov, first)


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
    """for i (grid-stride): scalar.adam_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], m[i], v[i] = _adam_update(param[i], m[i], v[i], grad[i], lr_t, beta1, beta2,
                                            eps, wd, g_scale, nesterov)


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
    """for i (grid-stride): scalar.adam_weight_decay_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], m[i], v[i] = _adam_weight_decay_update(param[i], m[i], v[i], grad[i], lr,
                                                         beta1, beta2, eps, wd)


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
