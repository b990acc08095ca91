"""LambdaCallback: a callback built from plain functions."""
from minispore.train.callback._callback import Callback

_ARGS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
         "on_train_step_end", "on_train_begin", "on_train_end", "on_eval_epoch_begin",
         "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_begin",
         "on_eval_end")


class LambdaCallback(Callback):
    """``LambdaCallback(on_train_step_end=lambda run_context: ...)``: each given function
    replaces the hook of the same name."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None,
                 on_train_step_begin=None, on_train_step_end=None, on_train_begin=None,
                 on_train_end=None, on_eval_epoch_begin=None, on_eval_epoch_end=None,
                 on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        super().__init__()
        given = dict(zip(_ARGS, (on_train_epoch_begin, on_train_epoch_end, on_train_step_begin,
                                 on_train_step_end, on_train_begin, on_train_end,
                                 on_eval_epoch_begin, on_eval_epoch_end, on_eval_step_begin,
                                 on_eval_step_end, on_eval_begin, on_eval_end)))
        for hook, fn in given.items():
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"For 'LambdaCallback', {hook} must be callable, but got "
                                    f"{type(fn).__name__}.")
                setattr(self, hook, fn)
