"""Band, diagonal and norm-limit functions composed of existing primitives: renorm,
matrix_band_part, matrix_diag_part, tril_indices, triu_indices, and MindSpore's primitives
Renorm, TrilIndices, TriuIndices, Fmin and Randperm. The bands and diagonals are masks and
gathers whose positions depend only on the shapes (numpy builds them once per call), so the
results are exact and differentiable in the tensor inputs."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import where as _where
from minispore.ops.function.composite_prims import _composite
from minispore.ops.function.math_compose_func import fmin as _fmin
from minispore.ops.function.random_func import randperm as _randperm

__all__ = ["renorm", "matrix_band_part", "matrix_diag_part", "tril_indices", "triu_indices",
           "Renorm", "TrilIndices", "TriuIndices", "Fmin", "Randperm"]


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def renorm(input, p, axis, maxnorm):  # noqa: A002
    """Each slice input[..., i, ...] along `axis` whose p-norm exceeds maxnorm scaled down to
    norm maxnorm: times maxnorm / (norm + 1e-7), as MindSpore's kernel scales. p a positive
    int, maxnorm a non-negative float."""
    _check_tensor("Renorm", "input", input)
    if not _is_int(p):
        raise TypeError(f"For 'Renorm', the type of 'p' should be 'int', but got type "
                        f"'{type(p).__name__}'.")
    if p <= 0:
        raise ValueError(f"Renorm op don't support non-positive-norm, but got{p}")
    if not isinstance(maxnorm, (int, float)) or isinstance(maxnorm, bool):
        raise TypeError(f"For 'Renorm', the type of 'maxnorm' should be 'float', but got type "
                        f"'{type(maxnorm).__name__}'.")
    if maxnorm < 0:
        raise RuntimeError(f"For 'Renorm', the attribute 'maxnorm' must be non-negative, but got "
                           f"{maxnorm}")
    ndim = input.ndim
    if not _is_int(axis) or not -ndim <= axis < ndim:
        raise RuntimeError(f"For 'Renorm, the attribute 'dim' must be in range [{-ndim}, {ndim}), "
                           f"but got {axis}")
    axis = int(axis) % ndim
    others = tuple(d for d in range(ndim) if d != axis)
    magnitude = M.abs(input)
    powered = magnitude if p == 1 else M.pow(magnitude, float(p))
    norm = M.reduce_sum(powered, others, True)
    if p != 1:
        norm = M.pow(norm, 1.0 / p)
    factor = _where(M.greater(norm, maxnorm), M.div(maxnorm, M.add(norm, 1e-7)),
                    M.add(M.mul(norm, 0), 1))
    return M.mul(input, factor)


def _band_int(name, arg, v):
    if isinstance(v, Tensor):
        if not v.dtype.is_int or v.size != 1:
            raise TypeError(f"For '{name}', '{arg}' must be an int or a one-element int Tensor, "
                            f"but got a {v.dtype} Tensor of shape {tuple(v.shape)}.")
        return int(v.asnumpy().reshape(()))
    if not _is_int(v):
        raise TypeError(f"For '{name}', '{arg}' must be an int or a Tensor, but got "
                        f"{type(v).__name__}.")
    return int(v)


def matrix_band_part(x, lower, upper):
    """x's last two dims with everything outside the band zeroed: (i, j) kept where
    i - j <= lower (lower < 0: every subdiagonal) and j - i <= upper (upper < 0: every
    superdiagonal)."""
    _check_tensor("MatrixBandPart", "x", x)
    if x.ndim < 2:
        raise ValueError(f"For primitive[MatrixBandPart], the x shape size must be greater than "
                         f"or equal to 2, but got {x.ndim}.")
    lower = _band_int("MatrixBandPart", "lower", lower)
    upper = _band_int("MatrixBandPart", "upper", upper)
    m, n = x.shape[-2], x.shape[-1]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return _where(Tensor(keep), x, A.zeros_like(x))


_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diag_positions(m, n, d):
    rows = np.arange(max(0, -d), min(m, n - d))
    return rows * n + rows + d


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals k (an Int32 Tensor: one diagonal, or [k0, k1] for k1 down to k0) of x's
    last two dims, each padded with padding_value to the longest one's length; `align` says
    which side superdiagonals (first word) and subdiagonals (second) are aligned to. One
    Gather from the flattened matrices with the padding value appended."""
    _check_tensor("MatrixDiagPartV3", "x", x)
    if not isinstance(k, Tensor) or k.dtype != mstype.int32:
        got = f"Tensor[{k.dtype}]" if isinstance(k, Tensor) else type(k).__name__
        raise TypeError(f"For primitive[MatrixDiagPartV3], the input argument[k] must be a type "
                        f"of {{Tensor[Int32]}}, but got {got}.")
    _check_tensor("MatrixDiagPartV3", "padding_value", padding_value)
    if padding_value.dtype != x.dtype or padding_value.size != 1:
        raise TypeError(f"For primitive[MatrixDiagPartV3], 'padding_value' must be a "
                        f"one-element Tensor of x's dtype {x.dtype}, but got a "
                        f"{padding_value.dtype} Tensor of shape {tuple(padding_value.shape)}.")
    if align not in _ALIGNS:
        raise ValueError(f"For 'MatrixDiagPartV3', 'align' must be one of {list(_ALIGNS)}, but "
                         f"got {align!r}.")
    if x.ndim < 2:
        raise ValueError(f"For 'MatrixDiagPartV3', 'x' must have rank >= 2, but got {x.ndim}.")
    ks = [int(v) for v in k.asnumpy().reshape(-1)]
    if len(ks) not in (1, 2):
        raise ValueError(f"For MatrixDiagPartV3, 'k' must hold 1 or 2 values, but got {ks}.")
    k0, k1 = ks[0], ks[-1]
    if k0 > k1:
        raise ValueError("For MatrixDiagPartV3, k[0] can not be greater than k[1].")
    m, n = x.shape[-2], x.shape[-1]
    if not (-m < k0 and k1 < n):
        raise ValueError(f"For MatrixDiagPartV3, the diagonals {k0} .. {k1} must be in "
                         f"({-m}, {n}) for a {m} x {n} matrix.")
    diags = list(range(k1, k0 - 1, -1))
    width = max(len(_diag_positions(m, n, d)) for d in diags)
    pad = m * n
    index = np.full((len(diags), width), pad, np.int64)
    super_right, sub_right = (part == "RIGHT" for part in align.split("_"))
    for row, d in enumerate(diags):
        pos = _diag_positions(m, n, d)
        right = super_right if d >= 0 else sub_right
        if right:
            index[row, width - len(pos):] = pos
        else:
            index[row, :len(pos)] = pos
    lead = tuple(x.shape[:-2])
    flat = A.reshape(x, lead + (m * n,))
    padding = A.broadcast_to(A.reshape(padding_value, (1,) * (len(lead) + 1)), lead + (1,))
    out = A.gather(A.concat((flat, padding), -1), Tensor(index.reshape(-1)), len(lead))
    shape = lead + ((width,) if len(ks) == 1 or k0 == k1 else (len(diags), width))
    return A.reshape(out, shape)


