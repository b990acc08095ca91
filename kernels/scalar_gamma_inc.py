"""Scalar bodies of the two-operand special functions -- the regularized incomplete gamma
functions P and Q (Igamma, Igammac) and P's derivative in `a` (Igamma's gradient), the Hurwitz
zeta function (Zeta), the polygamma functions (Polygamma) and nextafter (NextAfter) -- merged
into kernels/scalar.py's ELEMENTWISE table, so the CPU ufuncs and the CUDA kernels run the same
code.

The math follows Cephes (igam/igamc: power series and Legendre's continued fraction; zeta:
Euler-Maclaurin summation); the answers outside the domains (NaN, inf, 0 or 1 at the edges)
are MindSpore 2.7.2's, which differ from scipy's in places (igamma(0, x) is NaN, not 1;
zeta(x, q) at q = inf is NaN). Each computes in float64 -- np.float64(x), since Numba's
float(x) keeps a float32 a float32 -- and rounds once to its last operand's type, so float32
results are the correctly rounded float64 ones. A body cannot call another on the device (nor
a module-level helper): each is self-contained, its helpers inner functions that Numba inlines
on both targets. No body hands the Python math module an argument outside its domain: the CUDA
simulator runs these in Python, where math.log(0) raises instead of returning -inf.
"""
import math

import numpy as np

_MACHEP = 1.11022302462515654042e-16     # 2**-53
_MAXLOG = 7.09782712893383996843e2       # log(DBL_MAX)
_BIG = 4.503599627370496e15               # 2**52: the continued fraction's rescaling point
_BIGINV = 2.22044604925031308085e-16

# The series and continued fractions need about sqrt(74 a) terms where x is near a; beyond
# _LARGEST_A the sum would take too long and log(x^a e^-x / Gamma(a)) loses its digits to
# cancellation (Cephes switches to Temme's asymptotic expansion there, which is not
# implemented here): igamma, igammac and igamma_grad_a return NaN for larger a, unless the
# answer is 0 or 1 to double precision. (MindSpore 2.7.2 returns wrong values well below:
# igamma(1e6, 1e6) = 0.363 and igamma(1e10, 1e10) = 0, where P is 0.50013 and 0.5000013.)
_LARGEST_A = 1e9
_MAX_TERMS = 400000
# zeta of a negative non-integer q below -_DIRECT_TERMS: shifted to positive arguments by the
# reflection identity (the direct sum would take -q terms: 1e15 for q = -1e15 + 0.5).
_DIRECT_TERMS = 64.0

# Euler-Maclaurin: (2k)! / B_2k, k = 1 .. 12 (Cephes zeta.c).
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def igamma(a, x):
    """P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt, the regularized lower incomplete gamma.
    0 at x = 0 (whatever a), 1 at x = +inf (a > 0 finite), NaN for a <= 0, x < 0, NaN inputs
    and a = inf (MindSpore's edges)."""
    def series(av, xv, ax):
        # P = ax / a * sum_n x^n / ((a+1)...(a+n)): converges fast while x <= a + 1.
        r, c, s = av, 1.0, 1.0
        for _ in range(_MAX_TERMS):
            r += 1.0
            c *= xv / r
            s += c
            if c <= s * _MACHEP:
                break
        return s * ax / av

    def cfrac(av, xv, ax):
        # Q = ax * (Legendre's continued fraction), for x > 1 and x > a.
        y = 1.0 - av
        z = xv + y + 1.0
        c = 0.0
        pkm2, qkm2, pkm1, qkm1 = 1.0, xv, xv + 1.0, z * xv
        ans = pkm1 / qkm1
        for _ in range(_MAX_TERMS):
            c += 1.0
            y += 1.0
            z += 2.0
            yc = y * c
            pk = pkm1 * z - pkm2 * yc
            qk = qkm1 * z - qkm2 * yc
            t = 1.0
            if qk != 0.0:
                r = pk / qk
                t = math.fabs((ans - r) / r)
                ans = r
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            if math.fabs(pk) > _BIG:
                pkm2 *= _BIGINV
                pkm1 *= _BIGINV
                qkm2 *= _BIGINV
                qkm1 *= _BIGINV
            if not t > _MACHEP:
                break
        return ans * ax

    av = np.float64(a)
    xv = np.float64(x)
    if xv == 0.0:
        return type(x)(0.0)
    if av != av or xv != xv or xv < 0.0 or av <= 0.0 or math.isinf(av):
        return type(x)(math.nan)
    if math.isinf(xv):
        return type(x)(1.0)
    lax = av * math.log(xv) - xv - math.lgamma(av)
    big_x = xv > 1.0 and xv > av
    if lax < -_MAXLOG:                       # x^a e^-x / Gamma(a) underflows
        return type(x)(1.0 if big_x else 0.0)
    if av > _LARGEST_A:
        return type(x)(math.nan)
    ax = math.exp(lax)
    if big_x:
        return type(x)(1.0 - cfrac(av, xv, ax))
    return type(x)(series(av, xv, ax))


