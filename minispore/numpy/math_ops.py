"""mindspore.numpy element-wise math: add, divide, power, sqrt, exp, sin, clip ...

Every function takes MindSpore's optional `dtype` (the result is cast to it). Float-only
functions (sqrt, exp, sin, ...) compute integer and bool inputs in float32, as MindSpore's mnp
does for sqrt and the trigonometric family (MindSpore 2.7.2 raises for exp and log of an int
Tensor; here they are computed in float32 too).
"""
import math

from minispore.common import dtype as mstype
from minispore.numpy._utils import binary_pair, cast, to_float, to_tensor
from minispore.ops import functional as F

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
           "float_power", "remainder", "mod", "fmod", "divmod", "maximum", "minimum",
           "arctan2", "hypot", "copysign", "logaddexp", "logaddexp2", "heaviside", "gcd", "lcm",
           "sqrt", "cbrt", "square", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
           "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
           "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "radians", "abs", "absolute",
           "fabs", "negative", "positive", "sign", "reciprocal", "floor", "ceil", "trunc",
           "fix", "rint", "clip"]


def _out(x, dtype):
    return x if dtype is None else cast(x, dtype)


def _float_unary(fname, op):
    def fn(x, dtype=None):
        return _out(op(to_float(x, fname)), dtype)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = (f"mindspore.numpy.{fname}: element-wise, in float (int and bool inputs in "
                  f"float32).")
    return fn


sqrt = _float_unary("sqrt", F.sqrt)
exp = _float_unary("exp", F.exp)
expm1 = _float_unary("expm1", F.expm1)
log = _float_unary("log", F.log)
log2 = _float_unary("log2", F.log2)
log10 = _float_unary("log10", F.log10)
log1p = _float_unary("log1p", F.log1p)
sin = _float_unary("sin", F.sin)
cos = _float_unary("cos", F.cos)
tan = _float_unary("tan", F.tan)
arcsin = _float_unary("arcsin", F.asin)
arccos = _float_unary("arccos", F.acos)
arctan = _float_unary("arctan", F.atan)
sinh = _float_unary("sinh", F.sinh)
cosh = _float_unary("cosh", F.cosh)
tanh = _float_unary("tanh", F.tanh)
arcsinh = _float_unary("arcsinh", F.asinh)
arccosh = _float_unary("arccosh", F.acosh)
arctanh = _float_unary("arctanh", F.atanh)
floor = _float_unary("floor", F.floor)
ceil = _float_unary("ceil", F.ceil)
trunc = _float_unary("trunc", F.trunc)
rint = _float_unary("rint", F.rint)
deg2rad = _float_unary("deg2rad", lambda x: F.mul(x, math.pi / 180.0))
radians = _float_unary("radians", lambda x: F.mul(x, math.pi / 180.0))
rad2deg = _float_unary("rad2deg", lambda x: F.mul(x, 180.0 / math.pi))


def fix(x):
    """Round toward zero (in float, as MindSpore's mnp.fix)."""
    return trunc(x)


def cbrt(x, dtype=None):
    """The real cube root: sign(x) * |x|^(1/3)."""
    x = to_float(x, "cbrt")
    return _out(F.mul(F.sign(x), F.pow(F.abs(x), 1.0 / 3.0)), dtype)


def exp2(x, dtype=None):
    """2**x; an integer input keeps its dtype (MindSpore 2.7.2: exp2 of int32 is int32)."""
    x = to_tensor(x, "exp2")
    out = F.exp2(x if x.dtype.is_float else F.cast(x, mstype.float32))
    if x.dtype.is_int:
        out = F.cast(F.round(out), x.dtype)
    return _out(out, dtype)


def square(x, dtype=None):
    return _out(F.square(_numeric("square", x)), dtype)


def _numeric(fname, x):
    """Bool inputs of arithmetic become int32 (MindSpore's operators refuse bool)."""
    x = to_tensor(x, fname)
    return F.cast(x, mstype.int32) if x.dtype == mstype.bool_ else x


def abs(x, dtype=None):  # noqa: A001  (MindSpore's name)
    return _out(F.abs(_numeric("abs", x)), dtype)


absolute = abs


def fabs(x, dtype=None):
    """|x| in float (NumPy's fabs is float-only)."""
    return _out(F.abs(to_float(x, "fabs")), dtype)


def negative(a, dtype=None):
    return _out(F.neg(_numeric("negative", a)), dtype)


def positive(a, dtype=None):
    return _out(F.identity(_numeric("positive", a)), dtype)


