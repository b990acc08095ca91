"""Scalar bodies shared by the CPU and CUDA kernels, written once for both devices.

kernels/cpu/elementwise.py compiles each elementwise body into a dtype-exact numpy ufunc and
kernels/cuda/elementwise.py into a broadcasting device kernel; the half-precision bit
conversions at the end back kernels/{cpu,cuda}/half.py. So the math cannot drift between
CPU and GPU. Bodies keep the input dtype: constants are built with `type(x)(c)`, since
a Python float literal would promote float32 math to float64; numba's math.exp/log/sqrt keep
float32 for float32 (on both targets).
"""
import math

import numpy as np

# -- arithmetic ---------------------------------------------------------------------------------
def add(x, y):
    return x + y


def sub(x, y):
    return x - y


def mul(x, y):
    return x * y


def realdiv(x, y):
    return x / y


def neg(x):
    return -x


def maximum(x, y):
    """The larger of x, y; a NaN in either wins (numpy.maximum semantics)."""
    return x if (x >= y or x != x) else y


def minimum(x, y):
    """The smaller of x, y; a NaN in either wins (numpy.minimum semantics)."""
    return x if (x <= y or x != x) else y


def maximum_grad(x, y, dout):
    """d maximum(x, y) / dx * dout: dout where x wins (or is NaN), half of it on ties.
    The y-gradient is maximum_grad(y, x, dout)."""
    if x > y or x != x:
        return dout
    if x == y:
        return dout * type(dout)(0.5)
    return type(dout)(0)


def minimum_grad(x, y, dout):
    """d minimum(x, y) / dx * dout: dout where x wins (or is NaN), half of it on ties."""
    if x < y or x != x:
        return dout
    if x == y:
        return dout * type(dout)(0.5)
    return type(dout)(0)


def pow(x, y):  # noqa: A001 - the operator's name
    return x ** y


def pow_grad_x(x, y, dout):
    """dout * y * x ** (y - 1)."""
    return dout * y * x ** (y - type(y)(1))


def pow_grad_y(x, out, dout):
    """dout * x**y * log(x), taken as 0 at x == 0 (where x**y is flat in y for y > 0)."""
    if x == 0:
        return type(dout)(0)
    return dout * out * math.log(x)


def exp(x):
    return math.exp(x)


def log(x):
    return math.log(x)


def sqrt(x):
    return math.sqrt(x)


def rsqrt(x):
    return type(x)(1) / math.sqrt(x)


def square(x):
    return x * x


def abs(x):  # noqa: A001 - the operator's name
    return -x if x < 0 else x


def sqrt_grad(out, dout):
    """dout / (2 sqrt(x)), from out = sqrt(x)."""
    return dout / (out + out)


def rsqrt_grad(out, dout):
    """dout * -x**(-3/2) / 2 = dout * -out**3 / 2, from out = rsqrt(x)."""
    return dout * (out * out * out) * type(out)(-0.5)


def square_grad(x, dout):
    """dout * 2x."""
    return dout * (x + x)


def abs_grad(x, dout):
    """dout * sign(x) (0 at x == 0)."""
    if x > 0:
        return dout
    if x < 0:
        return -dout
    return type(dout)(0)


# -- predicates and selection -------------------------------------------------------------------
def equal(x, y):
    return x == y


def not_equal(x, y):
    return x != y


def less(x, y):
    return x < y


def less_equal(x, y):
    return x <= y


def greater(x, y):
    return x > y


def greater_equal(x, y):
    return x >= y


def select(cond, x, y):
    return x if cond else y


# -- IEEE binary16 <-> float on bit patterns (Numba has no CPU float16) ----------------------
def half_bits_to_float(h):
    """The value of the IEEE binary16 bit pattern h (an int)."""
    sign = -1.0 if (h >> 15) & 1 else 1.0
    exp = (h >> 10) & 0x1F
    mant = h & 0x3FF
    if exp == 0:                         # zero and subnormals: mant * 2**-24
        return sign * mant * 5.960464477539063e-08
    if exp == 31:
        return sign * math.inf if mant == 0 else math.nan
    return sign * (1.0 + mant / 1024.0) * 2.0 ** (exp - 15)


def float_to_half_bits(x):
    """Round-to-nearest-even, like numpy's astype(float16); x is a float64."""
    def round_half_even(v):  # inner: inlined by Numba on both targets
        f = math.floor(v)
        d = v - f
        if d > 0.5 or (d == 0.5 and f % 2 == 1):
            f += 1.0
        return f

    if math.isnan(x):
        return np.uint16(0x7E00)
    sign = 0x8000 if (x < 0 or (x == 0 and math.copysign(1.0, x) < 0)) else 0
    a = math.fabs(x)  # the module-level abs() here is the elementwise kernel
    if a >= 65520.0:                     # the halfway point above 65504 rounds to inf
        return np.uint16(sign | 0x7C00)
    if a < 6.103515625e-05:              # below 2**-14: subnormal, in units of 2**-24
        # 1024 units carry into the smallest normal's bit pattern by themselves.
        return np.uint16(sign | int(round_half_even(a / 5.960464477539063e-08)))
    m, e = math.frexp(a)                 # a = m * 2**e, m in [0.5, 1)
    exp = e - 1
    mant = int(round_half_even((m * 2.0 - 1.0) * 1024.0))
    if mant == 1024:
        mant = 0
        exp += 1
    if exp + 15 >= 31:
        return np.uint16(sign | 0x7C00)
    return np.uint16(sign | ((exp + 15) << 10) | mant)
