"""More of Tensor's methods (installed with tensor_methods.py's): shifting and creation
(roll, repeat, flip, rot90, narrow, expand, fills, fill_, zero_, clone, new_full, ...),
matrix products (mm, dot, addmm, baddbmm, ...), the in-place random draws (uniform_,
normal_, random_, bernoulli_, exponential_) and selection / scatter / solves (gather, dsplit,
select_scatter, masked_scatter, index_put, unfold, matrix_power, lu_solve). Each dispatches to a
functional op."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops import functional as F
from minispore.ops.function import put_compose_func as PUT


def _shape_args(name, size):
    """f(2, 3), f((2, 3)) and f([2, 3]) alike."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in size):
        raise TypeError(f"For 'Tensor.{name}', the sizes must be ints, but got {size!r}.")
    return tuple(int(d) for d in size)


class _MoreMethods:
    """Methods `install` puts on Tensor beside _TensorMethods'."""

    # -- shifting and creation ------------------------------------------------------------
    def roll(self, shifts, dims=None): return F.roll(self, shifts, dims)
    def flip(self, dims): return F.flip(self, dims)
    def rot90(self, k, dims): return F.rot90(self, k, dims)
    def narrow(self, dim, start, length):
        if isinstance(start, Tensor):
            start = int(start.asnumpy())
        return F.narrow(self, dim, start, length)
    def reverse(self, axis): return F.reverse(self, axis)
    def reverse_sequence(self, seq_lengths, seq_dim=0, batch_dim=0):
        return F.reverse_sequence(self, seq_lengths, seq_dim, batch_dim)
    def broadcast_to(self, *shape): return F.broadcast_to(self, _shape_args("broadcast_to", shape))
    def expand(self, *size):
        if len(size) == 1 and isinstance(size[0], Tensor):
            return F.expand(self, size[0])
        return F.expand(self, _shape_args("expand", size))

    def repeat(self, *repeats):
        """MindSpore 2.7's Tensor.repeat(*repeats) (torch's): self tiled repeats[i] times along
        dim i, self first viewed with leading 1-dims to len(repeats) dims. (Not numpy's
        element-wise repeat: that is Tensor.repeat_interleave.)"""
        repeats = _shape_args("repeat", repeats)
        if len(repeats) < self.ndim:
            raise RuntimeError(f"For 'Tensor.repeat', the number of elements of 'repeats' "
                               f"({len(repeats)}) must be at least the number of dimensions of "
                               f"self ({self.ndim}).")
        if any(r < 0 for r in repeats):
            raise RuntimeError(f"For 'Tensor.repeat', 'repeats' must be non-negative, but got "
                               f"{repeats}.")
        view = F.reshape(self, (1,) * (len(repeats) - self.ndim) + tuple(self.shape))
        return F.tile(view, repeats)

    def fills(self, value): return F.fills(self, value)
    def clone(self): return F.identity(self)
    def new_full(self, size, fill_value, *, dtype=None):
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of int, "
                            f"not {type(size).__name__}.")
        dtype = self.dtype if dtype is None else mstype.to_type(dtype)
        return F.fill(dtype, tuple(size), dtype.np_dtype.type(fill_value).item())
    def new_empty(self, size, *, dtype=None, device=None):
        """A tensor of `size` in self's dtype (or `dtype`); minispore fills it with zeros."""
        if device not in (None, "cpu", "CPU"):
            raise NotImplementedError(f"Tensor.new_empty(device={device!r}) is not implemented "
                                      f"in minispore: tensors live on the context's device.")
        size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        return F.zeros(size, self.dtype if dtype is None else mstype.to_type(dtype))
    # in-place fills: written into self as tensor_methods' in-place forms write
    def fill_(self, value):
        if isinstance(value, Tensor):
            if value.size != 1:
                raise RuntimeError(f"For 'Tensor.fill_', a Tensor 'value' must hold one "
                                   f"element, but got shape {tuple(value.shape)}.")
            new = F.broadcast_to(F.cast(F.reshape(value, ()), self.dtype), tuple(self.shape))
        elif isinstance(value, (numbers.Number, np.generic)):
            new = F.fill(self.dtype, tuple(self.shape), self.dtype.np_dtype.type(value).item())
        else:
            raise TypeError(f"For 'Tensor.fill_', 'value' must be a number, a bool or a Tensor, "
                            f"but got {type(value).__name__}.")
        return self._in_place(new, "fill_")
    def zero_(self): return self._in_place(F.zeros_like(self), "zero_")

    # -- matrix products ------------------------------------------------------------------
    def mm(self, mat2): return F.mm(self, mat2)
    def bmm(self, mat2): return F.bmm(self, mat2)
    def dot(self, other):
        """Two 1-D Tensors: their dot product (shape (), Tensor.dot's documented form);
        otherwise ops.dot (what MindSpore's CPU build runs for every rank)."""
        if isinstance(other, Tensor) and self.ndim == 1 and other.ndim == 1:
            if self.dtype != other.dtype:
                raise RuntimeError(f"For 'Tensor.dot', the dtypes differ: {self.dtype} and "
                                   f"{other.dtype}.")
            if self.shape != other.shape:
                raise RuntimeError(f"For 'Tensor.dot', the shapes differ: {tuple(self.shape)} "
                                   f"and {tuple(other.shape)}.")
            return F.reduce_sum(F.mul(self, other))
        return F.dot(self, other)
    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return F.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        return self._in_place(F.addmm(self, mat1, mat2, beta=beta, alpha=alpha), "addmm_")
    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return F.addmv(self, mat, vec, beta=beta, alpha=alpha)
    def addr(self, vec1, vec2, beta=1, alpha=1):
        return F.addr(self, vec1, vec2, beta=beta, alpha=alpha)
    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return F.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)
    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return F.baddbmm(self, batch1, batch2, beta, alpha)
    def ger(self, vec2): return F.Ger()(self, vec2)

    # -- in-place random draws (the global generator; MindSpore's `generator` is not built) ---
    def _draw_into(self, draws, name, generator):
        if generator is not None:
            raise NotImplementedError(f"Tensor.{name}(generator=...) is not implemented in "
                                      f"minispore; seed the global generator (ms.set_seed).")
        return self._in_place(draws, name)
    def uniform_(self, from_=0, to=1, *, generator=None):
        """self filled with U[from_, to) draws."""
        draws = F.add(F.mul(F.rand(*self.shape, dtype=mstype.float64), float(to) - from_), from_)
        return self._draw_into(draws, "uniform_", generator)
    def normal_(self, mean=0, std=1, *, generator=None):
        """self filled with N(mean, std^2) draws."""
        draws = F.add(F.mul(F.randn(*self.shape, dtype=mstype.float64), std), mean)
        return self._draw_into(draws, "normal_", generator)
    def random_(self, from_=0, to=None, *, generator=None):
        """self filled with integers uniform on [from_, to); `to` None: up to the dtype's
        largest integer (2 ** mantissa digits for a float dtype), torch's rule."""
        if to is None:
            np_dtype = self.dtype.np_dtype
            to = (np.iinfo(np_dtype).max if np_dtype.kind in "iu" else
                  2 ** np.finfo(np_dtype).nmant) + 1 if np_dtype != np.bool_ else 2
        draws = F.randint(int(from_), int(to), tuple(self.shape))
        return self._draw_into(draws, "random_", generator)
    def bernoulli(self, *, generator=None):
        """0/1 draws, 1 with probability self (in [0, 1]), in self's dtype."""
        if generator is not None:
            raise NotImplementedError("Tensor.bernoulli(generator=...) is not implemented in "
                                      "minispore; seed the global generator (ms.set_seed).")
        return F.bernoulli(F.zeros_like(self), self)
    def bernoulli_(self, p=0.5, *, generator=None):
        """self filled with 0/1 draws, 1 with probability p (a float or a Tensor)."""
        probe = self if self.dtype.is_float else F.cast(self, mstype.float32)
        return self._draw_into(F.bernoulli(probe, p), "bernoulli_", generator)
    def exponential_(self, lambd=1, *, generator=None):
        """self filled with Exponential(lambd) draws: -log(1 - u) / lambd."""
        u = F.rand(*self.shape, dtype=mstype.float64)
        draws = F.div(F.neg(F.log1p(F.neg(u))), float(lambd))
        return self._draw_into(draws, "exponential_", generator)

    # -- others ----------------------------------------------------------------------------
    def fmin(self, other): return F.fmin(self, other)
    def renorm(self, p, axis, maxnorm): return F.renorm(self, p, axis, maxnorm)
    def bitwise_not(self):
        """~self bit by bit for integers, logical not for bools (Tensor.__invert__ is
        MindSpore's logical_not on every dtype)."""
        if self.dtype == mstype.bool_:
            return F.logical_not(self)
        if not self.dtype.is_int:
            raise TypeError(f"For 'Tensor.bitwise_not', self must be an integer or bool Tensor, "
                            f"but got {self.dtype}.")
        return F.invert(self)
    def quantile(self, q, axis=None, keepdims=False): return F.quantile(self, q, axis, keepdims)
    def nanquantile(self, q, axis=None, keepdims=False):
        return F.nanquantile(self, q, axis, keepdims)
    def kthvalue(self, k, dim=-1, keepdim=False): return F.kthvalue(self, k, dim, keepdim)

    # -- selection, scatter and linear algebra --------------------------------------------
    def dsplit(self, indices_or_sections): return F.dsplit(self, indices_or_sections)
    def gather(self, input_indices, axis, batch_dims=0):
        return F.gather(self, input_indices, axis, batch_dims)
    def select_scatter(self, src, axis, index): return F.select_scatter(self, src, axis, index)
    def masked_scatter(self, mask, source): return PUT.masked_scatter(self, mask, source)
    def index_put(self, indices, values, accumulate=False):
        return PUT.index_put(self, indices, values, accumulate)
    def unfold(self, kernel_size, dilation=1, padding=0, stride=1):
        return F.unfold(self, kernel_size, dilation, padding, stride)
    def matrix_power(self, n): return F.matrix_power(self, n)
    def to_coo(self): return F.dense_to_sparse_coo(self)
    def to_csr(self): return F.dense_to_sparse_csr(self)
    def lu_solve(self, LU_data, LU_pivots):  # noqa: N803 - MindSpore's argument names
        return F.lu_solve(self, LU_data, LU_pivots)
