"""Shift and Rolling: MindSpore's pandas-style CPU kernels (``shift`` and ``rolling`` along
one axis), which MindSpore reaches through Python front ends a user defines as
PrimitiveWithInfer subclasses of those names (ops/primitive_with_infer.py). Kernels:
kernels/{cpu,cuda}/window.py."""
import math
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.kernels.window_codes import MAX, MEAN, MIN, STD, SUM, VAR
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (check_bool, check_dtype, check_tensor, contiguous,
                                            is_tensor, normalize_axis)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Shift", "Rolling"]

_METHODS = {"max": MAX, "min": MIN, "mean": MEAN, "sum": SUM, "std": STD, "var": VAR}
_CLOSED = {"right": (False, True), "left": (True, False), "both": (True, True),
           "neither": (False, False)}


def _int_attr(prim, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{prim}', '{name}' must be an int, but got "
                        f"{type(value).__name__}.")
    return int(value)


def _as_3d(x, axis):
    """x viewed as (outer, n, inner) around `axis` (C-contiguous, no copy beyond that)."""
    shape = tuple(int(s) for s in x.shape) or (1,)
    outer, inner = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
    return contiguous(x).reshape(outer, shape[axis], inner)


class Shift(Primitive):
    """``Shift(periods=1, axis=-1)(x, fill_value)``: x moved `periods` places along `axis`
    (towards higher indices when positive), the vacated places set to fill_value (pandas'
    ``shift``). x: float32/float64/int32/int64/bool; fill_value a number (or 0-d Tensor) of
    a kind x's dtype holds. Gradient: dout shifted back, zeros where nothing came from.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.Shift(2, 0)(ms.Tensor(np.array([1., 2., 3., 4.], np.float32)), 0.5).asnumpy()
    array([0.5, 0.5, 1. , 2. ], dtype=float32)
    """
    sharding_rule = rules.axis_fixed("the shifted axis moves values between slices")
    _DTYPES = (mstype.float32, mstype.float64, mstype.int32, mstype.int64, mstype.bool_)

    def __init__(self, periods=1, axis=-1):
        super().__init__()
        self.periods = _int_attr(self.name, "periods", periods)
        self.axis = _int_attr(self.name, "axis", axis)
        self.add_prim_attr("periods", self.periods)
        self.add_prim_attr("axis", self.axis)

    def __call__(self, x, fill_value=math.nan):
        if is_tensor(fill_value) and not getattr(fill_value, "traced", False) \
                and len(fill_value.shape) == 0:
            fill_value = fill_value.asnumpy().item()
        return super().__call__(x, fill_value)

    def infer(self, x, fill_value):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, self._DTYPES)
        normalize_axis(self, self.axis, max(len(x.shape), 1))
        if isinstance(fill_value, bool) and x.dtype != mstype.bool_ or \
                not isinstance(fill_value, numbers.Number):
            raise self.error(f"'fill_value' must be a number, but got "
                             f"{type(fill_value).__name__}.", TypeError)
        if x.dtype != mstype.bool_ and isinstance(fill_value, float) \
                and x.dtype in (mstype.int32, mstype.int64) and not float(fill_value).is_integer():
            raise self.error(f"'fill_value' {fill_value} cannot fill an {x.dtype} tensor; "
                             f"give an integer.", TypeError)
        return Aval(x.shape, x.dtype)

    def impl(self, x, fill_value):
        axis = normalize_axis(self, self.axis, max(x.ndim, 1))
        out = device.empty(x.shape, x.dtype)
        kernel("window", "shift")(_as_3d(x, axis), np.int64(self.periods),
                                  x.dtype.type(fill_value), out.reshape(_as_3d(x, axis).shape))
        return out

    def bprop(self, inputs, out, dout):
        return Shift(-self.periods, self.axis)(dout, 0), None


class Rolling(Primitive):
    """``Rolling(window, min_periods, center, axis, closed, method)(x)``: pandas'
    ``rolling(window, min_periods, center, closed).<method>()`` along `axis`, with method one
    of max, min, mean, sum, std, var (std and var with one degree of freedom) and closed one
    of right, left, both, neither. A window holding fewer than min_periods values gives NaN
    (0 for integer x). x: float32/float64/int32/int64; the result has x's dtype (integer
    results truncated, as MindSpore's kernel stores them). No gradient (it raises).

    >>> import numpy as np, minispore as ms
    >>> r = ms.ops.Rolling(2, 1, False, 0, "right", "sum")
    >>> r(ms.Tensor(np.array([1., 2., 3.], np.float32))).asnumpy()
    array([1., 3., 5.], dtype=float32)
    """
    no_bprop_reason = "its bprop is not implemented"

    sharding_rule = rules.axis_fixed("a window reads neighbouring positions along the axis")
    _DTYPES = (mstype.float32, mstype.float64, mstype.int32, mstype.int64)

    def __init__(self, window, min_periods, center, axis, closed, method):
        super().__init__()
        self.window = _int_attr(self.name, "window", window)
        self.min_periods = _int_attr(self.name, "min_periods", min_periods)
        self.center = check_bool(self.name, "center", center)
        self.axis = _int_attr(self.name, "axis", axis)
        if self.window <= 0 or not 0 < self.min_periods <= self.window:
            raise ValueError(f"For '{self.name}', 'window' must be positive and 'min_periods' "
                             f"in [1, window], but got window {window}, min_periods "
                             f"{min_periods}.")
        if closed not in _CLOSED:
            raise ValueError(f"For '{self.name}', 'closed' must be one of {sorted(_CLOSED)}, "
                             f"but got {closed!r}.")
        if method not in _METHODS:
            raise ValueError(f"For '{self.name}', 'method' must be one of {sorted(_METHODS)}, "
                             f"but got {method!r}.")
        self.closed, self.method = closed, method
        for k in ("window", "min_periods", "center", "axis", "closed", "method"):
            self.add_prim_attr(k, getattr(self, k))

    def infer(self, x):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, self._DTYPES)
        normalize_axis(self, self.axis, max(len(x.shape), 1))
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        axis = normalize_axis(self, self.axis, max(x.ndim, 1))
        x3 = _as_3d(x, axis)
        out = device.empty(x.shape, x.dtype)
        left, right = _CLOSED[self.closed]
        empty = x.dtype.type(0) if x.dtype.kind in "iu" else x.dtype.type(np.nan)
        kernel("window", "rolling")(x3, np.int64(self.window), np.int64(self.min_periods),
                                    self.center, left, right, np.int64(_METHODS[self.method]),
                                    empty, out.reshape(x3.shape))
        return out
