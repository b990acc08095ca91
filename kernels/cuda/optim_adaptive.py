"""Fused adaptive optimizer updates on the GPU: one grid-stride pass per parameter updating it
and its state in place (device twins of kernels/cpu/optim_adaptive.py, same names, signatures
and formulas, the per-element math shared through kernels/scalar_optim.py).

Parameter, state and gradient are flat (1-D, C-contiguous) device arrays of one float dtype;
scalars arrive already cast to that dtype (numpy scalars), so float32 parameters update in
float32.
"""
from numba import cuda

from .. import scalar_optim as s
from . import launch

_adagrad_d = cuda.jit(device=True)(s.adagrad_update)
_rmsprop_d = cuda.jit(device=True)(s.rmsprop_update)
_centered_rmsprop_d = cuda.jit(device=True)(s.centered_rmsprop_update)
_adamax_d = cuda.jit(device=True)(s.adamax_update)
_adadelta_d = cuda.jit(device=True)(s.adadelta_update)
_ftrl_d = cuda.jit(device=True)(s.ftrl_update)
_proximal_adagrad_d = cuda.jit(device=True)(s.proximal_adagrad_update)
_asgd_d = cuda.jit(device=True)(s.asgd_update)
_asgd_schedule_d = cuda.jit(device=True)(s.asgd_schedule)
_rprop_d = cuda.jit(device=True)(s.rprop_update)


@cuda.jit
def _apply_adagrad(param, accum, grad, lr, wd, g_scale, update_slots):
    """for i (grid-stride): scalar_optim.adagrad_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], accum[i] = _adagrad_d(param[i], accum[i], grad[i], lr, wd, g_scale,
                                        update_slots)


def apply_adagrad(param, accum, grad, lr, wd, g_scale, update_slots):
    """Adagrad: accum += g^2 (update_slots); p -= lr g / sqrt(accum). One thread per element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_adagrad[blocks, threads](param, accum, grad, lr, wd, g_scale, update_slots)


@cuda.jit
def _apply_rms_prop(param, ms, mom, grad, lr, decay, momentum, eps, wd, g_scale):
    """for i (grid-stride): scalar_optim.rmsprop_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], ms[i], mom[i] = _rmsprop_d(param[i], ms[i], mom[i], grad[i], lr, decay,
                                             momentum, eps, wd, g_scale)


def apply_rms_prop(param, ms, mom, grad, lr, decay, momentum, eps, wd, g_scale):
    """RMSProp: ms = decay ms + (1 - decay) g^2; mom = momentum mom + lr g / sqrt(ms + eps);
    p -= mom. One thread per element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_rms_prop[blocks, threads](param, ms, mom, grad, lr, decay, momentum, eps, wd,
                                         g_scale)


@cuda.jit
def _apply_centered_rms_prop(param, mg, ms, mom, grad, lr, decay, momentum, eps, wd, g_scale):
    """for i (grid-stride): scalar_optim.centered_rmsprop_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], mg[i], ms[i], mom[i] = _centered_rmsprop_d(
            param[i], mg[i], ms[i], mom[i], grad[i], lr, decay, momentum, eps, wd, g_scale)


def apply_centered_rms_prop(param, mg, ms, mom, grad, lr, decay, momentum, eps, wd, g_scale):
    """Centred RMSProp (the variance ms - mg^2 in place of ms). One thread per element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_centered_rms_prop[blocks, threads](param, mg, ms, mom, grad, lr, decay, momentum,
                                                  eps, wd, g_scale)


@cuda.jit
def _apply_ada_max(param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale):
    """for i (grid-stride): scalar_optim.adamax_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], m[i], v[i] = _adamax_d(param[i], m[i], v[i], grad[i], lr_t, beta1, beta2, eps,
                                         wd, g_scale)


def apply_ada_max(param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale):
    """AdaMax: m = beta1 m + (1 - beta1) g; v = max(beta2 v, |g|); p -= lr_t m / (v + eps),
    lr_t = lr / (1 - beta1^t) from the caller. One thread per element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_ada_max[blocks, threads](param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale)


