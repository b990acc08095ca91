"""ProgressBar: a one-line text progress bar per training epoch (minispore extra)."""
import sys
import time

from minispore.train.callback._callback import Callback
from minispore.train.callback._loss_monitor import _loss_value


class ProgressBar(Callback):
    """``ProgressBar(width=30, file=sys.stdout)`` redraws
    ``epoch E [=====>    ] s/N loss L  T s`` after each step and ends the line each epoch."""

    def __init__(self, width=30, file=None):
        super().__init__()
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"For 'ProgressBar', 'width' must be a positive int, but got "
                             f"{width!r}.")
        self.width = width
        self.file = file
        self._start = time.time()

    def _out(self):
        return self.file or sys.stdout

    def on_train_epoch_begin(self, run_context):
        self._start = time.time()

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        total = cb_params.batch_num
        step = (cb_params.cur_step_num - 1) % total + 1
        done = self.width * step // total
        bar = ("=" * done + ">").ljust(self.width)[:self.width]
        loss = _loss_value(cb_params.net_outputs)
        line = f"\repoch {cb_params.cur_epoch_num} [{bar}] {step}/{total}"
        if isinstance(loss, float):
            line += f" loss {loss:.4f}"
        self._out().write(f"{line}  {time.time() - self._start:.1f} s")
        self._out().flush()

    def on_train_epoch_end(self, run_context):
        self._out().write("\n")
        self._out().flush()
