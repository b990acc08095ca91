"""Scalar bodies shared by the CPU and CUDA kernels and the fused kernels, written once.

`ELEMENTWISE` lists every elementwise body: kernels/cpu/elementwise.py compiles each into a
dtype-exact numpy ufunc, kernels/cuda/elementwise.py into a broadcasting device kernel, and the
GRAPH-mode fusion pass (minispore/graph/fusion.py) calls the same functions, inlined, in the
kernels it generates for fused chains. The half-precision bit conversions back
kernels/{cpu,cuda}/half.py and the optimizer updates kernels/{cpu,cuda}/optim.py. So the math of
`exp` (or of GeLU's gradient) lives here once and cannot drift between CPU, GPU and fusion. Bodies keep the input dtype: constants are built with `type(x)(c)`, since
a Python float literal would promote float32 math to float64; numba's math.exp/log/sqrt keep
float32 for float32 (on both targets).
"""
import math

import numpy as np

from . import scalar_bessel, scalar_beta_inc, scalar_bits, scalar_gamma_inc, scalar_special
from .scalar_beta_inc import betainc  # noqa: F401
from .scalar_bessel import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e,  # noqa: F401
                            bessel_j0, bessel_j1, bessel_k0, bessel_k0e, bessel_k1,
                            bessel_k1e, bessel_y0, bessel_y1)
from .scalar_bits import (bitwise_and, bitwise_or, bitwise_xor, gcd, invert,  # noqa: F401
                          lcm, left_shift, left_shift64, population_count, right_shift,
                          right_shift64)
from .scalar_special import digamma, erfinv, lgamma, trigamma  # noqa: F401
from .scalar_gamma_inc import (igamma, igamma_grad_a, igammac, nextafter,  # noqa: F401
                               polygamma, zeta)

# -- arithmetic ---------------------------------------------------------------------------------
def add(x, y):
    return x + y


def sub(x, y):
    return x - y


def mul(x, y):
    return x * y


def realdiv(x, y):
    return x / y


def floordiv(x, y):
    """floor(x / y), Python's (and MindSpore's) floor division for ints and floats: -3 // 2 is
    -2. Integer division by zero gives 0 here (numpy's error model); MindSpore's CPU kernel
    returns a saturated value there."""
    return x // y


def floormod(x, y):
    """x - floor(x / y) * y: the remainder takes the divisor's sign (-3 % 2 is 1)."""
    return x % y


def neg(x):
    return -x


def maximum(x, y):
    """The larger of x, y; a NaN in either wins (numpy.maximum semantics)."""
    return x if (x >= y or x != x) else y


def minimum(x, y):
    """The smaller of x, y; a NaN in either wins (numpy.minimum semantics)."""
    return x if (x <= y or x != x) else y


def maximum_grad(x, y, dout):
    """d maximum(x, y) / dx * dout: dout where x wins, half of it on ties; where either is
    NaN both inputs get dout (MindSpore's MaximumGrad). The y-gradient is
    maximum_grad(y, x, dout)."""
    if x > y or x != x or y != y:
        return dout
    if x == y:
        return dout * type(dout)(0.5)
    return type(dout)(0)


def minimum_grad(x, y, dout):
    """d minimum(x, y) / dx * dout: dout where x wins, half of it on ties; both inputs get
    dout where either is NaN (MindSpore's MinimumGrad)."""
    if x < y or x != x or y != y:
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


# -- activations and their gradients (y = the activation's output, x = its input) --------------
_C_TANH = math.sqrt(2.0 / math.pi)       # GeLU's tanh approximation: sqrt(2/pi)
_R_SQRT2 = 1.0 / math.sqrt(2.0)
_R_SQRT2PI = 1.0 / math.sqrt(2.0 * math.pi)


def relu(x):
    """max(x, 0); NaN propagates."""
    zero = type(x)(0)
    return zero if x < zero else x


def relu_grad(dy, y):
    """dy where y > 0, else 0."""
    return dy if y > type(y)(0) else type(dy)(0)


