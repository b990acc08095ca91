"""Scalar bodies of the elementwise kernels, written once for both devices.

kernels/cpu/elementwise.py compiles each into a dtype-exact numpy ufunc and
kernels/cuda/elementwise.py into a broadcasting device kernel, so the math cannot drift
between CPU and GPU. Bodies keep the input dtype: constants are built with `type(x)(c)`, since
a Python float literal would promote float32 math to float64; numba's math.exp/log/sqrt keep
float32 for float32 (on both targets).
"""
import math

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
