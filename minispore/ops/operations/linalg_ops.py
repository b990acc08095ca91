"""Linear algebra on batches of square matrices: MatrixDeterminant, LogMatrixDeterminant and
MatrixInverse (MindSpore's names), each a kernel of kernels/<device>/linalg.py."""
import math

import numpy as np

from minispore import device
from minispore.common.symbolic import SymDim
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (FLOATS, cached_op, check_dtype, check_tensor,
                                            contiguous, dims_equal, float_dtypes)
from minispore.ops.operations.array_ops import ExpandDims
from minispore.ops.operations.math_ops import Mul, Neg
from minispore.ops.operations.matmul_ops import BatchMatMul, MatMul
from minispore.ops.primitive import Aval, Primitive

__all__ = ["MatrixDeterminant", "LogMatrixDeterminant", "MatrixInverse"]


def _check_square(prim, x, dtypes):
    """x: a Tensor of `dtypes`, shape (..., n, n) with n >= 2 (MindSpore 2.7.2 refuses 1 x 1
    and 0 x 0 matrices with this ValueError; an empty batch is fine)."""
    check_tensor(prim, "x", x)
    check_dtype(prim, "x", x, dtypes)
    if x.ndim < 2:
        raise prim.error(f"the x rank must be greater than or equal to 2, but got {x.ndim} "
                         f"(x.shape {tuple(x.shape)}).")
    rows, cols = x.shape[-2], x.shape[-1]
    if not dims_equal(prim, rows, cols):
        raise prim.error(f"the last two dims of x must be equal (square matrices), but got "
                         f"x.shape {tuple(x.shape)}.")
    if not isinstance(cols, SymDim) and cols < 2:
        raise prim.error(f"the row size must be greater than or equal to 2, but got {cols} "
                         f"(x.shape {tuple(x.shape)}).")


def _stack(prim, x):
    """x (..., n, n) as the C-contiguous (B, n, n) stack the linalg kernels take (n checked
    again: a dynamic dim is known only now)."""
    n = x.shape[-1]
    if n < 2:
        raise prim.error(f"the row size must be greater than or equal to 2, but got {n} "
                         f"(x.shape {tuple(x.shape)}).")
    return contiguous(x).reshape((int(math.prod(x.shape[:-2])), n, n))


def _matrix_shaped(g):
    """g (...) as (..., 1, 1), to scale whole matrices of a (..., n, n) gradient."""
    expand = cached_op(ExpandDims)
    return expand(expand(g, -1), -1)


def _inverse_transposed(x):
    """inv(x)^T = inv(x^T), the gradient of log|det x| (Jacobi's formula)."""
    return cached_op(MatrixInverse, True)(x)


def _mm(a, b, transpose_a, transpose_b):
    """a @ b over the last two dims (equal shapes: no batch broadcasting needed)."""
    cls = MatMul if a.ndim == 2 else BatchMatMul
    return cached_op(cls, transpose_a, transpose_b)(a, b)


class MatrixDeterminant(Primitive):
    """out[...] = det(x[..., :, :]) for x of shape (..., n, n); out has shape x.shape[:-2].

    LU with partial pivoting per matrix (kernels/lu.py); a singular matrix gives 0 (-0.0
    where the row swaps are odd, as MindSpore). x: float32/float64 (float16 through
    float32, as MindSpore's CPU kernel accepts it), n >= 2.
    Gradient (Jacobi): dx = dout * det(x) * inv(x)^T.

    Raises TypeError for another dtype, ValueError for rank < 2, non-square or 1 x 1
    matrices.

    >>> import numpy as np, minispore as ms
    >>> x = ms.Tensor(np.array([[[1., 2.], [3., 4.]], [[2., 0.], [0., 3.]]], np.float64))
    >>> ms.ops.MatrixDeterminant()(x).asnumpy().round(6).tolist()
    [-2.0, 6.0]
    """
    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.matrix_batch

    def infer(self, x):
        _check_square(self, x, float_dtypes(self))
        return Aval(tuple(x.shape[:-2]), x.dtype)

    def impl(self, x):
        out = device.empty((int(math.prod(x.shape[:-2])),), x.dtype)
        kernel("linalg", "det")(_stack(self, x), out)
        return out.reshape(tuple(x.shape[:-2]))

    def bprop(self, inputs, out, dout):
        x = inputs[0]
        scale = _matrix_shaped(cached_op(Mul)(dout, out))
        return (cached_op(Mul)(scale, _inverse_transposed(x)),)


