"""Functional forms of math operators (ops.add, ops.exp, ops.reduce_mean, ops.bmm …)."""
import math

from minispore.common import dtype as _mstype
from minispore.ops.function.array_func import cast as _cast
from minispore.ops.function.array_func import reshape as _reshape
from minispore.ops.operations import math_ops as _M
from minispore.ops.operations._base import cached_op
from minispore.ops.operations import matmul_ops as _MM
from minispore.ops.operations import binary_math_ops as _B
from minispore.ops.operations import logic_ops as _L
from minispore.ops.operations import unary_math_ops as _U
from minispore.ops.operations import debug_ops as _D

_add, _sub, _mul, _div, _neg = _M.Add(), _M.Sub(), _M.Mul(), _M.RealDiv(), _M.Neg()
_maximum, _minimum, _pow = _M.Maximum(), _M.Minimum(), _M.Pow()
_floor_div, _floor_mod = _M.FloorDiv(), _M.FloorMod()
_exp, _log, _sqrt, _rsqrt = _M.Exp(), _M.Log(), _M.Sqrt(), _M.Rsqrt()
_square, _abs = _M.Square(), _M.Abs()
_equal, _not_equal = _M.Equal(), _M.NotEqual()
_less, _less_equal, _greater, _greater_equal = (_M.Less(), _M.LessEqual(), _M.Greater(),
                                                _M.GreaterEqual())
_select = _M.Select()
_flags = [(a, b) for a in (False, True) for b in (False, True)]
_matmuls = {f: _MM.MatMul(*f) for f in _flags}
_batch_matmuls = {f: _MM.BatchMatMul(*f) for f in _flags}
_reduce_sum = {k: _M.ReduceSum(k) for k in (False, True)}
_reduce_mean = {k: _M.ReduceMean(k) for k in (False, True)}
_reduce_max = {k: _M.ReduceMax(k) for k in (False, True)}
_reduce_min = {k: _M.ReduceMin(k) for k in (False, True)}


def add(x, y):
    return _add(x, y)


def sub(x, y):
    return _sub(x, y)


def mul(x, y):
    return _mul(x, y)


def div(x, y):
    return _div(x, y)


def neg(x):
    return _neg(x)


def floor_div(x, y):
    """x // y elementwise (floor division; ints stay ints)."""
    return _floor_div(x, y)


def floor_divide(input, other):  # noqa: A002
    return _floor_div(input, other)


def floor_mod(x, y):
    """x % y elementwise, the remainder taking the divisor's sign."""
    return _floor_mod(x, y)


def remainder(input, other):  # noqa: A002
    return _floor_mod(input, other)


def maximum(input, other):  # noqa: A002 - MindSpore's argument name
    """Elementwise max with broadcasting; ties split the gradient in halves."""
    return _maximum(input, other)


def minimum(input, other):  # noqa: A002
    """Elementwise min with broadcasting; ties split the gradient in halves."""
    return _minimum(input, other)


def pow(input, exponent):  # noqa: A001,A002
    """input ** exponent elementwise; either may be a number (the other a Tensor)."""
    return _pow(input, exponent)


def exp(input):  # noqa: A002
    return _exp(input)


def log(input):  # noqa: A002
    return _log(input)


def sqrt(input):  # noqa: A002
    return _sqrt(input)


def rsqrt(input):  # noqa: A002
    return _rsqrt(input)


def square(input):  # noqa: A002
    return _square(input)


def abs(input):  # noqa: A001,A002
    return _abs(input)


def equal(input, other):  # noqa: A002
    return _equal(input, other)


def not_equal(input, other):  # noqa: A002
    return _not_equal(input, other)


def less(input, other):  # noqa: A002
    return _less(input, other)


def less_equal(input, other):  # noqa: A002
    return _less_equal(input, other)


def greater(input, other):  # noqa: A002
    return _greater(input, other)


def greater_equal(input, other):  # noqa: A002
    return _greater_equal(input, other)


eq, ne, lt, le, gt, ge = equal, not_equal, less, less_equal, greater, greater_equal


def select(cond, input, other):  # noqa: A002
    """input where cond else other (broadcasting); input or other may be a number."""
    return _select(cond, input, other)


