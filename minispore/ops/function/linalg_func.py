"""Functional linear algebra on batches of square matrices: ops.det, ops.slogdet, ops.logdet,
ops.inverse and MindSpore's older names matrix_determinant / log_matrix_determinant."""
import numpy as np

from minispore.common.tensor import Tensor
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.linalg_ops import (LogMatrixDeterminant, MatrixDeterminant,
                                                 MatrixInverse)
from minispore.ops.operations.math_ops import Less, Select

__all__ = ["det", "matrix_determinant", "slogdet", "log_matrix_determinant", "logdet",
           "inverse"]


def det(input):  # noqa: A002 - MindSpore's argument name
    """det(input[..., :, :]) for input (..., n, n), n >= 2: shape input.shape[:-2]
    (MatrixDeterminant).

    >>> import numpy as np, minispore as ms
    >>> float(ms.ops.det(ms.Tensor(np.array([[1., 2.], [3., 4.]]))))
    -2.0
    """
    return cached_op(MatrixDeterminant)(input)


def matrix_determinant(x):
    """The same as ops.det (MindSpore's older name, which it deprecates in favour of det)."""
    return cached_op(MatrixDeterminant)(x)


def slogdet(input):  # noqa: A002 - MindSpore's argument name
    """(sign, log|det|) of input[..., :, :] (LogMatrixDeterminant): sign is -1, 0 or 1, the
    log -inf for a singular matrix."""
    return cached_op(LogMatrixDeterminant)(input)


def log_matrix_determinant(x):
    """The same as ops.slogdet (MindSpore's older name)."""
    return cached_op(LogMatrixDeterminant)(x)


def logdet(input):  # noqa: A002 - MindSpore's argument name
    """log(det(input[..., :, :])): nan where the determinant is negative, -inf where it is 0.

    Computed from LogMatrixDeterminant (log|det|, already -inf for a singular matrix, made
    nan where the sign is -1), so it does not overflow where det itself would. Its gradient
    is inv(input)^T where the determinant is positive.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.logdet(ms.Tensor(np.array([[[-1., 0.], [0., 2.]], [[1., 0.], [0., 2.]]]))).asnumpy()
    array([       nan, 0.69314718])
    """
    sign, logabs = cached_op(LogMatrixDeterminant)(input)
    dt = sign.dtype.np_dtype
    negative = cached_op(Less)(sign, Tensor(np.zeros((), dt)))
    return cached_op(Select)(negative, Tensor(np.full((), np.nan, dt)), logabs)


def inverse(input):  # noqa: A002 - MindSpore's argument name
    """inv(input[..., :, :]) for float32/float64 (..., n, n), n >= 2 (MatrixInverse):
    MindSpore's FullPivLU inverse, finite (not inf) for a singular matrix.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.inverse(ms.Tensor(np.array([[2., 0.], [0., 4.]]))).asnumpy().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return cached_op(MatrixInverse, False)(input)
