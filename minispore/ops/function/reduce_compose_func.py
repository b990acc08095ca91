"""Reductions and norms composed of existing primitives: all/any, count_nonzero, logsumexp,
var/std (and their _mean forms), nansum/nanmean, ptp, vector/matrix norms, dist, l2_normalize
and the clip_by_value/norm/global_norm family."""
import numbers

from minispore.common import dtype as mstype
from minispore.common.symbolic import is_symbolic
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import clamp as _clamp
from minispore.ops.function.decomp_func import svd
from minispore.ops.function.linalg_func import inverse
from minispore.ops.function.composite_func import stack as _stack
from minispore.ops.function.composite_func import stop_gradient as _stop_gradient
from minispore.ops.function.composite_func import where as _where
from minispore.ops.function.math_compose_func import _check_tensor, _floatify, addn

__all__ = ["all", "any", "count_nonzero", "logsumexp", "var", "std", "var_mean", "std_mean",
           "nansum", "nanmean", "ptp", "vector_norm", "matrix_norm", "norm", "dist",
           "square_sum_all", "l2_normalize", "clip_by_value", "clip_by_norm",
           "clip_by_global_norm", "cond"]


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
    """The Frobenius norm ('fro'), the max/min absolute column (ord 1/-1) or row (inf/-inf)
    sum, or from the singular values the nuclear norm ('nuc': their sum) and the largest (2)
    or smallest (-2), over the two dims."""
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
    if ord in ("nuc", 2, -2) and not isinstance(ord, bool):
        rest = [d for d in range(x.ndim) if d not in (d0, d1)]
        s = svd(A.transpose(x, tuple(rest) + (d0, d1)), compute_uv=False)
        out = M.reduce_sum(s, -1) if ord == "nuc" else (s[..., 0] if ord == 2 else s[..., -1])
        if keepdim:
            for d in sorted((d0, d1)):
                out = A.expand_dims(out, d)
        return out
    raise ValueError(f"For 'matrix_norm', 'ord' must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or "
                     f"-2, but got {ord!r}.")


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
    """(sum(x1^2), sum(x2^2)) of two float16 or float32 tensors of one dtype and shape."""
    for arg_name, x in (("x", input_x1), ("y", input_x2)):
        _check_tensor("SquareSumAll", arg_name, x)
        if x.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"For 'SquareSumAll', the input '{arg_name}' must be a Tensor of "
                            f"Float16 or Float32, but got {x.dtype}.")
    if input_x1.dtype != input_x2.dtype:
        raise TypeError(f"For 'SquareSumAll', the inputs must have the same dtype, but got "
                        f"{input_x1.dtype} and {input_x2.dtype}.")
    # dynamic dims are only known when the graph runs
    static = not (is_symbolic(input_x1.shape) or is_symbolic(input_x2.shape))
    if static and tuple(input_x1.shape) != tuple(input_x2.shape):
        raise ValueError(f"For 'SquareSumAll', the inputs must have the same shape, but got "
                         f"{tuple(input_x1.shape)} and {tuple(input_x2.shape)}.")
    return M.reduce_sum(M.square(input_x1)), M.reduce_sum(M.square(input_x2))


def l2_normalize(x, axis=0, epsilon=1e-4):
    """x / sqrt(max(sum(x^2, axis), epsilon)) (L2Normalize)."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    ss = M.reduce_sum(M.square(x), axes, True)
    return M.mul(x, M.rsqrt(M.maximum(ss, epsilon)))


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


def cond(A, p=None):  # noqa: N803 - MindSpore's argument name
    """The condition number of the square matrices A (..., n, n) in the norm `p`: with p None,
    2 or -2, the ratio of the extreme singular values (largest over smallest; -2 the inverse);
    with 'fro', 'nuc', inf, -inf, 1 or -1, matrix_norm(A, p) * matrix_norm(A^-1, p), as
    MindSpore computes it."""
    if not isinstance(A, Tensor) or A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        shape = tuple(A.shape) if isinstance(A, Tensor) else type(A).__name__
        raise ValueError(f"For 'cond', 'A' must be a Tensor of square matrices (..., n, n), but "
                         f"got {shape}.")
    if p is None or (not isinstance(p, (bool, str)) and p in (2, -2)):
        s = svd(A, compute_uv=False)
        big, small = s[..., 0], s[..., -1]
        return small / big if p == -2 else big / small
    return matrix_norm(A, p) * matrix_norm(inverse(A), p)
