"""Dice (segmentation overlap) and Perplexity (of predicted class probabilities), as
MindSpore's metrics compute them."""
import math
import numbers

import numpy as np

from minispore.nn.metrics.metric import Metric, rearrange_inputs


class Dice(Metric):
    """``Dice(smooth=1e-5)``: per update, 2·(y_pred·y) / (y_pred·y_pred + y·y + smooth) over the
    flattened batch; ``eval`` is the sum of those coefficients over the samples seen (dim 0
    of each y)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, numbers.Real) or smooth <= 0:
            raise ValueError(f"For 'Dice', the argument 'smooth' must be a positive float, but "
                             f"got {smooth!r}.")
        self.smooth = float(smooth)
        self.clear()

    def clear(self):
        self._dice_coeff_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.shape != y_pred.shape:
            raise ValueError(f"For 'Dice.update', y_pred and y must have the same shape, but "
                             f"got {y_pred.shape} and {y.shape}.")
        self._samples_num += y.shape[0] if y.ndim else 1
        y_pred, y = y_pred.astype(np.float64).ravel(), y.astype(np.float64).ravel()
        union = float(y_pred @ y_pred + y @ y)
        self._dice_coeff_sum += 2.0 * float(y_pred @ y) / (union + self.smooth)

    def eval(self):
        if self._samples_num == 0:
            raise self._no_samples()
        return self._dice_coeff_sum / float(self._samples_num)


class Perplexity(Metric):
    """``Perplexity(ignore_label=None)``: exp of the mean negative log-probability the
    predictions (N, C) give their labels (N,); labels equal to ``ignore_label`` are left out.
    Probabilities are clipped at 1e-10 before the log."""

    def __init__(self, ignore_label=None):
        super().__init__()
        if ignore_label is not None and (isinstance(ignore_label, bool)
                                         or not isinstance(ignore_label, int)):
            raise TypeError(f"For 'Perplexity', the argument 'ignore_label' must be an int or "
                            f"None, but got {type(ignore_label).__name__}.")
        self.ignore_label = ignore_label
        self.clear()

    def clear(self):
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        pred = self._convert_data(inputs[0])
        label = self._convert_data(inputs[1])
        if pred.ndim == 0 or label.size * pred.shape[-1] != pred.size:
            raise RuntimeError(f"For 'Perplexity.update', the preds {pred.shape} must hold one "
                               f"row of {pred.shape[-1] if pred.ndim else 0} probabilities per "
                               f"label, but there are {label.size} labels.")
        label = label.reshape(-1).astype(np.int64)
        picked = pred.reshape(label.size, -1)[np.arange(label.size), label].astype(np.float64)
        num = label.size
        if self.ignore_label is not None:
            ignore = label == self.ignore_label
            num -= int(ignore.sum())
            picked = np.where(ignore, 1.0, picked)
        self._sum_metric -= float(np.log(np.maximum(1e-10, picked)).sum())
        self._num_inst += num

    def eval(self):
        if self._num_inst == 0:
            raise self._no_samples()
        return math.exp(self._sum_metric / self._num_inst)
