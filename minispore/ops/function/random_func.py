"""Functional random ops over the random operators (ops/operations/random_ops.py): normal,
Laplace and uniform draws, Bernoulli, multinomial and categorical sampling, permutations and
shuffles, and the Tensor distributions built on them (log-normal, Cauchy). `seed` (None or 0:
the global generator, ``ms.set_seed``) picks an operator with its own generator, as
MindSpore's seeded operators do."""
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.sort_func import sort
from minispore.ops.operations import random_ops as R
from minispore.ops.operations.random_sampler_ops import UniformCandidateSampler

__all__ = ["standard_normal", "standard_laplace", "uniform", "gumbel_softmax", "rand",
           "rand_like", "randn", "randn_like",
           "randperm", "bernoulli", "multinomial", "shuffle", "random_categorical",
           "uniform_candidate_sampler"]


def _seeded(cls, seed, **kwargs):
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise TypeError(f"For '{cls.__name__}', 'seed' must be an int or None, but got "
                        f"{type(seed).__name__}.")
    return cls(seed or 0, **kwargs)


def standard_normal(shape, seed=None):
    """float32 draws of N(0, 1) of `shape`."""
    return _seeded(R.StandardNormal, seed)(shape)


def standard_laplace(shape, seed=None):
    """float32 draws of Laplace(0, 1) of `shape`."""
    return _seeded(R.StandardLaplace, seed)(shape)


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    """Draws of U[minval, maxval) of `shape` (a tuple, or a 1-D int Tensor of it), with Tensors
    minval and maxval broadcast to it: ``UniformReal(shape) * (maxval - minval) + minval``, as
    MindSpore computes it. Float32 only: MindSpore's other dtype, Int32 (its UniformInt), raises
    NotImplementedError.

    Raises:
        TypeError: minval or maxval is not a Tensor, or not of `dtype`; `dtype` is neither
            Int32 nor Float32 (MindSpore's messages).
    """
    if not isinstance(minval, Tensor) or not isinstance(maxval, Tensor):
        raise TypeError("For functional operator[uniform], the input[minval] and input[maxval] "
                        "must be a Tensor.")
    if dtype not in (mstype.int32, mstype.float32):
        raise TypeError(f"The 'uniform' doesn't support '{dtype}' and expect to receive "
                        f"[mindspore.int32, mindspore.float32].")
    for bound in (minval, maxval):
        if bound.dtype != dtype:
            raise TypeError(f"For 'uniform', the value data type '{dtype}' is not consistent "
                            f"with assigned tensor data type {bound.dtype}.")
    if dtype == mstype.int32:
        raise NotImplementedError("ops.uniform with dtype=mindspore.int32 (MindSpore's "
                                  "UniformInt) is not implemented in minispore; draw float32 "
                                  "values and floor them.")
    if isinstance(shape, Tensor):
        shape = tuple(int(d) for d in shape.asnumpy().reshape(-1))
    draws = _seeded(R.UniformReal, seed)(tuple(shape))
    return M.add(M.mul(draws, M.sub(maxval, minval)), minval)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """softmax((logits + g) / tau) along `dim`, g = -log(-log(U)) Gumbel noise drawn per element
    and call; with `hard`, the one-hot of its argmax in the forward and the soft sample's
    gradient in the backward (straight-through). MindSpore's computation, checks and errors:
    logits Float16 or Float32, tau a positive float, `dim` in [-ndim, ndim), or [-1, ndim)
    when hard (MindSpore's range)."""
    from minispore.ops.function import nn_func
    from minispore.ops.function.composite_func import stop_gradient
    if not isinstance(logits, Tensor):
        raise TypeError("The input logits must be tensor")
    if logits.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For 'gumbel_softmax', the 'logits' should be one of "
                        f"[mindspore.float16, mindspore.float32], but got "
                        f"'mindspore.{str(logits.dtype).lower()}'.")
    for arg, value, kind in (("tau", tau, float), ("hard", hard, bool), ("dim", dim, int)):
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"For 'gumbel_softmax', the type of '{arg}' should be "
                            f"'{kind.__name__}', but got type '{type(value).__name__}'.")
    if not tau > 0:
        raise ValueError(f"For 'gumbel_softmax', the 'tau' must be float and must > 0, but got "
                         f"'{tau}' with type 'float'.")
    ndim = logits.ndim
    low = -1 if hard else -ndim
    if not low <= dim < ndim:
        raise ValueError(f"For 'gumbel_softmax', the 'dim' must be in range of [{low}, {ndim}), "
                         f"but got {dim} with type 'int'.")
    shape = tuple(logits.shape)
    draws = A.cast(uniform(shape, Tensor(0.0, mstype.float32), Tensor(1.0, mstype.float32)),
                   logits.dtype)
    gumbel = M.neg(M.log(M.neg(M.log(draws))))
    soft = nn_func.softmax(M.div(M.add(logits, gumbel), tau), dim)
    if not hard:
        return soft
    one = Tensor(np.asarray(1, logits.dtype.np_dtype))
    zero = Tensor(np.asarray(0, logits.dtype.np_dtype))
    index = M.argmax(soft, dim)
    hard_sample = A.one_hot(index, shape[dim], one, zero, dim)
    return M.add(stop_gradient(M.sub(hard_sample, soft)), soft)


