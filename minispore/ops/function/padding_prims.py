"""MindSpore's padding primitives composed of existing operators: P.Padding (the last dim of
size 1 widened with zeros), the old-style P.Pad (constant zeros from a tuple of pairs) and
nn_ops.PadV3 (constant, reflect, edge or circular, paddings as an input). Reflect, edge and
circular padding gather each padded dim from a constant index list, so they differentiate
(Gather's bprop) and trace like any gather."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function.array_compose_func import constant_pad

__all__ = ["Padding", "Pad", "PadV3"]


def _check_x(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', 'x' must be a Tensor, but got {type(x).__name__}.")


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


class Padding:
    """``P.Padding(pad_dim_size=8)(x)``: x of shape (..., 1) widened to (..., pad_dim_size),
    the new columns zero.

    Raises:
        TypeError: pad_dim_size is not an int; x is not a Tensor.
        ValueError: pad_dim_size <= 0; x has rank 0 or its last dim is not 1.
    """

    def __init__(self, pad_dim_size=8):
        if not _is_int(pad_dim_size):
            raise TypeError(f"For 'Padding', the type of 'pad_dim_size' should be 'int', but "
                            f"got type '{type(pad_dim_size).__name__}'.")
        if pad_dim_size <= 0:
            raise ValueError(f"For 'Padding', the 'pad_dim_size' must be int and must > 0, but "
                             f"got '{pad_dim_size}' with type 'int'.")
        self.pad_dim_size = int(pad_dim_size)

    def __call__(self, x):
        _check_x("Padding", x)
        if x.ndim < 1:
            raise ValueError("For 'Padding', the rank of 'x' must be >= 1, but got 0.")
        if x.shape[-1] != 1:
            raise ValueError(f"For 'Padding', the last dimension of 'x' must be 1, but got: "
                             f"{x.shape[-1]}.")
        return constant_pad(x, (0, self.pad_dim_size - 1), 0)

    def __repr__(self):
        return "Prim[Padding]"


class Pad:
    """``P.Pad(paddings)(input_x)``: zeros added around input_x; paddings is a tuple of one
    (before, after) pair of non-negative ints per dim of input_x.

    Raises:
        TypeError: paddings is not a tuple (of pairs of ints).
        ValueError: a pair holds a negative amount; len(paddings) != input_x's rank.
    """

    def __init__(self, paddings):
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' should be 'tuple', but got type "
                            f"'{type(paddings).__name__}'.")
        for i, pair in enumerate(paddings):
            if not isinstance(pair, tuple) or len(pair) != 2 or not all(map(_is_int, pair)):
                raise TypeError(f"For 'Pad', each element of 'paddings' must be a tuple of two "
                                f"ints, but got paddings[{i}] = {pair!r}.")
            if pair[0] < 0 or pair[1] < 0:
                raise ValueError(f"For 'Pad', all elements of 'paddings' must be >= 0, but got "
                                 f"paddings[{i}][0] = {pair[0]}, paddings[{i}][1] = {pair[1]}")
        self.paddings = paddings

    def __call__(self, input_x):
        _check_x("Pad", input_x)
        if len(self.paddings) != input_x.ndim:
            raise ValueError(f"For 'Pad', the length of 'paddings' must be equal to the rank "
                             f"of 'input_x', but got {len(self.paddings)} vs {input_x.ndim}")
        flat = [int(v) for pair in reversed(self.paddings) for v in pair]
        return constant_pad(input_x, flat, 0)

    def __repr__(self):
        return "Prim[Pad]"


_MODES = ("constant", "reflect", "edge", "circular")


def _source_index(mode, n, lo, hi):
    """The positions of a dim of size n that its padded version copies: a negative amount
    crops first (as MindSpore does), then a positive one pads what is left: reflect mirrors
    about the end elements, edge repeats them, circular wraps."""
    start = max(-lo, 0)
    n -= start + max(-hi, 0)
    lo, hi = max(lo, 0), max(hi, 0)
    j = np.arange(-lo, n + hi)
    if mode == "reflect":
        if lo >= n or hi >= n:
            raise ValueError(f"For 'PadV3', reflect padding must be less than the dim size "
                             f"{n}, but got ({lo}, {hi}).")
        j = np.abs(j)
        return start + np.where(j >= n, 2 * (n - 1) - j, j)
    if mode == "edge":
        return start + np.clip(j, 0, n - 1)
    return start + np.mod(j, n)


class PadV3:
    """``nn_ops.PadV3(mode='constant', paddings_contiguous=True)(x, paddings, value)``: x
    padded by `paddings` (a 1-D int Tensor or tuple of 2k ints: (left, right) of the last dim,
    then of the one before, ...; a negative amount crops). paddings_contiguous=False reads them
    as (left of each dim ..., right of each dim ...). Modes: 'constant' (with `value`),
    'reflect', 'edge' and 'circular' (which take no value and pad every dim after the first
    two of a 3-D to 5-D x, 4-D at most for reflect).

    Raises:
        TypeError: mode is not a str; x is not a Tensor.
        ValueError: mode is not one of the four; paddings has an odd length or pads more dims
            than x has (in the non-constant modes: other than x's dims after the first two);
            reflect padding reaches past the dim.
    """

    def __init__(self, mode="constant", paddings_contiguous=True):
        if not isinstance(mode, str) or mode not in _MODES:
            raise ValueError(f"For 'PadV3', the 'mode' must be str and must be in "
                             f"'{list(_MODES)}', but got {mode!r}.")
        if not isinstance(paddings_contiguous, bool):
            raise TypeError(f"For 'PadV3', the type of 'paddings_contiguous' should be 'bool', "
                            f"but got type '{type(paddings_contiguous).__name__}'.")
        self.mode, self.paddings_contiguous = mode, paddings_contiguous

    def __call__(self, x, paddings, value=None):
        _check_x("PadV3", x)
        if isinstance(paddings, Tensor):
            paddings = paddings.asnumpy().reshape(-1).tolist()
        paddings = [int(p) for p in paddings]
        if len(paddings) % 2 or len(paddings) > 2 * x.ndim:
            raise ValueError(f"For 'PadV3', 'paddings' must hold an even number of values, at "
                             f"most twice the rank {x.ndim} of 'x', but got {paddings}.")
        if not self.paddings_contiguous:
            half = len(paddings) // 2
            paddings = [v for pair in zip(paddings[:half], paddings[half:]) for v in pair]
        if self.mode == "constant":
            if isinstance(value, Tensor):
                value = value.asnumpy().reshape(-1)[0].item()
            return constant_pad(x, paddings, 0 if value is None else value)
        if value is not None:
            raise ValueError(f"For 'PadV3', mode {self.mode!r} takes no 'value', but got "
                             f"{value!r}.")
        # MindSpore pads the spatial dims of (N, C, ...) here: all of them, at most three
        # (two with reflect).
        if x.ndim < 3:
            raise ValueError(f"For primitive[PadV3], the input dims for edge, reflect or "
                             f"circular mode must be greater than or equal to 3, but got "
                             f"{x.ndim}.")
        if self.mode == "reflect" and x.ndim > 4:
            raise ValueError(f"For primitive[PadV3], the input dims for reflect mode must be "
                             f"less than or equal to 4, but got {x.ndim}.")
        if len(paddings) != 2 * (x.ndim - 2):
            raise ValueError(f"For primitive[PadV3], the input dims when padding's size equal "
                             f"{len(paddings)} must be equal to {len(paddings) // 2 + 2}, but "
                             f"got {x.ndim}.")
        for i in range(len(paddings) // 2):
            dim = x.ndim - 1 - i
            index = _source_index(self.mode, x.shape[dim], paddings[2 * i], paddings[2 * i + 1])
            x = A.gather(x, Tensor(index.astype(np.int64), mstype.int64), dim)
        return x

    def __repr__(self):
        return "Prim[PadV3]"
