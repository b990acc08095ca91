"""Random primitives composed of the random functions: ops.LogNormalReverse, and
ops.choice_with_mask / ops.RandomChoiceWithMask (a uniform random order of the True positions
of a mask, from one uniform draw per element and a stable argsort)."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import stack
from minispore.ops.function.random_func import log_normal, uniform
from minispore.ops.function.sort_func import argsort

__all__ = ["LogNormalReverse", "choice_with_mask", "RandomChoiceWithMask"]


class LogNormalReverse:
    """``ops.LogNormalReverse(mean=1.0, std=2.0)(input)``: exp(mean + std * N(0, 1)) draws of
    input's shape and dtype (Float16, Float32 or Float64), from the global seed.

    MindSpore 2.7.2's CPU kernel ignores mean and std (LogNormalReverse(0.5, 0.25) draws with
    mean 1 and std 2); minispore uses them, as MindSpore's documentation says."""

    def __init__(self, mean=1.0, std=2.0):
        for name, value in (("mean", mean), ("std", std)):
            if not isinstance(value, float):
                raise TypeError(f"For 'LogNormalReverse', the type of '{name}' should be "
                                f"'float', but got type '{type(value).__name__}'.")
        self.mean, self.std = mean, std

    def __call__(self, input):  # noqa: A002 - MindSpore's argument name
        if not isinstance(input, Tensor) or input.dtype not in (mstype.float16, mstype.float32,
                                                                mstype.float64):
            got = input.dtype if isinstance(input, Tensor) else type(input).__name__
            raise TypeError(f"For 'LogNormalReverse', the input must be a Float16, Float32 or "
                            f"Float64 Tensor, but got {got}.")
        return log_normal(input, self.mean, self.std)

    def __repr__(self):
        return "Prim[LogNormalReverse]"


_INT32_MAX = 2 ** 31 - 1


def _scalar(value, dtype):
    return Tensor(np.asarray(value, dtype.np_dtype), dtype)


def choice_with_mask(input_x, count=256, seed=None):
    """(index, mask): up to `count` positions where the Bool input_x is True, in uniformly
    random order, as an Int32 (count, rank) index; rows past the number of True elements are
    zeros with mask False. Shapes are fixed by `count`, so it also compiles into graphs."""
    if not isinstance(input_x, Tensor) or input_x.dtype != mstype.bool_:
        got = input_x.dtype if isinstance(input_x, Tensor) else type(input_x).__name__
        raise TypeError(f"For 'RandomChoiceWithMask', 'input_x' must be a Bool Tensor, but got "
                        f"{got}.")
    if not 1 <= input_x.ndim <= 5:
        raise ValueError(f"For 'RandomChoiceWithMask', input[0] rank should be between 1 and "
                         f"5, but got:{input_x.ndim}")
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count <= 0:
        raise ValueError(f"For 'RandomChoiceWithMask', the 'count' must be int and must > 0, "
                         f"but got {count!r}.")
    shape = tuple(input_x.shape)
    if count * len(shape) > _INT32_MAX:       # MindSpore's CPU kernel's limit
        raise RuntimeError(f"For 'RandomChoiceWithMask', output size exceed INT_MAX: count "
                           f"{count} x rank {len(shape)} > {_INT32_MAX}.")
    n = int(np.prod(shape))
    flat = A.reshape(input_x, (n,))
    keys = uniform((n,), _scalar(0.0, mstype.float32), _scalar(1.0, mstype.float32), seed)
    # False positions sort after every True one; among the Trues the order is the draw's.
    order = argsort(M.select(flat, keys, _scalar(2.0, mstype.float32)))
    order = A.cast(order, mstype.int32)
    if count > n:
        order = A.concat([order, A.zeros((count - n,), mstype.int32)])
        valid = A.concat([A.gather(flat, order[:n], 0), A.zeros((count - n,), mstype.bool_)])
    else:
        order = order[:count]
        valid = A.gather(flat, order, 0)
    coords, rest = [], order
    for dim in reversed(shape):
        coords.append(M.floor_mod(rest, dim))
        rest = M.floor_div(rest, dim)
    index = stack(coords[::-1], -1)
    index = M.select(A.broadcast_to(A.expand_dims(valid, -1), index.shape), index,
                     A.zeros(index.shape, mstype.int32))
    return index, valid


class RandomChoiceWithMask:
    """``ops.RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x)``: choice_with_mask.
    seed and seed2 = 0 draw from the global seed, as MindSpore."""

    def __init__(self, count=256, seed=0, seed2=0):
        self.count = count
        # MindSpore takes any int seeds (seed2=-1024 in its tests): the stream's seed is
        # derived from both, kept non-negative
        self.seed = None if seed == 0 and seed2 == 0 else (seed * 4099 + seed2) % _INT32_MAX

    def __call__(self, input_x):
        return choice_with_mask(input_x, self.count, self.seed)

    def __repr__(self):
        return "Prim[RandomChoiceWithMask]"
