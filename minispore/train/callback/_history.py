"""History: record each epoch's network output and eval metrics."""
import numpy as np

from minispore.common.tensor import Tensor
from minispore.train.callback._callback import Callback


class History(Callback):
    """After training, ``history.epoch`` lists the epoch numbers and ``history.history`` maps
    'net_output' (and each metric name, under Model.fit) to its per-epoch values."""

    def __init__(self):
        super().__init__()
        self.epoch = []
        self.history = {}

    def on_train_begin(self, run_context):
        self.epoch = []
        self.history = {}

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self.epoch.append(cb_params.cur_epoch_num)
        output = cb_params.get("net_outputs")
        if isinstance(output, (tuple, list)) and output and isinstance(output[0], Tensor):
            output = output[0]
        if isinstance(output, Tensor):
            output = float(np.mean(output.asnumpy()))
        self.history.setdefault("net_output", []).append(output)
        for name, value in (cb_params.get("metrics") or {}).items():
            self.history.setdefault(name, []).append(value)
