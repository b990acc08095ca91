"""Elementwise math and reductions composed of existing primitives (each with its CPU and CUDA
kernels, bprop and sharding rule), so they differentiate and trace like any operator call:
inverse hyperbolics, logs in other bases, rounding, xlogy, lerp, all/any, var/std, logsumexp,
norms, and MindSpore's alias names (absolute, subtract, multiply, divide ...)."""
import math
import numbers

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import clamp as _clamp
from minispore.ops.function.composite_func import stack as _stack
from minispore.ops.function.composite_func import stop_gradient as _stop_gradient
from minispore.ops.function.composite_func import where as _where

__all__ = ["absolute", "negative", "positive", "subtract", "multiply", "divide", "true_divide",
           "inv", "acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh", "deg2rad",
           "rad2deg", "exp2", "log2", "log10", "logaddexp", "logaddexp2", "trunc", "fix", "frac",
           "round", "rint", "sgn", "signbit", "isneginf", "isposinf", "isreal", "heaviside",
           "lerp", "logit", "sinc", "xlogy", "xdivy", "copysign", "float_power", "ldexp", "fmax",
           "fmin", "fmod", "truncate_div", "truncate_mod", "addcmul", "addcdiv", "addn",
           "accumulate_n", "nan_to_num", "isclose", "approximate_equal", "all", "any",
           "count_nonzero", "logsumexp", "var", "std", "var_mean", "std_mean", "nansum",
           "nanmean", "ptp", "vector_norm", "matrix_norm", "norm", "dist", "square_sum_all",
           "is_floating_point", "is_complex", "is_tensor", "numel", "size", "rank", "div_no_nan",
           "mul_no_nan", "squared_difference", "l2_normalize", "real", "imag", "conj", "eps",
           "shape", "dyn_shape", "isnan_ext", "float_power_ext", "tensor_gt", "hyper_add",
           "augassign_add", "augassign_sub", "augassign_mul", "augassign_div",
           "augassign_floordiv", "augassign_mod", "clip_by_value", "clip_by_norm",
           "clip_by_global_norm", "deepcopy", "dense"]

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
    if rounding_mode is None:
        return M.div(input, other)
    if rounding_mode == "floor":
        return M.floor_div(input, other)
    if rounding_mode == "trunc":
        return truncate_div(input, other)
    raise ValueError(f"For 'divide', 'rounding_mode' must be None, 'floor' or 'trunc', but got "
                     f"{rounding_mode!r}.")


def true_divide(dividend, divisor):
    return M.div(dividend, divisor)


def inv(x):
    """1 / x."""
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
    """Elementwise max that ignores NaN (NaN only where both are)."""
    return _where(M.isnan(input), M.add(M.mul(input, 0), other),
                  _where(M.isnan(other), M.add(M.mul(other, 0), input), M.maximum(input, other)))


def fmin(input, other):  # noqa: A002
    """Elementwise min that ignores NaN (NaN only where both are)."""
    return _where(M.isnan(input), M.add(M.mul(input, 0), other),
                  _where(M.isnan(other), M.add(M.mul(other, 0), input), M.minimum(input, other)))


def truncate_div(input_x, input_y):
    """input_x / input_y rounded toward zero (integer division for integers)."""
    if isinstance(input_x, Tensor) and not input_x.dtype.is_float:
        q = M.floor_div(input_x, input_y)
        r = M.floor_mod(input_x, input_y)
        # floor and trunc differ by one where the remainder is nonzero and the signs differ
        fix_up = M.logical_and(M.not_equal(r, 0), M.less(M.mul(input_x, input_y), 0))
        return M.add(q, A.cast(fix_up, q.dtype))
    return trunc(M.div(input_x, input_y))


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


# -- reductions ------------------------------------------------------------------------------
def _axis(axis):
    return () if axis is None else axis


def _nonzero_f32(x):
    return A.cast(M.not_equal(x, 0) if x.dtype != mstype.bool_ else x, mstype.float32)


def all(input, axis=None, keep_dims=False):  # noqa: A001,A002
    """Whether every element along axis (all when None) is nonzero; a bool Tensor."""
    _check_tensor("all", "input", input)
    return A.cast(M.reduce_min(_nonzero_f32(input), _axis(axis), keep_dims), mstype.bool_)


