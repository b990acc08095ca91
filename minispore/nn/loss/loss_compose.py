"""Losses composed of ops' functional forms (ops/function/nn_compose_func.py): MAELoss,
RMSELoss, HuberLoss, BCELoss, KLDivLoss, MarginRankingLoss, HingeEmbeddingLoss,
GaussianNLLLoss, MultiLabelSoftMarginLoss, PoissonNLLLoss, CosineEmbeddingLoss, DiceLoss,
TripletMarginWithDistanceLoss. Formulas and defaults are MindSpore 2.7's."""
import numbers

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.loss.loss import LossBase
from minispore.ops import functional as F
from minispore.ops.function.margin_compose_func import multi_margin_loss_impl

__all__ = ["MAELoss", "RMSELoss", "HuberLoss", "BCELoss", "KLDivLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss",
           "PoissonNLLLoss", "CosineEmbeddingLoss", "DiceLoss", "TripletMarginWithDistanceLoss",
           "MultiClassDiceLoss", "FocalLoss", "MultiMarginLoss"]


def _float(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"For '{name}', '{arg}' must be a float, but got {type(v).__name__}.")
    return float(v)


class MAELoss(LossBase):
    """|x - y| elementwise (broadcasting), then the reduction."""

    def construct(self, logits, label):
        return self.get_loss(F.abs(F.sub(logits, label)))


class RMSELoss(LossBase):
    """sqrt(mean((x - y)^2))."""

    def __init__(self):
        super().__init__("mean")

    def construct(self, logits, label):
        return F.sqrt(self.get_loss(F.square(F.sub(logits, label))))


class HuberLoss(LossBase):
    """0.5 d^2 where d = |x - y| < delta, else delta * (d - 0.5 delta); then the reduction."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = _float("HuberLoss", "delta", delta)
        if self.delta <= 0:
            raise ValueError(f"For 'HuberLoss', 'delta' must be > 0, but got {delta}.")

    def construct(self, logits, labels):
        return F.huber_loss(logits, labels, self.reduction, self.delta)


class BCELoss(LossBase):
    """-(y log p + (1 - y) log(1 - p)) of probabilities p, times weight; then the reduction."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'BCELoss', 'weight' must be a Tensor or None, but got "
                            f"{type(weight).__name__}.")
        self.weight = weight

    def construct(self, logits, labels):
        return F.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class KLDivLoss(LossBase):
    """labels * (log(labels) - logits); reduction 'mean', 'sum', 'none' or 'batchmean'."""

    def __init__(self, reduction="mean"):
        if reduction == "batchmean":
            super().__init__("mean")
        else:
            super().__init__(reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        return F.kl_div(logits, labels, self.reduction)


class MarginRankingLoss(LossBase):
    """max(0, -target * (input1 - input2) + margin); then the reduction."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _float("MarginRankingLoss", "margin", margin)

    def construct(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """max(0, margin - x) where labels == -1, else x; then the reduction."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _float("HingeEmbeddingLoss", "margin", margin)

    def construct(self, logits, labels):
        return F.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class GaussianNLLLoss(LossBase):
    """0.5 (log(max(var, eps)) + (x - y)^2 / max(var, eps)) (+ 0.5 log(2 pi) if full)."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        self.eps = _float("GaussianNLLLoss", "eps", eps)
        if self.eps <= 0:
            raise ValueError(f"For 'GaussianNLLLoss', 'eps' must be > 0, but got {eps}.")
        self.full = bool(full)

    def construct(self, logits, labels, var):
        return F.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """The per-class mean of the sigmoid cross entropy, then the reduction over samples."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        return F.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: sum over j != y of w[y] max(0, margin - x[y] + x[j])^p / C per
    sample (ops.multi_margin_loss; here margin may be a float), then the reduction."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        self.p = p
        self.margin = _float("MultiMarginLoss", "margin", margin)
        self.weight = weight

    def construct(self, x, target, weight=None):
        weight = self.weight if weight is None else weight
        return multi_margin_loss_impl(x, target, self.p, self.margin, weight, self.reduction)


class PoissonNLLLoss(LossBase):
    """exp(x) - y x (log_input) or x - y log(x + eps); full adds Stirling's term."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input, self.full = bool(log_input), bool(full)
        self.eps = _float("PoissonNLLLoss", "eps", eps)

    def construct(self, input, target):  # noqa: A002
        return F.poisson_nll_loss(input, target, self.log_input, self.full, self.eps,
                                  self.reduction)


class CosineEmbeddingLoss(LossBase):
    """1 - cos(x1, x2) where labels == 1, max(0, cos - margin) where labels == -1."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _float("CosineEmbeddingLoss", "margin", margin)
        if not -1 <= self.margin <= 1:
            raise ValueError(f"For 'CosineEmbeddingLoss', 'margin' must be in [-1, 1], but got "
                             f"{margin}.")

    def construct(self, logits_x1, logits_x2, labels):
        return F.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin,
                                       self.reduction)


class DiceLoss(LossBase):
    """1 - 2 sum(x y) / (sum(x^2) + sum(y^2) + smooth)."""

    def __init__(self, smooth=1e-5):
        super().__init__("mean")
        self.smooth = _float("DiceLoss", "smooth", smooth)
        if self.smooth <= 0:
            raise ValueError(f"For 'DiceLoss', 'smooth' must be > 0, but got {smooth}.")

    def construct(self, logits, label):
        return _dice(logits, label, self.smooth)


