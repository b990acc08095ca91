"""TimeMonitor: print the wall time of each training epoch and of its average step."""
import time

from minispore.train.callback._callback import Callback


class TimeMonitor(Callback):
    """``TimeMonitor(data_size=None)`` prints ``epoch time: T ms, per step time: S ms`` at
    each epoch end. The step count is cb_params.batch_num when known, else ``data_size``."""

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if data_size is not None and (isinstance(data_size, bool) or
                                      not isinstance(data_size, int) or data_size <= 0):
            raise ValueError(f"For 'TimeMonitor', the argument 'data_size' must be a positive "
                             f"int, but got {data_size!r}.")
        self.data_size = data_size
        self.data_time = data_time
        self.epoch_time = time.time()

    def on_train_epoch_begin(self, run_context):
        self.epoch_time = time.time()

    def on_train_epoch_end(self, run_context):
        epoch_ms = (time.time() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        step_size = self.data_size
        batch_num = cb_params.get("batch_num")
        if isinstance(batch_num, int) and batch_num > 0:
            step_size = batch_num
        if not isinstance(step_size, int) or step_size <= 0:
            raise ValueError(f"For 'TimeMonitor', the step count must be a positive int (from "
                             f"cb_params.batch_num or 'data_size'), but got {step_size!r}.")
        print("epoch time: {:5.3f} ms, per step time: {:5.3f} ms".format(
            epoch_ms, epoch_ms / step_size), flush=True)
