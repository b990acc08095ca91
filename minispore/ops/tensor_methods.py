"""Tensor's operators and array methods, installed onto minispore.common.Tensor by `install()`
when minispore.ops is imported (as jax.numpy installs Array's methods): common stays below ops.

Every method dispatches to a functional op, so it is differentiable and traceable like any
other operator call.
"""
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops import functional as F


def _bool_op(symbol, logical, x, y):
    """`x & y`, `|`, `^` on bool tensors (and bools): the logical operator. On integers they are
    MindSpore's bitwise operators, which minispore does not implement: it says so."""
    for v in (x, y):
        if not (v.dtype == mstype.bool_ if isinstance(v, Tensor) else isinstance(v, bool)):
            kind = v.dtype if isinstance(v, Tensor) else type(v).__name__
            raise NotImplementedError(f"'{symbol}' with a {kind} operand is MindSpore's bitwise "
                                      f"operator, which minispore does not implement; on bool "
                                      f"Tensors it is the logical one.")
    return logical(x, y)


class _TensorMethods:
    """The methods `install` puts on Tensor (written as a class body so they read as methods)."""

    def copy(self):
        return F.identity(self)

    # -- operators (all differentiable: they go through primitives) --------------------
    def __add__(self, other): return F.add(self, other)
    def __radd__(self, other): return F.add(other, self)
    def __sub__(self, other): return F.sub(self, other)
    def __rsub__(self, other): return F.sub(other, self)
    def __mul__(self, other): return F.mul(self, other)
    def __rmul__(self, other): return F.mul(other, self)
    def __truediv__(self, other): return F.div(self, other)
    def __rtruediv__(self, other): return F.div(other, self)
    def __floordiv__(self, other): return F.floor_div(self, other)
    def __rfloordiv__(self, other): return F.floor_div(other, self)
    def __mod__(self, other): return F.floor_mod(self, other)
    def __rmod__(self, other): return F.floor_mod(other, self)
    def __and__(self, other): return _bool_op("&", F.logical_and, self, other)
    def __rand__(self, other): return _bool_op("&", F.logical_and, other, self)
    def __or__(self, other): return _bool_op("|", F.logical_or, self, other)
    def __ror__(self, other): return _bool_op("|", F.logical_or, other, self)
    def __xor__(self, other): return _bool_op("^", F.logical_xor, self, other)
    def __rxor__(self, other): return _bool_op("^", F.logical_xor, other, self)

    def __invert__(self):
        if self.dtype != mstype.bool_:
            raise NotImplementedError(f"'~' on a {self.dtype} Tensor is MindSpore's bitwise "
                                      f"not, which minispore does not implement; on bool "
                                      f"Tensors it is logical_not.")
        return F.logical_not(self)

    def __matmul__(self, other): return F.matmul(self, other)
    def __rmatmul__(self, other): return F.matmul(other, self)
    def __pow__(self, other): return F.pow(self, other)
    def __rpow__(self, other): return F.pow(other, self)
    def __neg__(self): return F.neg(self)
    def __pos__(self): return self
    def __abs__(self): return F.abs(self)
    def __eq__(self, other): return F.equal(self, other)
    def __ne__(self, other): return F.not_equal(self, other)
    def __lt__(self, other): return F.less(self, other)
    def __le__(self, other): return F.less_equal(self, other)
    def __gt__(self, other): return F.greater(self, other)
    def __ge__(self, other): return F.greater_equal(self, other)
    def __getitem__(self, index): return F.tensor_getitem(self, index)

    def __setitem__(self, index, value):
        """``x[index] = value`` in place (see ops.function.index_func.tensor_setitem): a
        Parameter is written through Assign; any other tensor takes the new value, and the
        active tapes and tracer are told, so gradients flow to `value` and to the part of
        the old value that was kept."""
        from minispore.ops.autodiff import replace_in_place
        new = F.tensor_setitem(self, index, value)
        replace_in_place(self, new, "Tensor.__setitem__")

    # -- methods ---------------------------------------------------------------------------
    def astype(self, dtype, copy=True): return F.cast(self, mstype.to_type(dtype))
    def matmul(self, tensor2): return F.matmul(self, tensor2)
    def sum(self, axis=None, keepdims=False): return F.reduce_sum(self, axis, keepdims)
    def mean(self, axis=None, keep_dims=False): return F.reduce_mean(self, axis, keep_dims)
    def max(self, axis=None, keepdims=False): return F.reduce_max(self, axis, keepdims)
    def min(self, axis=None, keepdims=False): return F.reduce_min(self, axis, keepdims)
    def argmax(self, axis=None): return F.argmax(self, axis)
    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return F.transpose(self, axes or tuple(reversed(range(self.ndim))))
    @property
    def T(self): return self.transpose()
    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return F.reshape(self, shape)
    def view(self, *shape): return self.reshape(*shape)
    def split(self, split_size_or_sections, axis=0):
        return F.split(self, split_size_or_sections, axis)
    def expand_dims(self, axis): return F.expand_dims(self, axis)
    def squeeze(self, axis=None): return F.squeeze(self, axis)
    def flatten(self): return F.reshape(self, (-1,))
    def ravel(self): return F.reshape(self, (-1,))
    def abs(self): return F.abs(self)
    def exp(self): return F.exp(self)
    def log(self): return F.log(self)
    def sqrt(self): return F.sqrt(self)
    def sin(self): return F.sin(self)
    def cos(self): return F.cos(self)
    def tan(self): return F.tan(self)
    def sinh(self): return F.sinh(self)
    def cosh(self): return F.cosh(self)
    def asin(self): return F.asin(self)
    def acos(self): return F.acos(self)
    def atan(self): return F.atan(self)
    def arcsin(self): return F.asin(self)
    def arccos(self): return F.acos(self)
    def arctan(self): return F.atan(self)
    def floor(self): return F.floor(self)
    def ceil(self): return F.ceil(self)
    def sign(self): return F.sign(self)
    def reciprocal(self): return F.reciprocal(self)
    def log1p(self): return F.log1p(self)
    def expm1(self): return F.expm1(self)
    def erf(self): return F.erf(self)
    def erfc(self): return F.erfc(self)
    def isnan(self): return F.isnan(self)
    def isinf(self): return F.isinf(self)
    def isfinite(self): return F.isfinite(self)
    def logical_and(self, other): return F.logical_and(self, other)
    def logical_or(self, other): return F.logical_or(self, other)
    def logical_xor(self, other): return F.logical_xor(self, other)
    def logical_not(self): return F.logical_not(self)
    def atan2(self, other): return F.atan2(self, other)
    def arctan2(self, other): return F.atan2(self, other)
    def hypot(self, other): return F.hypot(self, other)
    def floor_divide(self, other): return F.floor_div(self, other)
    def remainder(self, other): return F.floor_mod(self, other)
    def square(self): return F.square(self)
    def cumsum(self, axis=None, dtype=None):
        # MindSpore's Tensor.cumsum: axis None scans the flattened tensor.
        if axis is None:
            return F.cumsum(F.reshape(self, (-1,)), 0, dtype)
        return F.cumsum(self, axis, dtype)
    def sort(self, axis=-1, descending=False): return F.sort(self, axis, descending)
    def argsort(self, axis=-1, descending=False): return F.argsort(self, axis, descending)
    def topk(self, k, dim=None, largest=True, sorted=True):  # noqa: A002
        return F.topk(self, k, dim, largest, sorted)
    def masked_select(self, mask): return F.masked_select(self, mask)


def install(cls=Tensor):
    """Set every method of _TensorMethods on `cls` (Tensor; its subclasses inherit them)."""
    for name, member in vars(_TensorMethods).items():
        if callable(member) or isinstance(member, property):
            setattr(cls, name, member)
