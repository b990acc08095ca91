"""Loss: the average of per-batch mean losses."""
import numpy as np

from minispore.nn.metrics.metric import Metric, rearrange_inputs


class Loss(Metric):
    """``update(loss)`` takes a scalar or 1-D loss (its mean counts once per batch);
    ``eval()`` is the mean over batches. No batches: RuntimeError."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 1)
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the loss must be a scalar or 1-D, but got "
                             f"shape {loss.shape}.")
        self._sum_loss += float(np.mean(loss, dtype=np.float64))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise self._no_samples()
        return self._sum_loss / self._total_num
