"""Precision, Recall, Fbeta and F1 over one-hot classification counts."""
import sys

import numpy as np

from minispore.nn.metrics.metric import (EvaluationBase, Metric, _class_targets, _one_hot,
                                            rearrange_inputs)


class _ClassCounts:
    """Accumulates per-class true positives, predicted positives and actual positives (listed
    before the Metric base, so its clear and update are the metric's)."""

    def clear(self):
        self._true_positives = 0.0
        self._positives = 0.0
        self._actual_positives = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        self._count(type(self).__name__, self._convert_data(inputs[0]),
                    self._convert_data(inputs[1]), getattr(self, "_type", None) == "multilabel")

    def _count(self, name, y_pred, y, multilabel=False):
        if multilabel:
            if y_pred.shape != y.shape:
                raise ValueError(f"For '{name}.update' (multilabel), y_pred and y must have the "
                                 f"same shape, but got {y_pred.shape} and {y.shape}.")
            pred = (y_pred.reshape(y_pred.shape[0], -1) > 0.5).astype(np.float64)
            true = y.reshape(pred.shape).astype(np.float64)
        else:
            y_pred, y = _class_targets(name, y_pred, y)
            num_classes = y_pred.shape[1]
            if y.size and (y.min() < 0 or y.max() >= num_classes):
                raise ValueError(f"For '{name}.update', labels must lie in [0, {num_classes}), "
                                 f"but got values in [{y.min()}, {y.max()}].")
            pred = _one_hot(y_pred.argmax(axis=1), num_classes)
            true = _one_hot(y, num_classes)
        self._true_positives = self._true_positives + (pred * true).sum(axis=0)
        self._positives = self._positives + pred.sum(axis=0)
        self._actual_positives = self._actual_positives + true.sum(axis=0)
        self._total_num += pred.shape[0]


class _PerClassRatio(_ClassCounts, EvaluationBase):
    """TP over a per-class count (predicted positives for Precision, actual ones for Recall);
    ``eval(average=False)`` returns the per-class array, ``average=True`` its mean."""

    denominator = None   # name of the _ClassCounts counter to divide by

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.eps = sys.float_info.min
        self.clear()

    def eval(self, average=False):
        if self._total_num == 0:
            raise self._no_samples()
        result = self._true_positives / (getattr(self, self.denominator) + self.eps)
        return float(result.mean()) if average else result


class Precision(_PerClassRatio):
    """``Precision(eval_type='classification')``: per class TP / predicted positives."""
    denominator = "_positives"


class Recall(_PerClassRatio):
    """``Recall(eval_type='classification')``: per class TP / actual positives."""
    denominator = "_actual_positives"


class Fbeta(_ClassCounts, Metric):
    """``Fbeta(beta)``: per class (1+b²)·TP / (b²·actual + predicted). ``eval(average=False)``."""

    def __init__(self, beta):
        super().__init__()
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"For '{type(self).__name__}', the argument 'beta' must be a "
                             f"positive number, but got {beta!r}.")
        self.beta = float(beta)
        self.eps = sys.float_info.min
        self.clear()

    def eval(self, average=False):
        if self._total_num == 0:
            raise self._no_samples()
        b2 = self.beta ** 2
        result = ((1.0 + b2) * self._true_positives
                  / (b2 * self._actual_positives + self._positives + self.eps))
        return float(result.mean()) if average else result


class F1(Fbeta):
    """F1 = Fbeta(beta=1)."""

    def __init__(self):
        super().__init__(1.0)