def sigmoid(x):
    """1 / (1 + exp(-x)), through exp(-|x|) so it never overflows."""
    one = type(x)(1)
    if x >= 0:
        return one / (one + math.exp(-x))
    e = math.exp(x)
    return e / (one + e)


def sigmoid_grad(y, dy):
    """dy * y * (1 - y)."""
    return dy * y * (type(y)(1) - y)


def tanh(x):
    return math.tanh(x)


def tanh_grad(y, dy):
    """dy * (1 - y^2)."""
    return dy * (type(y)(1) - y * y)


def gelu_tanh(x):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (MindSpore's GeLU primitive)."""
    t = type(x)
    return t(0.5) * x * (t(1) + math.tanh(t(_C_TANH) * (x + t(0.044715) * x * x * x)))


def gelu_tanh_grad(dy, x):
    """dy * (0.5 (1 + th) + 0.5 x (1 - th^2) c (1 + 3a x^2)), th = tanh(c (x + a x^3))."""
    t = type(x)
    half, one, c, a = t(0.5), t(1), t(_C_TANH), t(0.044715)
    th = math.tanh(c * (x + a * x * x * x))
    return dy * (half * (one + th) + half * x * (one - th * th) * c * (one + t(3) * a * x * x))


def gelu_erf(x):
    """0.5 x (1 + erf(x / sqrt(2))) (the exact GeLU, ops.gelu's default)."""
    t = type(x)
    return t(0.5) * x * (t(1) + math.erf(x * t(_R_SQRT2)))


def gelu_erf_grad(dy, x):
    """dy * (0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi))."""
    t = type(x)
    half = t(0.5)
    return dy * (half * (t(1) + math.erf(x * t(_R_SQRT2)))
                 + x * math.exp(-half * x * x) * t(_R_SQRT2PI))


# -- trigonometric, rounding and special functions (ops/operations/unary_math_ops.py) ----------
def sin(x):
    return math.sin(x)


def cos(x):
    return math.cos(x)


def tan(x):
    return math.tan(x)


def sinh(x):
    return math.sinh(x)


def cosh(x):
    return math.cosh(x)


def asin(x):
    return math.asin(x)


def acos(x):
    return math.acos(x)


def atan(x):
    return math.atan(x)


def floor(x):
    # math.floor returns an int: back to x's type (NaN and inf pass through unchanged).
    return type(x)(math.floor(x)) if math.isfinite(x) else x


def ceil(x):
    return type(x)(math.ceil(x)) if math.isfinite(x) else x


def sign(x):
    """1, -1 or 0 by x's sign; NaN stays NaN."""
    if x > 0:
        return type(x)(1)
    if x < 0:
        return type(x)(-1)
    return x * type(x)(0)


def reciprocal(x):
    return type(x)(1) / x


def log1p(x):
    return math.log1p(x)


def expm1(x):
    return math.expm1(x)


def erf(x):
    return math.erf(x)


def erfc(x):
    return math.erfc(x)


# -- logic and floating-point class (ops/operations/logic_ops.py); a number is true when != 0 --
def logical_and(x, y):
    return x != 0 and y != 0


def logical_or(x, y):
    return x != 0 or y != 0


def logical_xor(x, y):
    return (x != 0) != (y != 0)


def logical_not(x):
    return x == 0


def isnan(x):
    return math.isnan(x)


def isinf(x):
    return math.isinf(x)


def isfinite(x):
    return not (math.isinf(x) or math.isnan(x))


def atan2(y, x):
    return math.atan2(y, x)


def hypot(x, y):
    return math.hypot(x, y)


# Every elementwise body above and in scalar_bits, scalar_special, scalar_gamma_inc,
# scalar_beta_inc and scalar_bessel -> the dtype of its result: "bool" for
# predicates, "uint8" for population_count, None for the
# dtype of its last operand (callers put the operand whose dtype the result takes last). Each
# device's kernel table and the fusion pass are generated from this table.
ELEMENTWISE = {
    "add": None, "sub": None, "mul": None, "realdiv": None, "neg": None,
    "floordiv": None, "floormod": None,
    "maximum": None, "minimum": None, "maximum_grad": None, "minimum_grad": None,
    "pow": None, "pow_grad_x": None, "pow_grad_y": None,
    "exp": None, "log": None, "sqrt": None, "rsqrt": None, "square": None, "abs": None,
    "sqrt_grad": None, "rsqrt_grad": None, "square_grad": None, "abs_grad": None,
    "equal": "bool", "not_equal": "bool", "less": "bool", "less_equal": "bool",
    "greater": "bool", "greater_equal": "bool", "select": None,
    "relu": None, "relu_grad": None, "sigmoid": None, "sigmoid_grad": None,
    "tanh": None, "tanh_grad": None, "gelu_tanh": None, "gelu_tanh_grad": None,
    "gelu_erf": None, "gelu_erf_grad": None,
    "sin": None, "cos": None, "tan": None, "sinh": None, "cosh": None, "asin": None,
    "acos": None, "atan": None, "floor": None, "ceil": None, "sign": None, "reciprocal": None,
    "log1p": None, "expm1": None, "erf": None, "erfc": None,
    "logical_and": "bool", "logical_or": "bool", "logical_xor": "bool", "logical_not": "bool",
    "isnan": "bool", "isinf": "bool", "isfinite": "bool", "atan2": None, "hypot": None,
}
ELEMENTWISE.update(scalar_bits.ELEMENTWISE)
ELEMENTWISE.update(scalar_special.ELEMENTWISE)
ELEMENTWISE.update(scalar_gamma_inc.ELEMENTWISE)
ELEMENTWISE.update(scalar_bessel.ELEMENTWISE)
ELEMENTWISE.update(scalar_beta_inc.ELEMENTWISE)


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


# -- optimizer updates of one element: (param, state..., grad, hyper-parameters) -> new values -
# Scalars arrive in the parameter's dtype; `type(lr)(1)` keeps float32 math in float32.
def momentum_update(p, v, g, lr, momentum, wd, g_scale, nesterov):
    """v = momentum * v + g; p -= lr * v, or lr * (g + momentum * v) with nesterov;
    g is first unscaled and decayed: g * g_scale + wd * p."""
    g = g * g_scale + wd * p
    v = momentum * v + g
    step = g + momentum * v if nesterov else v
    return p - lr * step, v


def sgd_update(p, v, g, lr, momentum, dampening, wd, g_scale, nesterov, first):
    """MindSpore's SGD: with momentum, v = g on the first step, else
    momentum * v + (1 - dampening) * g; step = g + momentum * v (nesterov) or v; without
    momentum step = g and v is left as it was."""
    one = type(lr)(1)
    g = g * g_scale + wd * p
    if momentum > 0:
        v = g if first else momentum * v + (one - dampening) * g
        g = g + momentum * v if nesterov else v
    return p - lr * g, v


def adam_update(p, m, v, g, lr_t, beta1, beta2, eps, wd, g_scale, nesterov):
    """Adam (TF/MindSpore form; bias correction folded into lr_t by the caller):
    m += (1 - beta1)(g - m); v += (1 - beta2)(g*g - v);
    p -= lr_t * (beta1*m + (1 - beta1)*g if nesterov else m) / (sqrt(v) + eps)."""
    one = type(lr_t)(1)
    g = g * g_scale + wd * p
    m = m + (one - beta1) * (g - m)
    v = v + (one - beta2) * (g * g - v)
    num = beta1 * m + (one - beta1) * g if nesterov else m
    return p - lr_t * num / (math.sqrt(v) + eps), m, v


def adam_weight_decay_update(p, m, v, g, lr, beta1, beta2, eps, wd):
    """AdamWeightDecay (decoupled decay, no bias correction):
    m = beta1*m + (1 - beta1)*g; v = beta2*v + (1 - beta2)*g*g;
    p -= lr * (m / (sqrt(v) + eps) + wd * p)."""
    one = type(lr)(1)
    m = beta1 * m + (one - beta1) * g
    v = beta2 * v + (one - beta2) * g * g
    return p - lr * (m / (math.sqrt(v) + eps) + wd * p), m, v
