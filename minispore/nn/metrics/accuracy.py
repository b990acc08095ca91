"""Accuracy: the fraction of correctly classified samples."""
import numpy as np

from minispore.nn.metrics.metric import EvaluationBase, _class_targets, rearrange_inputs


class Accuracy(EvaluationBase):
    """``Accuracy(eval_type='classification')``.

    classification: ``update(y_pred (N, C), y (N,) indices or (N, C) one-hot)`` counts
    ``argmax(y_pred, 1) == y``. multilabel: y_pred and y are 0/1 arrays of shape (N, C); a sample
    counts when all its labels match. ``eval()`` returns a Python float; no samples: RuntimeError.

    >>> Accuracy()(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 1]))
    0.5
    """

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self._type == "classification":
            y_pred, y = _class_targets("Accuracy", y_pred, y)
            result = (y_pred.argmax(axis=1) == y).astype(np.int64)
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"For 'Accuracy.update' (multilabel), y_pred and y must have "
                                 f"the same shape, but got {y_pred.shape} and {y.shape}.")
            y_pred = y_pred.reshape(y_pred.shape[0], -1)
            result = np.all(y_pred == y.reshape(y_pred.shape), axis=1).astype(np.int64)
        self._correct_num += int(result.sum())
        self._total_num += result.shape[0]

    def eval(self):
        if self._total_num == 0:
            raise self._no_samples()
        # A Python float (an IEEE float64) prints as {'Accuracy': 0.98}, not np.float64(0.98).
        return self._correct_num / self._total_num
