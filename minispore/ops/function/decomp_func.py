"""Functional matrix decompositions, solves and least squares: ops.svd, qr, geqrf, orgqr,
cholesky, cholesky_inverse, cholesky_solve, matrix_solve, lstsq, lu_unpack (one primitive each)
and ops.pinv (composed from Svd)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.math_ops import broadcast_to
from minispore.ops.operations.solve_ops import CholeskySolve, MatrixSolve, Orgqr
from minispore.ops.operations.decomp_ops import (Cholesky, CholeskyInverse, Geqrf, Lstsq,
                                                 LuUnpack, Qr, Svd)

__all__ = ["svd", "qr", "geqrf", "orgqr", "cholesky", "cholesky_inverse", "cholesky_solve",
           "matrix_solve", "lstsq", "pinv", "lu_unpack"]


def svd(input, full_matrices=False, compute_uv=True):  # noqa: A002 - MindSpore's name
    """(s, u, v) with input = u diag(s) v^T (Svd), or s alone when compute_uv is False.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.svd(ms.Tensor(np.array([[3., 0.], [0., -2.]])), compute_uv=False).asnumpy()
    array([3., 2.])
    """
    s, u, v = cached_op(Svd, full_matrices, compute_uv)(input)
    return (s, u, v) if compute_uv else s


def qr(input, mode="reduced"):  # noqa: A002
    """(Q, R) with input = Q R (Qr): mode 'reduced' gives Q (..., m, p), R (..., p, n),
    p = min(m, n); 'complete' Q (..., m, m), R (..., m, n)."""
    if mode not in ("reduced", "complete"):
        raise TypeError(f"For qr, the arg mode must be 'reduced' or 'complete', but got {mode}.")
    return cached_op(Qr, mode == "complete")(input)


def geqrf(input):  # noqa: A002
    """(y, tau): LAPACK geqrf's packed Householder QR of input (Geqrf)."""
    return cached_op(Geqrf)(input)


def orgqr(input, input2):  # noqa: A002 - MindSpore's names
    """Q's first n columns from Geqrf's packed reflectors `input` (..., m, n) and their
    coefficients `input2` (..., t) (Orgqr)."""
    return cached_op(Orgqr)(input, input2)


def cholesky_solve(input, input2, upper=False):  # noqa: A002
    """inv(L L^T) input with L = input2's lower triangle (upper: inv(U^T U) input, U its
    upper triangle) (CholeskySolve)."""
    return cached_op(CholeskySolve, upper)(input, input2)


def matrix_solve(matrix, rhs, adjoint=False):
    """inv(matrix) rhs (adjoint: inv(matrix^T) rhs) by LU with partial pivoting
    (MatrixSolve)."""
    return cached_op(MatrixSolve, adjoint)(matrix, rhs)


def cholesky(input_x, upper=False):
    """The Cholesky factor L (upper: L^T) of symmetric positive definite input_x (Cholesky).

    >>> import numpy as np, minispore as ms
    >>> ms.ops.cholesky(ms.Tensor(np.array([[4., 2.], [2., 5.]]))).asnumpy().tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    return cached_op(Cholesky, upper)(input_x)


def cholesky_inverse(input_x, upper=False):
    """inv(input_x input_x^T) (upper: inv(input_x^T input_x)) from a Cholesky factor
    (CholeskyInverse)."""
    return cached_op(CholeskyInverse, upper)(input_x)


def lstsq(input, A):  # noqa: A002,N803 - MindSpore's names
    """The least-squares solution X (n, k) of input X = A for input (m, n), A (m, k) or (m,)
    (Lstsq)."""
    return cached_op(Lstsq)(input, A)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """(P, L, U) of a packed LU factorisation (LuUnpack); L and U are None without
    unpack_data, P None without unpack_pivots."""
    for name, value in (("unpack_data", unpack_data), ("unpack_pivots", unpack_pivots)):
        if not isinstance(value, bool):
            raise TypeError(f"For 'lu_unpack', the type of '{name}' should be 'bool', but got "
                            f"type '{type(value).__name__}'.")
    p, lo, up = cached_op(LuUnpack)(LU_data, LU_pivots)
    return (p if unpack_pivots else None,) + ((lo, up) if unpack_data else (None, None))


def _tolerance(value, dtype):
    """atol / rtol as a tensor of the singular values' dtype."""
    if isinstance(value, Tensor):
        return A.cast(value, dtype) if value.dtype != dtype else value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For 'pinv', 'atol' and 'rtol' must be a float or a Tensor, but got "
                        f"{type(value).__name__}.")
    return Tensor(np.asarray(value, dtype=dtype.np_dtype))


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse of x (..., m, n): (..., n, m), as MindSpore's, from
    the SVD x = u diag(s) v^T: v diag(s+) u^T, s+ = 1/s where s > max(atol, rtol * s_max),
    else 0. Defaults: atol 0 and rtol = max(x.shape) * eps(x.dtype) (MindSpore takes the
    largest of all dims, batch dims included); rtol 0 when only atol is given. Tensor atol /
    rtol broadcast against s's batch dims (a (K, B) rtol for (B, m, n) x gives (K, B, n, m)).
    Differentiable through Svd (distinct singular values).

    Raises TypeError for a non-Tensor, 0-D or non-float32/float64 x or a non-bool hermitian,
    ValueError for rank < 2, NotImplementedError for hermitian=True (it needs an
    eigendecomposition, which minispore lacks).

    >>> import numpy as np, minispore as ms
    >>> ms.ops.pinv(ms.Tensor(np.array([[4., 0.], [0., 5.]]))).asnumpy().tolist()
    [[0.25, 0.0], [0.0, 0.2]]
    """
    if not isinstance(x, Tensor):
        raise TypeError("The input x must be tensor")
    if x.ndim == 0:
        raise TypeError("For pinv, the 0-D input is not supported")
    if x.ndim < 2:
        raise ValueError(f"input x should have 2 or more dimensions, but got {x.ndim}.")
    if x.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For 'pinv', the dtype of 'x' must be in [Float32, Float64], but got "
                        f"{x.dtype}.")
    if not isinstance(hermitian, bool):
        raise TypeError(f"For 'pinv', the type of 'hermitian' should be 'bool', but got type "
                        f"'{type(hermitian).__name__}'.")
    if hermitian:
        raise NotImplementedError("For 'pinv', hermitian=True needs an eigendecomposition "
                                  "(MindSpore's Eigh), which minispore does not have; use "
                                  "hermitian=False (the SVD gives the same pseudo-inverse).")
    dt = x.dtype
    if atol is not None:
        rtol = 0.0 if rtol is None else rtol
    else:
        atol = 0.0
        if rtol is None:
            rtol = max(x.shape) * float(np.finfo(dt.np_dtype).eps)
    atol, rtol = _tolerance(atol, dt), _tolerance(rtol, dt)
    s, u, v = cached_op(Svd, False, True)(x)
    s_max = s[..., :1]
    threshold = M.maximum(A.expand_dims(atol, -1), M.mul(A.expand_dims(rtol, -1), s_max))
    keep = M.greater(s, threshold)
    one = Tensor(np.ones((), dt.np_dtype))
    zero = Tensor(np.zeros((), dt.np_dtype))
    # 1/s only where kept: the dropped values (zeros among them) never reach a division, so
    # the gradient has no 0 * inf.
    s_kept = M.select(keep, broadcast_to(s, keep.shape), broadcast_to(one, keep.shape))
    s_plus = M.select(keep, M.div(one, s_kept), broadcast_to(zero, keep.shape))
    return M.matmul(M.mul(v, A.expand_dims(s_plus, -2)), u, transpose_b=True)

