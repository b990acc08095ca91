"""Functional forms of math operators (ops.add, ops.exp, ops.reduce_mean, ops.bmm …)."""
from minispore.common import dtype as _mstype
from minispore.ops.function.array_func import cast as _cast
from minispore.ops.function.array_func import reshape as _reshape
from minispore.ops.operations import math_ops as _M

_add, _sub, _mul, _div, _neg = _M.Add(), _M.Sub(), _M.Mul(), _M.RealDiv(), _M.Neg()
_maximum, _minimum, _pow = _M.Maximum(), _M.Minimum(), _M.Pow()
_exp, _log, _sqrt, _rsqrt = _M.Exp(), _M.Log(), _M.Sqrt(), _M.Rsqrt()
_square, _abs = _M.Square(), _M.Abs()
_equal, _not_equal = _M.Equal(), _M.NotEqual()
_less, _less_equal, _greater, _greater_equal = (_M.Less(), _M.LessEqual(), _M.Greater(),
                                                _M.GreaterEqual())
_select = _M.Select()
_flags = [(a, b) for a in (False, True) for b in (False, True)]
_matmuls = {f: _M.MatMul(*f) for f in _flags}
_batch_matmuls = {f: _M.BatchMatMul(*f) for f in _flags}
_reduce_sum = {k: _M.ReduceSum(k) for k in (False, True)}
_reduce_mean = {k: _M.ReduceMean(k) for k in (False, True)}
_reduce_max = {k: _M.ReduceMax(k) for k in (False, True)}
_reduce_min = {k: _M.ReduceMin(k) for k in (False, True)}
_argmax = {}


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


def matmul(x, y, transpose_a=False, transpose_b=False):
    return _matmuls[(transpose_a, transpose_b)](x, y)


def batch_matmul(x, y, transpose_a=False, transpose_b=False):
    """op(x) @ op(y) over equal leading batch dims: (..., M, K) x (..., K, N) -> (..., M, N)."""
    return _batch_matmuls[(transpose_a, transpose_b)](x, y)


def bmm(input, mat2):  # noqa: A002
    """Batched matrix product, MindSpore 2.x's ops.bmm (equal batch dims here)."""
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
    op = _argmax.get(axis)
    if op is None:
        op = _argmax[axis] = _M.Argmax(axis, _mstype.int64)
    return op
