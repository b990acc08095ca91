"""Elementwise math composed of existing primitives (each with its CPU and CUDA kernels, bprop
and sharding rule), so it differentiates and traces like any operator call: inverse
hyperbolics, logs in other bases, rounding, xlogy, lerp, and MindSpore's alias names
(absolute, subtract, multiply, divide ...). Reductions and norms are in
reduce_compose_func.py."""
import math

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import stop_gradient
from minispore.ops.function.composite_func import where as _where

__all__ = ["absolute", "negative", "positive", "subtract", "multiply", "div", "divide",
           "true_divide",
           "inv", "acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh", "deg2rad", "rad2deg",
           "exp2", "log2", "log10", "logaddexp", "logaddexp2", "trunc", "fix", "frac", "round",
           "rint", "sgn", "signbit", "isneginf", "isposinf", "isreal", "heaviside", "lerp",
           "logit", "sinc", "xlogy", "xdivy", "copysign", "float_power", "ldexp", "fmax", "fmin",
           "fmod", "truncate_div", "truncate_mod", "addcmul", "addcdiv", "addn", "accumulate_n",
           "nan_to_num", "isclose", "approximate_equal", "is_floating_point", "is_complex",
           "is_tensor", "numel", "size", "rank", "div_no_nan", "mul_no_nan", "squared_difference",
           "real", "imag", "conj", "eps", "shape", "dyn_shape", "isnan_ext", "float_power_ext",
           "tensor_gt", "hyper_add", "augassign_add", "augassign_sub", "augassign_mul",
           "augassign_div", "augassign_floordiv", "augassign_mod", "deepcopy", "dense"]

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _floatify(x):
    """x, or x cast to float32 when it is an integer or bool Tensor (MindSpore's float ops
    promote those)."""
    if isinstance(x, Tensor) and not x.dtype.is_float:
        return A.cast(x, mstype.float32)
    return x


# -- aliases ---------------------------------------------------------------------------------
def absolute(input):  # noqa: A002
    return M.abs(input)


def negative(input):  # noqa: A002
    return M.neg(input)


def positive(input):  # noqa: A002
    """input itself (MindSpore returns it unchanged; bool is a TypeError)."""
    _check_tensor("positive", "input", input)
    if input.dtype == mstype.bool_:
        raise TypeError("For 'positive', 'input' must not be a bool Tensor.")
    return input


def subtract(input, other, *, alpha=1):  # noqa: A002
    """input - alpha * other."""
    return M.sub(input, other if alpha == 1 else M.mul(other, alpha))


def multiply(input, other):  # noqa: A002
    return M.mul(input, other)


def divide(input, other, *, rounding_mode=None):  # noqa: A002
    """input / other; rounding_mode 'trunc' rounds toward 0, 'floor' down."""
    return _rounded_divide("divide", input, other, rounding_mode)


def _rounded_divide(name, input, other, rounding_mode):  # noqa: A002
    if rounding_mode is None:
        return M.div(input, other)
    if rounding_mode == "floor":
        return M.floor_div(input, other)
    if rounding_mode == "trunc":
        return truncate_div(input, other)
    raise ValueError(f"For '{name}', 'rounding_mode' must be None, 'floor' or 'trunc', but got "
                     f"{rounding_mode!r}.")


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """ops.div: MindSpore's divide, keyword rounding_mode included (see divide)."""
    return _rounded_divide("div", input, other, rounding_mode)


def true_divide(dividend, divisor):
    return M.div(dividend, divisor)


def inv(x):
    """1 / x. An integer x gives 1 / x in float32 cast back to x's dtype (truncated; 1 / 0
    is the dtype's minimum), as MindSpore's Inv computes it."""
    if getattr(x, "dtype", None) in mstype.int_types:
        return A.cast(M.reciprocal(A.cast(x, mstype.float32)), x.dtype)
    return M.reciprocal(x)


# -- inverse hyperbolics, logs and exps --------------------------------------------------------
def acosh(input):  # noqa: A002
    """log(x + sqrt(x^2 - 1)) (NaN below 1)."""
    x = _floatify(input)
    return M.log(M.add(x, M.sqrt(M.sub(M.square(x), 1.0))))


def asinh(input):  # noqa: A002
    """log(x + sqrt(x^2 + 1)) on x >= 0 and -asinh(-x) below, so large negative x does not
    cancel; each branch sees a safe argument (0 where unused), so gradients stay finite and
    equal 1 at 0."""
    x = _floatify(input)
    nonneg = M.greater_equal(x, 0.0)
    zero = A.zeros_like(x)
    pos, neg = _where(nonneg, x, zero), _where(nonneg, zero, M.neg(x))

    def branch(t):
        return M.log(M.add(t, M.sqrt(M.add(M.square(t), 1.0))))
    return _where(nonneg, branch(pos), M.neg(branch(neg)))


