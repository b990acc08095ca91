"""ROC: the receiver operating characteristic curve (false and true positive rates per score
threshold), binary or one curve per class, as MindSpore's metric computes it."""
import numpy as np

from minispore.nn.metrics.metric import Metric, rearrange_inputs

__all__ = ["ROC"]


def _check_int_or_none(arg_name, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"The type of '{arg_name}' should be 'int', but got type "
                        f"'{type(value).__name__}'.")
    return value


def _binary_clf_curve(preds, target, pos_label=1):
    """False and true positive counts at each distinct score, highest first, and the scores."""
    order = np.argsort(-preds)
    preds, target = preds[order], target[order]
    distinct = np.where(preds[1:] - preds[:-1])[0]
    threshold_idxs = np.pad(distinct, (0, 1), constant_values=target.shape[0] - 1)
    target = (target == pos_label).astype(np.int64)
    tps = np.cumsum(target, axis=0)[threshold_idxs]
    fps = 1 + threshold_idxs - tps
    return fps, tps, preds[threshold_idxs]


def _curve_inputs(y_pred, y, class_num, pos_label):
    """(y_pred, y, class_num, pos_label) as MindSpore's ROC shapes them: equal ranks are one
    binary curve (flattened); y_pred one rank higher has one score column per class."""
    if not (y_pred.ndim == y.ndim or y_pred.ndim == y.ndim + 1):
        raise ValueError(f"For 'ROC', predicted value (input[0]) and true value (input[1]) must "
                         f"have same dimensions, or the dimension of predicted value equal the "
                         f"dimension of true value add 1, but got predicted value ndim: "
                         f"{y_pred.ndim}, true value ndim: {y.ndim}.")
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError(f"For 'ROC', when predicted value (input[0]) and true value "
                             f"(input[1]) have the same shape, the 'class_num' must be 1, but got "
                             f"{class_num}.")
        return y_pred.flatten(), y.flatten(), 1, 1 if pos_label is None else pos_label
    if pos_label is not None:
        raise ValueError(f"For 'ROC', when the dimension of predicted value (input[0]) equals "
                         f"the dimension of true value (input[1]) add 1, the 'pos_label' must be "
                         f"None, but got {pos_label}.")
    if class_num != y_pred.shape[1]:
        raise ValueError(f"For 'ROC', the 'class_num' must equal the number of classes from "
                         f"predicted value (input[0]), but got 'class_num' {class_num}, the "
                         f"number of classes from predicted value {y_pred.shape[1]}.")
    # MindSpore reshapes the (N, C) scores to (C, N) row-major here (a port of torch's
    # transpose(0, 1), which numpy reads as no transpose): kept, so results agree with it.
    return y_pred.reshape(class_num, -1), y.flatten(), class_num, pos_label


class ROC(Metric):
    """``ROC(class_num=None, pos_label=None)``: ``update(y_pred, y)`` keeps the last batch;
    ``eval()`` returns ``(fpr, tpr, thresholds)``.

    Binary (y_pred and y of one rank; pos_label defaults to 1): float64 arrays of false and
    true positive rates at each distinct score, highest first, after a leading point
    (0, 0) whose threshold is the highest score + 1; thresholds keep y_pred's dtype.
    Multi-class (y_pred (N, C), y (N,), class_num = C, pos_label None): lists of one such curve
    per class c, with class c as the positive label.

    Raises ValueError when y holds no positive or no negative sample (eval), RuntimeError
    when eval comes before update.
    """

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = _check_int_or_none("class_num", class_num)
        self.pos_label = _check_int_or_none("pos_label", pos_label)
        self.clear()

    def clear(self):
        self.y_pred = 0
        self.y = 0
        self.sample_weights = None
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'ROC.update', it needs 2 inputs (predicted value, true "
                             f"value), but got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(
            y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    def _roc_eval(self, y_pred, y, class_num, pos_label):
        if class_num == 1:
            fps, tps, thresholds = _binary_clf_curve(y_pred, y, pos_label=pos_label)
            tps = np.squeeze(np.hstack([np.zeros(1, dtype=tps.dtype), tps]))
            fps = np.squeeze(np.hstack([np.zeros(1, dtype=fps.dtype), fps]))
            thresholds = np.hstack([thresholds[0][None] + 1, thresholds])
            if fps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there is no negative samples in true value, "
                                 "false positive value is meaningless.")
            if tps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there is no positive samples in true value, "
                                 "true positive value is meaningless.")
            return fps / fps[-1], tps / tps[-1], thresholds
        fpr, tpr, thresholds = [], [], []
        for c in range(class_num):
            curve = self._roc_eval(*_curve_inputs(y_pred[:, c], y, 1, c))
            fpr.append(curve[0])
            tpr.append(curve[1])
            thresholds.append(curve[2])
        return fpr, tpr, thresholds

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._roc_eval(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num,
                              self.pos_label)