def matmul(input, other, transpose_a=False, transpose_b=False):  # noqa: A002
    """The matrix product of `input` and `other` with numpy's (np.matmul's) rules.

    - both 2-D: (M, K) @ (K, N) -> (M, N), one MatMul;
    - a 1-D operand is promoted to a matrix ((K,) -> (1, K) on the left, (K, 1) on the
      right) and the added dim is removed from the result: (K,) @ (K,) -> ();
    - otherwise the last two dims are the matrices and the leading (batch) dims broadcast:
      (2, 3, 4) @ (4, 5) -> (2, 3, 5), (2, 1, 3, 4) @ (1, 5, 4, 6) -> (2, 5, 3, 6). An N-D
      `input` times a 2-D `other` runs as one MatMul on the rows; the rest pads the ranks
      with leading 1s and runs one BatchMatMul, whose gradient sums over broadcast dims.
    `transpose_a` / `transpose_b` (minispore's, used by bprops; not in MindSpore's
    signature) transpose the last two dims of an operand of rank >= 2 first.
    Raises TypeError for non-Tensor or 0-d operands and ValueError when the contracted dims
    differ or the batch dims do not broadcast.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.matmul(ms.Tensor(np.ones((2, 3, 4), np.float32)),
    ...               ms.Tensor(np.ones((4, 5), np.float32))).shape
    (2, 3, 5)
    """
    flags = (transpose_a, transpose_b)
    a, b = input, other
    if getattr(a, "ndim", None) == 2 and getattr(b, "ndim", None) == 2:
        return _matmuls[flags](a, b)
    for name, t in (("input", a), ("other", b)):
        if not hasattr(t, "ndim") or not hasattr(t, "shape"):
            raise TypeError(f"For 'matmul', '{name}' must be a Tensor, but got "
                            f"{type(t).__name__}.")
        if t.ndim == 0:
            raise ValueError(f"For 'matmul', '{name}' must have rank >= 1, but got a 0-d "
                             f"tensor.")
    if (a.ndim == 1 and transpose_a) or (b.ndim == 1 and transpose_b):
        raise ValueError("For 'matmul', transpose_a / transpose_b need an operand of rank "
                         ">= 2.")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    if a_vec:
        a = _reshape(a, (1,) + tuple(a.shape))
    if b_vec:
        b = _reshape(b, tuple(b.shape) + (1,))
    k_a = a.shape[-2] if transpose_a else a.shape[-1]
    k_b = b.shape[-1] if transpose_b else b.shape[-2]
    if isinstance(k_a, int) and isinstance(k_b, int) and k_a != k_b:
        raise ValueError(f"For 'matmul', the last dim of 'input' must equal the "
                         f"second-to-last dim of 'other', but got input.shape "
                         f"{tuple(input.shape)} and other.shape {tuple(other.shape)}.")
    if a.ndim == 2 and b.ndim == 2:
        out = _matmuls[flags](a, b)
    elif b.ndim == 2 and not transpose_a:
        # (..., M, K) @ (K, N): the batch folds into the rows of one GEMM.
        lead = tuple(a.shape[:-1])
        out = _matmuls[flags](_reshape(a, (-1, a.shape[-1])), b)
        out = _reshape(out, lead + (out.shape[-1],))
    else:
        rank = max(a.ndim, b.ndim, 3)
        a = _reshape(a, (1,) * (rank - a.ndim) + tuple(a.shape))
        b = _reshape(b, (1,) * (rank - b.ndim) + tuple(b.shape))
        out = _batch_matmuls[flags](a, b)
    if a_vec or b_vec:
        shape = tuple(out.shape)
        drop = ([len(shape) - 2] if a_vec else []) + ([len(shape) - 1] if b_vec else [])
        out = _reshape(out, tuple(d for i, d in enumerate(shape) if i not in drop))
    return out


def batch_matmul(x, y, transpose_a=False, transpose_b=False):
    """op(x) @ op(y) over broadcast leading batch dims: (..., M, K) x (..., K, N) -> (..., M, N)
    (BatchMatMul: equal ranks >= 3)."""
    return _batch_matmuls[(transpose_a, transpose_b)](x, y)


def bmm(input, mat2):  # noqa: A002
    """Batched matrix product, MindSpore 2.x's ops.bmm: (*B, N, C) @ (*B, C, M), batch dims
    broadcast (BatchMatMul)."""
    return _batch_matmuls[(False, False)](input, mat2)


def reduce_sum(x, axis=None, keep_dims=False):
    return _reduce_sum[bool(keep_dims)](x, () if axis is None else axis)


def reduce_mean(x, axis=None, keep_dims=False):
    return _reduce_mean[bool(keep_dims)](x, () if axis is None else axis)


def reduce_max(x, axis=None, keep_dims=False):
    return _reduce_max[bool(keep_dims)](x, () if axis is None else axis)


def reduce_min(x, axis=None, keep_dims=False):
    return _reduce_min[bool(keep_dims)](x, () if axis is None else axis)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001,A002
    """MindSpore 2.x ops.sum: over `dim` (int, tuple or None for all); cast first to `dtype`."""
    if dtype is not None:
        input = _cast(input, _mstype.to_type(dtype))
    return reduce_sum(input, dim, keepdim)


def mean(input, axis=None, keep_dims=False):  # noqa: A002
    """MindSpore 2.x ops.mean."""
    return reduce_mean(input, axis, keep_dims)


def amax(input, axis=None, keepdims=False):  # noqa: A002
    """MindSpore 2.x ops.amax: the max over `axis` (None or () for all)."""
    return reduce_max(input, axis, keepdims)


