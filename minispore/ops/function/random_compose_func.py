"""Random functions over the random operators (ops/operations/random_ops.py and
random_sampler_ops.py): normal and Laplace draws with a mean and scale, uniform integers
(randint, randint_like), Poisson counts (poisson, random_poisson) and Gamma draws
(random_gamma, gamma), and MindSpore's Poisson and Gamma primitives composed of them. `seed`
None or 0 draws from the global generator (``ms.set_seed``), as random_func.py's."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_prims import _composite
from minispore.ops.function.random_func import _seeded, standard_laplace, standard_normal
from minispore.ops.operations import random_sampler_ops as RS

__all__ = ["normal", "laplace", "randint", "randint_like", "poisson", "random_poisson",
           "random_gamma", "gamma", "Poisson", "Gamma"]

_INTS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8)


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _float_param(name, arg, v):
    """A mean or scale as a Tensor: a Python number becomes float32."""
    if isinstance(v, Tensor):
        return v
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, an int or a float, but got "
                        f"{type(v).__name__}.")
    return Tensor(np.float32(v))


def normal(shape, mean, stddev, seed=None):
    """N(mean, stddev^2) draws: N(0, 1) of `shape` times stddev plus mean, mean and stddev
    (Tensors or numbers) broadcast with the shape. The dtype is the widest float of mean and
    stddev (float32 for numbers and integer Tensors)."""
    mean, stddev = _float_param("normal", "mean", mean), _float_param("normal", "stddev", stddev)
    floats = [t.dtype for t in (mean, stddev) if t.dtype.is_float]
    dtype = mstype.float64 if mstype.float64 in floats else mstype.float32
    draws = A.cast(standard_normal(tuple(shape), seed), dtype)
    return M.add(M.mul(draws, A.cast(stddev, dtype)), A.cast(mean, dtype))


def laplace(shape, mean, lambda_param, seed=None):
    """Laplace(mean, lambda_param) draws: Laplace(0, 1) of `shape` times lambda_param plus
    mean (Float32 Tensors, broadcast with the shape)."""
    for arg, t in (("mean", mean), ("lambda_param", lambda_param)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'laplace', '{arg}' must be a Tensor, but got "
                            f"{type(t).__name__}.")
        if t.dtype != mstype.float32:
            raise TypeError(f"For 'laplace', the value data type 'Float32' is not consistent "
                            f"with assigned tensor data type {t.dtype}.")
    draws = standard_laplace(tuple(shape), seed)
    return M.add(M.mul(draws, lambda_param), mean)


def _randint(name, low, high, size, seed, dtype):
    for arg, v in (("low", low), ("high", high)):
        if not _is_int(v):
            raise TypeError(f"For '{name}', '{arg}' must be an int, but got {type(v)}.")
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise ValueError(f"For '{name}', the 'seed' must be int and must >= 0, but got "
                         f"'{seed}' with type '{type(seed).__name__}'.")
    if dtype not in _INTS:
        raise ValueError(f"For '{name}', the 'dtype' must be an int type, but got {dtype}.")
    if not low < high:
        raise RuntimeError(f"For 'Random', invalid min/max values: ({low}/{high})")
    prim = RS.UniformInt(seed or 0, dtype=mstype.int64)
    out = prim(size, Tensor(np.int64(low)), Tensor(np.int64(high)))
    return out if dtype == mstype.int64 else A.cast(out, dtype)


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform on [low, high) of shape `size` (a tuple), int64 or `dtype` (an
    integer type)."""
    if not isinstance(size, tuple):
        raise ValueError(f"For 'randint', the input 'size' must be a tuple, but got {size}.")
    dtype = mstype.int64 if dtype is None else mstype.to_type(dtype)
    return _randint("randint", low, high, size, seed, dtype)


def randint_like(input, low, high, seed=None, *, dtype=None):  # noqa: A002
    """Integers uniform on [low, high) of input's shape, in input's dtype or `dtype` (an
    integer type)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'randint_like', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}.")
    dtype = input.dtype if dtype is None else mstype.to_type(dtype)
    return _randint("randint_like", low, high, tuple(input.shape), seed, dtype)


def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson(rate) counts of shape ``shape + rate.shape`` (shape a 1-D int32/int64 Tensor),
    in `dtype`."""
    return _seeded(RS.RandomPoisson, seed, dtype=mstype.to_type(dtype))(shape, rate)


def _shape_tensor(shape):
    return Tensor(np.asarray(shape, np.int64).reshape(-1))


def poisson(shape, mean, seed=None):
    """float32 Poisson(mean) counts of `shape` and mean's shape broadcast together (mean a
    Float32 Tensor): MindSpore's ops.Poisson."""
    if not isinstance(shape, tuple) or not all(_is_int(d) and d >= 0 for d in shape):
        raise TypeError(f"For 'Poisson', 'shape' must be a tuple of non-negative ints, but got "
                        f"{shape!r}.")
    if not isinstance(mean, Tensor) or mean.dtype != mstype.float32:
        got = f"Tensor[{mean.dtype}]" if isinstance(mean, Tensor) else type(mean).__name__
        raise TypeError(f"For 'Poisson', the element of 'mean' must be Tensor[Float32], but got "
                        f"{got}.")
    full = _broadcast("Poisson", shape, mean.shape)
    return random_poisson(_shape_tensor(()), A.broadcast_to(mean, full), seed, mstype.float32)


def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) draws of shape ``shape + alpha.shape`` (shape a 1-D int32/int64
    Tensor), in alpha's float dtype."""
    return _seeded(RS.RandomGamma, seed)(shape, alpha)


def _broadcast(name, *shapes):
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise ValueError(f"For '{name}', the shapes {', '.join(str(tuple(s)) for s in shapes)} "
                         f"do not broadcast together.") from None


def gamma(shape, alpha, beta, seed=None):
    """float32 Gamma draws of shape alpha and inverse scale beta (Float32 Tensors), of the
    shapes `shape`, alpha's and beta's broadcast together: Gamma(alpha, 1) / beta."""
    if not isinstance(shape, tuple) or not all(_is_int(d) and d >= 0 for d in shape):
        raise TypeError(f"For 'Gamma', 'shape' must be a tuple of non-negative ints, but got "
                        f"{shape!r}.")
    for arg, t in (("alpha", alpha), ("beta", beta)):
        if not isinstance(t, Tensor) or t.dtype != mstype.float32:
            got = f"Tensor[{t.dtype}]" if isinstance(t, Tensor) else type(t).__name__
            raise TypeError(f"For 'Gamma', the element of '{arg}' must be Tensor[Float32], but "
                            f"got {got}.")
    full = _broadcast("Gamma", shape, alpha.shape, beta.shape)
    draws = random_gamma(_shape_tensor(()), A.broadcast_to(alpha, full), seed)
    return M.div(draws, beta)


def _poisson_prim(shape, mean, seed=0, seed2=0):
    return poisson(shape, mean, seed or seed2 or None)


def _gamma_prim(shape, alpha, beta, seed=0, seed2=0):
    return gamma(shape, alpha, beta, seed or seed2 or None)


Poisson = _composite("Poisson", _poisson_prim, (("seed", 0), ("seed2", 0)),
                     doc="``ops.Poisson(seed=0, seed2=0)(shape, mean)``: ops.poisson.")
Gamma = _composite("Gamma", _gamma_prim, (("seed", 0), ("seed2", 0)),
                   doc="``ops.Gamma(seed=0, seed2=0)(shape, alpha, beta)``: ops.gamma.")
