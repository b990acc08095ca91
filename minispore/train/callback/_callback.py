"""Callback base class, RunContext, the cb_params record and the list dispatcher Model uses."""
import logging

logger = logging.getLogger("minispore")

_OLD_NAMES = {
    "on_train_begin": "begin", "on_train_epoch_begin": "epoch_begin",
    "on_train_step_begin": "step_begin", "on_train_step_end": "step_end",
    "on_train_epoch_end": "epoch_end", "on_train_end": "end",
    "on_eval_begin": "begin", "on_eval_epoch_begin": "epoch_begin",
    "on_eval_step_begin": "step_begin", "on_eval_step_end": "step_end",
    "on_eval_epoch_end": "epoch_end", "on_eval_end": "end",
}
HOOKS = tuple(_OLD_NAMES)


class Callback:
    """Base class of training/evaluation callbacks.

    Override the 2.x hooks (``on_train_begin``, ``on_train_epoch_begin``,
    ``on_train_step_begin``, ``on_train_step_end``, ``on_train_epoch_end``, ``on_train_end`` and
    the ``on_eval_*`` counterparts), or the 1.x names (``begin``, ``epoch_begin``,
    ``step_begin``, ``step_end``, ``epoch_end``, ``end``), which the default hooks call. Each
    takes a RunContext; ``run_context.original_args()`` gives the cb_params record.
    """

    def __enter__(self):
        return self

    def __exit__(self, *err):
        return None

    def begin(self, run_context):
        """Called once before the network runs (train or eval)."""

    def epoch_begin(self, run_context):
        """Called before each epoch."""

    def epoch_end(self, run_context):
        """Called after each epoch."""

    def step_begin(self, run_context):
        """Called before each step."""

    def step_end(self, run_context):
        """Called after each step."""

    def end(self, run_context):
        """Called once after the network ran."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)


class RunContext:
    """What a callback sees: ``original_args()`` (the cb_params record), ``request_stop()``
    and ``get_stop_requested()``."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"For 'RunContext', the argument 'original_args' must be a dict, "
                            f"but got {type(original_args).__name__}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        return self._original_args

    def request_stop(self):
        """Ask Model to stop after the current step (training) or at once (eval)."""
        self._stop_requested = True

    def get_stop_requested(self):
        return self._stop_requested


class InternalCallbackParam(dict):
    """cb_params: a dict whose keys also read and write as attributes
    (``cb_params.cur_epoch_num``)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"cb_params has no field {name!r}; fields are "
                                 f"{sorted(self)}.") from None

    def __setattr__(self, name, value):
        self[name] = value


def _uses_old_names(cb):
    """The 1.x method names a user callback overrides."""
    cls = type(cb)
    return sorted({old for old in set(_OLD_NAMES.values())
                   if getattr(cls, old, None) is not getattr(Callback, old)})


def _flatten(callbacks):
    if callbacks is None:
        return []
    items = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in items:
        if not isinstance(cb, Callback):
            raise TypeError(f"The 'callbacks' must be a Callback or a list/tuple of Callback, "
                            f"but got an element of type {type(cb).__name__}.")
    return items


class CallbackManager(Callback):
    """Calls every hook on each callback in order."""

    def __init__(self, callbacks):
        self._callbacks = _flatten(callbacks)
        for cb in self._callbacks:
            if isinstance(cb, Callback) and type(cb).__module__.split(".")[0] != "minispore":
                old = _uses_old_names(cb)
                if old:
                    logger.warning("The callback %s overrides old-style methods %s; they still "
                                   "run, but prefer the on_train_*/on_eval_* names.",
                                   type(cb).__name__, old)

    @property
    def callbacks(self):
        return list(self._callbacks)

    def __enter__(self):
        for cb in self._callbacks:
            cb.__enter__()
        return self

    def __exit__(self, *err):
        for cb in reversed(self._callbacks):
            cb.__exit__(*err)


def _make_dispatch(hook):
    def dispatch(self, run_context):
        for cb in self._callbacks:
            getattr(cb, hook)(run_context)
    dispatch.__name__ = hook
    return dispatch


for _hook in HOOKS:
    setattr(CallbackManager, _hook, _make_dispatch(_hook))
