"""Losses: LossBase with get_loss, SoftmaxCrossEntropyWithLogits, CrossEntropyLoss, NLLLoss, MSELoss,
L1Loss, SmoothL1Loss, BCEWithLogitsLoss."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F
from minispore.ops.operations._base import shapes_equal
from minispore.ops.operations.nn_ops import CheckLabelRange

__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss", "MSELoss",
           "L1Loss", "SmoothL1Loss", "BCEWithLogitsLoss"]

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(name, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For '{name}', 'reduction' must be one of {list(_REDUCTIONS)}, but got "
                         f"{reduction!r}.")
    return reduction


def _check_tensor(name, arg_name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg_name}' must be a Tensor, but got "
                        f"{type(x).__name__}.")


class LossBase(Cell):
    """Base of losses: ``get_loss(x, weights=1.0)`` applies the weights and the reduction
    ('none', 'mean' or 'sum'; anything else is a ValueError)."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction)

    def get_axis(self, x):
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = F.mul(x, weights)
        if self.reduction == "mean":
            return F.reduce_mean(x, self.get_axis(x))
        if self.reduction == "sum":
            return F.reduce_sum(x, self.get_axis(x))
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__} must define construct().")


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Per sample: loss = -sum_c y_c log softmax(x)_c = logsumexp(x) - x[label] (sparse).

    logits: (N, C) float16/float32. labels: (N,) int32/int64 in [0, C) when ``sparse`` (a label
    outside raises ValueError, as ops.SparseSoftmaxCrossEntropyWithLogits does), else (N, C) of
    the logits' dtype (TypeError otherwise). 'none' gives (N,).

    >>> import numpy as np, minispore as ms
    >>> from minispore import nn
    >>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    >>> round(float(loss(ms.Tensor(np.zeros((2, 4), np.float32)),
    ...                  ms.Tensor(np.array([0, 3], np.int32)))), 4)
    1.3863
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"For 'SoftmaxCrossEntropyWithLogits', 'sparse' must be bool, but "
                            f"got {type(sparse).__name__}.")
        self.sparse = sparse
        self.check_labels = CheckLabelRange("SoftmaxCrossEntropyWithLogits")

    def _check(self, logits, labels):
        name = "SoftmaxCrossEntropyWithLogits"
        _check_tensor(name, "logits", logits)
        _check_tensor(name, "labels", labels)
        if logits.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"For '{name}', the dtype of 'logits' must be float16 or float32, "
                            f"but got {logits.dtype}.")
        if logits.ndim != 2:
            raise ValueError(f"For '{name}', 'logits' must be 2-D (N, C), but got shape "
                             f"{tuple(logits.shape)}.")
        if self.sparse:
            if labels.dtype not in (mstype.int32, mstype.int64):
                raise TypeError(f"For '{name}' with sparse=True, the dtype of 'labels' must be "
                                f"int32 or int64, but got {labels.dtype}.")
            if not shapes_equal(name, labels.shape, logits.shape[:1]):
                raise ValueError(f"For '{name}' with sparse=True, 'labels' must have shape "
                                 f"{tuple(logits.shape[:1])}, but got {tuple(labels.shape)}.")
        else:
            if labels.dtype != logits.dtype:
                raise TypeError(f"For '{name}', the dtype of 'labels' ({labels.dtype}) must "
                                f"equal the dtype of 'logits' ({logits.dtype}).")
            if not shapes_equal(name, labels.shape, logits.shape):
                raise ValueError(f"For '{name}', 'labels' must have the shape of 'logits' "
                                 f"{tuple(logits.shape)}, but got {tuple(labels.shape)}.")

    def construct(self, logits, labels):
        self._check(logits, labels)
        if self.sparse:
            labels = F.one_hot(self.check_labels(labels, logits.shape[-1]), logits.shape[-1],
                               Tensor(1.0, logits.dtype), Tensor(0.0, logits.dtype))
        loss = F.softmax_cross_entropy_with_logits(logits, labels, self.sparse)[0]
        return self.get_loss(loss)