def atanh(input):  # noqa: A002
    """(log1p(x) - log1p(-x)) / 2 (NaN outside [-1, 1]); log1p keeps small x exact."""
    x = _floatify(input)
    return M.mul(M.sub(M.log1p(x), M.log1p(M.neg(x))), 0.5)


arccosh, arcsinh, arctanh = acosh, asinh, atanh


def deg2rad(x):
    return M.mul(_floatify(x), math.pi / 180.0)


def rad2deg(x):
    return M.mul(_floatify(x), 180.0 / math.pi)


def exp2(input):  # noqa: A002
    """2 ** input."""
    return M.exp(M.mul(_floatify(input), _LN2))


def log2(input):  # noqa: A002
    return M.div(M.log(_floatify(input)), _LN2)


def log10(input):  # noqa: A002
    return M.div(M.log(_floatify(input)), _LN10)


def logaddexp(input, other):  # noqa: A002
    """log(exp(x) + exp(y)) = max(x, y) + log1p(exp(-|x - y|)), which never overflows."""
    x, y = _floatify(input), _floatify(other)
    return M.add(M.maximum(x, y), M.log1p(M.exp(M.neg(M.abs(M.sub(x, y))))))


def logaddexp2(input, other):  # noqa: A002
    """log2(2^x + 2^y) = max(x, y) + log2(1 + 2^-|x - y|)."""
    x, y = _floatify(input), _floatify(other)
    tail = M.log1p(M.exp(M.mul(M.neg(M.abs(M.sub(x, y))), _LN2)))
    return M.add(M.maximum(x, y), M.div(tail, _LN2))


# -- rounding and signs ----------------------------------------------------------------------
def trunc(input):  # noqa: A002
    """input rounded toward zero (integers unchanged)."""
    if not input.dtype.is_float:
        return input
    return _where(M.less(input, 0), M.ceil(input), M.floor(input))


fix = trunc


def frac(input):  # noqa: A002
    """input - trunc(input), with input's sign."""
    return M.sub(input, trunc(input))


def round(input, *, decimals=0):  # noqa: A001,A002
    """input rounded to the nearest integer, ties to even (numpy's rule). f = floor(x) and the
    exact remainder x - f (Sterbenz) decide, so no x + 0.5 rounds up by accident."""
    _check_tensor("round", "input", input)
    if not input.dtype.is_float:
        return input
    x = input if decimals == 0 else M.mul(input, 10.0 ** decimals)
    f = M.floor(x)
    d = M.sub(x, f)
    odd = M.equal(M.floor_mod(f, 2.0), 1.0)
    up = M.logical_or(M.greater(d, 0.5), M.logical_and(M.equal(d, 0.5), odd))
    out = M.add(f, A.cast(up, x.dtype))
    return out if decimals == 0 else M.div(out, 10.0 ** decimals)


def rint(input):  # noqa: A002
    return round(input)


def sgn(input):  # noqa: A002
    """sign(input) for real tensors."""
    return M.sign(input)


def signbit(input):  # noqa: A002
    """input < 0, MindSpore's documented rule (-0.0 gives False, unlike numpy)."""
    _check_tensor("signbit", "input", input)
    return M.less(input, 0)


def _sign_bit(x):
    """True where x's sign bit is set: x < 0, and -0.0 (told from +0.0 by 1 / x = -inf)."""
    if not x.dtype.is_float:
        return M.less(x, 0)
    neg_zero = M.logical_and(M.equal(x, 0.0), M.less(M.reciprocal(x), 0.0))
    return M.logical_or(M.less(x, 0.0), neg_zero)


def isneginf(input):  # noqa: A002
    _check_tensor("isneginf", "input", input)
    if not input.dtype.is_float:
        return A.zeros_like(A.cast(input, mstype.bool_))
    return M.equal(input, float("-inf"))


def isposinf(input):  # noqa: A002
    _check_tensor("isposinf", "input", input)
    if not input.dtype.is_float:
        return A.zeros_like(A.cast(input, mstype.bool_))
    return M.equal(input, float("inf"))


def isreal(input):  # noqa: A002
    """All True: minispore has no complex dtypes."""
    _check_tensor("isreal", "input", input)
    return A.ones_like(A.cast(input, mstype.bool_))


def heaviside(input, values):  # noqa: A002
    """0 where input < 0, values where input == 0, 1 where input > 0."""
    step = A.cast(M.greater(input, 0), input.dtype)
    return _where(M.equal(input, 0), M.add(M.mul(step, 0), values), step)


def lerp(input, end, weight):  # noqa: A002
    """input + weight * (end - input)."""
    return M.add(input, M.mul(weight, M.sub(end, input)))


