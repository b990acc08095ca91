"""Window functions, FFT frequency grids and shifts, combinations, pdist and matrix_power:
constants built once (numpy, like arange) and compositions of existing primitives (Concat of
slices, Gather, MatMul)."""
import itertools
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import _split_at
from minispore.ops.function.linalg_func import inverse
from minispore.ops.function.nn_compose_func import cdist

__all__ = ["hann_window", "hamming_window", "kaiser_window", "bartlett_window", "blackman_window",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift", "combinations", "pdist", "matrix_power"]


def _window_length(name, n):
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For '{name}', 'window_length' must be a non-negative int, but got "
                         f"{n!r}.")
    return n


def _const(values, dtype):
    dtype = mstype.to_type(dtype)
    return Tensor(np.asarray(values).astype(dtype.np_dtype), dtype)


def hann_window(window_length, periodic=True, *, dtype=None):
    """0.5 - 0.5 cos(2 pi k / N), N = length (periodic) or length - 1 (float64 by default, as
    MindSpore returns)."""
    n = _window_length("hann_window", window_length)
    if n == 1:
        return _const([1.0], dtype or mstype.float64)
    denom = n if periodic else n - 1
    k = np.arange(n)
    return _const(0.5 - 0.5 * np.cos(2 * math.pi * k / denom), dtype or mstype.float64)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """alpha - beta cos(2 pi k / N), N = length (periodic) or length - 1."""
    n = _window_length("hamming_window", window_length)
    if n == 1:
        return _const([1.0], dtype or mstype.float32)
    denom = n if periodic else n - 1
    k = np.arange(n)
    return _const(alpha - beta * np.cos(2 * math.pi * k / denom), dtype or mstype.float32)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """I0(beta sqrt(1 - (2k / N - 1)^2)) / I0(beta), N = length - 1 (+ 1 when periodic)."""
    n = _window_length("kaiser_window", window_length)
    if n == 1:
        return _const([1.0], dtype or mstype.float64)
    m = n + 1 if periodic else n
    return _const(np.kaiser(m, beta)[:n], dtype or mstype.float64)


def _tensor_length(name, window_length, dtype):
    """MindSpore's BartlettWindow/BlackmanWindow take the length as a 0-D int32/int64 Tensor and
    return float16/32/64 only."""
    prim = name.title().replace("_", "")
    if not isinstance(window_length, Tensor):
        raise TypeError(f"For Primitive[{prim}], the type of input argument[window_length] must "
                        f"be Tensor but got {type(window_length).__name__}.")
    if window_length.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For primitive[{prim}], the input argument[window_length] must be a "
                        f"type of {{Tensor[Int32], Tensor[Int64]}}, but got "
                        f"Tensor[{window_length.dtype}].")
    if window_length.ndim != 0:
        raise ValueError(f"For '{prim}', the dim of window_length must be 0, but got: "
                         f"{window_length.ndim}.")
    dtype = mstype.to_type(dtype)
    if dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise TypeError(f"For '{prim}', the 'dtype' should be one of [mindspore.float16, "
                        f"mindspore.float32, mindspore.float64], but got "
                        f"'mindspore.{str(dtype).lower()}'.")
    n = int(window_length.asnumpy())
    if n < 0:
        raise ValueError(f"For '{prim}', the value of 'window_length' must be non-negative, but "
                         f"got {n}.")
    return n, dtype


def bartlett_window(window_length, periodic=True, *, dtype=mstype.float32):
    """1 - |2k / N - 1|, N = length (periodic) or length - 1; window_length a 0-D int Tensor."""
    n, dtype = _tensor_length("bartlett_window", window_length, dtype)
    if n <= 1:
        return _const(np.ones(n), dtype)
    denom = n if periodic else n - 1
    return _const(1.0 - np.abs(2.0 * np.arange(n) / denom - 1.0), dtype)


def blackman_window(window_length, periodic=True, *, dtype=mstype.float32):
    """0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N), N = length (periodic) or length - 1."""
    n, dtype = _tensor_length("blackman_window", window_length, dtype)
    if n <= 1:
        return _const(np.ones(n), dtype)
    denom = n if periodic else n - 1
    k = np.arange(n)
    # summed in this order (as MindSpore's kernel does) so the ends come out exactly 0
    return _const(0.08 * np.cos(4 * math.pi * k / denom) - 0.5 * np.cos(2 * math.pi * k / denom)
                  + 0.42, dtype)


def fftfreq(n, d=1.0, *, dtype=None):
    """The sample frequencies of an n-point FFT with spacing d."""
    return _const(np.fft.fftfreq(n, d), dtype or mstype.float32)


def rfftfreq(n, d=1.0, *, dtype=None):
    """The sample frequencies of an n-point real FFT with spacing d."""
    return _const(np.fft.rfftfreq(n, d), dtype or mstype.float32)


def _roll(x, shift, axis):
    n = x.shape[axis]
    shift %= n
    if shift == 0:
        return x
    head, tail = _split_at("roll", x, [n - shift], axis)
    return A.concat([tail, head], axis)


def _shift_all(input, dim, inverse):  # noqa: A002
    dims = range(input.ndim) if dim is None else ([dim] if isinstance(dim, int) else dim)
    x = input
    for d in dims:
        n = x.shape[d % x.ndim]
        x = _roll(x, -(n // 2) if inverse else n // 2, d % x.ndim)
    return x


def fftshift(input, dim=None):  # noqa: A002
    """input rolled by n // 2 along each dim (all when None): zero frequency to the centre."""
    return _shift_all(input, dim, False)


def ifftshift(input, dim=None):  # noqa: A002
    """The inverse of fftshift."""
    return _shift_all(input, dim, True)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """The r-element combinations of a 1-D input, one per row (a Gather of constant
    indices)."""
    n = input.shape[0]
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(pick(range(n), r)), np.int32).reshape(-1, r)
    return A.gather(input, Tensor(idx), 0)


def pdist(input, p=2.0):  # noqa: A002
    """The p-norm distances between the rows of (..., N, M) input, pair (i < j) in row-major
    order: the upper triangle of cdist."""
    n = input.shape[-2]
    i, j = np.triu_indices(n, 1)
    flat = A.reshape(cdist(input, input, p), tuple(input.shape[:-2]) + (n * n,))
    return A.gather(flat, Tensor((i * n + j).astype(np.int32)), input.ndim - 2)


def matrix_power(input, n):  # noqa: A002
    """input (..., M, M) to the integer power n by repeated squaring (MatMuls); a negative n
    raises the inverse (MatrixInverse) to -n."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"For 'matrix_power', 'n' must be an int, but got {type(n).__name__}.")
    if n < 0:
        input, n = inverse(input), -n  # noqa: A001
    m = input.shape[-1]
    result = None
    base = input
    while n:
        if n & 1:
            result = base if result is None else M.matmul(result, base)
        n >>= 1
        if n:
            base = M.matmul(base, base)
    if result is None:
        eye = Tensor(np.eye(m, dtype=input.dtype.np_dtype))
        return A.broadcast_to(eye, tuple(input.shape))
    return result
