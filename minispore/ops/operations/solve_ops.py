"""Linear solves from a matrix or its factors, and Q from packed reflectors: MatrixSolve,
CholeskySolve and Orgqr (MindSpore's names), each a kernel of kernels/<device>/decomp.py."""
import numpy as np

from minispore import device
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (FLOATS, HALF_FLOATS, cached_op, check_bool,
                                            check_dtype, check_tensor, contiguous, dims_equal)
from minispore.ops.operations.decomp_ops import (_check_matrices, _check_square, _const, _mm,
                                                 _stack, _t)
from minispore.ops.operations.math_ops import Add, Mul, Neg
from minispore.ops.primitive import Aval, Primitive

__all__ = ["MatrixSolve", "CholeskySolve", "Orgqr"]


def _check_pair(prim, a, b, names, dtypes):
    """Two tensors of one dtype among `dtypes` and one rank (MindSpore does not broadcast)."""
    for x, name in zip((a, b), names):
        check_tensor(prim, name, x)
        check_dtype(prim, name, x, dtypes)
    if a.dtype != b.dtype:
        raise prim.error(f"the input type must be same, but got {names[0]} {a.dtype} and "
                         f"{names[1]} {b.dtype}.", TypeError)
    if a.ndim != b.ndim or not all(dims_equal(prim, x, y)
                                   for x, y in zip(a.shape[:-2], b.shape[:-2])):
        raise prim.error(f"the batch dims of '{names[0]}' and '{names[1]}' must be the same "
                         f"(no broadcasting), but got {names[0]}.shape {tuple(a.shape)} and "
                         f"{names[1]}.shape {tuple(b.shape)}.")


class MatrixSolve(Primitive):
    """out = inv(matrix) rhs (inv(matrix^T) rhs with adjoint=True) for matrix (..., n, n) and
    rhs (..., n, k) of the same batch dims: LU with partial pivoting, as MindSpore's CPU kernel
    (Eigen's PartialPivLU). float16 runs through float32 (MindSpore 2.7.2's float16 returns
    inf). Gradient: drhs = MatrixSolve(not adjoint)(matrix, dout); dmatrix = -drhs out^T
    (adjoint: -out drhs^T).

    Raises TypeError for another or mixed dtypes or a non-bool adjoint, ValueError for ranks
    or shapes that do not match, for a rank below 2, or for a matrix with an exactly zero
    pivot ("not invertible", as MindSpore).

    >>> import numpy as np, minispore as ms
    >>> a = ms.Tensor(np.array([[2., 0.], [0., 4.]]))
    >>> ms.ops.MatrixSolve()(a, ms.Tensor(np.array([[2.], [2.]]))).asnumpy().tolist()
    [[1.0], [0.5]]
    """
    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2, 2)

    def __init__(self, adjoint=False):
        super().__init__()
        self.adjoint = check_bool(self.name, "adjoint", adjoint)
        self.add_prim_attr("adjoint", adjoint)

    def infer(self, matrix, rhs):
        _check_pair(self, matrix, rhs, ("matrix", "rhs"), HALF_FLOATS)
        _check_matrices(self, matrix, HALF_FLOATS, "matrix")
        _check_square(self, matrix, "matrix")
        if not dims_equal(self, matrix.shape[-1], rhs.shape[-2]):
            raise self.error(f"the M in the shape of 'matrix' [..., M, M] must be equal to M in "
                             f"the shape of 'rhs' [..., M, K], but got matrix.shape "
                             f"{tuple(matrix.shape)} and rhs.shape {tuple(rhs.shape)}.")
        return Aval(tuple(rhs.shape), rhs.dtype)

    def impl(self, matrix, rhs):
        a, _ = _stack(matrix)
        b, _ = _stack(rhs)
        out = device.empty(b.shape, rhs.dtype)
        info = device.empty((b.shape[0],), np.int32)
        kernel("decomp", "matrix_solve")(a, b, out, self.adjoint, info)
        if device.to_host(info).any():
            raise self.error("the input 'matrix' is not invertible (an exactly zero pivot in "
                             "its LU factorisation).")
        return out.reshape(tuple(rhs.shape))

    def bprop(self, inputs, out, dout):
        matrix = inputs[0]
        drhs = cached_op(MatrixSolve, not self.adjoint)(matrix, dout)
        dmatrix = _mm(out, drhs, False, True) if self.adjoint else _mm(drhs, out, False, True)
        return cached_op(Neg)(dmatrix), drhs


