"""Per-element bodies of the adaptive optimizer updates (Adagrad, RMSProp, AdaMax, Adadelta, FTRL,
ProximalAdagrad, ASGD, Rprop), shared by kernels/cpu/optim_adaptive.py and
kernels/cuda/optim_adaptive.py, so each formula is written once.

Every body first unscales and decays the gradient, g = g * g_scale + wd * p (the optimizer picks
wd so MindSpore's order, decay then unscale, is kept), and keeps the parameter's dtype: constants
are built with `type(lr)(c)` (a Python float literal would promote float32 math to float64).
Bodies call no helper of their own (a plain Python function cannot be called from a compiled one),
so sign and clip are written inline, and max/min of two values as a comparison: numba's own CUDA
target refuses two-argument min/max (numba issue #10753; tests/cuda_ptx checks both targets).
"""
import math


def adagrad_update(p, a, g, lr, wd, g_scale, update_slots):
    """accum += g^2 (when update_slots); p -= lr * g / sqrt(accum)."""
    g = g * g_scale + wd * p
    if update_slots:
        a = a + g * g
    return p - lr * g / math.sqrt(a), a


def rmsprop_update(p, ms, mom, g, lr, decay, momentum, eps, wd, g_scale):
    """ms = decay ms + (1 - decay) g^2; mom = momentum mom + lr g / sqrt(ms + eps); p -= mom."""
    one = type(lr)(1)
    g = g * g_scale + wd * p
    ms = decay * ms + (one - decay) * g * g
    mom = momentum * mom + lr * g / math.sqrt(ms + eps)
    return p - mom, ms, mom


def centered_rmsprop_update(p, mg, ms, mom, g, lr, decay, momentum, eps, wd, g_scale):
    """RMSProp over the centred second moment: mg = decay mg + (1 - decay) g and
    mom = momentum mom + lr g / sqrt(ms - mg^2 + eps)."""
    one = type(lr)(1)
    g = g * g_scale + wd * p
    mg = decay * mg + (one - decay) * g
    ms = decay * ms + (one - decay) * g * g
    mom = momentum * mom + lr * g / math.sqrt(ms - mg * mg + eps)
    return p - mom, mg, ms, mom


def adamax_update(p, m, v, g, lr_t, beta1, beta2, eps, wd, g_scale):
    """m = beta1 m + (1 - beta1) g; v = max(beta2 v, |g|); p -= lr_t m / (v + eps), where the
    caller folds the bias correction into lr_t = lr / (1 - beta1^t)."""
    one = type(lr_t)(1)
    g = g * g_scale + wd * p
    m = beta1 * m + (one - beta1) * g
    decayed, size = beta2 * v, abs(g)
    v = size if size > decayed else decayed
    return p - lr_t * m / (v + eps), m, v


def adadelta_update(p, a, au, g, lr, rho, eps, wd, g_scale):
    """accum = rho accum + (1 - rho) g^2; update = sqrt(accum_update + eps) g / sqrt(accum + eps);
    accum_update = rho accum_update + (1 - rho) update^2; p -= lr update."""
    one = type(lr)(1)
    g = g * g_scale + wd * p
    a = rho * a + (one - rho) * g * g
    update = math.sqrt(au + eps) * g / math.sqrt(a + eps)
    au = rho * au + (one - rho) * update * update
    return p - lr * update, a, au


def ftrl_update(p, a, lin, g, lr, l1, l2, lr_power, wd, g_scale):
    """FTRL-proximal (TensorFlow's ApplyFtrl, which MindSpore documents):
    accum_new = accum + g^2; linear += g - (accum_new^-lr_power - accum^-lr_power) / lr * p;
    p = (sign(linear) l1 - linear) / (accum_new^-lr_power / lr + 2 l2) if |linear| > l1 else 0.
    lr_power == -0.5 takes square roots, as TensorFlow's kernel does."""
    zero = type(lr)(0)
    two = type(lr)(2)
    g = g * g_scale + wd * p
    a_new = a + g * g
    if lr_power == type(lr)(-0.5):
        pow_old = math.sqrt(a)
        pow_new = math.sqrt(a_new)
    else:
        pow_old = math.pow(a, -lr_power)
        pow_new = math.pow(a_new, -lr_power)
    lin = lin + g - (pow_new - pow_old) / lr * p
    if abs(lin) > l1:
        shrink = l1 if lin > zero else -l1
        p = (shrink - lin) / (pow_new / lr + two * l2)
    else:
        p = zero
    return p, a_new, lin


def proximal_adagrad_update(p, a, g, lr, l1, l2, wd, g_scale):
    """accum += g^2; with the adapted rate r = lr / sqrt(accum): prox = p - r g;
    p = sign(prox) max(|prox| - r l1, 0) / (1 + r l2) (no shrinkage when l1 == 0)."""
    zero = type(lr)(0)
    one = type(lr)(1)
    g = g * g_scale + wd * p
    a = a + g * g
    rate = lr / math.sqrt(a)
    prox = p - rate * g
    if l1 > zero:
        mag = abs(prox) - rate * l1
        mag = zero if zero > mag else mag
        p = (mag if prox > zero else (-mag if prox < zero else zero)) / (one + rate * l2)
    else:
        p = prox / (one + rate * l2)
    return p, a


def asgd_update(p, ax, g, eta, mu, lambd, wd, g_scale):
    """p = p (1 - lambd eta) - eta g; the average ax += (p - ax) mu, or ax = p while mu == 1."""
    one = type(lambd)(1)
    g = g * g_scale + wd * p
    p = p * (one - lambd * eta) - eta * g
    ax = ax + (p - ax) * mu if mu != one else p
    return p, ax


def asgd_schedule(lr, lambd, alpha, t0, step):
    """ASGD's next (eta, mu) after step `step`: lr / (1 + lambd lr step)^alpha and
    1 / max(1, step - t0)."""
    one = type(lr)(1)
    since = step - t0
    return lr / math.pow(one + lambd * lr * step, alpha), one / (since if since > one else one)


def rprop_update(p, prev, size, g, lr, etaminus, etaplus, size_min, size_max, wd, g_scale,
                 first):
    """Resilient backprop: the step size (lr on the first step) grows by etaplus while g keeps
    its sign, shrinks by etaminus when it flips (and that step moves nothing), clipped to
    [size_min, size_max]; p -= sign(g) size; prev keeps g (0 after a flip)."""
    zero = type(lr)(0)
    g = g * g_scale + wd * p
    if first:
        size = lr
    turn = g * prev
    if turn > zero:
        size = size * etaplus
    elif turn < zero:
        size = size * etaminus
        g = zero
    size = size_min if size_min > size else size
    size = size_max if size_max < size else size
    if g > zero:
        p = p - size
    elif g < zero:
        p = p + size
    return p, g, size
