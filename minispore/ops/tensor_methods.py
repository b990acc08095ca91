"""Tensor's operators and array methods, installed onto minispore.common.Tensor by `install()`
when minispore.ops is imported (as jax.numpy installs Array's methods): common stays below ops.

Every method dispatches to a functional op, so it is differentiable and traceable like any
other operator call.
"""
from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.ops import functional as F
from minispore.ops.function import random_func as RF
from minispore.ops.function import scatter_reduce_func as SR
from minispore.ops.function.index_func import scatter_reduce_method
from minispore.ops.tensor_methods_more import _MoreMethods


def _scatter_add_along(self, dim, index, src):
    return scatter_reduce_method(self, dim, index, src, "add")


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
    # &, |, ^ are MindSpore's bitwise operators (on bools the logical ones); ~ is its
    # logical_not on every dtype (MindSpore 2.7: ~Tensor([1, 0]) is [False, True]).
    def __and__(self, other): return F.bitwise_and(self, other)
    def __rand__(self, other): return F.bitwise_and(other, self)
    def __or__(self, other): return F.bitwise_or(self, other)
    def __ror__(self, other): return F.bitwise_or(other, self)
    def __xor__(self, other): return F.bitwise_xor(self, other)
    def __rxor__(self, other): return F.bitwise_xor(other, self)
    def __invert__(self): return F.logical_not(self)

    def __matmul__(self, other): return F.matmul(self, other)
    def __rmatmul__(self, other): return F.matmul(other, self)
    def __pow__(self, other): return F.pow(self, other)
    def __rpow__(self, other): return F.pow(other, self)
    def __neg__(self): return F.neg(self)
    def __pos__(self): return self
    def __abs__(self): return F.abs(self)
    # == and != compare with a Tensor or a Python number elementwise; with anything else (an
    # ndarray, a list, None, a NumPy int32 scalar) MindSpore 2.7.2's Tensor answers a plain
    # False (True for !=), as object identity would.
    def __eq__(self, other):
        return F.equal(self, other) if isinstance(other, (int, float, Tensor)) else False

    def __ne__(self, other):
        return F.not_equal(self, other) if isinstance(other, (int, float, Tensor)) else True

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
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, Tensor)):
            shape = shape[0]
        return F.reshape(self, shape)
    def view(self, *shape): return self.reshape(*shape)
    def split(self, split_size_or_sections, axis=0):
        return F.split(self, split_size_or_sections, axis)
    def expand_dims(self, axis): return F.expand_dims(self, axis)
    def squeeze(self, axis=None): return F.squeeze(self, axis)
    def flatten(self): return F.reshape(self, (-1,))
    ravel = flatten
    abs = __abs__
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
    arcsin = asin
    arccos = acos
    arctan = atan
    def floor(self): return F.floor(self)
    def ceil(self): return F.ceil(self)
    def sign(self): return F.sign(self)
    def reciprocal(self): return F.reciprocal(self)
    def log1p(self): return F.log1p(self)
    def expm1(self): return F.expm1(self)
    def erf(self): return F.erf(self)
    def erfc(self): return F.erfc(self)
    def erfinv(self): return F.erfinv(self)
    def i0(self): return F.i0(self)
    def lgamma(self): return F.lgamma(self)
    def digamma(self): return F.digamma(self)
    def mvlgamma(self, p): return F.mvlgamma(self, p)
    def isnan(self): return F.isnan(self)
    def isinf(self): return F.isinf(self)
    def isfinite(self): return F.isfinite(self)
    def logical_and(self, other): return F.logical_and(self, other)
    def logical_or(self, other): return F.logical_or(self, other)
    def logical_xor(self, other): return F.logical_xor(self, other)
    def logical_not(self): return F.logical_not(self)
    def bitwise_and(self, other): return F.bitwise_and(self, other)
    def bitwise_or(self, other): return F.bitwise_or(self, other)
    def bitwise_xor(self, other): return F.bitwise_xor(self, other)
    def bitwise_left_shift(self, other): return F.bitwise_left_shift(self, other)
    def bitwise_right_shift(self, other): return F.bitwise_right_shift(self, other)
    def invert(self): return F.invert(self)
    def gcd(self, other): return F.gcd(self, other)
    def lcm(self, other): return F.lcm(self, other)
    def atan2(self, other): return F.atan2(self, other)
    arctan2 = atan2
    def igamma(self, other): return F.igamma(self, other)
    def igammac(self, other): return F.igammac(self, other)
    def nextafter(self, other): return F.nextafter(self, other)
    def hypot(self, other): return F.hypot(self, other)
    def choose(self, choices, mode="clip"): return F.choose(self, choices, mode)
    def unique_with_pad(self, pad_num): return F.unique_with_pad(self, pad_num)
    floor_divide = __floordiv__
    remainder = __mod__
    def square(self): return F.square(self)
    def cumsum(self, axis=None, dtype=None):
        # MindSpore's Tensor.cumsum: axis None scans the flattened tensor.
        if axis is None:
            return F.cumsum(F.reshape(self, (-1,)), 0, dtype)
        return F.cumsum(self, axis, dtype)
    def sort(self, axis=-1, descending=False): return F.sort(self, axis, descending)
    def argsort(self, axis=-1, descending=False): return F.argsort(self, axis, descending)
    def cummax(self, axis): return F.cummax(self, axis)
    def cummin(self, axis): return F.cummin(self, axis)
    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return F.unique_consecutive(self, return_inverse, return_counts, dim)

    def searchsorted(self, v, side="left", sorter=None):
        # MindSpore's Tensor.searchsorted answers Int32 (its ops.searchsorted Int64).
        return F.searchsorted(self, v, out_int32=True, side=side, sorter=sorter)
    def topk(self, k, dim=None, largest=True, sorted=True):  # noqa: A002
        return F.topk(self, k, dim, largest, sorted)
    def masked_select(self, mask): return F.masked_select(self, mask)
    def gather_nd(self, indices): return F.gather_nd(self, indices)
    def gather_elements(self, dim, index): return F.gather_elements(self, dim, index)
    def scatter(self, dim, index, src, reduce=None):
        return scatter_reduce_method(self, dim, index, src, reduce)
    def scatter_add(self, *args, **kwargs):
        # MindSpore overloads this: (indices, updates) is tensor_scatter_add, (dim, index, src)
        # adds src along dim (torch's scatter_add).
        if len(args) == 2 and not kwargs:
            return F.tensor_scatter_add(self, *args)
        return _scatter_add_along(self, *args, **kwargs)
    def index_fill(self, axis, index, value): return F.index_fill(self, axis, index, value)
    def scatter_add_(self, dim, index, src):
        return SR.write_back(self, scatter_reduce_method(self, dim, index, src, "add"),
                             "Tensor.scatter_add_")
    # MindSpore 2.7.2's Tensor.scatter_{sub,mul,div,max,min} are its tensor_scatter_* (indices
    # name rows by their last axis; out of place).
    def scatter_sub(self, indices, updates): return F.tensor_scatter_sub(self, indices, updates)
    def scatter_mul(self, indices, updates): return SR.tensor_scatter_mul(self, indices, updates)
    def scatter_div(self, indices, updates): return SR.tensor_scatter_div(self, indices, updates)
    def scatter_max(self, indices, updates): return SR.tensor_scatter_max(self, indices, updates)
    def scatter_min(self, indices, updates): return SR.tensor_scatter_min(self, indices, updates)
    # MindSpore 2.7.2's Tensor.index_add writes into self too, as ops.index_add does.
    def index_add(self, dim, index, source, *, alpha=1):
        return SR.write_back(self, SR.index_add_value(self, dim, index, source, alpha),
                             "Tensor.index_add")
    index_add_ = index_add
    def inplace_update(self, v, indices): return SR.inplace_update(self, v, indices)
    def unsorted_segment_max(self, segment_ids, num_segments):
        return SR.unsorted_segment_max(self, segment_ids, num_segments)
    def unsorted_segment_min(self, segment_ids, num_segments):
        return SR.unsorted_segment_min(self, segment_ids, num_segments)
    def unsorted_segment_prod(self, segment_ids, num_segments):
        return SR.unsorted_segment_prod(self, segment_ids, num_segments)
    def multinomial(self, num_samples, replacement=True, seed=None):
        return F.multinomial(self, num_samples, replacement, seed)
    def random_categorical(self, num_sample, seed=0, dtype=mstype.int64):
        return F.random_categorical(self, num_sample, seed, dtype)
    def log_normal(self, mean=1.0, std=2.0): return RF.log_normal(self, mean, std)
    def cauchy(self, median=0.0, sigma=1.0): return RF.cauchy(self, median, sigma)
    def bincount(self, weights=None, minlength=0): return F.bincount(self, weights, minlength)
    def histc(self, bins=100, min=0., max=0.): return F.histc(self, bins, min, max)  # noqa: A002

    # -- MindSpore's aliases and compositions (ops/function/*_compose_func.py) -------------
    absolute = __abs__
    neg = __neg__
    negative = __neg__
    def positive(self): return F.positive(self)
    def add(self, other, *, alpha=1):
        return F.add(self, other if alpha == 1 else F.mul(other, alpha))
    def sub(self, other, *, alpha=1): return F.subtract(self, other, alpha=alpha)
    subtract = sub
    mul = __mul__
    multiply = __mul__
    def div(self, other, *, rounding_mode=None):
        return F.divide(self, other, rounding_mode=rounding_mode)
    divide = div
    true_divide = __truediv__
    def pow(self, exponent): return F.pow(self, exponent)
    def float_power(self, exponent): return F.float_power(self, exponent)
    def maximum(self, other): return F.maximum(self, other)
    def minimum(self, other): return F.minimum(self, other)
    def fmax(self, other): return F.fmax(self, other)
    def fmod(self, other): return F.fmod(self, other)
    eq = __eq__
    equal = __eq__
    ne = __ne__
    not_equal = __ne__
    lt = __lt__
    less = __lt__
    le = __le__
    less_equal = __le__
    gt = __gt__
    greater = __gt__
    ge = __ge__
    greater_equal = __ge__
    def isclose(self, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
        return F.isclose(self, x2, rtol, atol, equal_nan)
    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(F.all(F.isclose(self, other, rtol, atol, equal_nan)).asnumpy())
    def approximate_equal(self, other, tolerance=1e-5):
        return F.approximate_equal(self, other, tolerance)
    def acosh(self): return F.acosh(self)
    arccosh = acosh
    def asinh(self): return F.asinh(self)
    arcsinh = asinh
    def atanh(self): return F.atanh(self)
    arctanh = atanh
    def tanh(self): return F.tanh(self)
    def sigmoid(self): return F.sigmoid(self)
    def softmax(self, axis, dtype=None):
        x = self if dtype is None else F.cast(self, mstype.to_type(dtype))
        return F.softmax(x, axis)
    def rsqrt(self): return F.rsqrt(self)
    def log2(self): return F.log2(self)
    def log10(self): return F.log10(self)
    def logaddexp(self, other): return F.logaddexp(self, other)
    def logaddexp2(self, other): return F.logaddexp2(self, other)
    def logit(self, eps=None): return F.logit(self, eps)
    def logsumexp(self, axis, keepdims=False): return F.logsumexp(self, axis, keepdims)
    def deg2rad(self): return F.deg2rad(self)
    def rad2deg(self): return F.rad2deg(self)
    def trunc(self): return F.trunc(self)
    def frac(self): return F.frac(self)
    def round(self, decimals=0): return F.round(self, decimals=decimals)
    def sgn(self): return F.sgn(self)
    def signbit(self): return F.signbit(self)
    def isneginf(self): return F.isneginf(self)
    def isposinf(self): return F.isposinf(self)
    def isreal(self): return F.isreal(self)
    def heaviside(self, values): return F.heaviside(self, values)
    def lerp(self, end, weight): return F.lerp(self, end, weight)
    def sinc(self): return F.sinc(self)
    def xlogy(self, y): return F.xlogy(self, y)
    def xdivy(self, y): return F.xdivy(self, y)
    def copysign(self, other): return F.copysign(self, other)
    def ldexp(self, other): return F.ldexp(self, other)
    def inv(self): return F.inv(self)
    def addcmul(self, tensor1, tensor2, value=1): return F.addcmul(self, tensor1, tensor2, value)
    def addcdiv(self, tensor1, tensor2, value=1): return F.addcdiv(self, tensor1, tensor2, value)
    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return F.nan_to_num(self, nan, posinf, neginf)
    def hardshrink(self, lambd=0.5): return F.hardshrink(self, lambd)
    def soft_shrink(self, lambd=0.5): return F.softshrink(self, lambd)
    def clamp(self, min=None, max=None): return F.clamp(self, min, max)  # noqa: A002
    clip = clamp
    def all(self, axis=None, keep_dims=False): return F.all(self, axis, keep_dims)
    def any(self, axis=None, keep_dims=False): return F.any(self, axis, keep_dims)
    def amax(self, axis=None, keepdims=False): return F.amax(self, axis, keepdims)
    def amin(self, axis=None, keepdims=False): return F.amin(self, axis, keepdims)
    def aminmax(self, *, axis=0, keepdims=False):
        return F.aminmax(self, axis=axis, keepdims=keepdims)
    def argmin(self, axis=None, keepdims=False): return F.argmin(self, axis, keepdims)
    def argmax_with_value(self, axis=0, keep_dims=False):
        index, value = F.ArgMaxWithValue(axis, keep_dims)(self)
        return value, index
    def argmin_with_value(self, axis=0, keep_dims=False):
        index, value = F.ArgMinWithValue(axis, keep_dims)(self)
        return value, index
    def count_nonzero(self, axis=(), keep_dims=False, dtype=mstype.int32):
        return F.count_nonzero(self, axis, keep_dims, dtype)
    def var(self, axis=None, ddof=0, keepdims=False): return F.var(self, axis, ddof, keepdims)
    def std(self, axis=None, ddof=0, keepdims=False): return F.std(self, axis, ddof, keepdims)
    def nansum(self, axis=None, keepdims=False, *, dtype=None):
        return F.nansum(self, axis, keepdims, dtype=dtype)
    def nanmean(self, axis=None, keepdims=False, *, dtype=None):
        return F.nanmean(self, axis, keepdims, dtype=dtype)
    def ptp(self, axis=None, keepdims=False): return F.ptp(self, axis, keepdims)
    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
        return F.norm(self, ord, dim, keepdim, dtype=dtype)
    def sum_to_size(self, *size):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        lead = self.ndim - len(size)
        axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                          if s == 1 and self.shape[lead + i] != 1)
        out = F.reduce_sum(self, axes, True) if axes else self
        return F.reshape(out, tuple(size))
    def trace(self): return F.trace(self)
    def diag(self): return F.diag(self)
    def diagflat(self, offset=0): return F.diagflat(self, offset)
    def diagonal(self, offset=0, dim1=0, dim2=1): return F.diagonal(self, offset, dim1, dim2)
    def tril(self, diagonal=0): return F.tril(self, diagonal)
    def triu(self, diagonal=0): return F.triu(self, diagonal)
    def outer(self, vec2): return F.outer(self, vec2)
    def inner(self, other): return F.inner(self, other)
    def cross(self, other, dim=None): return F.cross(self, other, dim)
    def diff(self, n=1, axis=-1, prepend=None, append=None):
        return F.diff(self, n, axis, prepend, append)
    def t(self): return F.t(self)
    def adjoint(self): return F.adjoint(self)
    @property
    def H(self): return F.adjoint(self) if self.ndim == 2 else self.transpose()
    @property
    def mT(self): return F.adjoint(self)
    @property
    def mH(self): return F.adjoint(self)
    def permute(self, *axis):
        if len(axis) == 1 and isinstance(axis[0], (tuple, list)):
            axis = tuple(axis[0])
        return F.permute(self, axis or tuple(reversed(range(self.ndim))))
    def swapaxes(self, axis0, axis1): return F.swapaxes(self, axis0, axis1)
    def swapdims(self, dim0, dim1): return F.swapaxes(self, dim0, dim1)
    def moveaxis(self, source, destination): return F.movedim(self, source, destination)
    movedim = moveaxis
    def unsqueeze(self, dim): return F.unsqueeze(self, dim)
    def unbind(self, dim=0): return F.unbind(self, dim)
    def chunk(self, chunks, axis=0): return F.chunk(self, chunks, axis)
    def tensor_split(self, indices_or_sections, axis=0):
        return F.tensor_split(self, indices_or_sections, axis)
    def hsplit(self, indices_or_sections): return F.hsplit(self, indices_or_sections)
    def vsplit(self, indices_or_sections): return F.vsplit(self, indices_or_sections)
    def fliplr(self): return F.fliplr(self)
    def flipud(self): return F.flipud(self)
    def expand_as(self, other): return F.expand_as(self, other)
    def view_as(self, other): return F.view_as(self, other)
    reshape_as = view_as
    def type_as(self, other): return F.type_as(self, other)
    def tile(self, reps):
        reps = (reps,) if isinstance(reps, int) else tuple(reps)
        reps = (1,) * (self.ndim - len(reps)) + reps
        return F.tile(self, reps)
    def argwhere(self): return F.argwhere(self)
    def nonzero(self, *, as_tuple=False): return F.nonzero(self, as_tuple=as_tuple)
    def masked_fill(self, mask, value): return F.masked_fill(self, mask, value)
    def where(self, condition, y): return F.where(condition, self, y)
    select = where
    def fill(self, value): return F.full_like(self, value)
    def new_ones(self, size, dtype=None):
        return F.ones(size, self.dtype if dtype is None else dtype)
    def new_zeros(self, size, dtype=None):
        return F.zeros(size, self.dtype if dtype is None else dtype)
    def real(self): return self
    def imag(self): return F.zeros_like(self)
    def conj(self): return self
    def is_complex(self): return False
    def is_floating_point(self): return self.dtype.is_float
    def is_signed(self): return self.dtype.np_dtype.kind in "if"
    def dim(self): return self.ndim
    ndimension = dim
    def numel(self): return self.size
    nelement = numel
    def type(self, dtype=None):
        return str(self.dtype) if dtype is None else F.cast(self, mstype.to_type(dtype))
    def bool(self): return F.cast(self, mstype.bool_)
    def byte(self): return F.cast(self, mstype.uint8)
    def short(self): return F.cast(self, mstype.int16)
    def int(self): return F.cast(self, mstype.int32)
    def long(self): return F.cast(self, mstype.int64)
    def half(self): return F.cast(self, mstype.float16)
    def float(self): return F.cast(self, mstype.float32)
    def double(self): return F.cast(self, mstype.float64)
    def contiguous(self): return self
    def is_contiguous(self): return True
    def value(self):
        # A Parameter's value() is a snapshot Tensor in MindSpore (later in-place updates of the
        # Parameter do not show through it); a plain Tensor's value is itself.
        return F.identity(self) if isinstance(self, Parameter) else self
    @property
    def data(self): return self

    def prod(self, axis=None, keep_dims=False, dtype=None):
        return F.prod(self, axis, keep_dims, dtype)
    def cumprod(self, dim, dtype=None): return F.cumprod(self, dim, dtype)
    def logcumsumexp(self, axis): return F.logcumsumexp(self, axis)
    def median(self, axis=-1, keepdims=False): return F.median(self, axis, keepdims)
    def nanmedian(self, axis=-1, keepdims=False): return F.nanmedian(self, axis, keepdims)
    def msort(self): return F.msort(self)
    def det(self): return F.det(self)
    def matrix_determinant(self): return F.matrix_determinant(self)
    def slogdet(self): return F.slogdet(self)
    def log_matrix_determinant(self): return F.log_matrix_determinant(self)
    def logdet(self): return F.logdet(self)
    def inverse(self): return F.inverse(self)
    def svd(self, full_matrices=False, compute_uv=True):
        return F.svd(self, full_matrices, compute_uv)
    def qr(self, some=True): return F.qr(self, "reduced" if some else "complete")
    def geqrf(self): return F.geqrf(self)
    def cholesky(self, upper=False): return F.cholesky(self, upper)
    def cholesky_inverse(self, upper=False): return F.cholesky_inverse(self, upper)
    def lstsq(self, A): return F.lstsq(self, A)  # noqa: N803 - MindSpore's name
    def orgqr(self, input2): return F.orgqr(self, input2)
    def cholesky_solve(self, input2, upper=False): return F.cholesky_solve(self, input2, upper)
    def top_k(self, k, sorted=True): return F.top_k(self, k, sorted)  # noqa: A002
    def cov(self, *, correction=1, fweights=None, aweights=None):
        return F.cov(self, correction=correction, fweights=fweights, aweights=aweights)
    def take(self, indices, axis=None):
        return F.take(self, indices) if axis is None else F.gather(self, indices, axis)
    def index_select(self, axis, index): return F.index_select(self, axis, index)
    def repeat_interleave(self, repeats, dim=None): return F.repeat_interleave(self, repeats, dim)
    def slice_scatter(self, src, axis=0, start=None, end=None, step=1):
        return F.slice_scatter(self, src, axis, start, end, step)
    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        return F.diagonal_scatter(self, src, offset, dim1, dim2)
    def fill_diagonal(self, fill_value, wrap=False):
        if wrap or self.ndim != 2:
            raise NotImplementedError("Tensor.fill_diagonal: only 2-D without wrap is "
                                      "implemented in minispore.")
        k = min(self.shape)
        return F.diagonal_scatter(self, F.fill(self.dtype, (k,), fill_value))
    def resize(self, *new_shape):
        if not new_shape:
            return self
        raise NotImplementedError("Tensor.resize with a new shape is not implemented in "
                                  "minispore; use reshape.")
    def stride(self, dim=None):
        strides = [1] * self.ndim
        for i in range(self.ndim - 2, -1, -1):
            strides[i] = strides[i + 1] * self.shape[i + 1]
        return strides if dim is None else strides[dim]
    @property
    def strides(self): return tuple(s * self.itemsize for s in self.stride())
    def itemset(self, *args):
        """A copy of self with one element set (MindSpore returns the new tensor)."""
        import numpy as np
        *index, value = args
        index = index[0] if len(index) == 1 else tuple(index)
        if isinstance(index, int):
            index = np.unravel_index(index, tuple(self.shape))
        mask = np.zeros(tuple(self.shape), bool)
        mask[tuple(index)] = True
        return F.where(Tensor(mask), F.cast(Tensor(value), self.dtype), self)
    @property
    def has_init(self): return False
    @property
    def init_finished(self): return True
    @property
    def const_arg(self): return getattr(self, "_const_arg", False)
    def set_const_arg(self, const_arg=True):
        """Mark the tensor as a constant argument of a compiled graph (MindSpore's flag;
        minispore records it); returns self."""
        self._const_arg = bool(const_arg)
        return self
    @property
    def init(self):
        """None: minispore initialises tensors eagerly, so none holds a pending initializer."""
        return None
    @property
    def init_flag(self): return False
    @property
    def symbolic_shape(self): return None
    @property
    def param_info(self): return None
    def assign_value(self, value):
        """self takes value's contents (in place, like copy_); returns self."""
        return self.copy_(value)
    def assign_value_cpp(self, value): return self.copy_(value)
    def get_bytes(self): return self.asnumpy().tobytes()
    def data_ptr(self):
        """The address of the tensor's buffer on its device."""
        data = self._require_data()
        iface = getattr(data, "__cuda_array_interface__", None) or data.__array_interface__
        return iface["data"][0]
    def flush_from_cache(self): return None
    def wait_pipeline(self): return None
    def set_cast_dtype(self, dtype=None): return None
    @property
    def virtual_flag(self): return False
    @property
    def delta_seed(self): return 0
    @property
    def device(self):
        from minispore.common import context
        return context.get_context("device_target")
    def is_init(self): return False
    def is_pinned(self): return False

    # in-place forms: the value is computed out of place, then written into self the way
    # __setitem__ writes (tapes and tracer told, a Parameter through Assign)
    def _in_place(self, new, name):
        from minispore.ops.autodiff import replace_in_place
        replace_in_place(self, F.cast(new, self.dtype), f"Tensor.{name}")
        return self
    def add_(self, other, *, alpha=1): return self._in_place(self.add(other, alpha=alpha), "add_")
    def sub_(self, other, *, alpha=1): return self._in_place(self.sub(other, alpha=alpha), "sub_")
    def mul_(self, other): return self._in_place(F.mul(self, other), "mul_")
    def div_(self, other, *, rounding_mode=None):
        return self._in_place(F.divide(self, other, rounding_mode=rounding_mode), "div_")
    def exp_(self): return self._in_place(F.exp(self), "exp_")
    # MindSpore 2.7.2's CPU wheel has no kernel for the next seven (InplaceClampScalar …);
    # minispore computes them as MindSpore does on GPU and Ascend.
    def clamp_(self, min=None, max=None):  # noqa: A002 - MindSpore's argument names
        return self._in_place(F.clamp(self, min, max), "clamp_")
    def erfinv_(self): return self._in_place(F.erfinv(self), "erfinv_")
    def floor_(self): return self._in_place(F.floor(self), "floor_")
    def log_(self): return self._in_place(F.log(self), "log_")
    def sigmoid_(self): return self._in_place(F.sigmoid(self), "sigmoid_")
    def sign_(self): return self._in_place(F.sign(self), "sign_")
    def tanh_(self): return self._in_place(F.tanh(self), "tanh_")
    def remainder_(self, other): return self._in_place(F.floor_mod(self, other), "remainder_")
    def floor_divide_(self, other): return self._in_place(F.floor_div(self, other), "floor_divide_")
    def copy_(self, src):
        return self._in_place(F.broadcast_to(F.cast(src, self.dtype), tuple(self.shape)),
                              "copy_")


def install(cls=Tensor):
    """Set every method of _TensorMethods and _MoreMethods on `cls` (Tensor; its subclasses
    inherit them)."""
    for methods in (_TensorMethods, _MoreMethods):
        for name, member in vars(methods).items():
            if callable(member) or isinstance(member, (property, staticmethod)):
                setattr(cls, name, member)
