"""The Metric base class, input conversion and the `rearrange_inputs` index selector."""
import functools

import numpy as np

from minispore.common.tensor import Tensor


def _convert_data(data):
    """Tensor, list or numpy input -> numpy array."""
    if isinstance(data, Tensor):
        return data.asnumpy()
    if isinstance(data, (np.ndarray, list, tuple, int, float, np.generic)):
        return np.asarray(data)
    raise TypeError(f"The input data type must be a Tensor, list or numpy.ndarray, but got "
                    f"{type(data).__name__}.")


def _check_type(arg_name, value, types):
    """MindSpore's validator.check_value_type: `value` is an instance of one of `types` (a bool
    is no int); the message lists the type names."""
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
        return value
    names = [t.__name__ for t in types]
    wanted = f"'{names[0]}'" if len(names) == 1 else f"one of '{names}'"
    raise TypeError(f"The type of '{arg_name}' should be {wanted}, but got type "
                    f"'{type(value).__name__}'.")


def _check_string(arg_name, value, valid):
    """MindSpore's validator.check_string: a str among `valid`."""
    _check_type(arg_name, value, (str,))
    if value not in valid:
        raise ValueError(f"The '{arg_name}' must be str and must be in '{valid}', but got "
                         f"'{value}'.")
    return value


def rearrange_inputs(func):
    """Decorator for `update`: when `set_indexes` was called, pass only those inputs, in order."""
    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        if indexes is not None:
            if max(indexes) >= len(inputs):
                raise ValueError(f"For '{type(self).__name__}.update', indexes {indexes} "
                                 f"select beyond the {len(inputs)} inputs given.")
            inputs = [inputs[i] for i in indexes]
        return func(self, *inputs)
    return wrapper


class Metric:
    """Base class of metrics: ``clear()`` resets, ``update(*inputs)`` accumulates a batch,
    ``eval()`` returns the result. ``metric(*inputs)`` does all three on one batch.
    ``set_indexes([i, j])`` picks which network outputs `update` receives."""

    def __init__(self):
        self._indexes = None

    @property
    def indexes(self):
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        if not isinstance(indexes, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in indexes):
            raise ValueError(f"For 'set_indexes', the argument 'indexes' must be a list of "
                             f"non-negative ints, but got {indexes!r}.")
        self._indexes = indexes
        return self

    def _convert_data(self, data):
        return _convert_data(data)

    def _no_samples(self):
        return RuntimeError(f"The '{type(self).__name__}' can not be calculated, because the "
                            f"number of samples is 0, please check whether your inputs "
                            f"(predicted value, true value) are empty, or has called update "
                            f"method before calling eval method.")

    def _check_inputs(self, inputs, count):
        if len(inputs) != count:
            raise ValueError(f"For '{type(self).__name__}.update', it needs {count} inputs, but "
                             f"got {len(inputs)}.")

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    def clear(self):
        raise NotImplementedError(f"{type(self).__name__}.clear is not implemented.")

    def update(self, *inputs):
        raise NotImplementedError(f"{type(self).__name__}.update is not implemented.")

    def eval(self):
        raise NotImplementedError(f"{type(self).__name__}.eval is not implemented.")


class EvaluationBase(Metric):
    """Base of classification metrics: checks `eval_type` ('classification' or 'multilabel')."""

    def __init__(self, eval_type):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"For '{type(self).__name__}', the argument 'eval_type' must be "
                             f"'classification' or 'multilabel', but got {eval_type!r}.")
        self._type = eval_type

    @property
    def eval_type(self):
        return self._type


def _class_targets(name, y_pred, y):
    """Classification inputs: y_pred (N, C) scores; y (N,) indices or (N, C) one-hot.
    Returns (y_pred, y as int indices)."""
    if y_pred.ndim != 2:
        raise ValueError(f"For '{name}.update', y_pred must be (N, C) scores, but got shape "
                         f"{y_pred.shape}.")
    if y.ndim == 2 and y.shape == y_pred.shape:
        y = y.argmax(axis=1)
    y = y.reshape(-1)
    if y.shape[0] != y_pred.shape[0]:
        raise ValueError(f"For '{name}.update', y_pred has {y_pred.shape[0]} samples but y has "
                         f"{y.shape[0]} (y_pred shape {y_pred.shape}).")
    return y_pred, y.astype(np.int64)


def _one_hot(indices, num_classes):
    out = np.zeros((indices.shape[0], num_classes), np.float64)
    valid = (indices >= 0) & (indices < num_classes)
    out[np.nonzero(valid)[0], indices[valid]] = 1.0
    return out
