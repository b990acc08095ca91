"""LossMonitor: print the training loss every few steps; stop on NaN/Inf."""
import numpy as np

from minispore.common.tensor import Tensor
from minispore.train.callback._callback import Callback


def _loss_value(net_outputs):
    """The net outputs (first element of a tuple) reduced to a float mean, or as-is."""
    loss = net_outputs
    if isinstance(loss, (tuple, list)) and loss and isinstance(loss[0], Tensor):
        loss = loss[0]
    if isinstance(loss, Tensor):
        loss = float(np.mean(loss.asnumpy()))
    return loss


class LossMonitor(Callback):
    """``LossMonitor(per_print_times=1)`` prints ``epoch: E step: S, loss is L`` (S is the
    1-based step within the epoch) every ``per_print_times`` steps; 0 disables printing.
    A NaN or Inf loss raises ValueError. After an epoch with eval metrics (Model.fit) it prints
    ``Eval result: epoch E, metrics: {...}``."""

    def __init__(self, per_print_times=1):
        super().__init__()
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) \
                or per_print_times < 0:
            raise ValueError(f"For 'LossMonitor', the argument 'per_print_times' must be an int "
                             f">= 0, but got {per_print_times!r}.")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        loss = _loss_value(cb_params.net_outputs)
        cur_step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        if isinstance(loss, float) and (np.isnan(loss) or np.isinf(loss)):
            raise ValueError(f"epoch: {cb_params.cur_epoch_num} step: {cur_step_in_epoch}. "
                             f"Invalid loss, terminating training.")
        # A resumed run may start below the last printed step.
        self._last_print_time = min(self._last_print_time, cb_params.cur_step_num)
        if self._per_print_times and \
                cb_params.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb_params.cur_step_num
            print("epoch: %s step: %s, loss is %s" % (cb_params.cur_epoch_num,
                                                      cur_step_in_epoch, loss), flush=True)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print("Eval result: epoch %d, metrics: %s" % (cb_params.cur_epoch_num, metrics),
                  flush=True)
