"""Regression errors: MAE and MSE (summed error divided by the number of samples, dim 0)."""
import numpy as np

from minispore.nn.metrics.metric import Metric, rearrange_inputs


class _ErrorMetric(Metric):
    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        y_pred = self._convert_data(inputs[0]).astype(np.float64)
        y = self._convert_data(inputs[1]).astype(np.float64)
        if y.size != y_pred.size:
            raise ValueError(f"For '{type(self).__name__}.update', y_pred {y_pred.shape} and y "
                             f"{y.shape} must have the same number of elements.")
        self._error_sum += float(self._error(y_pred - y.reshape(y_pred.shape)).sum())
        self._samples_num += y.shape[0] if y.ndim else 1

    def eval(self):
        if self._samples_num == 0:
            raise self._no_samples()
        return self._error_sum / self._samples_num


class MAE(_ErrorMetric):
    """Mean absolute error: sum |y_pred - y| / N."""

    @staticmethod
    def _error(diff):
        return np.abs(diff)


class MSE(_ErrorMetric):
    """Mean squared error: sum (y_pred - y)^2 / N."""

    @staticmethod
    def _error(diff):
        return diff * diff
