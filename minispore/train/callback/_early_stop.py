"""EarlyStopping: stop training when a monitored value stops improving."""
import logging

import numpy as np

from minispore.common.tensor import Tensor
from minispore.train.callback._callback import Callback
from minispore.train.callback._loss_monitor import _loss_value

logger = logging.getLogger("minispore")


class EarlyStopping(Callback):
    """``EarlyStopping(monitor='eval_loss', min_delta=0, patience=0, verbose=False, mode='auto',
    baseline=None, restore_best_weights=False)``.

    ``monitor`` is 'loss' (the train network's output) or, under Model.fit with validation,
    'eval_loss' or a metric name. ``mode`` 'auto' maximises names containing 'acc' and minimises
    the rest. After ``patience`` epochs without an improvement larger than ``min_delta``,
    training stops (``run_context.request_stop()``); ``restore_best_weights`` reloads the best
    epoch's parameters.
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"For 'EarlyStopping', 'monitor' must be a str, but got "
                            f"{type(monitor).__name__}.")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"For 'EarlyStopping', 'patience' must be an int >= 0, but got "
                             f"{patience!r}.")
        if isinstance(min_delta, bool) or not isinstance(min_delta, (int, float)):
            raise TypeError(f"For 'EarlyStopping', 'min_delta' must be a number, but got "
                            f"{type(min_delta).__name__}.")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"For 'EarlyStopping', 'mode' must be 'auto', 'min' or 'max', but "
                             f"got {mode!r}.")
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        maximise = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.op = np.greater if maximise else np.less
        self.min_delta = abs(min_delta) if maximise else -abs(min_delta)
        self._reset()

    def _reset(self):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = -np.inf if self.op is np.greater else np.inf
        self.best_epoch = 0
        self.best_weights = None

    def on_train_begin(self, run_context):
        self._reset()

    def _current(self, cb_params):
        candidates = {"loss": _loss_value(cb_params.get("net_outputs"))}
        candidates.update(cb_params.get("eval_results") or {})
        value = candidates.get(self.monitor)
        if value is None:
            logger.warning("Early stopping is conditioned on %s, which is not available. "
                           "Available choices are: %s", self.monitor, sorted(candidates))
            return None
        if isinstance(value, Tensor):
            value = float(np.mean(value.asnumpy()))
        return float(value)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        current = self._current(cb_params)
        if current is None:
            return
        network = cb_params.get("train_network")
        self.wait += 1
        if self.op(current - self.min_delta, self.best):
            self.best = current
            self.best_epoch = cb_params.cur_epoch_num
            if self.restore_best_weights and network is not None:
                self.best_weights = {p.name: p.asnumpy().copy()
                                     for _, p in network.parameters_and_names()}
            if self.baseline is None or self.op(current - self.min_delta, self.baseline):
                self.wait = 0
        if self.wait >= self.patience and self.wait > 0:
            self.stopped_epoch = cb_params.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                for _, param in network.parameters_and_names():
                    if param.name in self.best_weights:
                        param.set_data(self.best_weights[param.name])

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print("Epoch %05d: early stopping" % self.stopped_epoch)