class CrossEntropyLoss(LossBase):
    """Cross entropy of logits (N, C) against class indices (N,) or class probabilities
    (N, C): loss_i = -sum_c w_c t_ic log softmax(x_i)_c, with t smoothed as
    (1 - label_smoothing) t + label_smoothing / C. With indices, targets equal to
    ``ignore_index`` count zero and 'mean' divides by the summed weights of the kept targets;
    any other index outside [0, C) raises ValueError.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'CrossEntropyLoss', 'weight' must be a Tensor or None, but "
                            f"got {type(weight).__name__}.")
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"For 'CrossEntropyLoss', 'ignore_index' must be an int, but got "
                            f"{type(ignore_index).__name__}.")
        if not isinstance(label_smoothing, float) or not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', 'label_smoothing' must be a float in "
                             f"[0.0, 1.0], but got {label_smoothing!r}.")
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.check_labels = CheckLabelRange("CrossEntropyLoss", ignore_index)

    def construct(self, logits, labels):
        name = "CrossEntropyLoss"
        _check_tensor(name, "logits", logits)
        _check_tensor(name, "labels", labels)
        if logits.ndim != 2:
            raise ValueError(f"For '{name}', 'logits' must be 2-D (N, C), but got shape "
                             f"{tuple(logits.shape)}.")
        n, c = logits.shape
        logp = F.log_softmax(logits, -1)
        class_w = self.weight if self.weight is not None else F.ones((c,), logits.dtype)
        if labels.dtype.is_int:
            if not shapes_equal(name, labels.shape, (n,)):
                raise ValueError(f"For '{name}', class-index 'labels' must have shape ({n},), "
                                 f"but got {tuple(labels.shape)}.")
            labels = self.check_labels(labels, c)
            keep = F.cast(F.not_equal(labels, self.ignore_index), logits.dtype)
            safe = F.mul(labels, F.cast(keep, labels.dtype))
            target = F.one_hot(safe, c, Tensor(1.0, logits.dtype), Tensor(0.0, logits.dtype))
            sample_w = F.mul(F.reduce_sum(F.mul(target, class_w), -1), keep)
        else:
            if not shapes_equal(name, labels.shape, (n, c)) or labels.dtype != logits.dtype:
                raise ValueError(f"For '{name}', probability 'labels' must have the shape "
                                 f"{(n, c)} and dtype {logits.dtype} of 'logits', but got "
                                 f"{tuple(labels.shape)} {labels.dtype}.")
            target, keep = labels, None
            sample_w = None
        if self.label_smoothing > 0:
            target = F.add(F.mul(target, 1.0 - self.label_smoothing), self.label_smoothing / c)
        per_class = F.mul(F.mul(target, logp), class_w)
        loss = F.neg(F.reduce_sum(per_class, -1))
        if keep is not None:
            loss = F.mul(loss, keep)
        if self.reduction == "none":
            return loss
        total = F.reduce_sum(loss)
        if self.reduction == "sum":
            return total
        if sample_w is None:
            return F.div(total, float(n))
        return F.div(total, F.reduce_sum(sample_w))


class MSELoss(LossBase):
    """loss = (x - y)^2 elementwise (broadcasting), then the reduction."""

    def construct(self, logits, labels):
        return self.get_loss(F.square(F.sub(logits, labels)))


class L1Loss(LossBase):
    """loss = |x - y| elementwise (broadcasting), then the reduction."""

    def construct(self, logits, labels):
        return self.get_loss(F.abs(F.sub(logits, labels)))


def _check_float_tensor(name, arg_name, x):
    _check_tensor(name, arg_name, x)
    if x.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For '{name}', the dtype of '{arg_name}' must be float32 or float64, "
                        f"but got {x.dtype}.")


class NLLLoss(LossBase):
    """Negative log-likelihood of log-probabilities ``logits`` (N, C) or (N, C, d1, ...)
    against class indices ``labels`` (N,) or (N, d1, ...): loss = -weight[t] * logits[.., t, ..].
    Targets equal to ``ignore_index`` count zero; 'mean' divides by the summed weights of the
    kept targets (MindSpore's and PyTorch's definition); any other index outside [0, C) raises
    ValueError.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'NLLLoss', 'weight' must be a Tensor or None, but got "
                            f"{type(weight).__name__}.")
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"For 'NLLLoss', 'ignore_index' must be an int, but got "
                            f"{type(ignore_index).__name__}.")
        self.weight = weight
        self.ignore_index = ignore_index
        self.check_labels = CheckLabelRange("NLLLoss", ignore_index)

    def construct(self, logits, labels):
        name = "NLLLoss"
        _check_float_tensor(name, "logits", logits)
        _check_tensor(name, "labels", labels)
        if logits.ndim < 2:
            raise ValueError(f"For '{name}', 'logits' must be (N, C) or (N, C, d1, ...), but "
                             f"got shape {tuple(logits.shape)}.")
        c = logits.shape[1]
        want = (logits.shape[0],) + tuple(logits.shape[2:])
        if not labels.dtype.is_int or not shapes_equal(name, labels.shape, want):
            raise ValueError(f"For '{name}', 'labels' must be integer class indices of shape "
                             f"{want}, but got {labels.dtype} {tuple(labels.shape)}.")
        if self.weight is not None and tuple(self.weight.shape) != (c,):
            raise ValueError(f"For '{name}', 'weight' must have shape ({c},), but got "
                             f"{tuple(self.weight.shape)}.")
        if logits.ndim > 2:
            # classes last, then one row per (sample, position)
            perm = (0,) + tuple(range(2, logits.ndim)) + (1,)
            logits = F.reshape(F.transpose(logits, perm), (-1, c))
            labels = F.reshape(labels, (-1,))
        labels = self.check_labels(labels, c)
        keep = F.cast(F.not_equal(labels, self.ignore_index), logits.dtype)
        safe = F.mul(labels, F.cast(keep, labels.dtype))
        target = F.one_hot(safe, c, Tensor(1.0, logits.dtype), Tensor(0.0, logits.dtype))
        if self.weight is not None:
            target = F.mul(target, F.cast(self.weight, logits.dtype))
        sample_w = F.mul(F.reduce_sum(target, -1), keep)
        loss = F.neg(F.mul(F.reduce_sum(F.mul(target, logits), -1), keep))
        if self.reduction == "none":
            return F.reshape(loss, want)
        total = F.reduce_sum(loss)
        if self.reduction == "sum":
            return total
        return F.div(total, F.reduce_sum(sample_w))


