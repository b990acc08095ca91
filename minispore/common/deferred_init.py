"""MindSpore's ``no_init_parameters``: inside it, ``initializer(...)`` draws nothing; the
Tensor it returns, and the Parameter made from it, hold the initializer and their shape, and
their data is drawn the first time it is read. A checkpoint loaded into such a Parameter
(set_data) replaces it without it ever being drawn: no buffer, no random numbers spent.

Deferral is a class of its own (DeferredTensor, and nn's DeferredParameter in parameter.py):
reading ``_data`` on one finds no attribute, so ``__getattr__`` draws the values, stores them
and turns the object back into a plain Tensor or Parameter. Ordinary tensors pay nothing.
"""
from contextlib import contextmanager

from minispore.common.registry import REGISTRY
from minispore.common.init_array import init_array
from minispore.common.tensor import Tensor

__all__ = ["no_init_parameters", "deferring", "Deferred", "DeferredTensor", "materialize"]

_DEPTH = REGISTRY.owned("common.no_init_parameters", lambda: [0])   # nesting depth


@contextmanager
def no_init_parameters():
    """``with no_init_parameters(): net = Net()`` (or as a decorator): the Parameters made from
    ``initializer`` inside stay undrawn until their data is first read (``has_init`` is True
    until then); ``load_checkpoint`` / ``load_param_into_net`` fill them directly. Parameters
    made from a Tensor or an array are initialised as usual (as in MindSpore)."""
    _DEPTH[0] += 1
    try:
        yield
    finally:
        _DEPTH[0] -= 1


def deferring():
    """True inside no_init_parameters."""
    return _DEPTH[0] > 0


def materialize(t):
    """Draw a deferred tensor's values now; returns its new data. It becomes an ordinary
    Tensor (or Parameter)."""
    init, shape = t.__dict__.pop("_deferred_init")
    t._data = data = init_array(init, shape, t._dtype)
    t.__class__ = t.materialized
    return data


class Deferred:
    """What a deferred Tensor or Parameter answers before its values exist: its shape (from
    the initializer's), has_init, init_data(), and ``_data``, which draws them."""

    @property
    def shape(self):
        return self._deferred_init[1]

    @property
    def has_init(self):
        return True

    def init_data(self):
        materialize(self)
        return self

    def __getattr__(self, name):
        if name == "_data":
            return materialize(self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class DeferredTensor(Deferred, Tensor):
    """``initializer(init, shape, dtype)`` inside no_init_parameters: shape and dtype known,
    values drawn when first read."""
    deferred = True
    materialized = Tensor

    def __init__(self, init, shape, dtype):   # noqa: super().__init__ would draw the values
        self._dtype = dtype
        self._placeholder_dims = None
        self._deferred_init = (init, shape)
