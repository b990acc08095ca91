"""Top-k categorical accuracy."""
import numpy as np

from minispore.nn.metrics.metric import Metric, _class_targets, rearrange_inputs


class TopKCategoricalAccuracy(Metric):
    """``TopKCategoricalAccuracy(k)``: a sample counts when its label is among the k highest
    scores of y_pred (N, C); y is (N,) indices or (N, C) one-hot."""

    def __init__(self, k):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"For '{type(self).__name__}', the argument 'k' must be an int, but "
                            f"got {type(k).__name__}.")
        if k < 1:
            raise ValueError(f"For '{type(self).__name__}', the argument 'k' must be >= 1, but "
                             f"got {k}.")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        y_pred, y = _class_targets(type(self).__name__, self._convert_data(inputs[0]),
                                   self._convert_data(inputs[1]))
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == y[:, None]).any(axis=1).sum())
        self._samples_num += y.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise self._no_samples()
        # MindSpore's counts are numpy sums, so its result is a numpy float64, not a float.
        return np.float64(self._correct_num) / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(5)