def _dice(logits, label, smooth):
    inter = F.reduce_sum(F.mul(logits, label))
    union = F.add(F.reduce_sum(F.square(logits)), F.reduce_sum(F.square(label)))
    return F.sub(1.0, F.div(F.mul(inter, 2.0), F.add(union, smooth)))


class MultiClassDiceLoss(LossBase):
    """The mean over classes (dim 1) of DiceLoss between activation(logits)[:, i] and
    label[:, i], each optionally weighted; class `ignore_indiex` (MindSpore's spelling) is
    left out of the sum but not of the count."""

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__("mean")
        if weights is not None and not isinstance(weights, Tensor):
            raise TypeError(f"For 'MultiClassDiceLoss', 'weights' must be a Tensor or None, but "
                            f"got {type(weights).__name__}.")
        if weights is not None and weights.ndim != 2:
            raise ValueError(f"For 'MultiClassDiceLoss', the dimension of 'weights' must be 2, "
                             f"but got {weights.ndim}.")
        if activation not in (None, "softmax", "sigmoid"):
            raise ValueError(f"For 'MultiClassDiceLoss', 'activation' must be 'softmax', "
                             f"'sigmoid' or None, but got {activation!r}.")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation

    def construct(self, logits, label):
        if tuple(logits.shape) != tuple(label.shape) or logits.ndim < 2:
            raise ValueError(f"For 'MultiClassDiceLoss', 'logits' and 'labels' must have one "
                             f"shape of rank >= 2, but got {tuple(logits.shape)} and "
                             f"{tuple(label.shape)}.")
        if self.activation == "softmax":
            logits = F.softmax(logits, -1)
        elif self.activation == "sigmoid":
            logits = F.sigmoid(logits)
        c = label.shape[1]
        xs, ys = F.unbind(logits, 1), F.unbind(label, 1)
        total = None
        for i in range(c):
            if i == self.ignore_indiex:
                continue
            loss = _dice(xs[i], ys[i], 1e-5)
            if self.weights is not None:
                loss = F.mul(loss, self.weights[i])
            total = loss if total is None else F.add(total, loss)
        return F.div(total, float(c))


class FocalLoss(LossBase):
    """-(1 - p)^gamma * log p per class (times `weight`), p the softmax over dim 1 of logits
    (N, C, ...): with labels of one channel (class indices) the true class's term, averaged
    over positions; with labels shaped like logits (dense targets) the label-weighted terms
    averaged over the last dim; then the reduction."""

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise TypeError(f"For 'FocalLoss', 'gamma' must be a float, but got "
                            f"{type(gamma).__name__}.")
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'FocalLoss', the type of 'weight' must be a Tensor, but got "
                            f"{type(weight).__name__}.")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, but got "
                             f"{weight.ndim}.")
        self.weight, self.gamma = weight, gamma

    def construct(self, logits, labels):
        if logits.ndim != labels.ndim:
            raise ValueError(f"For 'FocalLoss', 'logits' and 'labels' must have the same rank, "
                             f"but got {logits.ndim} and {labels.ndim}.")
        n, c = logits.shape[:2]
        if labels.shape[1] != 1 and tuple(labels.shape) != tuple(logits.shape):
            raise ValueError(f"For 'FocalLoss', 'labels' must have 1 channel or the shape of "
                             f"'logits', but got {tuple(labels.shape)}.")
        logits = F.reshape(logits, (n, c, -1))
        labels = F.reshape(labels, (n, labels.shape[1], -1))
        logp = F.log_softmax(logits, 1)
        weight = None if self.weight is None else F.reshape(
            F.cast(self.weight, logp.dtype), (1, c, 1))
        if labels.shape[1] == 1:
            pick = F.transpose(F.one_hot(F.cast(F.reshape(labels, (n, -1)), mstype.int32), c,
                                         Tensor(1.0, logp.dtype), Tensor(0.0, logp.dtype)),
                               (0, 2, 1))                            # (N, C, L)
            logp = F.reduce_sum(F.mul(logp, pick), 1)
            if weight is not None:
                weight = F.reduce_sum(F.mul(weight, pick), 1)
        p = F.exp(logp)
        if weight is not None:
            logp = F.mul(logp, weight)
        focus = F.pow(F.sub(1.0, p), self.gamma)
        if labels.shape[1] == 1:
            loss = F.reduce_mean(F.neg(F.mul(focus, logp)), 1)
        else:
            loss = F.reduce_mean(F.neg(F.mul(F.mul(focus, labels), logp)), -1)
        return self.get_loss(loss)


class TripletMarginWithDistanceLoss(LossBase):
    """max(d(a, p) - d(a, n) + margin, 0), d the pairwise distance ||a - b + 1e-6||
    (or `distance_function`); swap uses min(d(a, n), d(p, n))."""

    def __init__(self, distance_function=None, swap=False, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.distance_function = distance_function
        self.swap = bool(swap)
        self.margin = _float("TripletMarginWithDistanceLoss", "margin", margin)

    def _distance(self, a, b):
        if self.distance_function is not None:
            return self.distance_function(a, b)
        return F.vector_norm(F.add(F.sub(a, b), 1e-6), 2, -1)

    def construct(self, x, positive, negative):
        d_pos = self._distance(x, positive)
        d_neg = self._distance(x, negative)
        if self.swap:
            d_neg = F.minimum(d_neg, self._distance(positive, negative))
        return self.get_loss(F.relu(F.add(F.sub(d_pos, d_neg), self.margin)))
