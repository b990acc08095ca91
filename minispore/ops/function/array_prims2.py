"""MindSpore array primitives composed of existing operators: DepthToSpace, MatrixDiagV3,
MatrixDiagPartV3, FillDiagonal, MaskedFill, Slice and PReLU. Placements are constant index
lists or masks computed from the static shapes, so every one differentiates and traces
through the Gather / Select / Reshape it is made of."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.band_compose_func import _ALIGNS, matrix_diag_part
from minispore.ops.function.composite_func import masked_fill
from minispore.ops.function.nn_compose_func import prelu
from minispore.ops.function.shift_compose_func import slice as _slice

__all__ = ["DepthToSpace", "MatrixDiagV3", "MatrixDiagPartV3", "FillDiagonal", "MaskedFill",
           "Slice", "PReLU"]


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


class _Prim:
    """A Primitive-like callable whose attributes are validated at construction."""

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class DepthToSpace(_Prim):
    """``P.DepthToSpace(block_size)(x)``: (N, C*b*b, H, W) -> (N, C, H*b, W*b), output
    [n, c, h*b + i, w*b + j] = x[n, (i*b + j)*C + c, h, w] (the inverse of SpaceToDepth).

    Raises:
        TypeError: block_size is not an int.
        ValueError: block_size < 2; x is not 4-D or its channels are not divisible by b*b.
    """

    def __init__(self, block_size, data_format="NCHW"):
        if not _is_int(block_size):
            raise TypeError(f"For 'DepthToSpace', the type of 'block_size' should be 'int', "
                            f"but got type '{type(block_size).__name__}'.")
        if block_size < 2:
            raise ValueError(f"For 'DepthToSpace', the 'block_size' should be >= : 2, but got "
                             f"{block_size}.")
        if data_format != "NCHW":
            raise NotImplementedError(f"For 'DepthToSpace', data_format {data_format!r} is not "
                                      f"implemented in minispore; only 'NCHW' is.")
        self.block_size, self.data_format = int(block_size), data_format

    def __call__(self, x):
        _check_tensor("DepthToSpace", "x", x)
        b = self.block_size
        if x.ndim != 4:
            raise ValueError(f"For 'DepthToSpace', the rank of 'x' must be 4, but got "
                             f"{x.ndim}.")
        n, c, h, w = x.shape
        if c % (b * b):
            raise ValueError(f"For DepthToSpace, the input channel {c} must be divisible by "
                             f"the square of block_size {b}.")
        y = A.reshape(x, (n, b, b, c // (b * b), h, w))
        y = A.transpose(y, (0, 3, 4, 1, 5, 2))
        return A.reshape(y, (n, c // (b * b), h * b, w * b))


def _check_align(name, align):
    if not isinstance(align, str) or align not in _ALIGNS:
        raise ValueError(f"For '{name}', the 'align' must be str and must be in "
                         f"'{list(_ALIGNS)}', but got {align!r}.")
    return align


def _int32_values(name, arg, t):
    if not isinstance(t, Tensor) or t.dtype != mstype.int32:
        got = f"Tensor[{t.dtype}]" if isinstance(t, Tensor) else type(t).__name__
        raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a type of "
                        f"{{Tensor[Int32]}}, but got {got}.")
    return [int(v) for v in t.asnumpy().reshape(-1)]


def _diag_sizes(k0, k1, length, num_rows, num_cols):
    """TensorFlow's MatrixDiagV3 rule: a size left -1 is the smallest holding every diagonal
    (both -1: the square of the larger)."""
    min_rows, min_cols = length + max(-k1, 0), length + max(k0, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    if not (num_rows >= min_rows and num_cols >= min_cols
            and (num_rows == min_rows or num_cols == min_cols)):
        raise ValueError("For MatrixDiagV3, the number of rows or columns is not consistent "
                         "with the specified k and x.")
    return num_rows, num_cols


def _diag_source(k0, k1, rows, cols, length, align):
    """For each (i, j) of a rows x cols matrix, the position in the flattened
    (num_diags, length) diagonals it takes, or num_diags * length (the padding value) off the
    band. Diagonal d sits in row k1 - d, shifted right by length - len(d) when its side
    (superdiagonals and main: the first word of align, subdiagonals: the second) is RIGHT."""
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    d = j - i
    size = np.minimum(rows + np.minimum(d, 0), cols - np.maximum(d, 0))
    right = np.where(d >= 0, align.split("_")[0] == "RIGHT", align.split("_")[1] == "RIGHT")
    pos = (k1 - d) * length + np.where(right, length - size, 0) + np.minimum(i, j)
    return np.where((d >= k0) & (d <= k1), pos, (k1 - k0 + 1) * length).reshape(-1)


class MatrixDiagV3(_Prim):
    """``MatrixDiagV3(align='RIGHT_LEFT')(x, k, num_rows, num_cols, padding_value)``: batched
    matrices with the diagonals k (an Int32 Tensor: one diagonal, or [k0, k1]) set from x
    ((..., L) for one diagonal, (..., k1 - k0 + 1, L) for a band, diagonal k1 first) and
    padding_value elsewhere; num_rows / num_cols (Int32 scalars, -1: the smallest fitting
    size). One Gather from x's flattened diagonals with the padding value appended."""

    def __init__(self, align="RIGHT_LEFT"):
        self.align = _check_align("MatrixDiagV3", align)

    def __call__(self, x, k, num_rows, num_cols, padding_value):
        name = "MatrixDiagV3"
        _check_tensor(name, "x", x)
        ks = _int32_values(name, "k", k)
        (rows,), (cols,) = (_int32_values(name, a, t) for a, t in
                            (("num_rows", num_rows), ("num_cols", num_cols)))
        _check_tensor(name, "padding_value", padding_value)
        if padding_value.dtype != x.dtype or padding_value.size != 1:
            raise TypeError(f"For primitive[{name}], 'padding_value' must be a one-element "
                            f"Tensor of x's dtype {x.dtype}, but got a {padding_value.dtype} "
                            f"Tensor of shape {tuple(padding_value.shape)}.")
        if len(ks) not in (1, 2) or ks[0] > ks[-1]:
            raise ValueError(f"For {name}, 'k' must hold 1 or 2 values with k[0] <= k[1], but "
                             f"got {ks}.")
        k0, k1 = ks[0], ks[-1]
        band = k0 != k1
        if x.ndim < (2 if band else 1) or (band and x.shape[-2] != k1 - k0 + 1):
            raise ValueError(f"For {name}, the input x_shape[-2] doesn't match with k value.")
        length = x.shape[-1]
        rows, cols = _diag_sizes(k0, k1, length, rows, cols)
        batch = tuple(x.shape[:-2] if band else x.shape[:-1])
        nb = int(np.prod(batch, dtype=np.int64))
        flat = A.reshape(x, (nb, (k1 - k0 + 1) * length))
        pad = A.broadcast_to(A.reshape(padding_value, (1, 1)), (nb, 1))
        index = _diag_source(k0, k1, rows, cols, length, self.align)
        out = A.gather(A.concat([flat, pad], 1), Tensor(index.astype(np.int64)), 1)
        return A.reshape(out, batch + (rows, cols))


