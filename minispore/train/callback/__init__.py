"""Training callbacks (mindspore.train.callback)."""
from minispore.train.callback._callback import Callback, RunContext
from minispore.train.callback._callback import InternalCallbackParam as _InternalCallbackParam
from minispore.train.callback._checkpoint import CheckpointConfig, ModelCheckpoint
from minispore.train.callback._early_stop import EarlyStopping
from minispore.train.callback._history import History
from minispore.train.callback._lambda_callback import LambdaCallback
from minispore.train.callback._loss_monitor import LossMonitor
from minispore.train.callback._progress import ProgressBar
from minispore.train.callback._time_monitor import TimeMonitor

__all__ = ["Callback", "RunContext", "CheckpointConfig", "ModelCheckpoint", "EarlyStopping",
           "History", "LambdaCallback", "LossMonitor", "ProgressBar", "TimeMonitor"]
