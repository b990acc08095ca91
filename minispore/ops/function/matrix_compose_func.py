"""Triangles and diagonals composed of existing primitives (Select on a position mask, MatMul
with placement matrices, Concat): tril/triu, diag, diagflat, diagonal, trace, eye, diag_embed,
matrix_diag, diagonal_scatter, matrix_set_diag and block_diag."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import _check_tensor, _dim, movedim
from minispore.ops.function.composite_func import where as _where

__all__ = ["tril", "triu", "diag", "diagflat", "diagonal", "trace", "eye", "diag_embed",
           "matrix_diag", "diagonal_scatter", "matrix_set_diag", "block_diag"]


def _triangle(name, input, diagonal, lower):
    _check_tensor(name, "input", input)
    if input.ndim < 2:
        raise ValueError(f"For '{name}', 'input' must have rank >= 2, but got {input.ndim}.")
    if isinstance(diagonal, bool) or not isinstance(diagonal, (int, np.integer)):
        raise TypeError(f"For '{name}', 'diagonal' must be an int, but got "
                        f"{type(diagonal).__name__}.")
    m, n = input.shape[-2:]
    keep = np.tri(m, n, int(diagonal), dtype=bool)
    if not lower:
        keep = ~np.tri(m, n, int(diagonal) - 1, dtype=bool)
    return _where(Tensor(keep), input, A.zeros_like(input))


def tril(input, diagonal=0):  # noqa: A002
    """input with the elements above the `diagonal`-th diagonal of the last two dims zeroed."""
    return _triangle("tril", input, diagonal, True)


def triu(input, diagonal=0):  # noqa: A002
    """input with the elements below the `diagonal`-th diagonal of the last two dims zeroed."""
    return _triangle("triu", input, diagonal, False)


def diag(input):  # noqa: A002
    """The (shape + shape) tensor with input on its diagonal: out[i..., i...] = input[i...]
    (1-D: the diagonal matrix)."""
    _check_tensor("diag", "input", input)
    n = 1
    for d in input.shape:
        n *= d
    eye = Tensor(np.eye(n, dtype=input.dtype.np_dtype))
    flat = A.reshape(input, (1, n))
    return A.reshape(M.mul(eye, flat), tuple(input.shape) * 2)


def diagflat(input, offset=0):  # noqa: A002
    """The flattened input on the `offset`-th diagonal of a square matrix of side
    n + |offset|: out = P^T @ (v[:, None] * Q), P and Q constant 0/1 placements."""
    _check_tensor("diagflat", "input", input)
    n = 1
    for d in input.shape:
        n *= d
    k, np_dtype = abs(int(offset)), input.dtype.np_dtype
    rows, cols = np.zeros((n, n + k), np_dtype), np.zeros((n, n + k), np_dtype)
    rows[np.arange(n), np.arange(n) + (0 if offset >= 0 else k)] = 1
    cols[np.arange(n), np.arange(n) + (k if offset >= 0 else 0)] = 1
    placed = M.mul(A.reshape(input, (n, 1)), Tensor(cols))
    return M.matmul(Tensor(rows), placed, transpose_a=True)


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """The `offset`-th diagonal of the (dim1, dim2) planes, as the last dim."""
    _check_tensor("diagonal", "input", input)
    d1, d2 = _dim("diagonal", dim1, input.ndim), _dim("diagonal", dim2, input.ndim)
    if d1 == d2:
        raise ValueError("For 'diagonal', 'dim1' and 'dim2' must differ.")
    rest = [d for d in range(input.ndim) if d not in (d1, d2)]
    x = A.transpose(input, tuple(rest) + (d1, d2))
    m, n = x.shape[-2:]
    offset = int(offset)
    length = max(0, min(m, n - offset) if offset >= 0 else min(m + offset, n))
    lead = tuple(x.shape[:-2])
    if length == 0:
        return A.zeros(lead + (0,), x.dtype)
    flat = A.reshape(x, lead + (m * n,))
    start = offset if offset >= 0 else -offset * n
    return A.strided_slice(flat, [0] * len(lead) + [start],
                           list(lead) + [start + (length - 1) * (n + 1) + 1],
                           [1] * len(lead) + [n + 1])


def trace(input):  # noqa: A002
    """The sum of the main diagonal of a 2-D input."""
    _check_tensor("trace", "input", input)
    if input.ndim != 2:
        raise ValueError(f"For 'trace', 'input' must be 2-D, but got rank {input.ndim}.")
    return M.reduce_sum(diagonal(input))


def eye(n, m=None, dtype=mstype.float32):
    """The n x m identity matrix (a constant)."""
    m = n if m is None else m
    dtype = mstype.to_type(dtype)
    return Tensor(np.eye(n, m, dtype=dtype.np_dtype), dtype)


def _diag_placements(m, n, offset, np_dtype):
    """(rows (k, m), cols (k, n)): one-hots of the k positions of the offset-th diagonal."""
    rows_idx = np.arange(m) if offset >= 0 else np.arange(-offset, m)
    cols_idx = rows_idx + offset
    keep = (cols_idx >= 0) & (cols_idx < n)
    rows_idx, cols_idx = rows_idx[keep], cols_idx[keep]
    k = len(rows_idx)
    rows, cols = np.zeros((k, m), np_dtype), np.zeros((k, n), np_dtype)
    rows[np.arange(k), rows_idx] = 1
    cols[np.arange(k), cols_idx] = 1
    return rows, cols


def _place_diagonal(src, m, n, offset, dtype):
    """The (..., m, n) matrix holding src (..., k) on its offset-th diagonal, zeros elsewhere:
    rows^T @ (src[..., None] * cols)."""
    rows, cols = _diag_placements(m, n, offset, dtype.np_dtype)
    placed = M.mul(A.expand_dims(A.cast(src, dtype), -1), Tensor(cols))
    return M.matmul(Tensor(np.ascontiguousarray(rows.T)), placed)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """(..., n) -> (..., n + |offset|, n + |offset|) with input on the offset-th diagonal."""
    _check_tensor("diag_embed", "input", input)
    n = input.shape[-1] + abs(int(offset))
    out = _place_diagonal(input, n, n, int(offset), input.dtype)
    nd = out.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    if (d1, d2) != (nd - 2, nd - 1):
        out = movedim(out, (nd - 2, nd - 1), (d1, d2))
    return out


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """diag_embed for the main-diagonal form (k=0, default sizes, zero padding)."""
    if k != 0 or num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise NotImplementedError("For 'matrix_diag', only k=0 with default sizes and zero "
                                  "padding is implemented in minispore.")
    return diag_embed(x)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """input with its offset-th diagonal (of dims dim1, dim2) replaced by src."""
    _check_tensor("diagonal_scatter", "input", input)
    nd = input.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    x = movedim(input, (d1, d2), (nd - 2, nd - 1)) if (d1, d2) != (nd - 2, nd - 1) else input
    m, n = x.shape[-2:]
    rows, cols = _diag_placements(m, n, int(offset), np.float64)
    mask = Tensor((rows.T @ cols) > 0)
    out = _where(mask, _place_diagonal(src, m, n, int(offset), x.dtype), x)
    return movedim(out, (nd - 2, nd - 1), (d1, d2)) if (d1, d2) != (nd - 2, nd - 1) else out


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its k-th diagonal (last two dims) replaced by `diagonal`."""
    if isinstance(k, Tensor) or not isinstance(k, int):
        raise NotImplementedError("For 'matrix_set_diag', only an int k is implemented in "
                                  "minispore.")
    return diagonal_scatter(x, diagonal, k, -2, -1)


def block_diag(*inputs):
    """The block-diagonal matrix of 2-D (or lower) inputs."""
    mats = [A.reshape(t, (1,) * (2 - t.ndim) + tuple(t.shape)) for t in inputs]
    total = sum(t.shape[1] for t in mats)
    rows, at = [], 0
    for t in mats:
        r, c = t.shape
        parts = [p for p in (A.zeros((r, at), t.dtype), t, A.zeros((r, total - at - c), t.dtype))
                 if p.shape[1] > 0]
        rows.append(A.concat(parts, 1) if len(parts) > 1 else parts[0])
        at += c
    return A.concat(rows, 0) if len(rows) > 1 else rows[0]