def any(input, axis=None, keep_dims=False):  # noqa: A001,A002
    """Whether some element along axis (all when None) is nonzero; a bool Tensor."""
    _check_tensor("any", "input", input)
    return A.cast(M.reduce_max(_nonzero_f32(input), _axis(axis), keep_dims), mstype.bool_)


def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """The number of nonzero elements along axis (all when () or None)."""
    _check_tensor("count_nonzero", "x", x)
    nz = A.cast(M.not_equal(x, 0) if x.dtype != mstype.bool_ else x, mstype.int32)
    return A.cast(M.reduce_sum(nz, _axis(axis), keep_dims), mstype.to_type(dtype))


def logsumexp(input, axis, keep_dims=False):  # noqa: A002
    """log(sum(exp(input))) along axis, shifted by the (gradient-free) max so exp cannot
    overflow."""
    x = _floatify(input)
    m = _stop_gradient(M.reduce_max(x, axis, True))
    out = M.add(M.log(M.reduce_sum(M.exp(M.sub(x, m)), axis, True)), m)
    return out if keep_dims else A.squeeze(out, axis if isinstance(axis, (tuple, list))
                                            else (axis,))


def _count(x, axis):
    axes = range(x.ndim) if axis in (None, ()) else (
        axis if isinstance(axis, (tuple, list)) else (axis,))
    n = 1
    for a in axes:
        n *= x.shape[a]
    return n


