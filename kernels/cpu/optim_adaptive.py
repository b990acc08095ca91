"""Fused adaptive optimizer updates (Adagrad, RMSProp, AdaMax, Adadelta, FTRL, ProximalAdagrad,
ASGD, Rprop): one pass per parameter updating it and its state in place.

Every kernel takes flat (1-D, C-contiguous) views of the parameter, its state buffers and the
gradient, all of one float dtype, and scalars already cast to that dtype by the caller, so float32
parameters are updated in float32. The per-element math lives in kernels/scalar_optim.py, shared
with kernels/cuda/optim_adaptive.py.
"""
import numpy as np
from numba import njit

from .. import scalar_optim as s

_adagrad = njit(cache=True)(s.adagrad_update)
_rmsprop = njit(cache=True)(s.rmsprop_update)
_centered_rmsprop = njit(cache=True)(s.centered_rmsprop_update)
_adamax = njit(cache=True)(s.adamax_update)
_adadelta = njit(cache=True)(s.adadelta_update)
_ftrl = njit(cache=True)(s.ftrl_update)
_proximal_adagrad = njit(cache=True)(s.proximal_adagrad_update)
_asgd = njit(cache=True)(s.asgd_update)
_asgd_schedule = njit(cache=True)(s.asgd_schedule)
_rprop = njit(cache=True)(s.rprop_update)


@njit(cache=True)
def apply_adagrad(param, accum, grad, lr, wd, g_scale, update_slots):
    """for i in range(n): scalar_optim.adagrad_update (serial, vectorised).
    Preconditions: 1-D views of one dtype; scalars of that dtype."""
    for i in range(np.uint64(param.size)):
        param[i], accum[i] = _adagrad(param[i], accum[i], grad[i], lr, wd, g_scale, update_slots)


@njit(cache=True)
def apply_rms_prop(param, ms, mom, grad, lr, decay, momentum, eps, wd, g_scale):
    """for i in range(n): scalar_optim.rmsprop_update. Preconditions as apply_adagrad."""
    for i in range(np.uint64(param.size)):
        param[i], ms[i], mom[i] = _rmsprop(param[i], ms[i], mom[i], grad[i], lr, decay,
                                           momentum, eps, wd, g_scale)


@njit(cache=True)
def apply_centered_rms_prop(param, mg, ms, mom, grad, lr, decay, momentum, eps, wd, g_scale):
    """for i in range(n): scalar_optim.centered_rmsprop_update. Preconditions as apply_adagrad."""
    for i in range(np.uint64(param.size)):
        param[i], mg[i], ms[i], mom[i] = _centered_rmsprop(
            param[i], mg[i], ms[i], mom[i], grad[i], lr, decay, momentum, eps, wd, g_scale)


@njit(cache=True)
def apply_ada_max(param, m, v, grad, lr_t, beta1, beta2, eps, wd, g_scale):
    """for i in range(n): scalar_optim.adamax_update (lr_t = lr / (1 - beta1^t) from the
    caller). Preconditions as apply_adagrad."""
    for i in range(np.uint64(param.size)):
        param[i], m[i], v[i] = _adamax(param[i], m[i], v[i], grad[i], lr_t, beta1, beta2, eps,
                                       wd, g_scale)


@njit(cache=True)
def apply_adadelta(param, accum, accum_update, grad, lr, rho, eps, wd, g_scale):
    """for i in range(n): scalar_optim.adadelta_update. Preconditions as apply_adagrad."""
    for i in range(np.uint64(param.size)):
        param[i], accum[i], accum_update[i] = _adadelta(param[i], accum[i], accum_update[i],
                                                        grad[i], lr, rho, eps, wd, g_scale)


@njit(cache=True)
def apply_ftrl(param, accum, linear, grad, lr, l1, l2, lr_power, wd, g_scale):
    """for i in range(n): scalar_optim.ftrl_update. Preconditions as apply_adagrad."""
    for i in range(np.uint64(param.size)):
        param[i], accum[i], linear[i] = _ftrl(param[i], accum[i], linear[i], grad[i], lr, l1, l2,
                                              lr_power, wd, g_scale)


@njit(cache=True)
def apply_proximal_adagrad(param, accum, grad, lr, l1, l2, wd, g_scale):
    """for i in range(n): scalar_optim.proximal_adagrad_update. Preconditions as apply_adagrad."""
    for i in range(np.uint64(param.size)):
        param[i], accum[i] = _proximal_adagrad(param[i], accum[i], grad[i], lr, l1, l2, wd,
                                               g_scale)


@njit(cache=True)
def asgd(param, ax, eta, mu, grad, lr, lambd, alpha, t0, step, wd, g_scale):
    """ASGD at step `step` (1-based): on step 1 eta = lr; then for i in range(n):
    scalar_optim.asgd_update with this step's eta and mu; then (eta, mu) =
    scalar_optim.asgd_schedule(step). Preconditions: param, ax, grad 1-D of one dtype; eta and
    mu 1-element float32; scalars of the param dtype."""
    if step == 1:
        eta[0] = lr
    e = eta[0]
    m = mu[0]
    for i in range(np.uint64(param.size)):
        param[i], ax[i] = _asgd(param[i], ax[i], grad[i], e, m, lambd, wd, g_scale)
    eta[0], mu[0] = _asgd_schedule(lr, lambd, alpha, t0, step)


@njit(cache=True)
def rprop(param, prev, step_size, grad, lr, etaminus, etaplus, size_min, size_max, wd, g_scale,
          first):
    """for i in range(n): scalar_optim.rprop_update (`first`: the step sizes start at lr).
    Preconditions as apply_adagrad."""
    for i in range(np.uint64(param.size)):
        param[i], prev[i], step_size[i] = _rprop(param[i], prev[i], step_size[i], grad[i], lr,
                                                 etaminus, etaplus, size_min, size_max, wd,
                                                 g_scale, first)
