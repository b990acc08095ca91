"""MindSpore's matrix and image-metric cells over minispore's operators: MatrixDiag,
MatrixDiagPart, MatrixSetDiag, MatDet, MatInverse, Roll and PSNR (MindSpore 2.7.2's CPU build
refuses all of them, "kernel select failed", so their behaviour follows its documentation; they
run on both devices here)."""
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F

__all__ = ["MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatDet", "MatInverse", "Roll",
           "PSNR"]


def _tensor(cell, name, x, min_rank=0):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cell}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    if len(x.shape) < min_rank:
        raise ValueError(f"For '{cell}', '{name}' must have rank at least {min_rank}, but got "
                         f"shape {tuple(x.shape)}.")


class MatrixDiag(Cell):
    """x (..., n) -> (..., n, n) with x on the main diagonal, zeros elsewhere."""

    def construct(self, input_x):
        _tensor("MatrixDiag", "input_x", input_x, 1)
        return F.matrix_diag(input_x)


class MatrixDiagPart(Cell):
    """x (..., m, n) -> its main diagonal (..., min(m, n))."""

    def construct(self, input_x):
        _tensor("MatrixDiagPart", "input_x", input_x, 2)
        padding = Tensor(np.zeros((), input_x.dtype.np_dtype))
        return F.matrix_diag_part(input_x, Tensor(np.int32(0)), padding)


class MatrixSetDiag(Cell):
    """x (..., m, n) with its main diagonal replaced by `diagonal` (..., min(m, n))."""

    def construct(self, input_x, diagonal):
        _tensor("MatrixSetDiag", "input_x", input_x, 2)
        _tensor("MatrixSetDiag", "diagonal", diagonal, 1)
        return F.matrix_set_diag(input_x, diagonal)


class MatDet(Cell):
    """Determinants of the square matrices (..., n, n) -> (...)."""

    def construct(self, a):
        _tensor("MatDet", "a", a, 2)
        return F.det(a)


class MatInverse(Cell):
    """Inverses of the square matrices (..., n, n)."""

    def construct(self, a):
        _tensor("MatInverse", "a", a, 2)
        return F.inverse(a)


class Roll(Cell):
    """``Roll(shift, axis)``: x rolled by `shift` places along `axis` (ints, or equal-length
    lists), elements leaving one end entering at the other."""

    def __init__(self, shift, axis):
        super().__init__()
        shifts = list(shift) if isinstance(shift, (list, tuple)) else [shift]
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        for name, values in (("shift", shifts), ("axis", axes)):
            if not values or any(isinstance(v, bool) or not isinstance(v, int) for v in values):
                raise TypeError(f"For 'Roll', '{name}' must be an int or a non-empty list/tuple "
                                f"of ints, but got {shift if name == 'shift' else axis!r}.")
        if len(shifts) != len(axes):
            raise ValueError(f"For 'Roll', the shape of 'shift' and the shape of 'axis' must be "
                             f"the same, but got the length of 'shift' {len(shifts)} and the "
                             f"length of 'axis' {len(axes)}.")
        self.shift, self.axis = tuple(shifts), tuple(axes)

    def construct(self, input_x):
        _tensor("Roll", "input_x", input_x)
        return F.roll(input_x, self.shift, self.axis)


class PSNR(Cell):
    """``PSNR(max_val=1.0)(img1, img2)``: 10 log10(max_val^2 / MSE) per image of the NCHW
    batches (shape (N,)). Integer images are read as fractions of their dtype's maximum, as
    MindSpore converts them, and max_val likewise."""

    def __init__(self, max_val=1.0):
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
            raise TypeError(f"For 'PSNR', the 'max_val' must be int or float, but got "
                            f"{type(max_val).__name__}.")
        if max_val <= 0:
            raise ValueError(f"For 'PSNR', the 'max_val' must be > 0, but got {max_val}.")
        self.max_val = max_val

    def construct(self, img1, img2):
        for name, img in (("img1", img1), ("img2", img2)):
            _tensor("PSNR", name, img)
            if len(img.shape) != 4:
                raise ValueError(f"For 'PSNR', the dimension of '{name}' must be 4, but got "
                                 f"{len(img.shape)}.")
        if img1.dtype != img2.dtype:
            raise TypeError(f"For 'PSNR', 'img1' and 'img2' must have the same dtype, but got "
                            f"{img1.dtype} and {img2.dtype}.")
        scale = 1.0
        if img1.dtype in mstype.int_types:
            scale = float(np.iinfo(img1.dtype.np_dtype).max)
        max_val = self.max_val / scale
        a = F.div(F.cast(img1, mstype.float32), scale)
        b = F.div(F.cast(img2, mstype.float32), scale)
        mse = F.reduce_mean(F.square(F.sub(a, b)), (1, 2, 3))
        return F.mul(F.log(F.div(max_val * max_val, mse)), 10.0 / math.log(10.0))