def var(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """The variance along axis: mean((x - mean)^2) * n / (n - ddof); ddof may be a bool
    (True: 1)."""
    return var_mean(input, axis, ddof, keepdims)[0]


def var_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """(var, mean) along axis; see `var`."""
    _check_tensor("var", "input", input)
    x = _floatify(input)
    mu = M.reduce_mean(x, _axis(axis), True)
    n = _count(x, axis)
    ddof = int(ddof)
    v = M.mul(M.reduce_sum(M.square(M.sub(x, mu)), _axis(axis), keepdims),
              1.0 / (n - ddof) if n > ddof else float("nan"))
    return v, (mu if keepdims else M.reduce_mean(x, _axis(axis), False))


def std(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """sqrt(var(input, axis, ddof, keepdims))."""
    return M.sqrt(var(input, axis, ddof, keepdims))


def std_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    v, mu = var_mean(input, axis, ddof, keepdims)
    return M.sqrt(v), mu


def nansum(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """The sum with NaNs counted as zero."""
    _check_tensor("nansum", "input", input)
    x = input if dtype is None else A.cast(input, mstype.to_type(dtype))
    if x.dtype.is_float:
        x = _where(M.isnan(x), A.zeros_like(x), x)
    return M.reduce_sum(x, _axis(axis), keepdims)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """The mean over the elements that are not NaN."""
    _check_tensor("nanmean", "input", input)
    x = _floatify(input if dtype is None else A.cast(input, mstype.to_type(dtype)))
    kept = A.cast(M.logical_not(M.isnan(x)), x.dtype)
    return M.div(nansum(x, axis, keepdims), M.reduce_sum(kept, _axis(axis), keepdims))


def ptp(input, axis=None, keepdims=False):  # noqa: A002
    """max - min along axis."""
    return M.sub(M.reduce_max(input, _axis(axis), keepdims),
                 M.reduce_min(input, _axis(axis), keepdims))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The vector p-norm over dim (all elements when None): ord 2 (default), inf, -inf, 0 or
    any other number p (sum |x|^p)^(1/p)."""
    _check_tensor("vector_norm", "x", x)
    if dtype is not None:
        x = A.cast(x, mstype.to_type(dtype))
    x = _floatify(x)
    axis = _axis(dim)
    ax = M.abs(x)
    if ord == 2:
        return M.sqrt(M.reduce_sum(M.square(x), axis, keepdim))
    if ord == float("inf"):
        return M.reduce_max(ax, axis, keepdim)
    if ord == float("-inf"):
        return M.reduce_min(ax, axis, keepdim)
    if ord == 0:
        return M.reduce_sum(A.cast(M.not_equal(x, 0.0), x.dtype), axis, keepdim)
    if ord == 1:
        return M.reduce_sum(ax, axis, keepdim)
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise TypeError(f"For 'vector_norm', 'ord' must be a number, but got {ord!r}.")
    return M.pow(M.reduce_sum(M.pow(ax, float(ord)), axis, keepdim), 1.0 / ord)


def matrix_norm(A_, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The Frobenius norm ('fro') or the max/min absolute column (ord 1/-1) or row (inf/-inf)
    sum over the two dims; the spectral and nuclear norms need an SVD minispore lacks."""
    _check_tensor("matrix_norm", "A", A_)
    x = _floatify(A_ if dtype is None else A.cast(A_, mstype.to_type(dtype)))
    d0, d1 = (d % x.ndim for d in dim)
    if ord == "fro":
        return M.sqrt(M.reduce_sum(M.square(x), (d0, d1), keepdim))
    if ord in (1, -1, float("inf"), float("-inf")):
        over, then = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = M.reduce_sum(M.abs(x), over, True)
        pick = M.reduce_max if ord > 0 else M.reduce_min
        out = pick(sums, then, True)
        return out if keepdim else A.squeeze(out, (d0, d1))
    raise NotImplementedError(f"For 'matrix_norm', ord={ord!r} needs a singular value "
                              f"decomposition, which minispore does not implement.")


def norm(A_, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """ord None: the 2-norm of the flattened input (or over dim); a 2-tuple dim or a string
    ord: matrix_norm; otherwise vector_norm."""
    if isinstance(ord, str) or (isinstance(dim, (tuple, list)) and len(dim) == 2
                                and ord is not None):
        return matrix_norm(A_, "fro" if ord is None else ord, tuple(dim or (-2, -1)), keepdim,
                           dtype=dtype)
    return vector_norm(A_, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def dist(input, other, p=2):  # noqa: A002
    """The p-norm of input - other (broadcast), flattened."""
    return vector_norm(M.sub(input, other), p)


def square_sum_all(input_x1, input_x2):
    """(sum(x1^2), sum(x2^2))."""
    return M.reduce_sum(M.square(input_x1)), M.reduce_sum(M.square(input_x2))


def l2_normalize(x, axis=0, epsilon=1e-4):
    """x / sqrt(max(sum(x^2, axis), epsilon)) (L2Normalize)."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    ss = M.reduce_sum(M.square(x), axes, True)
    return M.mul(x, M.rsqrt(M.maximum(ss, epsilon)))


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


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    return _clamp(x, clip_value_min, clip_value_max)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """x (a Tensor or a sequence) scaled by max_norm / total norm when that norm exceeds it;
    the total is the norm_type-norm of all elements together."""
    tensors = [x] if isinstance(x, Tensor) else list(x)
    norms = [vector_norm(t, norm_type) for t in tensors]
    total = norms[0] if len(norms) == 1 else vector_norm(
        A.reshape(_stack_norms(norms), (-1,)), norm_type)
    scale = M.minimum(M.div(float(max_norm), M.add(total, 1e-6)), 1.0)
    out = [M.mul(t, A.cast(scale, t.dtype)) for t in tensors]
    return out[0] if isinstance(x, Tensor) else type(x)(out)


def _stack_norms(norms):
    return _stack(norms)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """x (a Tensor or a tuple) scaled by clip_norm / max(global_norm, clip_norm), the global
    norm being the 2-norm of all elements together."""
    tensors = [x] if isinstance(x, Tensor) else list(x)
    norm = use_norm if use_norm is not None else M.sqrt(
        addn([M.reduce_sum(M.square(t)) for t in tensors]) if len(tensors) > 1
        else M.reduce_sum(M.square(tensors[0])))
    scale = M.div(float(clip_norm), M.maximum(norm, float(clip_norm)))
    out = [M.mul(t, A.cast(scale, t.dtype)) for t in tensors]
    return out[0] if isinstance(x, Tensor) else tuple(out)


def deepcopy(input_x):
    return A.identity(input_x)


def dense(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias."""
    out = M.matmul(input, weight, transpose_b=True) if weight.ndim == 2 else \
        M.matmul(input, weight)
    return out if bias is None else M.add(out, bias)