def _size(size):
    """rand(2, 3) and rand((2, 3)) alike."""
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def _as(out, dtype):
    if dtype is None or dtype == mstype.float32:
        return out
    if not dtype.is_float:
        raise TypeError(f"'dtype' must be a float type, but got {dtype}.")
    return A.cast(out, dtype)


def rand(*size, dtype=None, seed=None):
    """U[0, 1) draws of shape `size` (float32, or `dtype`)."""
    return _as(_seeded(R.UniformReal, seed)(_size(size)), dtype)


def rand_like(input, seed=None, *, dtype=None):  # noqa: A002
    """U[0, 1) draws of input's shape (input's dtype, or `dtype`)."""
    return _as(rand(*input.shape, seed=seed), dtype or input.dtype)


def randn(*size, dtype=None, seed=None):
    """N(0, 1) draws of shape `size` (float32, or `dtype`)."""
    return _as(standard_normal(_size(size), seed), dtype)


def randn_like(input, seed=None, *, dtype=None):  # noqa: A002
    """N(0, 1) draws of input's shape (input's dtype, or `dtype`)."""
    return _as(standard_normal(tuple(input.shape), seed), dtype or input.dtype)


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A random permutation of 0 .. n-1: the order that sorts n uniform draws."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"For 'randperm', 'n' must be a non-negative int, but got {n!r}.")
    _, order = sort(rand(n, seed=seed or None))
    return A.cast(order, dtype)


def bernoulli(input, p=0.5, seed=None):  # noqa: A002
    """1 with probability `p` (a float or a Tensor broadcast to input's shape), else 0, in
    input's shape and dtype."""
    return R.Bernoulli(-1 if seed is None else seed)(input, p)


def multinomial(input, num_samples, replacement=True, seed=None):  # noqa: A002
    """`num_samples` category indices per row of the weights `input` (int32, as MindSpore's
    ops.multinomial). Without replacement: the categories of the num_samples smallest
    exponential clocks -log(u) / weight (each row's draws distinct)."""
    if replacement:
        return _seeded(R.Multinomial, seed)(input, num_samples)
    if num_samples > input.shape[-1]:
        raise ValueError(f"For 'multinomial', without replacement 'num_samples' "
                         f"({num_samples}) cannot exceed the number of categories "
                         f"({input.shape[-1]}).")
    clocks = -M.log(1.0 - rand_like(input, seed)) / input
    _, order = sort(clocks)
    return A.cast(order[..., :num_samples], mstype.int32)


def shuffle(x, seed=None):
    """x with its first axis in a random order; a 0-d x comes back as it is (a copy), as
    MindSpore's RandomShuffle returns it."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'shuffle', 'x' must be a Tensor, but got {type(x).__name__}.")
    if x.ndim == 0:
        return A.identity(x)
    return A.gather(x, randperm(x.shape[0], seed=seed or 0), 0)


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """`num_sample` draws per row of the categorical distribution softmax(logits)."""
    weights = M.exp(logits - M.reduce_max(logits, -1, True))
    return A.cast(_seeded(R.Multinomial, seed)(weights, num_sample), dtype)


def log_normal(input, mean=1.0, std=2.0):  # noqa: A002
    """exp(mean + std * N(0, 1)) draws of input's shape and dtype (Tensor.log_normal)."""
    return A.cast(M.exp(standard_normal(tuple(input.shape)) * float(std) + float(mean)),
                  input.dtype)


def cauchy(input, median=0.0, sigma=1.0):  # noqa: A002
    """median + sigma * tan(pi (u - 1/2)) draws of input's shape and dtype (Tensor.cauchy)."""
    angle = (rand(*input.shape) - 0.5) * math.pi
    return A.cast(M.tan(angle) * float(sigma) + float(median), input.dtype)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled_candidates, true_expected_count, sampled_expected_count): see
    UniformCandidateSampler."""
    return UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed,
                                   remove_accidental_hits)(true_classes)