def logit(input, eps=None):  # noqa: A002
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given."""
    x = _floatify(input)
    if eps is not None and eps >= 0:
        x = M.minimum(M.maximum(x, eps), 1.0 - eps)
    return M.log(M.div(x, M.sub(1.0, x)))


def sinc(input):  # noqa: A002
    """sin(pi x) / (pi x), 1 at x = 0."""
    x = _floatify(input)
    zero = M.equal(x, 0.0)
    px = M.mul(_where(zero, A.ones_like(x), x), math.pi)    # no 0/0 (nor its NaN gradient)
    return _where(zero, A.ones_like(x), M.div(M.sin(px), px))


def xlogy(input, other):  # noqa: A002
    """input * log(other), 0 where input is 0 (even where other is 0)."""
    x, y = _floatify(input), _floatify(other)
    zero = M.equal(x, 0.0)
    safe_y = _where(zero, M.add(M.mul(y, 0.0), 1.0), y)
    return M.mul(x, M.log(safe_y))


def xdivy(x, y):
    """x / y, 0 where x is 0."""
    zero = M.equal(x, 0)
    safe_y = _where(zero, M.add(M.mul(y, 0), 1), y)
    return M.div(x, safe_y)


def div_no_nan(x1, x2):
    """x1 / x2, 0 where x2 is 0."""
    zero = M.equal(x2, 0)
    safe = _where(zero, M.add(M.mul(x2, 0), 1), x2)
    return _where(zero, M.mul(x1, 0), M.div(x1, safe))


def mul_no_nan(x, y):
    """x * y, 0 where y is 0 (even where x is inf or NaN)."""
    zero = M.equal(y, 0)
    return _where(zero, M.sub(y, y), M.mul(x, y))


def squared_difference(x, y):
    return M.square(M.sub(x, y))


def copysign(input, other):  # noqa: A002
    """|input| with the sign of other (-0.0 counts as negative)."""
    x = _floatify(input)
    other = other if isinstance(other, Tensor) else Tensor(float(other), x.dtype)
    return _where(_sign_bit(other), M.neg(M.abs(x)), M.abs(x))


def float_power(input, exponent):  # noqa: A002
    """input ** exponent in float64."""
    def f64(v):
        return A.cast(v, mstype.float64) if isinstance(v, Tensor) else float(v)
    return M.pow(f64(input), f64(exponent))


def ldexp(x, other):
    """x * 2 ** other."""
    return M.mul(x, exp2(other))


def fmax(input, other):  # noqa: A002
    """Elementwise max that ignores NaN (NaN only where both are). A tie's gradient goes
    wholly to `input`, as MindSpore's Fmax grad gives it (Maximum splits it)."""
    # zeros of the broadcast shape (zeros_like, not x * 0: NaN * 0 is NaN)
    zero = A.zeros_like(M.add(input, other))
    larger = _where(M.greater_equal(input, other), M.add(zero, input), M.add(zero, other))
    return _where(M.isnan(input), M.add(zero, other),
                  _where(M.isnan(other), M.add(zero, input), larger))


def fmin(input, other):  # noqa: A002
    """Elementwise min that ignores NaN (NaN only where both are)."""
    # zeros of the broadcast shape (zeros_like, not x * 0: NaN * 0 is NaN)
    zero = A.zeros_like(M.add(input, other))
    return _where(M.isnan(input), M.add(zero, other),
                  _where(M.isnan(other), M.add(zero, input), M.minimum(input, other)))


def truncate_div(input_x, input_y):
    """input_x / input_y rounded toward zero (integer division for integers)."""
    if isinstance(input_x, Tensor) and not input_x.dtype.is_float:
        q = M.floor_div(input_x, input_y)
        r = M.floor_mod(input_x, input_y)
        # floor and trunc differ by one where the remainder is nonzero and the signs differ
        fix_up = M.logical_and(M.not_equal(r, 0), M.less(M.mul(input_x, input_y), 0))
        return M.add(q, A.cast(fix_up, q.dtype))
    # piecewise constant: its gradient is 0, as MindSpore's TruncateDiv's is (differentiating
    # trunc(x / y) would give 0 * inf = NaN where y is 0)
    return stop_gradient(trunc(M.div(input_x, input_y)))


def truncate_mod(x, y):
    """The remainder of x / y with x's sign (C's fmod): sign(x) * (|x| mod |y|), where floor
    and truncated modulo agree; exact, unlike x - trunc(x / y) * y once x / y rounds.
    Integers: x - truncate_div(x, y) * y."""
    if isinstance(x, Tensor) and not x.dtype.is_float:
        return M.sub(x, M.mul(truncate_div(x, y), y))
    return M.mul(M.floor_mod(M.abs(x), M.abs(y)), M.sign(x))