@cuda.jit
def _apply_adadelta(param, accum, accum_update, grad, lr, rho, eps, wd, g_scale):
    """for i (grid-stride): scalar_optim.adadelta_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], accum[i], accum_update[i] = _adadelta_d(
            param[i], accum[i], accum_update[i], grad[i], lr, rho, eps, wd, g_scale)


def apply_adadelta(param, accum, accum_update, grad, lr, rho, eps, wd, g_scale):
    """Adadelta (scalar_optim.adadelta_update). One thread per element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_adadelta[blocks, threads](param, accum, accum_update, grad, lr, rho, eps, wd,
                                         g_scale)


@cuda.jit
def _apply_ftrl(param, accum, linear, grad, lr, l1, l2, lr_power, wd, g_scale):
    """for i (grid-stride): scalar_optim.ftrl_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], accum[i], linear[i] = _ftrl_d(param[i], accum[i], linear[i], grad[i], lr, l1,
                                                l2, lr_power, wd, g_scale)


def apply_ftrl(param, accum, linear, grad, lr, l1, l2, lr_power, wd, g_scale):
    """FTRL-proximal (scalar_optim.ftrl_update). One thread per element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_ftrl[blocks, threads](param, accum, linear, grad, lr, l1, l2, lr_power, wd,
                                     g_scale)


@cuda.jit
def _apply_proximal_adagrad(param, accum, grad, lr, l1, l2, wd, g_scale):
    """for i (grid-stride): scalar_optim.proximal_adagrad_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], accum[i] = _proximal_adagrad_d(param[i], accum[i], grad[i], lr, l1, l2, wd,
                                                 g_scale)


def apply_proximal_adagrad(param, accum, grad, lr, l1, l2, wd, g_scale):
    """Proximal Adagrad (scalar_optim.proximal_adagrad_update). One thread per element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _apply_proximal_adagrad[blocks, threads](param, accum, grad, lr, l1, l2, wd, g_scale)


@cuda.jit
def _asgd_start(eta, lr, step):
    """eta = lr on step 1, one thread, before _asgd on the same stream."""
    if cuda.grid(1) == 0 and step == 1:
        eta[0] = lr


@cuda.jit
def _asgd(param, ax, eta, mu, grad, lambd, wd, g_scale):
    """for i (grid-stride): scalar_optim.asgd_update; eta and mu are only read here."""
    e = eta[0]
    m = mu[0]
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], ax[i] = _asgd_d(param[i], ax[i], grad[i], e, m, lambd, wd, g_scale)


@cuda.jit
def _asgd_finish(eta, mu, lr, lambd, alpha, t0, step):
    """(eta, mu) = scalar_optim.asgd_schedule(step), one thread, after _asgd."""
    if cuda.grid(1) == 0:
        eta[0], mu[0] = _asgd_schedule_d(lr, lambd, alpha, t0, step)


def asgd(param, ax, eta, mu, grad, lr, lambd, alpha, t0, step, wd, g_scale):
    """ASGD at step `step` (1-based), in three launches on one stream: eta = lr on step 1;
    p = p (1 - lambd eta) - eta g and ax += (p - ax) mu (ax = p while mu == 1) per element;
    then the next eta and mu. Every thread of the update reads eta and mu, and blocks do not run
    in lockstep, so they are written only in the launches around it.
    Preconditions: param, ax, grad 1-D of one dtype; eta, mu 1-element float32."""
    _asgd_start[1, 1](eta, lr, step)
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _asgd[blocks, threads](param, ax, eta, mu, grad, lambd, wd, g_scale)
    _asgd_finish[1, 1](eta, mu, lr, lambd, alpha, t0, step)


@cuda.jit
def _rprop(param, prev, step_size, grad, lr, etaminus, etaplus, size_min, size_max, wd, g_scale,
           first):
    """for i (grid-stride): scalar_optim.rprop_update."""
    for i in range(cuda.grid(1), param.size, cuda.gridsize(1)):
        param[i], prev[i], step_size[i] = _rprop_d(param[i], prev[i], step_size[i], grad[i], lr,
                                                   etaminus, etaplus, size_min, size_max, wd,
                                                   g_scale, first)


def rprop(param, prev, step_size, grad, lr, etaminus, etaplus, size_min, size_max, wd, g_scale,
          first):
    """Rprop (scalar_optim.rprop_update; `first`: the step sizes start at lr). One thread per
    element."""
    if param.size:
        blocks, threads = launch.elementwise(param.size)
        _rprop[blocks, threads](param, prev, step_size, grad, lr, etaminus, etaplus, size_min,
                                size_max, wd, g_scale, first)
