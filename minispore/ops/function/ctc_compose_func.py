"""ctc_loss: the CTC forward (alpha) recursion over time, composed of GatherD, masks and a
gradient-safe log-sum-exp, so autodiff supplies the backward (beta) pass. Lengths are read on
the host: they fix the masks, as in MindSpore's CTCLossV2 kernel."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import stack, stop_gradient
from minispore.ops.function.index_func import gather_d
from minispore.ops.function.input_checks import check_tensor_dtype as _tensor

__all__ = ["ctc_loss"]

_NAME = "CTCLossV2"
_INTS = (mstype.int32, mstype.int64)


def _lse(terms):
    """log(sum(exp(terms))) elementwise, -inf where every term is -inf. The shift is a constant
    to autodiff and the empty sum is replaced by 1 before the log, so unreachable (-inf) states
    pass back zero gradient, never 0 * inf = NaN."""
    top = terms[0]
    for t in terms[1:]:
        top = M.maximum(top, t)
    top = stop_gradient(top)
    shift = M.select(M.isinf(top), A.zeros_like(top), top)
    total = M.exp(M.sub(terms[0], shift))
    for t in terms[1:]:
        total = M.add(total, M.exp(M.sub(t, shift)))
    empty = M.equal(total, 0.0)
    out = M.add(shift, M.log(M.select(empty, A.ones_like(total), total)))
    return M.select(empty, _neg_inf(out), out)


def _lengths(arg, v, n):
    if isinstance(v, (tuple, list)):
        v = np.asarray(v, np.int64)
    else:
        _tensor(_NAME, arg, v, _INTS)
        v = v.asnumpy().astype(np.int64)
    if v.shape != (n,):
        raise ValueError(f"For primitive[{_NAME}], the {arg}.shape[0] must be equal to {n} , "
                         f"but got {v.shape[0] if v.ndim else v.shape}.")
    return v


def _check(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    if isinstance(blank, bool) or not isinstance(blank, int):
        raise TypeError(f"For 'ctc_loss', the type of 'blank' should be 'int', but got type "
                        f"'{type(blank).__name__}'.")
    if not isinstance(reduction, str) or reduction not in ("none", "sum", "mean"):
        raise ValueError(f"For 'ctc_loss', the 'reduction' must be str and must be in "
                         f"'['none', 'sum', 'mean']', but got {reduction!r}.")
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"For 'ctc_loss', the type of 'zero_infinity' should be 'bool', but got "
                        f"type '{type(zero_infinity).__name__}'.")
    _tensor(_NAME, "log_probs", log_probs, (mstype.float32, mstype.float64))
    _tensor(_NAME, "targets", targets, _INTS)
    if log_probs.ndim != 3:
        raise ValueError(f"For primitive[{_NAME}], the dim of log_probs must be equal to 3 , "
                         f"but got {log_probs.ndim}.")
    if targets.ndim != 2:
        raise ValueError(f"For primitive[{_NAME}], the dim of targets must be equal to 2 , but "
                         f"got {targets.ndim}.")
    t_max, n, c = log_probs.shape
    if not 0 <= blank < c:
        raise ValueError(f"For primitive[{_NAME}], the blank must be in [0,{c}), but got "
                         f"{blank}.")
    il = _lengths("input_lengths", input_lengths, n)
    tl = _lengths("target_lengths", target_lengths, n)
    labels = targets.asnumpy().astype(np.int64)
    for i in range(n):
        if not 0 <= tl[i] <= labels.shape[1]:
            raise RuntimeError(f"For '{_NAME}', the target_lengths[{i}] = {tl[i]} is negative "
                               f"or larger than target.shape[1] = {labels.shape[1]}.")
        if il[i] > t_max:
            raise RuntimeError(f"For '{_NAME}', the input_lengths[{i}] = {il[i]} should be not "
                               f"greater than probs.shape[0] = {t_max}")
        if not tl[i] <= il[i]:
            raise RuntimeError(f"For '{_NAME}', the input_lengths[{i}] = {il[i]} should be "
                               f"non-negative and not smaller than tar_len_p[{i}] = {tl[i]}")
        used = labels[i, :tl[i]]
        # MindSpore's CPU kernel reads out of bounds here; refuse instead
        if used.size and (used.min() < 0 or used.max() >= c):
            raise ValueError(f"For '{_NAME}', targets[{i}] must hold class ids in [0, {c}), "
                             f"but got {used.tolist()}.")
    return il, tl, labels


def _extended(labels, tl, blank):
    """The blank-interleaved label sequences l' (N, 2S+1), the states each one may skip into
    (a label differing from the label two states back) and the states inside 2 tl + 1."""
    n, s = labels.shape
    ext = np.full((n, 2 * s + 1), blank, np.int64)
    ext[:, 1::2] = np.where(np.arange(s) < tl[:, None], labels, blank)
    skip = np.zeros(ext.shape, bool)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    inside = np.arange(2 * s + 1)[None, :] < (2 * tl + 1)[:, None]
    return ext, skip, inside


def _neg_inf(x, cols=None):
    """-inf of x's dtype, of x's shape or (rows of x, cols)."""
    shape = tuple(x.shape) if cols is None else (x.shape[0], cols)
    return A.fill(x.dtype, shape, -np.inf)


def _forward(log_probs, il, tl, ext, skip, inside):
    """log_alpha (N, T, 2S+1) by the recursion
    alpha_t(s) = lse(alpha_{t-1}(s), alpha_{t-1}(s-1), [skip] alpha_{t-1}(s-2)) + lp_t(l'_s),
    started from a virtual alpha_{-1} = (0, -inf, ...); rows t >= max(input_length, 1) are -inf
    (MindSpore fills row 0 even for an empty input)."""
    t_max, n, _ = log_probs.shape
    width = ext.shape[1]
    lp = A.transpose(log_probs, (1, 0, 2))                              # (N, T, C)
    index = Tensor(np.broadcast_to(ext[:, None, :], (n, t_max, width)).copy(), mstype.int64)
    emit = gather_d(lp, 2, index)                                       # lp_t(l'_s), (N, T, L)
    skip_t, inside_t = Tensor(skip), Tensor(inside)
    start = np.full((n, width), -np.inf)
    start[:, 0] = 0.0
    alpha = Tensor(start, log_probs.dtype)
    rows = []
    for t in range(t_max):
        stay = alpha
        step = A.concat((_neg_inf(alpha, 1), alpha[:, :-1]), 1)
        jump = A.concat((_neg_inf(alpha, 2), alpha[:, :-2]), 1)
        jump = M.select(skip_t, jump, _neg_inf(jump))
        alpha = M.add(_lse((stay, step, jump)), emit[:, t, :])
        alpha = M.select(inside_t, alpha, _neg_inf(alpha))
        live = Tensor((t < np.maximum(il, 1))[:, None])
        rows.append(M.select(live, alpha, _neg_inf(alpha)))
    return stack(rows, 1)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist Temporal Classification loss of log_probs (T, N, C) for padded targets
    (N, S) of class ids (blank excluded), input_lengths and target_lengths (N,) (Tensors or
    tuples). Returns (neg_log_likelihood, log_alpha): -log p(target | input) per sample ('none',
    (N,)), summed ('sum') or divided by max(target_length, 1) and averaged ('mean', in float32 as
    MindSpore does); log_alpha (N, T, 2S+1) the forward log-probabilities.

    The gradient is MindSpore's (and PyTorch's): exp(log_probs) - posterior occupancy over
    t < input_length, i.e. the gradient with respect to logits when log_probs is a log_softmax
    (the exp term is in the null space of log_softmax's backward). It is not the derivative with
    respect to log_probs themselves. zero_infinity keeps an infinite loss in the output, as
    MindSpore's CPU kernel does, and zeroes its gradient."""
    il, tl, labels = _check(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                            zero_infinity)
    ext, skip, inside = _extended(labels, tl, blank)
    log_alpha = _forward(log_probs, il, tl, ext, skip, inside)
    n, width = ext.shape
    last = Tensor(np.maximum(il - 1, 0).reshape(n, 1, 1).repeat(width, 2), mstype.int64)
    final = A.reshape(gather_d(log_alpha, 1, last), (n, width))
    # a path ends in the last label or the blank after it
    ends = gather_d(final, 1, Tensor(np.stack([2 * tl, np.maximum(2 * tl - 1, 0)], 1), mstype.int64))
    last_label = M.select(Tensor(tl > 0), ends[:, 1], _neg_inf(ends[:, 1]))
    nll = M.neg(_lse((ends[:, 0], last_label)))
    # an empty input has the empty alignment only (tl <= il forces tl == 0): probability 1
    nll = M.select(Tensor(il > 0), nll, M.neg(A.zeros_like(nll)))   # -log(1), -0.0 as MindSpore
    # exp(log_probs) summed over the live steps: its gradient is the term MindSpore adds, and
    # e - stop_gradient(e) is exactly 0, so the loss value is untouched
    live = Tensor((np.arange(log_probs.shape[0])[:, None] < il[None, :])[:, :, None])
    mass = M.reduce_sum(M.select(live, M.exp(log_probs), A.zeros_like(log_probs)), (0, 2))
    loss = M.add(nll, M.sub(mass, stop_gradient(mass)))
    if zero_infinity:
        frozen = stop_gradient(nll)
        loss = M.select(M.isinf(frozen), frozen, loss)
    if reduction == "sum":
        return M.reduce_sum(loss), log_alpha
    if reduction == "mean":
        per = M.div(A.cast(loss, mstype.float32), Tensor(np.maximum(tl, 1), mstype.float32))
        return A.cast(M.reduce_mean(per), log_probs.dtype), log_alpha
    return loss, log_alpha
