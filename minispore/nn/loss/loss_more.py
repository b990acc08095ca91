"""SoftMarginLoss, MultilabelMarginLoss, TripletMarginLoss, CTCLoss and SampledSoftmaxLoss: cells
over the composed functional forms (ops/function/margin_loss_func.py, ctc_compose_func.py) and,
for SampledSoftmaxLoss, over Gather/MatMul and a candidate sampler. MindSpore 2.7's API."""
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.loss.loss import LossBase
from minispore.ops import functional as F
from minispore.ops.function.ctc_compose_func import ctc_loss
from minispore.ops.function.margin_loss_func import (multilabel_margin_loss, soft_margin_loss,
                                                     triplet_margin_loss)

__all__ = ["SoftMarginLoss", "MultilabelMarginLoss", "TripletMarginLoss", "CTCLoss",
           "SampledSoftmaxLoss"]


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got "
                        f"{type(x).__name__}.")


class SoftMarginLoss(LossBase):
    """log(1 + exp(-y x)) for targets y in {1, -1}, then the reduction (ops.soft_margin_loss)."""

    def construct(self, logits, labels):
        return soft_margin_loss(logits, labels, self.reduction)


class MultilabelMarginLoss(LossBase):
    """Multi-label hinge loss over the -1-padded int32 class ids of `target`
    (ops.multilabel_margin_loss); returns the loss alone."""

    def construct(self, x, target):
        return multilabel_margin_loss(x, target, self.reduction)


class TripletMarginLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0), d the p-norm over dim 1 of a - b + eps
    (ops.triplet_margin_loss). As in MindSpore, a margin given to __init__ other than 1.0 wins
    over the one passed to construct."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin

    def construct(self, x, positive, negative, margin=1.0):
        if self.margin != 1.0:
            margin = self.margin
        return triplet_margin_loss(x, positive, negative, margin=margin, p=self.p, eps=self.eps,
                                   swap=self.swap, reduction=self.reduction)


class CTCLoss(LossBase):
    """ops.ctc_loss's loss (without log_alpha). 2-D log_probs (T, C) are one unbatched sample:
    targets then (S,) or (1, S), and the result is the batch of one's loss."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        _check_tensor("CTCLoss", "log_probs", log_probs)
        _check_tensor("CTCLoss", "targets", targets)
        if log_probs.ndim == 2:
            if targets.ndim > 2:
                raise ValueError(f"For CTCLoss, when the shape of log_probs is (T, C), the "
                                 f"dimension of targets should be 1 or 2, but got {targets.ndim}.")
            if targets.ndim == 2 and targets.shape[0] != 1:
                raise ValueError(f"For CTCLoss, the first dimension of 2-D targets should be 1, "
                                 f"but got {targets.shape[0]}.")
            targets = F.reshape(targets, (1, -1))
            loss, _ = ctc_loss(F.expand_dims(log_probs, 1), targets, input_lengths,
                               target_lengths, self.blank, self.reduction, self.zero_infinity)
            return F.squeeze(loss, 0) if self.reduction == "none" else loss
        loss, _ = ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                           self.reduction, self.zero_infinity)
        return loss


class SampledSoftmaxLoss(LossBase):
    """Softmax cross entropy over each example's true classes and a shared set of sampled
    classes: logits x W[ids]^T + b[ids] - log(expected count), true labels weighted 1/num_true.

    weights (num_classes, dim), biases (num_classes,), labels (batch, num_true) int32/int64,
    logits (batch, dim); returns the per-example loss (batch,). As in MindSpore, `reduction` is
    checked but not applied, and remove_accidental_hits only reaches the sampler (so it has no
    effect when `sampled_values` = (sampled, true_expected_count, sampled_expected_count) is
    given)."""

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None,
                 remove_accidental_hits=True, seed=0, reduction="none"):
        super().__init__(reduction)
        name = "SampledSoftmaxLoss"
        if num_true < 1:
            raise ValueError(f"For '{name}', the 'num_true' must be greater than or equal to 1, "
                             f"but got {num_true}.")
        if seed < 0:
            raise ValueError(f"For '{name}', the 'seed' must be greater than or equal to 0, but "
                             f"got {seed}.")
        if num_sampled > num_classes:
            raise ValueError(f"For '{name}', the 'num_sampled' must be smaller than or equal to "
                             f"'num_classes', but got 'num_sampled': {num_sampled} and "
                             f"'num_classes': {num_classes}.")
        if num_true > num_classes:
            raise ValueError(f"For '{name}', the 'num_true' must be smaller than or equal to "
                             f"'num_classes', but got 'num_true': {num_true} and "
                             f"'num_classes': {num_classes}.")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"For '{name}', the type of 'sampled_values' must be a list or "
                                f"tuple, but got {type(sampled_values).__name__}.")
            if len(sampled_values) != 3:
                raise ValueError(f"For '{name}', the length of 'sampled_values' must be equal "
                                 f"to 3, but got {len(sampled_values)}.")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits, self.seed = remove_accidental_hits, seed

    def construct(self, weights, biases, labels, logits):
        name = "SampledSoftmaxLoss"
        for arg, t in (("weights", weights), ("biases", biases), ("labels", labels),
                       ("logits", logits)):
            _check_tensor(name, arg, t)
        if labels.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{name}', the 'labels' should be one of [mindspore.int32, "
                            f"mindspore.int64], but got '{labels.dtype}'.")
        labels = F.reshape(F.cast(labels, mstype.int32), (-1, self.num_true))
        if self.sampled_values is None:
            sampled_values = F.uniform_candidate_sampler(
                F.cast(labels, mstype.int64), self.num_true, self.num_sampled, True,
                self.num_classes, self.seed, self.remove_accidental_hits)
        else:
            sampled_values = self.sampled_values
        sampled, true_expected, sampled_expected = sampled_values
        sampled = F.cast(sampled, mstype.int32)
        dim = weights.shape[1]
        true_w = F.reshape(F.gather(weights, F.reshape(labels, (-1,)), 0),
                           (-1, self.num_true, dim))
        true_b = F.reshape(F.gather(biases, F.reshape(labels, (-1,)), 0), (-1, self.num_true))
        true_logits = F.add(F.reduce_sum(F.mul(F.expand_dims(logits, 1), true_w), 2), true_b)
        sampled_logits = F.add(F.matmul(logits, F.transpose(F.gather(weights, sampled, 0),
                                                           (1, 0))),
                               F.gather(biases, sampled, 0))
        # subtract log Q(l), the prior probability of each class being in the sample
        true_logits = F.sub(true_logits, F.log(true_expected))
        sampled_logits = F.sub(sampled_logits, F.log(sampled_expected))
        out = F.concat((true_logits, sampled_logits), 1)
        targets = F.concat((F.div(F.ones_like(true_logits), float(self.num_true)),
                            F.zeros_like(sampled_logits)), 1)
        # MindSpore's own stable softmax, with its 1e-20 inside the log kept for equal values
        stable = F.exp(F.sub(out, F.reduce_max(out, 1, keep_dims=True)))
        pred = F.div(stable, F.reduce_sum(stable, 1, keep_dims=True))
        return F.neg(F.reduce_sum(F.mul(targets, F.log(F.add(pred, 1.0e-20))), 1))