class MatrixDiagPartV3(_Prim):
    """``MatrixDiagPartV3(align='RIGHT_LEFT')(x, k, padding_value)``: ops.matrix_diag_part
    (band_compose_func) with align as an attribute."""

    def __init__(self, align="RIGHT_LEFT"):
        self.align = _check_align("MatrixDiagPartV3", align)

    def __call__(self, x, k, padding_value):
        return matrix_diag_part(x, k, padding_value, self.align)


class FillDiagonal(_Prim):
    """``FillDiagonal(fill_value, wrap=False)(input_x)``: input_x with fill_value on its main
    diagonal (numpy.fill_diagonal's positions: for rank > 2 all dims equal; wrap restarts
    the diagonal below a tall matrix's square). A Select with a constant mask.

    Raises:
        TypeError: fill_value is not a float or wrap not a bool.
        ValueError: input_x has rank < 2, or rank > 2 with unequal dims.
    """

    def __init__(self, fill_value, wrap=False):
        if not isinstance(fill_value, float):
            raise TypeError(f"For 'FillDiagonal', the type of 'fill_value' should be 'float', "
                            f"but got type '{type(fill_value).__name__}'.")
        if not isinstance(wrap, bool):
            raise TypeError(f"For 'FillDiagonal', the type of 'wrap' should be 'bool', but got "
                            f"type '{type(wrap).__name__}'.")
        self.fill_value, self.wrap = fill_value, wrap

    def __call__(self, input_x):
        _check_tensor("FillDiagonal", "input_x", input_x)
        shape = tuple(input_x.shape)
        if len(shape) < 2:
            raise ValueError(f"The primitive[FillDiagonal] argument [input_x] must be a Tensor "
                             f"whose dimension is greater than or equal to 2, but got its "
                             f"dimension [{len(shape)}].")
        if len(shape) > 2 and len(set(shape)) != 1:
            raise ValueError("The primitive[FillDiagonal] argument [input_x] must be a Tensor "
                             "with the same size in all dimensions when its dimension is "
                             "greater than 2")
        mask = np.zeros(shape, np.bool_)
        np.fill_diagonal(mask, True, wrap=self.wrap)
        value = A.fill(input_x.dtype, shape, self.fill_value)
        return M.select(Tensor(mask), value, input_x)


class MaskedFill(_Prim):
    """``P.MaskedFill()(input, mask, value)``: ops.masked_fill; a Tensor value must have
    input's dtype (MindSpore's CPU kernel has no mixed-dtype form)."""

    def __call__(self, input, mask, value):  # noqa: A002 - MindSpore's argument name
        _check_tensor("MaskedFill", "input", input)
        if isinstance(value, Tensor) and value.dtype != input.dtype:
            raise TypeError(f"For 'MaskedFill', 'value' must have the dtype of 'input' "
                            f"{input.dtype}, but got {value.dtype}.")
        return masked_fill(input, mask, value)


class Slice(_Prim):
    """``P.Slice()(input_x, begin, size)``: ops.slice."""

    def __call__(self, input_x, begin, size):
        return _slice(input_x, begin, size)


class PReLU(_Prim):
    """``ops.PReLU()(x, weight)``: ops.prelu for Float16 / Float32 x (MindSpore's CPU kernel
    types)."""

    def __call__(self, x, weight):
        _check_tensor("PReLU", "x", x)
        if x.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"For primitive[PReLU], the input argument[x] must be a type of "
                            f"{{Float16, Float32}}, but got {x.dtype}.")
        return prelu(x, weight)
