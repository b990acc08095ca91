"""mindspore.numpy comparisons and logic: equal, isclose, isnan, logical_and, isin ..."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.numpy._utils import binary_pair, cast, to_tensor
from minispore.ops import functional as F

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "isclose",
           "isfinite", "isnan", "isinf", "isneginf", "isposinf", "signbit", "logical_and",
           "logical_or", "logical_xor", "logical_not", "array_equal", "array_equiv", "isin",
           "in1d"]


def _out(x, dtype):
    return x if dtype is None else cast(x, dtype)


def _compare(fname, op):
    def fn(x1, x2, dtype=None):
        a, b = binary_pair(x1, x2, fname)
        return _out(op(a, b), dtype)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"mindspore.numpy.{fname}: element-wise comparison (bool), with broadcasting."
    return fn


equal = _compare("equal", F.equal)
not_equal = _compare("not_equal", F.not_equal)
less = _compare("less", F.less)
less_equal = _compare("less_equal", F.less_equal)
greater = _compare("greater", F.greater)
greater_equal = _compare("greater_equal", F.greater_equal)


def _bools(fname, *xs):
    out = []
    for x in xs:
        x = to_tensor(x, fname)
        out.append(x if x.dtype == mstype.bool_ else F.not_equal(x, 0))
    return out


def logical_and(x1, x2, dtype=None):
    return _out(F.logical_and(*_bools("logical_and", x1, x2)), dtype)


def logical_or(x1, x2, dtype=None):
    return _out(F.logical_or(*_bools("logical_or", x1, x2)), dtype)


def logical_xor(x1, x2, dtype=None):
    return _out(F.not_equal(*_bools("logical_xor", x1, x2)), dtype)


def logical_not(a, dtype=None):
    return _out(F.logical_not(*_bools("logical_not", a)), dtype)


def _unary(fname, op, float_only=True):
    def fn(x, dtype=None):
        x = to_tensor(x, fname)
        if float_only and not x.dtype.is_float:
            # Integers and bools are always finite and never NaN.
            value = fname == "isfinite"
            return _out(F.fill(mstype.bool_, tuple(x.shape), value), dtype)
        return _out(op(x), dtype)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"mindspore.numpy.{fname}: element-wise test (bool)."
    return fn


isfinite = _unary("isfinite", F.isfinite)
isnan = _unary("isnan", F.isnan)
isinf = _unary("isinf", F.isinf)


def isneginf(x):
    x = to_tensor(x, "isneginf")
    return F.equal(x, float("-inf")) if x.dtype.is_float else isinf(x)


def isposinf(x):
    x = to_tensor(x, "isposinf")
    return F.equal(x, float("inf")) if x.dtype.is_float else isinf(x)


def signbit(x, dtype=None):
    """Whether the sign bit is set (true for -0.0 and negative NaN payloads aside, x < 0)."""
    x = to_tensor(x, "signbit")
    if x.dtype == mstype.bool_:
        return _out(F.fill(mstype.bool_, tuple(x.shape), False), dtype)
    return _out(F.signbit(x), dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, element-wise; infinities are close only to themselves."""
    a, b = to_tensor(a, "isclose"), to_tensor(b, "isclose")
    if not a.dtype.is_float:
        a = cast(a, mstype.float32)
    if not b.dtype.is_float:
        b = cast(b, mstype.float32)
    return F.isclose(a, b, rtol, atol, equal_nan)


def array_equal(a1, a2, equal_nan=False):
    """True (a bool Tensor, as MindSpore's) when a1 and a2 have one shape and equal values."""
    a, b = to_tensor(a1, "array_equal"), to_tensor(a2, "array_equal")
    if tuple(a.shape) != tuple(b.shape):
        return to_tensor(False)
    eq = F.equal(a, b)
    if equal_nan and a.dtype.is_float and b.dtype.is_float:
        eq = F.logical_or(eq, F.logical_and(F.isnan(a), F.isnan(b)))
    return F.all(eq, (), False)


def array_equiv(a1, a2):
    """True when a1 and a2 broadcast to one shape and are equal there."""
    a, b = to_tensor(a1, "array_equiv"), to_tensor(a2, "array_equiv")
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        return to_tensor(False)
    return F.all(F.equal(a, b), (), False)


def isin(element, test_elements, invert=False):
    """Whether each element of `element` occurs in `test_elements` (shape of element)."""
    e = to_tensor(element, "isin")
    t = F.reshape(to_tensor(test_elements, "isin"), (-1,))
    hit = F.any(F.equal(F.expand_dims(e, -1), t), (e.ndim,), False)
    return F.logical_not(hit) if invert else hit


def in1d(ar1, ar2, invert=False):
    return isin(F.reshape(to_tensor(ar1, "in1d"), (-1,)), ar2, invert)