def igammac(a, x):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma. 1 at x = 0 (a > 0); NaN
    for a <= 0, x < 0, NaN inputs, a = inf and x = +inf (MindSpore's edges)."""
    def series(av, xv, ax):
        r, c, s = av, 1.0, 1.0
        for _ in range(_MAX_TERMS):
            r += 1.0
            c *= xv / r
            s += c
            if c <= s * _MACHEP:
                break
        return s * ax / av

    def cfrac(av, xv, ax):
        y = 1.0 - av
        z = xv + y + 1.0
        c = 0.0
        pkm2, qkm2, pkm1, qkm1 = 1.0, xv, xv + 1.0, z * xv
        ans = pkm1 / qkm1
        for _ in range(_MAX_TERMS):
            c += 1.0
            y += 1.0
            z += 2.0
            yc = y * c
            pk = pkm1 * z - pkm2 * yc
            qk = qkm1 * z - qkm2 * yc
            t = 1.0
            if qk != 0.0:
                r = pk / qk
                t = math.fabs((ans - r) / r)
                ans = r
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            if math.fabs(pk) > _BIG:
                pkm2 *= _BIGINV
                pkm1 *= _BIGINV
                qkm2 *= _BIGINV
                qkm1 *= _BIGINV
            if not t > _MACHEP:
                break
        return ans * ax

    av = np.float64(a)
    xv = np.float64(x)
    if av != av or xv != xv or xv < 0.0 or av <= 0.0 or math.isinf(av) or math.isinf(xv):
        return type(x)(math.nan)
    if xv == 0.0:
        return type(x)(1.0)
    lax = av * math.log(xv) - xv - math.lgamma(av)
    small_x = xv < 1.0 or xv < av
    if lax < -_MAXLOG:
        return type(x)(1.0 if small_x else 0.0)
    if av > _LARGEST_A:
        return type(x)(math.nan)
    ax = math.exp(lax)
    if small_x:
        return type(x)(1.0 - series(av, xv, ax))
    return type(x)(cfrac(av, xv, ax))


def igamma_grad_a(a, x):
    """dP(a, x)/da, Igamma's gradient in `a` (MindSpore's IgammaGradA): the series and the
    continued fraction of igamma differentiated term by term (forward mode), with
    d/da log(x^a e^-x / Gamma(a)) = log x - psi(a). 0 at x = 0 and x = +inf; NaN where igamma
    is."""
    def psi(v):
        # digamma for v > 0: the recurrence up to 10, then the asymptotic series (error ~1e-14).
        acc = 0.0
        while v < 10.0:
            acc -= 1.0 / v
            v += 1.0
        f = 1.0 / (v * v)
        tail = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
        return acc + math.log(v) - 0.5 / v - tail

    av = np.float64(a)
    xv = np.float64(x)
    if xv == 0.0:
        return type(x)(0.0)
    if av != av or xv != xv or xv < 0.0 or av <= 0.0 or math.isinf(av):
        return type(x)(math.nan)
    if math.isinf(xv):
        return type(x)(0.0)
    lx = math.log(xv)
    lax = av * lx - xv - math.lgamma(av)
    if lax < -_MAXLOG:
        return type(x)(0.0)
    if av > _LARGEST_A:
        return type(x)(math.nan)
    ax = math.exp(lax)
    if xv > 1.0 and xv > av:
        # Q = ax * F, F = lim p_k / q_k; dP/da = -(ax * (dF + F (log x - psi(a)))).
        y = 1.0 - av
        z = xv + y + 1.0
        c = 0.0
        pkm2, qkm2, pkm1, qkm1 = 1.0, xv, xv + 1.0, z * xv
        dpkm2, dqkm2, dpkm1, dqkm1 = 0.0, 0.0, 0.0, -xv
        ans = pkm1 / qkm1
        dans = (dpkm1 - ans * dqkm1) / qkm1
        for _ in range(_MAX_TERMS):
            c += 1.0
            y += 1.0
            z += 2.0
            yc = y * c
            pk = pkm1 * z - pkm2 * yc
            qk = qkm1 * z - qkm2 * yc
            # dy/da = dz/da = -1: differentiate both recurrences.
            dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
            dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
            t = 1.0
            dt = 1.0
            if qk != 0.0:
                r = pk / qk
                dr = (dpk - r * dqk) / qk
                t = math.fabs((ans - r) / r)
                dt = math.fabs(dr - dans)
                ans = r
                dans = dr
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1, dpk, dqkm1, dqk
            if math.fabs(pk) > _BIG:
                pkm2 *= _BIGINV
                pkm1 *= _BIGINV
                qkm2 *= _BIGINV
                qkm1 *= _BIGINV
                dpkm2 *= _BIGINV
                dpkm1 *= _BIGINV
                dqkm2 *= _BIGINV
                dqkm1 *= _BIGINV
            if not (t > _MACHEP or dt > _MACHEP * math.fabs(dans)):
                break
        return type(x)(-ax * (dans + ans * (lx - psi(av))))
    # P = ax / a * S, S = sum c_n, c_n = c_{n-1} x / (a + n); log(ax / a) has derivative
    # log x - psi(a + 1).
    r, cc, s, dc, ds = av, 1.0, 1.0, 0.0, 0.0
    for _ in range(_MAX_TERMS):
        r += 1.0
        dc = dc * (xv / r) - cc * xv / (r * r)
        cc *= xv / r
        s += cc
        ds += dc
        if cc <= s * _MACHEP and math.fabs(dc) <= math.fabs(ds) * _MACHEP:
            break
    return type(x)(ax / av * (ds + s * (lx - psi(av + 1.0))))


def zeta(x, q):
    """The Hurwitz zeta function sum_{k>=0} (k + q)^-x (Euler-Maclaurin summation, Cephes).
    inf at x = 1; NaN for x < 1; at q a non-positive integer, inf for x an even integer and NaN
    otherwise; for other q < 0 defined (the sum continued) only at integer x; NaN at q = +inf
    (MindSpore's edges, which keep no large-q asymptotic branch)."""
    def whole(v):
        # An integer: every float of magnitude >= 2^52 is one, +-inf counted (math.floor
        # returns an int64 in Numba, wrong past 2^63, so it only sees the smaller ones).
        return math.fabs(v) >= 4503599627370496.0 or v == math.floor(v)

    xv = np.float64(x)
    qv = np.float64(q)
    if xv != xv or qv != qv:
        return type(q)(math.nan)
    if xv == 1.0:
        return type(q)(math.inf)
    if xv < 1.0 or qv == math.inf:
        return type(q)(math.nan)
    if qv <= 0.0:
        if whole(qv):
            return type(q)(math.inf if whole(0.5 * xv) else math.nan)
        if not whole(xv):
            return type(q)(math.nan)
    if math.isinf(xv):
        # (k + q)^-inf: 1 for the term equal to 1, 0 below, inf above.
        if qv == 1.0:
            return type(q)(1.0)
        return type(q)(math.inf if -1.0 < qv < 1.0 else math.nan)
    def summed(sv, pv):
        # sum_{k>=0} (k + pv)^-sv, Euler-Maclaurin after the first terms (Cephes).
        acc = math.pow(pv, -sv)
        aa = pv
        b = 0.0
        i = 0
        while i < 9 or aa <= 9.0:
            i += 1
            aa += 1.0
            b = math.pow(aa, -sv)
            acc += b
            if math.fabs(b) < _MACHEP * math.fabs(acc):
                return acc
        w = aa
        acc += b * w / (sv - 1.0)
        acc -= 0.5 * b
        fac = 1.0
        k = 0.0
        for j in range(12):
            fac *= sv + k
            b /= w
            t = fac * b / _ZETA_A[j]
            acc += t
            if math.fabs(t) < _MACHEP * math.fabs(acc):
                break
            k += 1.0
            fac *= sv + k
            b /= w
            k += 1.0
        return acc

    if qv < -_DIRECT_TERMS:
        # q = f - m, f in (0, 1), x an integer: the m terms below f are
        # (-1)^x (zeta(x, 1 - f) - zeta(x, m + 1 - f)).
        m = math.ceil(-qv)
        f = qv + m
        sign = 1.0 if whole(0.5 * xv) else -1.0
        return type(q)(summed(xv, f) + sign * (summed(xv, 1.0 - f) - summed(xv, m + 1.0 - f)))
    return type(q)(summed(xv, qv))


def polygamma(n, x):
    """psi^(n)(x), the n-th derivative of the digamma function: psi(x) for n = 0, else
    (-1)^(n+1) n! zeta(n + 1, x). NaN for n < 0 and NaN x; for n >= 1, (-1)^(n+1) inf at the
    poles (0, -1, ...) and NaN at x = +inf; n = 0 gives digamma's edges (-inf at 0, NaN at the
    negative integers, inf at +inf) -- MindSpore's answers."""
    def hurwitz(s, qv):
        # zeta(s, q) for integer s >= 2 and q not a pole (Euler-Maclaurin, as in zeta).
        acc = math.pow(qv, -s)
        aa = qv
        b = 0.0
        i = 0
        while i < 9 or aa <= 9.0:
            i += 1
            aa += 1.0
            b = math.pow(aa, -s)
            acc += b
            if math.fabs(b) < _MACHEP * math.fabs(acc):
                return acc
        w = aa
        acc += b * w / (s - 1.0)
        acc -= 0.5 * b
        fac = 1.0
        k = 0.0
        for j in range(12):
            fac *= s + k
            b /= w
            t = fac * b / _ZETA_A[j]
            acc += t
            if math.fabs(t) < _MACHEP * math.fabs(acc):
                break
            k += 1.0
            fac *= s + k
            b /= w
            k += 1.0
        return acc

    def whole(v):
        # As in zeta: an integer, magnitudes >= 2^52 and +-inf included.
        return math.fabs(v) >= 4503599627370496.0 or v == math.floor(v)

    nv = np.float64(n)
    v = np.float64(x)
    if nv != nv or v != v or nv < 0.0 or not whole(nv) or math.isinf(nv):
        return type(x)(math.nan)
    order = int(nv)
    pole = v <= 0.0 and whole(v)            # 0, -1, ..., and -inf
    if order == 0:
        if v == 0.0:
            return type(x)(-math.inf)
        if pole:
            return type(x)(math.nan)
        result = 0.0
        if v < 0.5:   # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
            result = -math.pi / math.tan(math.pi * v)
            v = 1.0 - v
        while v < 10.0:
            result -= 1.0 / v
            v += 1.0
        f = 1.0 / (v * v)
        tail = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
        return type(x)(result + math.log(v) - 0.5 / v - tail)
    sign = 1.0 if order % 2 == 1 else -1.0
    if pole:
        return type(x)(sign * math.inf)
    if math.isinf(v):
        return type(x)(math.nan)
    fact = 1.0
    for k in range(2, order + 1):
        fact *= k
    s = nv + 1.0
    if v < -_DIRECT_TERMS:
        # as in zeta: v = f - m, the m terms below f by reflection ((-1)^s, s = n + 1)
        m = math.ceil(-v)
        f = v + m
        reflected = 1.0 if order % 2 == 1 else -1.0
        total = hurwitz(s, f) + reflected * (hurwitz(s, 1.0 - f) - hurwitz(s, m + 1.0 - f))
        return type(x)(sign * fact * total)
    return type(x)(sign * fact * hurwitz(s, v))


def nextafter(x1, x2):
    """The representable value of x1's type next to x1 in the direction of x2 (x2 itself when
    they are equal, so nextafter(0., -0.) is -0.; NaN when either is NaN), as numpy.nextafter:
    exact in float32 and float64 alike. Worked out in float64 from frexp/ldexp, where the
    step from x1 is one unit in the last place of x1's type (halved below a power of two when
    moving towards zero; never below the smallest subnormal)."""
    # 2**24 + 1 rounds to 2**24 in float32 only: which type this loop was compiled for.
    single = type(x1)(16777217.0) == type(x1)(16777216.0)
    v = np.float64(x1)
    w = np.float64(x2)
    if v != v or w != w:
        return type(x1)(math.nan)
    if v == w:
        return type(x1)(w)
    digits, tiny_exp, largest = 53, -1074, 1.7976931348623157e308
    if single:
        digits, tiny_exp, largest = 24, -149, 3.4028234663852886e38
    if v == 0.0:
        return type(x1)(math.copysign(math.ldexp(1.0, tiny_exp), w - v))
    if math.isinf(v):
        return type(x1)(math.copysign(largest, v))
    m, e = math.frexp(math.fabs(v))          # |v| = m 2^e, m in [0.5, 1)
    away = (w > v) == (v > 0.0)
    # The unit in the last place of |v|, halved below a power of two when moving towards
    # zero, and never below the smallest subnormal. (No two-argument max(): numba's own CUDA
    # target refuses it, numba issue #10753.)
    ulp_exp = e - digits if away or m != 0.5 else e - digits - 1
    if ulp_exp < tiny_exp:
        ulp_exp = tiny_exp
    step = math.ldexp(1.0, ulp_exp)
    if away:
        r = math.fabs(v) + step
        if r > largest:                      # past the largest finite value of the type
            r = math.inf
    else:
        r = math.fabs(v) - step
    return type(x1)(math.copysign(r, v))


# Each body -> the dtype of its result (None: the dtype of its last operand).
ELEMENTWISE = {"igamma": None, "igammac": None, "igamma_grad_a": None, "zeta": None,
               "polygamma": None, "nextafter": None}