def amin(input, axis=None, keepdims=False):  # noqa: A002
    """MindSpore 2.x ops.amin: the min over `axis` (None or () for all)."""
    return reduce_min(input, axis, keepdims)


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    """MindSpore 2.x ops.argmax: int64 indices of the maximum along `dim`; dim=None takes the
    index into the flattened input (keepdim is then ignored)."""
    if not isinstance(keepdim, bool):
        raise TypeError(f"For 'argmax', 'keepdim' must be bool, but got "
                        f"{type(keepdim).__name__}.")
    if dim is None:
        return _argmax_op(-1)(_reshape(input, (-1,)))
    out = _argmax_op(dim)(input)
    if keepdim:
        axis = dim % input.ndim
        out = _reshape(out, tuple(input.shape[:axis]) + (1,) + tuple(input.shape[axis + 1:]))
    return out


def _argmax_op(axis):
    return cached_op(_M.Argmax, axis, _mstype.int64)


# -- trigonometric, rounding and special functions (MindSpore's functional names) -------------
def _functional(cls, name, doc):
    """ops.<name>(*tensors): the operator `cls` (one cached instance) applied to them."""
    def op(*inputs):
        return cached_op(cls)(*inputs)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op




sin = _functional(_U.Sin, "sin", "sin(input) elementwise.")
cos = _functional(_U.Cos, "cos", "cos(input) elementwise.")
tan = _functional(_U.Tan, "tan", "tan(input) elementwise.")
sinh = _functional(_U.Sinh, "sinh", "sinh(input) elementwise.")
cosh = _functional(_U.Cosh, "cosh", "cosh(input) elementwise.")
asin = arcsin = _functional(_U.Asin, "asin", "arcsin(input) elementwise (NaN outside [-1, 1]).")
acos = arccos = _functional(_U.ACos, "acos", "arccos(input) elementwise (NaN outside [-1, 1]).")
atan = arctan = _functional(_U.Atan, "atan", "arctan(input) elementwise.")
floor = _functional(_U.Floor, "floor", "The largest integer <= input, elementwise.")
ceil = _functional(_U.Ceil, "ceil", "The smallest integer >= input, elementwise.")
sign = _functional(_U.Sign, "sign", "1, -1 or 0 by the sign of input, elementwise.")
reciprocal = _functional(_U.Reciprocal, "reciprocal", "1 / input, elementwise.")
log1p = _functional(_U.Log1p, "log1p", "log(1 + input), elementwise.")
expm1 = _functional(_U.Expm1, "expm1", "exp(input) - 1, elementwise.")
erf = _functional(_U.Erf, "erf", "The error function of input, elementwise.")
erfc = _functional(_U.Erfc, "erfc", "1 - erf(input), elementwise.")
digamma = _functional(_U.Digamma, "digamma", "psi(input), the derivative of log Gamma.")
erfinv = _functional(_U.Erfinv, "erfinv", "The inverse error function of input, elementwise.")


def mvlgamma(input, p):  # noqa: A002 - MindSpore's argument name
    """The multivariate log-gamma of dimension `p`: sum_{j<p} lgamma(input - j/2) +
    p (p - 1) / 4 log(pi), for Float32 or Float64 input; every element must exceed
    (p - 1) / 2, checked on the values of every call, in a compiled graph too, as MindSpore's
    kernel checks them. MindSpore's errors."""
    if not isinstance(p, int) or isinstance(p, bool) or p < 1:
        raise ValueError(f"For 'Mvlgamma', the 'p' must be int and must > 0, but got '{p}' "
                         f"with type '{type(p).__name__}'.")
    dtype = getattr(input, "dtype", None)
    if dtype not in (_mstype.float32, _mstype.float64):
        got = f"Tensor[{dtype}]" if dtype is not None else type(input).__name__
        raise TypeError(f"For primitive[Mvlgamma], the input argument[x] must be a type of "
                        f"{{Tensor[Float32], Tensor[Float64]}}, but got {got}.")
    input = cached_op(_D.CheckAllGreater, (p - 1) / 2,
                      "For Mvlgamma, all elements of 'x' must be greater than (p-1)/2.")(input)
    out = lgamma(input)
    for j in range(1, p):
        out = out + lgamma(input - j / 2)
    return out + p * (p - 1) / 4 * math.log(math.pi)


def lgamma(input):  # noqa: A002 - MindSpore's argument name
    """log|Gamma(input)| elementwise; an integer input is taken as float32 (MindSpore's)."""
    if hasattr(input, "dtype") and not input.dtype.is_float:
        input = _cast(input, _mstype.float32)
    return cached_op(_U.Lgamma)(input)


atan2 = arctan2 = _functional(_B.Atan2, "atan2", "The angle of the point (other, input).")
hypot = _functional(_B.Hypot, "hypot", "sqrt(input^2 + other^2) elementwise.")
logical_and = _functional(_L.LogicalAnd, "logical_and", "input and other (true when not 0).")
logical_or = _functional(_L.LogicalOr, "logical_or", "input or other (true when not 0).")
logical_xor = _functional(_L.LogicalXor, "logical_xor", "exactly one of input, other is true.")
logical_not = _functional(_L.LogicalNot, "logical_not", "not input (true when not 0).")
isnan = _functional(_L.IsNan, "isnan", "Whether each element is NaN.")
isinf = _functional(_L.IsInf, "isinf", "Whether each element is +inf or -inf.")
isfinite = _functional(_L.IsFinite, "isfinite", "Whether each element is finite.")