class LogMatrixDeterminant(Primitive):
    """``sign, y = LogMatrixDeterminant()(x)``: the sign of det(x[..., :, :]) (-1, 0 or 1) and
    log|det| (-inf for a singular matrix, whose sign is 0), both of shape x.shape[:-2] and
    x's dtype. The log is a sum of log|U_ii| over the LU factors, so it stays finite where
    the determinant itself would overflow or underflow.
    x: float32/float64 (float16 through float32), n >= 2.
    Gradient: d y / dx = inv(x)^T (the sign is piecewise constant: no gradient).

    Raises TypeError for another dtype, ValueError for rank < 2, non-square or 1 x 1
    matrices.

    >>> import numpy as np, minispore as ms
    >>> s, y = ms.ops.LogMatrixDeterminant()(ms.Tensor(np.array([[1., 2.], [3., 4.]])))
    >>> float(s), round(float(y), 6)
    (-1.0, 0.693147)
    """
    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.matrix_batch

    def infer(self, x):
        _check_square(self, x, float_dtypes(self))
        out = Aval(tuple(x.shape[:-2]), x.dtype)
        return out, out

    def impl(self, x):
        B = int(math.prod(x.shape[:-2]))
        sign = device.empty((B,), x.dtype)
        logabs = device.empty((B,), x.dtype)
        kernel("linalg", "slogdet")(_stack(self, x), sign, logabs)
        batch = tuple(x.shape[:-2])
        return sign.reshape(batch), logabs.reshape(batch)

    def bprop(self, inputs, out, dout):
        scale = _matrix_shaped(dout[1])
        return (cached_op(Mul)(scale, _inverse_transposed(inputs[0])),)


class MatrixInverse(Primitive):
    """out[..., :, :] = inv(x[..., :, :]), or inv(x^T) (the adjoint's inverse; x is real)
    when ``adjoint=True``. x: float32/float64 (MindSpore refuses float16), (..., n, n),
    n >= 2.

    Eigen's FullPivLU inverse, as MindSpore's CPU kernel: a singular matrix gives a finite
    result, not inf/nan (the unknowns of its zero pivots set to 0: [[1, 2], [2, 4]] ->
    [[0, 0], [0, 0.25]]); see kernels/lu.py.
    Gradient: with Y = out, dx = -Y^T dout Y^T (adjoint: -Y dout^T Y).

    Raises TypeError for a non-bool adjoint or another dtype, ValueError for rank < 2,
    non-square or 1 x 1 matrices.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.MatrixInverse()(ms.Tensor(np.array([[2., 0.], [0., 4.]]))).asnumpy().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    fresh_outputs = True
    sharding_rule = rules.matrix_batch

    def __init__(self, adjoint=False):
        super().__init__()
        if not isinstance(adjoint, bool):
            raise TypeError(f"For '{self.name}', the type of 'adjoint' should be 'bool', but "
                            f"got type '{type(adjoint).__name__}'.")
        self.adjoint = adjoint
        self.add_prim_attr("adjoint", adjoint)

    def infer(self, x):
        _check_square(self, x, FLOATS)
        return Aval(tuple(x.shape), x.dtype)

    def impl(self, x):
        stack = _stack(self, x)
        out = device.empty(stack.shape, x.dtype)
        eps = np.dtype(x.dtype).type(np.finfo(x.dtype).eps)
        kernel("linalg", "inverse")(stack, out, self.adjoint, eps)
        return out.reshape(tuple(x.shape))

    def bprop(self, inputs, out, dout):
        # Y = inv(A): dY = -Y dA Y, so dA = -Y^T dout Y^T; with adjoint, Y = inv(A^T) and the
        # same rule for A^T, transposed back, gives -Y dout^T Y.
        if self.adjoint:
            inner = _mm(_mm(out, dout, False, True), out, False, False)
        else:
            inner = _mm(_mm(out, dout, True, False), out, False, True)
        return (cached_op(Neg)(inner),)
