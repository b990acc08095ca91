"""Scalar bodies of the gamma-family and inverse-error special functions (Lgamma, Digamma, the
trigamma behind Digamma's gradient, Erfinv), merged into kernels/scalar.py's ELEMENTWISE table
like every other body, so the CPU ufuncs and the CUDA kernels run the same code.

Each computes in float64 and rounds once to the input's type, so float32 results are the
correctly rounded float64 ones (what MindSpore's CPU kernels give, to within an ulp). A body
cannot call another on the device: each is self-contained.
"""
import math

_PI = math.pi
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def lgamma(x):
    """log|Gamma(x)|: +inf at 0 and the negative integers (the poles)."""
    v = float(x)
    if v <= 0.0 and v == math.floor(v):
        return type(x)(math.inf)
    return type(x)(math.lgamma(v))


def digamma(x):
    """psi(x) = d/dx log Gamma(x): -inf at 0, NaN at the negative integers; the reflection
    psi(x) = psi(1 - x) - pi / tan(pi x) below 1/2, the recurrence psi(x) = psi(x + 1) - 1/x
    up to 6, then the asymptotic series."""
    v = float(x)
    if v == 0.0:
        return type(x)(-math.inf)
    if v < 0.0 and v == math.floor(v):
        return type(x)(math.nan)
    result = 0.0
    if v < 0.5:
        result = -_PI / math.tan(_PI * v)
        v = 1.0 - v
    while v < 6.0:
        result -= 1.0 / v
        v += 1.0
    f = 1.0 / (v * v)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
    return type(x)(result + math.log(v) - 0.5 / v - series)


def trigamma(x):
    """psi'(x): +inf at the poles; the reflection psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)
    below 1/2, the recurrence psi'(x) = psi'(x + 1) + 1/x^2 up to 6, then the asymptotic
    series."""
    v = float(x)
    if v <= 0.0 and v == math.floor(v):
        return type(x)(math.inf)
    base, sign = 0.0, 1.0
    if v < 0.5:
        s = math.sin(_PI * v)
        base, sign = _PI * _PI / (s * s), -1.0
        v = 1.0 - v
    acc = 0.0
    while v < 6.0:
        acc += 1.0 / (v * v)
        v += 1.0
    f = 1.0 / (v * v)
    acc += 1.0 / v + 0.5 * f + f / v * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)))
    return type(x)(base + sign * acc)


def erfinv(x):
    """The y with erf(y) = x: +-inf at +-1, NaN outside [-1, 1]; Giles' single-precision
    approximation refined by two Newton steps on erf in float64."""
    v = float(x)
    if not -1.0 < v < 1.0:
        if v == 1.0:
            return type(x)(math.inf)
        if v == -1.0:
            return type(x)(-math.inf)
        return type(x)(math.nan)
    w = -math.log((1.0 - v) * (1.0 + v))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        p = 3.43273939e-07 + p * w
        p = -3.5233877e-06 + p * w
        p = -4.39150654e-06 + p * w
        p = 0.00021858087 + p * w
        p = -0.00125372503 + p * w
        p = -0.00417768164 + p * w
        p = 0.246640727 + p * w
        p = 1.50140941 + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        p = 0.000100950558 + p * w
        p = 0.00134934322 + p * w
        p = -0.00367342844 + p * w
        p = 0.00573950773 + p * w
        p = -0.0076224613 + p * w
        p = 0.00943887047 + p * w
        p = 1.00167406 + p * w
        p = 2.83297682 + p * w
    r = p * v
    for _ in range(2):
        r -= (math.erf(r) - v) / (_TWO_OVER_SQRT_PI * math.exp(-r * r))
    return type(x)(r)


# Each body -> the dtype of its result (None: the dtype of its operand).
ELEMENTWISE = {"lgamma": None, "digamma": None, "trigamma": None, "erfinv": None}
