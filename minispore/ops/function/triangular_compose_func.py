"""Triangular solves composed from MatrixSolve, Tril/Triu and LuUnpack (so they differentiate
through those): ops.lu_solve, the LuSolve and MatrixTriangularSolve primitives."""
from minispore.common import dtype as mstype
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_prims import _composite
from minispore.ops.function.decomp_func import lu_unpack, matrix_solve
from minispore.ops.function.matrix_compose_func import tril, triu
from minispore.ops.function.input_checks import check_tensor_dtype as _check

__all__ = ["lu_solve", "matrix_triangular_solve", "MatrixTriangularSolve", "LuSolve"]

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)



def _check_system(name, matrix, rhs, matrix_arg, rhs_arg):
    """matrix (..., M, M) and rhs (..., M, K) of one float dtype and equal batch dims."""
    _check(name, matrix_arg, matrix, _FLOATS)
    _check(name, rhs_arg, rhs, _FLOATS)
    if rhs.dtype != matrix.dtype:
        raise TypeError(f"For primitive[{name}], the input type must be same, but got "
                        f"{matrix_arg} {matrix.dtype} and {rhs_arg} {rhs.dtype}.")
    if rhs.ndim < 2 or matrix.ndim < 2:
        raise ValueError(f"For '{name}', '{matrix_arg}' and '{rhs_arg}' must have at least 2 "
                         f"dims, but got shapes {tuple(matrix.shape)} and {tuple(rhs.shape)}.")
    m = matrix.shape[-1]
    if matrix.shape[-2] != m or rhs.shape[-2] != m:
        raise ValueError(f"For '{name}', '{matrix_arg}' must be square (..., M, M) and "
                         f"'{rhs_arg}' (..., M, K), but got shapes {tuple(matrix.shape)} and "
                         f"{tuple(rhs.shape)}.")
    if tuple(matrix.shape[:-2]) != tuple(rhs.shape[:-2]):
        raise ValueError(f"For {name} shapes in batch dimension should be same, but got matrix "
                         f"{tuple(matrix.shape)} and rhs {tuple(rhs.shape)}.")


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False):
    """x with T x = rhs (adjoint: T^H x = rhs), T the lower (or upper) triangle of matrix
    (..., M, M), diagonal included; entries outside the triangle are ignored."""
    _check_system("MatrixTriangularSolve", matrix, rhs, "matrix", "rhs")
    tri = tril(matrix) if lower else triu(matrix)
    return matrix_solve(tri, rhs, adjoint)


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803 - MindSpore's argument names
    """x with A x = b from A's packed LU factorisation (LU_data (..., M, M), unit-diagonal L
    below, U on and above the diagonal) and its 1-based int32 LAPACK row pivots (..., M):
    A = P L U, so x = U^-1 L^-1 P^T b."""
    _check_system("LuSolve", LU_data, b, "lu_data", "x")
    _check("LuSolve", "lu_pivots", LU_pivots, (mstype.int32,))
    if tuple(LU_pivots.shape) != tuple(LU_data.shape[:-1]):
        raise ValueError(f"For 'LuSolve', 'lu_pivots' must have shape {tuple(LU_data.shape[:-1])}"
                         f" (LU_data's without the last dim), but got {tuple(LU_pivots.shape)}.")
    perm, lower, upper = lu_unpack(LU_data, LU_pivots)
    y = matrix_solve(lower, M.matmul(perm, b, transpose_a=True))
    return matrix_solve(upper, y)


MatrixTriangularSolve = _composite(
    "MatrixTriangularSolve", matrix_triangular_solve, (("lower", True), ("adjoint", False)))


def _lu_solve_prim(x, lu_data, lu_pivots):
    return lu_solve(x, lu_data, lu_pivots)


LuSolve = _composite("LuSolve", _lu_solve_prim, (), doc=f"``ops.LuSolve()``: {lu_solve.__doc__}")
