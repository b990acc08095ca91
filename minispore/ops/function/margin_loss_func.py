"""soft_margin_loss, multilabel_margin_loss and triplet_margin_loss, composed of softplus, GatherD,
masks, norms and reductions so autodiff comes with them. MindSpore 2.7.2's CPU build has no
kernel for any of the three (Ascend/GPU only); formulas, checks and defaults follow its docs,
its shape inference and its GPU kernels."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.index_func import gather_d
from minispore.ops.function.input_checks import check_tensor_dtype as _tensor
from minispore.ops.function.nn_compose_func import reduce_loss, softplus
from minispore.ops.function.nn_func import relu
from minispore.ops.function.sort_func import cumsum

__all__ = ["soft_margin_loss", "multilabel_margin_loss", "triplet_margin_loss"]

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)
_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(name, reduction):
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"For '{name}', the 'reduction' must be str and must be in "
                         f"'{list(_REDUCTIONS)}', but got {reduction!r}.")


def soft_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """log(1 + exp(-y x)) elementwise for targets y in {1, -1} (x and y of one shape), then
    'mean' over all elements, 'sum' or 'none'. Written softplus(-y x), which never overflows."""
    _tensor("soft_margin_loss", "input", input, _FLOATS)
    _tensor("soft_margin_loss", "target", target, _FLOATS)
    _check_reduction("soft_margin_loss", reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"For 'soft_margin_loss', the shape of 'input' and 'target' must be the "
                         f"same, but got {tuple(input.shape)} and {tuple(target.shape)}.")
    loss = softplus(M.neg(M.mul(A.cast(target, input.dtype), input)))
    return reduce_loss("soft_margin_loss", loss, reduction)


def multilabel_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """Multi-label hinge loss of x (C,) or (N, C) for int32 targets of x's shape holding class
    ids, padded by -1 (only the block before the first -1 counts):
    loss_n = sum_{j in targets} sum_{i not a target} max(0, 1 - (x[y_j] - x[i])) / C,
    then 'mean' over samples, 'sum' or 'none' ((N,), or a scalar for 1-D x)."""
    name = "MultilabelMarginLoss"
    _check_reduction(name, reduction)
    _tensor(name, "x", input, _FLOATS)
    _tensor(name, "target", target, (mstype.int32,))
    if input.ndim not in (1, 2) or target.ndim not in (1, 2):
        raise ValueError(f"For {name}, the rank of input x and target should be 1 or 2, while "
                         f"rank of x is : {input.ndim}, rank of target is : {target.ndim}.")
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"For {name}, x_shape and target_shape should be the same, while "
                         f"x_shape is : {tuple(input.shape)}, target_shape is : "
                         f"{tuple(target.shape)}.")
    x = A.reshape(input, (-1, input.shape[-1]))
    t = A.reshape(target, (-1, input.shape[-1]))
    c = x.shape[1]
    # a target counts while no -1 has been met yet: a running count of negatives stays 0
    valid = M.equal(cumsum(A.cast(M.less(t, 0), mstype.int32), 1), 0)
    safe = A.cast(M.select(valid, t, A.zeros_like(t)), mstype.int64)
    picked = gather_d(x, 1, safe)                                        # x[y_j], (N, J)
    hits = A.one_hot(safe, c, Tensor(1.0, x.dtype), Tensor(0.0, x.dtype))   # (N, J, C)
    hits = M.mul(hits, A.expand_dims(A.cast(valid, x.dtype), 2))
    others = A.cast(M.equal(M.reduce_sum(hits, 1), 0.0), x.dtype)       # i not a target, (N, C)
    hinge = relu(M.add(M.sub(A.expand_dims(x, 1), A.expand_dims(picked, 2)), 1.0))
    hinge = M.mul(M.mul(hinge, A.expand_dims(A.cast(valid, x.dtype), 2)),
                  A.expand_dims(others, 1))
    loss = M.div(M.reduce_sum(hinge, (1, 2)), float(c))
    if input.ndim == 1:
        loss = A.reshape(loss, ())
    return reduce_loss(name, loss, reduction)


def _pairwise_distance(a, b, p, eps):
    """(sum_i |a - b + eps|^p over dim 1)^(1/p), as MindSpore's TripletMarginLoss kernel; p = 0
    counts the entries of dim 1."""
    if p == 0:
        return A.fill(a.dtype, (a.shape[0],) + tuple(a.shape[2:]), float(a.shape[1]))
    diff = M.abs(M.add(M.sub(a, b), eps))
    if p == 1:
        return M.reduce_sum(diff, 1)
    return M.pow(M.reduce_sum(M.pow(diff, float(p)), 1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) for inputs broadcast to one shape (N, D, ...), d the
    p-norm over dim 1 of a - b + eps (see _pairwise_distance); swap takes
    d(a, n) = min(d(a, n), d(p, n)). Output (N, ...) for 'none', else its mean or sum."""
    name = "TripletMarginLoss"
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"For '{name}', the type of 'p' should be 'int', but got type "
                        f"'{type(p).__name__}'.")
    if not isinstance(eps, float):
        raise TypeError(f"For '{name}', the type of 'eps' should be 'float', but got type "
                        f"'{type(eps).__name__}'.")
    if not isinstance(swap, bool):
        raise TypeError(f"For '{name}', the type of 'swap' should be 'bool', but got type "
                        f"'{type(swap).__name__}'.")
    _check_reduction(name, reduction)
    for arg, t in (("x", anchor), ("positive", positive), ("negative", negative)):
        _tensor(name, arg, t, _FLOATS)
    if not anchor.dtype == positive.dtype == negative.dtype:
        raise TypeError(f"For primitive[{name}], the input type must be same, but got "
                        f"{anchor.dtype}, {positive.dtype} and {negative.dtype}.")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if max(dims) <= 1:
        raise ValueError(f"For {name}, dimensions of input x, positive and negative cannot be "
                         f"less than 1 at the same time, x_dim: {dims[0]}, positive_dim: "
                         f"{dims[1]}, negative_dim: {dims[2]}.")
    if max(dims) >= 8:
        raise ValueError(f"For {name}, dimensions of input x positive and negative must be "
                         f"smaller than 8, x_dim: {dims[0]}, positive_dim: {dims[1]}, "
                         f"negative_dim: {dims[2]}.")
    try:
        shape = np.broadcast_shapes(*(tuple(t.shape) for t in (anchor, positive, negative)))
    except ValueError:
        raise ValueError(f"For {name}, inputs' shape can't broadcast.") from None
    a, pos, neg = (A.broadcast_to(t, shape) for t in (anchor, positive, negative))
    d_pos = _pairwise_distance(a, pos, p, eps)
    d_neg = _pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = M.minimum(d_neg, _pairwise_distance(pos, neg, p, eps))
    if isinstance(margin, Tensor):
        margin = A.cast(margin, a.dtype)
    elif isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"For '{name}', 'margin' must be a float or a Tensor, but got "
                        f"{type(margin).__name__}.")
    else:
        margin = float(margin)
    loss = relu(M.add(M.sub(d_pos, d_neg), margin))
    return reduce_loss(name, loss, reduction)