def _tri_indices(name, row, col, offset, dtype, upper):
    for arg, v in (("row", row), ("col", col)):
        if not _is_int(v) or v < 0:
            raise ValueError(f"For '{name}', the '{arg}' must be int and must >= 0, but got "
                             f"'{v}' with type '{type(v).__name__}'.")
    if not _is_int(offset):
        raise TypeError(f"For '{name}', the type of 'offset' should be 'int', but got type "
                        f"'{type(offset).__name__}'.")
    dtype = mstype.to_type(dtype)
    if dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{name}', the 'dtype' should be one of [mindspore.int32, "
                        f"mindspore.int64], but got 'mindspore.{str(dtype).lower()}'.")
    found = np.triu_indices(row, offset, col) if upper else np.tril_indices(row, offset, col)
    return Tensor(np.stack(found).astype(dtype.np_dtype).reshape(2, -1), dtype)


def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    """The (2, N) row and column indices of the lower triangle (diagonal `offset` and below) of
    a row x col matrix, row by row."""
    return _tri_indices("TrilIndices", row, col, offset, dtype, upper=False)


def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    """The (2, N) row and column indices of the upper triangle (diagonal `offset` and above) of
    a row x col matrix, row by row."""
    return _tri_indices("TriuIndices", row, col, offset, dtype, upper=True)


def _randperm_prim(n, max_length=1, pad=-1, dtype=mstype.int32):
    """Randperm(max_length, pad, dtype)(n): a random permutation of 0 .. n-1 (n a 1-element
    1-D int Tensor) padded with `pad` to max_length."""
    _check_tensor("Randperm", "n", n)
    if n.ndim != 1:
        raise ValueError(f"For 'Randperm', the rank of input tensor must be equal 1. But got "
                         f"{n.ndim}")
    count = int(n.asnumpy().reshape(-1)[0])
    if not 0 <= count <= max_length:
        raise ValueError(f"For 'Randperm', n ({count}) must be in [0, max_length "
                         f"({max_length})].")
    perm = A.cast(_randperm(count, dtype=mstype.int64), dtype)
    if count == max_length:
        return perm
    return A.concat((perm, A.fill(dtype, (max_length - count,), pad)), 0)


Renorm = _composite("Renorm", lambda x, p, dim, maxnorm: renorm(x, p, dim, maxnorm),
                    (("p", None), ("dim", None), ("maxnorm", None)),
                    doc="``ops.Renorm(p, dim, maxnorm)(x)``: ops.renorm.")
TrilIndices = _composite(
    "TrilIndices", lambda row, col, offset=0, dtype=mstype.int32:
    tril_indices(row, col, offset, dtype=dtype),
    (("row", None), ("col", None), ("offset", 0), ("dtype", mstype.int32)),
    doc="``ops.TrilIndices(row, col, offset=0, dtype=int32)()``: ops.tril_indices.")
TriuIndices = _composite(
    "TriuIndices", lambda row, col, offset=0, dtype=mstype.int32:
    triu_indices(row, col, offset, dtype=dtype),
    (("row", None), ("col", None), ("offset", 0), ("dtype", mstype.int32)),
    doc="``ops.TriuIndices(row, col, offset=0, dtype=int32)()``: ops.triu_indices.")
Fmin = _composite("Fmin", _fmin, doc="``ops.Fmin()(x1, x2)``: ops.fmin.")
Randperm = _composite("Randperm", _randperm_prim,
                      (("max_length", 1), ("pad", -1), ("dtype", mstype.int32)),
                      doc="``ops.Randperm(max_length=1, pad=-1, dtype=int32)(n)``.")
