"""Scalar body of the regularized incomplete beta function I_x(a, b) (Betainc), merged into
kernels/scalar.py's ELEMENTWISE table so the CPU ufunc and the CUDA kernel run the same code.

The continued fraction of I_x(a, b) evaluated by the modified Lentz method (Numerical Recipes
betacf), on the side of the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where it converges quickly
(x < (a + 1) / (a + b + 2)); it needs about sqrt(max(a, b)) terms. Computed in float64 and
rounded once to x's type. The answers outside the domain are MindSpore 2.7.2's: NaN for
a <= 0, b <= 0, x outside [0, 1] or a NaN operand; 0 at x = 0 and 1 at x = 1. Where the
fraction has not converged after _MAX_TERMS terms (a or b beyond about 1e10) the result is
NaN rather than a wrong number. Self-contained, its helper an inner function, as the device
code generator requires (see kernels/scalar_gamma_inc.py).
"""
import math

import numpy as np

_EPS = 1.0e-16
_TINY = 1.0e-300
_MAX_TERMS = 200000


def betainc(a, b, x):
    """I_x(a, b) = B(x; a, b) / B(a, b)."""
    def cfrac(av, bv, xv):
        # Lentz: 1 / (1 + d1 / (1 + d2 / (1 + ...))), d_{2m+1} and d_{2m} as in betacf.
        qab, qap, qam = av + bv, av + 1.0, av - 1.0
        c = 1.0
        d = 1.0 - qab * xv / qap
        if math.fabs(d) < _TINY:
            d = _TINY
        d = 1.0 / d
        h = d
        for m in range(1, _MAX_TERMS):
            m2 = 2.0 * m
            aa = m * (bv - m) * xv / ((qam + m2) * (av + m2))
            d = 1.0 + aa * d
            if math.fabs(d) < _TINY:
                d = _TINY
            c = 1.0 + aa / c
            if math.fabs(c) < _TINY:
                c = _TINY
            d = 1.0 / d
            h *= d * c
            aa = -(av + m) * (qab + m) * xv / ((av + m2) * (qap + m2))
            d = 1.0 + aa * d
            if math.fabs(d) < _TINY:
                d = _TINY
            c = 1.0 + aa / c
            if math.fabs(c) < _TINY:
                c = _TINY
            d = 1.0 / d
            delta = d * c
            h *= delta
            if math.fabs(delta - 1.0) < _EPS:
                return h
        return math.nan

    av = np.float64(a)
    bv = np.float64(b)
    xv = np.float64(x)
    if av != av or bv != bv or xv != xv or av <= 0.0 or bv <= 0.0 or xv < 0.0 or xv > 1.0:
        return type(x)(math.nan)
    if xv == 0.0:
        return type(x)(0.0)
    if xv == 1.0:
        return type(x)(1.0)
    log_front = (math.lgamma(av + bv) - math.lgamma(av) - math.lgamma(bv)
                 + av * math.log(xv) + bv * math.log1p(-xv))
    front = math.exp(log_front)
    if xv < (av + 1.0) / (av + bv + 2.0):
        return type(x)(front * cfrac(av, bv, xv) / av)
    return type(x)(1.0 - front * cfrac(bv, av, 1.0 - xv) / bv)


# Each body -> the dtype of its result (None: the dtype of its last operand).
ELEMENTWISE = {"betainc": None}