def sign(x, dtype=None):
    x = to_tensor(x, "sign")
    if x.dtype == mstype.bool_:
        raise TypeError("For mindspore.numpy.sign, bool input is not supported (as MindSpore)")
    return _out(F.sign(x), dtype)


def reciprocal(x, dtype=None):
    """1 / x; an integer input keeps its dtype, the quotient truncated (MindSpore 2.7.2:
    reciprocal([1, 2]) of int32 is [1, 0])."""
    x = to_tensor(x, "reciprocal")
    if x.dtype.is_float:
        return _out(F.reciprocal(x), dtype)
    return _out(F.cast(F.reciprocal(F.cast(x, mstype.float32)), x.dtype), dtype)


def _binary(fname, op):
    def fn(x1, x2, dtype=None):
        a, b = binary_pair(x1, x2, fname)
        return _out(op(a, b), dtype)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"mindspore.numpy.{fname}: element-wise with broadcasting."
    return fn


def _floats(fname, x1, x2):
    a, b = binary_pair(x1, x2, fname)
    a = a if not hasattr(a, "dtype") or a.dtype.is_float else F.cast(a, mstype.float32)
    b = b if not hasattr(b, "dtype") or b.dtype.is_float else F.cast(b, mstype.float32)
    return a, b


def _float_binary(fname, op):
    def fn(x1, x2, dtype=None):
        return _out(op(*_floats(fname, x1, x2)), dtype)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"mindspore.numpy.{fname}: element-wise in float, with broadcasting."
    return fn


add = _binary("add", F.add)
subtract = _binary("subtract", F.sub)
multiply = _binary("multiply", F.mul)
floor_divide = _binary("floor_divide", F.floor_divide)
power = _binary("power", F.pow)
remainder = _binary("remainder", F.floor_mod)
mod = _binary("mod", F.floor_mod)
maximum = _binary("maximum", F.maximum)
minimum = _binary("minimum", F.minimum)
gcd = _binary("gcd", F.gcd)
lcm = _binary("lcm", F.lcm)
divide = _float_binary("divide", F.div)
true_divide = _float_binary("true_divide", F.div)
arctan2 = _float_binary("arctan2", F.atan2)
hypot = _float_binary("hypot", F.hypot)
copysign = _float_binary("copysign", F.copysign)
logaddexp = _float_binary("logaddexp", F.logaddexp)
logaddexp2 = _float_binary("logaddexp2", F.logaddexp2)
heaviside = _float_binary("heaviside", F.heaviside)


def fmod(x1, x2, dtype=None):
    """The remainder with the sign of the dividend (C's fmod): x1 - trunc(x1 / x2) * x2."""
    a, b = binary_pair(x1, x2, "fmod")
    # The FMod operator takes Tensors only: a Python number joins in the Tensor's dtype.
    a = a if hasattr(a, "dtype") else to_tensor(a, "fmod", b.dtype)
    b = b if hasattr(b, "dtype") else to_tensor(b, "fmod", a.dtype)
    return _out(F.fmod(a, b), dtype)


def float_power(x1, x2, dtype=None):
    """x1 ** x2 computed in float64; the result is float32 unless an input is float64
    (MindSpore 2.7.2: float_power of float32 Tensors is float32). MindSpore refuses a Python
    number for x2; here it is taken."""
    a, b = binary_pair(x1, x2, "float_power")
    wide = any(getattr(v, "dtype", None) == mstype.float64 for v in (a, b))
    a = cast(a, mstype.float64) if hasattr(a, "dtype") else to_tensor(a, "float_power",
                                                                        mstype.float64)
    b = cast(b, mstype.float64) if hasattr(b, "dtype") else float(b)
    out = F.pow(a, b)
    return _out(out if wide else cast(out, mstype.float32), dtype)


def divmod(x1, x2, dtype=None):  # noqa: A001  (MindSpore's name)
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def clip(x, xmin, xmax, dtype=None):
    """x limited to [xmin, xmax]; either bound may be None (not both)."""
    if xmin is None and xmax is None:
        raise ValueError("For mindspore.numpy.clip, xmin and xmax must not both be None")
    x = to_tensor(x, "clip")
    if xmin is not None:
        x = F.maximum(x, xmin if isinstance(xmin, (int, float)) else to_tensor(xmin, "clip"))
    if xmax is not None:
        x = F.minimum(x, xmax if isinstance(xmax, (int, float)) else to_tensor(xmax, "clip"))
    return _out(x, dtype)