def fmod(input, other):  # noqa: A002
    return truncate_mod(input, other)


def addcmul(input, tensor1, tensor2, value=1):  # noqa: A002
    """input + value * tensor1 * tensor2."""
    return M.add(input, M.mul(M.mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):  # noqa: A002
    """input + value * tensor1 / tensor2."""
    return M.add(input, M.mul(M.div(tensor1, tensor2), value))


def addn(x):
    """The sum of a tuple or list of tensors of one shape and dtype."""
    if not isinstance(x, (tuple, list)) or not x:
        raise TypeError(f"For 'AddN', 'x' must be a non-empty tuple or list of Tensors, but got "
                        f"{type(x).__name__}.")
    for i, t in enumerate(x):
        _check_tensor("AddN", f"x[{i}]", t)
        if tuple(t.shape) != tuple(x[0].shape) or t.dtype != x[0].dtype:
            raise ValueError(f"For 'AddN', every tensor must have the shape and dtype of x[0] "
                             f"({tuple(x[0].shape)}, {x[0].dtype}), but x[{i}] has "
                             f"{tuple(t.shape)}, {t.dtype}.")
    out = x[0]
    for t in x[1:]:
        out = M.add(out, t)
    return out


def accumulate_n(x):
    """addn; a lone Tensor is the sequence of its slices along dim 0, as in MindSpore."""
    if isinstance(x, Tensor):
        return M.reduce_sum(x, 0)
    return addn(x)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """NaN, +inf and -inf replaced by nan, posinf and neginf (the dtype's largest finite
    magnitudes by default)."""
    _check_tensor("nan_to_num", "input", input)
    if not input.dtype.is_float:
        return input
    import numpy as np
    big = float(np.finfo(input.dtype.np_dtype).max)
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    out = _where(M.isnan(input), A.fill(input.dtype, tuple(input.shape), nan), input)
    out = _where(M.equal(input, float("inf")), A.fill(input.dtype, tuple(input.shape), posinf),
                 out)
    return _where(M.equal(input, float("-inf")), A.fill(input.dtype, tuple(input.shape), neginf),
                  out)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """|input - other| <= atol + rtol * |other| (infinities equal only to themselves)."""
    close = M.less_equal(M.abs(M.sub(input, other)), M.add(M.mul(M.abs(other), rtol), atol))
    close = M.logical_or(close, M.equal(input, other))
    if equal_nan:
        close = M.logical_or(close, M.logical_and(M.isnan(input), M.isnan(other)))
    return close


def approximate_equal(x, y, tolerance=1e-5):
    """|x - y| < tolerance."""
    return M.less(M.abs(M.sub(x, y)), tolerance)


# -- predicates and sizes ----------------------------------------------------------------------
def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):  # noqa: A002
    return input.dtype.is_float


def is_complex(input):  # noqa: A002
    """False: minispore has no complex dtypes."""
    _check_tensor("is_complex", "input", input)
    return False


def numel(input):  # noqa: A002
    n = 1
    for d in input.shape:
        n *= d
    return n


size = numel


def rank(input_x):
    _check_tensor("Rank", "input_x", input_x)
    return len(input_x.shape)


# -- MindSpore's further aliases -----------------------------------------------------------
def real(input):  # noqa: A002
    """input itself: minispore has no complex dtypes."""
    _check_tensor("real", "input", input)
    return input


def imag(input):  # noqa: A002
    """Zeros: minispore has no complex dtypes."""
    _check_tensor("imag", "input", input)
    return A.zeros_like(input)


conj = real


def eps(x):
    """The machine epsilon of x's float dtype, in x's shape."""
    import numpy as np
    return A.fill(x.dtype, tuple(x.shape), float(np.finfo(x.dtype.np_dtype).eps))


def shape(input_x):
    return tuple(input_x.shape)


def dyn_shape(input_x):
    """input_x's shape as an int64 Tensor."""
    import numpy as np
    return Tensor(np.array(input_x.shape, np.int64))


def isnan_ext(input):  # noqa: A002
    return M.isnan(input)


def float_power_ext(input, exponent):  # noqa: A002
    return float_power(input, exponent)


tensor_gt = M.greater
hyper_add = M.add
augassign_add, augassign_sub, augassign_mul = M.add, M.sub, M.mul
augassign_div, augassign_floordiv, augassign_mod = M.div, M.floor_div, M.floor_mod


def deepcopy(input_x):
    return A.identity(input_x)


def dense(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias."""
    out = M.matmul(input, weight, transpose_b=True) if weight.ndim == 2 else \
        M.matmul(input, weight)
    return out if bias is None else M.add(out, bias)