class CholeskySolve(Primitive):
    """out = inv(L L^T) x1 with L = the lower triangle of x2 (upper=True: inv(U^T U) x1, U its
    upper triangle; the other triangle is not read), for x1 (n, k) or (B, n, k) and x2 of the
    same rank: two triangular substitutions, as MindSpore's. x1, x2: float32/float64.
    Gradient: dx1 = CholeskySolve(dout, x2); with dM = -dx1 out^T, dx2 = tril((dM + dM^T) L)
    (upper: triu(U (dM + dM^T))), L the triangle read: only that triangle gets a gradient.
    MindSpore's bprop multiplies by the whole x2 and fills the other triangle too, so it agrees
    on the triangle read where x2's other triangle is zero.

    Raises TypeError for another or mixed dtypes or a non-bool upper, ValueError for a rank
    other than 2 or 3, ranks or row counts that differ, or a non-square x2.

    >>> import numpy as np, minispore as ms
    >>> l = ms.Tensor(np.array([[2., 0.], [1., 1.]]))
    >>> ms.ops.CholeskySolve()(ms.Tensor(np.array([[4.], [2.]])), l).asnumpy().tolist()
    [[1.0], [0.0]]
    """
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2, 2)

    def __init__(self, upper=False):
        super().__init__()
        self.upper = check_bool(self.name, "upper", upper)
        self.add_prim_attr("upper", upper)

    def infer(self, x1, x2):
        check_tensor(self, "x1", x1)
        if x1.ndim not in (2, 3):
            raise self.error(f"the rank of x1 must be 2 or 3, but got rank {x1.ndim}.")
        _check_pair(self, x1, x2, ("x1", "x2"), FLOATS)
        _check_square(self, x2, "x2")
        if not dims_equal(self, x1.shape[-2], x2.shape[-2]):
            raise self.error(f"x1 and x2 should share the same row number, while row number of "
                             f"x1 is {x1.shape[-2]}, row number of x2 is {x2.shape[-2]}.")
        return Aval(tuple(x1.shape), x1.dtype)

    def impl(self, x1, x2):
        b, _ = _stack(x1)
        a, _ = _stack(x2)
        out = device.empty(b.shape, x1.dtype)
        kernel("decomp", "cholesky_solve")(b, a, out, self.upper)
        return out.reshape(tuple(x1.shape))

    def bprop(self, inputs, out, dout):
        x2 = inputs[1]
        n = x2.shape[-1]
        dx1 = cached_op(CholeskySolve, self.upper)(dout, x2)
        dm = cached_op(Neg)(_mm(dx1, out, False, True))
        sym = cached_op(Add)(dm, _t(dm))
        # The factor is the triangle read (the other one may hold anything), and only that
        # triangle gets a gradient.
        mask = _const(x2, np.triu(np.ones((n, n))) if self.upper else np.tril(np.ones((n, n))))
        factor = cached_op(Mul)(x2, mask)
        grad = _mm(factor, sym) if self.upper else _mm(sym, factor)
        return dx1, cached_op(Mul)(grad, mask)


class Orgqr(Primitive):
    """out = the first n columns of Q = H_0 ... H_{t-1} from Geqrf's packed reflectors x
    (..., m, n), m >= n, and coefficients tau (..., t), t <= n (LAPACK's orgqr; Householder
    product). x, tau: float32/float64 of one dtype. No gradient (as MindSpore's: a gradient
    through it raises).

    Raises TypeError for another or mixed dtypes, ValueError for a rank below 2, m < n, t > n
    or batch dims that differ.

    >>> import numpy as np, minispore as ms
    >>> y, tau = ms.ops.geqrf(ms.Tensor(np.array([[3., 1.], [4., 2.]])))
    >>> ms.ops.Orgqr()(y, tau).asnumpy().round(6).tolist()
    [[-0.6, -0.8], [-0.8, 0.6]]
    """
    no_bprop_reason = "MindSpore defines no bprop for it either"

    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2, 1)

    def infer(self, x, tau):
        _check_matrices(self, x, FLOATS, "x")
        check_tensor(self, "tau", tau)
        check_dtype(self, "tau", tau, FLOATS)
        if x.dtype != tau.dtype:
            raise self.error(f"the input type must be same, but got x {x.dtype} and tau "
                             f"{tau.dtype}.", TypeError)
        m, n = x.shape[-2:]
        if isinstance(m, int) and isinstance(n, int) and m < n:
            raise self.error(f"x.shape[-2] must be greater than or equal to x.shape[-1], while "
                             f"x.shape[-2] is {m} and x.shape[-1] is {n}.")
        t = tau.shape[-1] if tau.ndim else 0
        if tau.ndim != x.ndim - 1 or (isinstance(t, int) and isinstance(n, int) and t > n) or \
                not all(dims_equal(self, a, b) for a, b in zip(tau.shape[:-1], x.shape[:-2])):
            raise self.error(f"tau must be (..., t) with x's batch dims and t <= x.shape[-1], "
                             f"but got x.shape {tuple(x.shape)} and tau.shape "
                             f"{tuple(tau.shape)}.")
        return Aval(tuple(x.shape), x.dtype)

    def impl(self, x, tau):
        a, _ = _stack(x)
        t = contiguous(tau).reshape((a.shape[0], tau.shape[-1]))
        out = device.empty(a.shape, x.dtype)
        kernel("decomp", "orgqr")(a, t, out)
        return out.reshape(tuple(x.shape))