class SmoothL1Loss(LossBase):
    """Per element, d = |x - y|: loss = 0.5 * d^2 / beta where d < beta, else d - 0.5 * beta;
    then the reduction (MindSpore's default is 'none'). x and y have the same shape and dtype.
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, float):
            raise TypeError(f"For 'SmoothL1Loss', 'beta' must be a float, but got "
                            f"{type(beta).__name__}.")
        if beta <= 0:
            raise ValueError(f"For 'SmoothL1Loss', 'beta' must be greater than 0, but got "
                             f"{beta}.")
        self.beta = beta

    def construct(self, logits, labels):
        name = "SmoothL1Loss"
        _check_float_tensor(name, "logits", logits)
        _check_tensor(name, "labels", labels)
        if labels.dtype != logits.dtype or not shapes_equal(name, labels.shape, logits.shape):
            raise ValueError(f"For '{name}', 'labels' must have the shape {tuple(logits.shape)} "
                             f"and dtype {logits.dtype} of 'logits', but got "
                             f"{tuple(labels.shape)} {labels.dtype}.")
        d = F.abs(F.sub(logits, labels))
        quadratic = F.mul(F.mul(d, d), 0.5 / self.beta)
        linear = F.sub(d, 0.5 * self.beta)
        return self.get_loss(F.select(F.less(d, self.beta), quadratic, linear))


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy of logits x against targets y in [0, 1] (same shape):
    loss = -weight * (pos_weight * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x))),
    computed stably as weight * ((1 - y) * x + (1 + (pos_weight - 1) * y) * softplus(-x))
    with softplus(z) = max(z, 0) + log(1 + exp(-|z|)). ``weight`` and ``pos_weight``
    (Tensors or None) broadcast against x (pos_weight along the last dim, per class).
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        for arg_name, v in (("weight", weight), ("pos_weight", pos_weight)):
            if v is not None and not isinstance(v, Tensor):
                raise TypeError(f"For 'BCEWithLogitsLoss', '{arg_name}' must be a Tensor or "
                                f"None, but got {type(v).__name__}.")
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        name = "BCEWithLogitsLoss"
        _check_float_tensor(name, "logits", logits)
        _check_tensor(name, "labels", labels)
        if labels.dtype != logits.dtype or not shapes_equal(name, labels.shape, logits.shape):
            raise ValueError(f"For '{name}', 'labels' must have the shape {tuple(logits.shape)} "
                             f"and dtype {logits.dtype} of 'logits', but got "
                             f"{tuple(labels.shape)} {labels.dtype}.")
        neg = F.neg(logits)
        softplus_neg = F.add(F.maximum(neg, F.zeros_like(neg)),
                             F.log(F.add(F.exp(F.neg(F.abs(logits))), 1.0)))
        scale = 1.0 if self.pos_weight is None else \
            F.add(F.mul(F.sub(F.cast(self.pos_weight, logits.dtype), 1.0), labels), 1.0)
        loss = F.add(F.mul(F.sub(1.0, labels), logits), F.mul(scale, softplus_neg))
        if self.weight is not None:
            loss = F.mul(loss, F.cast(self.weight, logits.dtype))
        return self.get_loss(loss)
