"""Matrix decompositions and least squares on batches of matrices: Svd, Qr, Geqrf, Cholesky,
CholeskyInverse, Lstsq and LuUnpack (MindSpore's names), each a kernel of
kernels/<device>/decomp.py, with the bprops MindSpore 2.7.2 has (Svd, Cholesky,
CholeskyInverse, LuUnpack; its Qr, Geqrf and Lstsq have none)."""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.symbolic import SymDim
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (FLOATS, HALF_FLOATS, cached_op, check_bool,
                                            check_dtype, check_tensor, contiguous, dims_equal)
from minispore.ops.operations.array_ops import ExpandDims, Transpose
from minispore.ops.operations.linalg_ops import MatrixInverse
from minispore.ops.operations.math_ops import Add, Mul, RealDiv, Sub
from minispore.ops.operations.matmul_ops import BatchMatMul, MatMul
from minispore.ops.primitive import Aval, Primitive

# LuUnpackGrad is internal (MindSpore keeps it among its grad operations).
__all__ = ["Svd", "Qr", "Geqrf", "Cholesky", "CholeskyInverse", "Lstsq", "LuUnpack"]

_INTS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8)


def _consts(dtype):
    """(machine epsilon, smallest normal number) of a float dtype, as that dtype's scalars."""
    np_dtype = np.dtype(dtype)
    info = np.finfo(np_dtype)
    return np_dtype.type(info.eps), np_dtype.type(info.tiny)


def _check_matrices(prim, x, dtypes, name="x"):
    """x: a Tensor of `dtypes` of rank >= 2 (MindSpore's ValueError otherwise)."""
    check_tensor(prim, name, x)
    check_dtype(prim, name, x, dtypes)
    if x.ndim < 2:
        raise prim.error(f"the rank of '{name}' must be greater than or equal to 2, but got "
                         f"{x.ndim} ({name}.shape {tuple(x.shape)}).")


def _check_square(prim, x, name="x"):
    if not dims_equal(prim, x.shape[-2], x.shape[-1]):
        raise prim.error(f"'{name}' must be batch squares, but got batch {x.shape[-2]} x "
                         f"{x.shape[-1]} matrices ({name}.shape {tuple(x.shape)}).")


def _stack(x):
    """x (..., m, n) as the C-contiguous (B, m, n) stack the kernels take, and its batch."""
    batch = tuple(x.shape[:-2])
    return contiguous(x).reshape((int(math.prod(batch)),) + tuple(x.shape[-2:])), batch


def _min(prim, a, b):
    """min(m, n) of two dims; for a symbolic dim only where the two are the same."""
    if not isinstance(a, SymDim) and not isinstance(b, SymDim):
        return min(a, b)
    if a == b:
        return a
    raise prim.error(f"min({a}, {b}) of a dynamic matrix shape is not known before it runs; give "
                     f"the two matrix dims static sizes.")


# -- bprop helpers: functional math on (..., m, n) tensors of one batch shape -------------------
def _t(x):
    """x with its last two dims swapped."""
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return cached_op(Transpose)(x, perm)


def _mm(a, b, ta=False, tb=False):
    cls = MatMul if a.ndim == 2 else BatchMatMul
    return cached_op(cls, ta, tb)(a, b)


def _const(x, array):
    """A constant of x's dtype (a 0/1 mask or an identity), broadcast against x."""
    return Tensor(np.asarray(array, dtype=x.dtype.np_dtype))


def _row(v):
    """v (..., k) as (..., 1, k): scales the columns of a matrix."""
    return cached_op(ExpandDims)(v, -2)


def _col(v):
    """v (..., k) as (..., k, 1): scales the rows of a matrix."""
    return cached_op(ExpandDims)(v, -1)


class Svd(Primitive):
    """``s, u, v = Svd(full_matrices=False, compute_uv=True)(x)``: x[...] = u diag(s) v^T for
    x of shape (..., m, n), s (..., p) descending, p = min(m, n); u (..., m, p) and v (..., n,
    p), or (..., m, m) and (..., n, n) with full_matrices. Without compute_uv u and v are
    zeros of shape (1,), as MindSpore's.

    Eigen's JacobiSVD (MindSpore's CPU kernel hands matrices of fewer than 16 columns to it),
    so the signs of u's and v's columns are MindSpore's there; see kernels/jacobi.py. A
    non-finite input gives NaN outputs. x: float32/float64.
    Gradient (real SVD, distinct nonzero singular values): with F_ij = 1/(s_j^2 - s_i^2),
    J = F * (u^T du), K = F * (v^T dv), dx = u (diag(ds) + (J + J^T) S + S (K + K^T)) v^T
    + (I - u u^T) du S^-1 v^T + u S^-1 dv^T (I - v v^T); compute_uv=False: u diag(ds) v^T.

    Raises TypeError for a non-bool attribute or another dtype, ValueError for rank < 2,
    RuntimeError for an empty x.

    >>> import numpy as np, minispore as ms
    >>> s, u, v = ms.ops.Svd()(ms.Tensor(np.array([[3., 0.], [0., -2.]])))
    >>> s.asnumpy().tolist(), u.asnumpy().tolist(), v.asnumpy().tolist()
    ([3.0, 2.0], [[1.0, -0.0], [0.0, -1.0]], [[1.0, 0.0], [0.0, 1.0]])
    """
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2)

    def __init__(self, full_matrices=False, compute_uv=True):
        super().__init__()
        self.full_matrices = check_bool(self.name, "full_matrices", full_matrices)
        self.compute_uv = check_bool(self.name, "compute_uv", compute_uv)
        self.add_prim_attr("full_matrices", full_matrices)
        self.add_prim_attr("compute_uv", compute_uv)

    def infer(self, x):
        _check_matrices(self, x, FLOATS, "input")
        batch = tuple(x.shape[:-2])
        m, n = x.shape[-2:]
        p = _min(self, m, n)
        s = Aval(batch + (p,), x.dtype)
        if not self.compute_uv:
            return s, Aval((1,), x.dtype), Aval((1,), x.dtype)
        u = batch + ((m, m) if self.full_matrices else (m, p))
        v = batch + ((n, n) if self.full_matrices else (n, p))
        return s, Aval(u, x.dtype), Aval(v, x.dtype)

    def impl(self, x):
        if x.size == 0:
            raise self.error(f"the input can not be an empty tensor, but got shape "
                             f"{tuple(x.shape)}.", RuntimeError)
        stack, batch = _stack(x)
        B, m, n = stack.shape
        p = min(m, n)
        eps, tiny = _consts(x.dtype)
        s = device.empty((B, p), x.dtype)
        uc, vc = (m, n) if self.full_matrices else (p, p)
        shape_u, shape_v = ((B, m, uc), (B, n, vc)) if self.compute_uv else ((0, 0, 0),) * 2
        u = device.empty(shape_u, x.dtype)
        v = device.empty(shape_v, x.dtype)
        kernel("decomp", "svd")(stack, s, u, v, self.compute_uv, eps, tiny)
        s = s.reshape(batch + (p,))
        if not self.compute_uv:
            return s, device.zeros((1,), x.dtype), device.zeros((1,), x.dtype)
        return s, u.reshape(batch + (m, uc)), v.reshape(batch + (n, vc))

    def bprop(self, inputs, out, dout):
        x = inputs[0]
        m, n = x.shape[-2:]
        p = min(m, n)
        mul, sub, add = cached_op(Mul), cached_op(Sub), cached_op(Add)
        if not self.compute_uv:
            s, u, v = cached_op(Svd, False, True)(x)
            return (_mm(mul(u, _row(dout[0])), v, False, True),)
        if self.full_matrices and m != n:
            raise NotImplementedError(
                f"For '{self.name}', the gradient with full_matrices=True is built for square "
                f"matrices only, but got x.shape {tuple(x.shape)}; take the gradient of "
                f"full_matrices=False (the same singular values and leading vectors).")
        s, u, v = out
        ds, du, dv = dout
        s2 = mul(s, s)
        # F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it (the diagonal's 1/0 masked).
        eye = np.eye(p)
        denom = add(sub(_row(s2), _col(s2)), _const(x, eye))
        f = mul(cached_op(RealDiv)(_const(x, 1.0), denom), _const(x, 1.0 - eye))
        j = mul(f, _mm(u, du, True, False))
        k = mul(f, _mm(v, dv, True, False))
        jj = add(j, _t(j))
        kk = add(k, _t(k))
        inner = add(add(mul(jj, _row(s)), mul(_col(s), kk)), mul(_const(x, eye), _row(ds)))
        dx = _mm(_mm(u, inner), v, False, True)
        inv_s = cached_op(RealDiv)(_const(x, 1.0), s)
        if m > p:
            # (I - u u^T) du S^-1 v^T: the part of du outside u's span.
            du_out = sub(du, _mm(u, _mm(u, du, True, False)))
            dx = add(dx, _mm(mul(du_out, _row(inv_s)), v, False, True))
        if n > p:
            dv_out = sub(dv, _mm(v, _mm(v, dv, True, False)))
            dx = add(dx, _mm(mul(u, _row(inv_s)), dv_out, False, True))
        return (dx,)


class Geqrf(Primitive):
    """``y, tau = Geqrf()(x)``: LAPACK geqrf's Householder QR of x (..., m, n): R on and above
    y's diagonal, the reflectors' essential parts below, tau (..., min(m, n)) their
    coefficients, so Q = H_0 ... H_{k-1}, H_i = I - tau_i v_i v_i^T with v_i = (0, .., 1,
    y[i+1:, i]). Eigen's/LAPACK's reflector signs (see kernels/householder.py).
    x: float16 (through float32)/float32/float64. No gradient (as MindSpore's: a gradient
    through it raises).

    >>> import numpy as np, minispore as ms
    >>> y, tau = ms.ops.Geqrf()(ms.Tensor(np.array([[3., 1.], [4., 2.]])))
    >>> y.asnumpy().round(6).tolist(), tau.asnumpy().round(6).tolist()
    ([[-5.0, -2.2], [0.5, 0.4]], [1.6, 0.0])
    """
    no_bprop_reason = "MindSpore defines no bprop for it either"

    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2)

    def infer(self, x):
        _check_matrices(self, x, HALF_FLOATS, "x")
        batch = tuple(x.shape[:-2])
        return Aval(tuple(x.shape), x.dtype), Aval(batch + (_min(self, *x.shape[-2:]),), x.dtype)

    def impl(self, x):
        stack, batch = _stack(x)
        B, m, n = stack.shape
        y = device.empty((B, m, n), x.dtype)
        tau = device.empty((B, min(m, n)), x.dtype)
        kernel("decomp", "geqrf")(stack, y, tau, _consts(x.dtype)[1])
        return y.reshape(tuple(x.shape)), tau.reshape(batch + (min(m, n),))


class Qr(Primitive):
    """``q, r = Qr(full_matrices=False)(x)``: x = q r for x (..., m, n), q with orthonormal
    columns (..., m, p), r upper triangular (..., p, n), p = min(m, n); with full_matrices q is
    (..., m, m) and r (..., m, n). Eigen's HouseholderQR, as MindSpore's CPU kernel, so r's
    diagonal has LAPACK's signs (negative for a positive leading entry).
    x: float16 (through float32)/float32/float64. No gradient (as MindSpore's: a gradient
    through it raises).

    >>> import numpy as np, minispore as ms
    >>> q, r = ms.ops.Qr()(ms.Tensor(np.array([[3., 1.], [4., 2.]])))
    >>> q.asnumpy().round(6).tolist(), r.asnumpy().round(6).tolist()
    ([[-0.6, -0.8], [-0.8, 0.6]], [[-5.0, -2.2], [0.0, 0.4]])
    """
    no_bprop_reason = "MindSpore defines no bprop for it either"

    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2)

    def __init__(self, full_matrices=False):
        super().__init__()
        self.full_matrices = check_bool(self.name, "full_matrices", full_matrices)
        self.add_prim_attr("full_matrices", full_matrices)

    def infer(self, x):
        _check_matrices(self, x, HALF_FLOATS, "x")
        batch = tuple(x.shape[:-2])
        m, n = x.shape[-2:]
        k = m if self.full_matrices else _min(self, m, n)
        return Aval(batch + (m, k), x.dtype), Aval(batch + (k, n), x.dtype)

    def impl(self, x):
        stack, batch = _stack(x)
        B, m, n = stack.shape
        k = m if self.full_matrices else min(m, n)
        q = device.empty((B, m, k), x.dtype)
        r = device.empty((B, k, n), x.dtype)
        kernel("decomp", "qr")(stack, q, r, _consts(x.dtype)[1])
        return q.reshape(batch + (m, k)), r.reshape(batch + (k, n))


def _raise_where(prim, info, message):
    """Raise prim's RuntimeError naming the first matrix whose kernel flag `info` is set."""
    flags = device.to_host(info)
    if flags.any():
        z = int(np.flatnonzero(flags)[0])
        raise prim.error(message.format(z=z), RuntimeError)


class Cholesky(Primitive):
    """out = L (or U = L^T with upper=True) with L L^T = x for symmetric positive definite x
    of shape (..., n, n): Eigen's LLT of the lower triangle, as MindSpore's CPU kernel.
    x: float16 (through float32)/float32/float64.
    Gradient (Murray's): with P = Phi(L^T dL) (the lower triangle, diagonal halved),
    S = L^-T P L^-1, dx = (S + S^T) / 2.

    Raises TypeError for a non-bool upper or another dtype, ValueError for rank < 2 or
    non-square matrices, RuntimeError for a matrix that is not symmetric (Eigen's isApprox:
    |x - x^T|_F <= 1e-5 |x|_F in float32, 1e-12 in float64) or not positive definite.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.Cholesky()(ms.Tensor(np.array([[4., 2.], [2., 5.]]))).asnumpy().tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2)

    def __init__(self, upper=False):
        super().__init__()
        self.upper = check_bool(self.name, "upper", upper)
        self.add_prim_attr("upper", upper)

    def infer(self, x):
        _check_matrices(self, x, HALF_FLOATS, "input_x")
        _check_square(self, x, "input_x")
        return Aval(tuple(x.shape), x.dtype)

    def impl(self, x):
        stack, _ = _stack(x)
        out = device.empty(stack.shape, x.dtype)
        info = device.empty((stack.shape[0],), np.int32)
        prec = np.dtype(x.dtype).type(1e-5 if np.dtype(x.dtype) == np.float32 else 1e-12)
        kernel("decomp", "cholesky")(stack, out, self.upper, prec, info)
        _raise_where(self, info, "Cholesky expects symmetric positive definite matrices as "
                                 "inputs, but matrix {z} of the batch is not.")
        return out.reshape(tuple(x.shape))

    def bprop(self, inputs, out, dout):
        l, dl = (_t(out), _t(dout)) if self.upper else (out, dout)
        n = l.shape[-1]
        phi = _const(l, np.tril(np.ones((n, n))) - 0.5 * np.eye(n))
        p = cached_op(Mul)(_mm(l, dl, True, False), phi)
        l_inv = cached_op(MatrixInverse, False)(l) if n >= 2 else \
            cached_op(RealDiv)(_const(l, 1.0), l)
        s = _mm(_mm(l_inv, p, True, False), l_inv)
        half = _const(l, 0.5)
        return (cached_op(Mul)(cached_op(Add)(s, _t(s)), half),)


class CholeskyInverse(Primitive):
    """out = inv(x x^T) (upper=True: inv(x^T x)) for x (..., n, n), the Cholesky factor of the
    matrix whose inverse is wanted. As MindSpore's CPU kernel, the whole of x is the factor
    (its other triangle is not zeroed), and the product's inverse is by LU with partial
    pivoting, so a singular x gives inf/NaN. x: float16 (through float32)/float32/float64.
    Gradient: with Y = out, dM = -Y dout Y, dx = (dM + dM^T) x (upper: x (dM + dM^T)).

    Raises TypeError for a non-bool upper or another dtype, ValueError for rank < 2 or
    non-square matrices.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.CholeskyInverse()(ms.Tensor(np.array([[2., 0.], [1., 1.]]))).asnumpy().tolist()
    [[0.5, -0.5], [-0.5, 1.0]]
    """
    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2)

    def __init__(self, upper=False):
        super().__init__()
        self.upper = check_bool(self.name, "upper", upper)
        self.add_prim_attr("upper", upper)

    def infer(self, x):
        _check_matrices(self, x, HALF_FLOATS, "x")
        _check_square(self, x, "x")
        return Aval(tuple(x.shape), x.dtype)

    def impl(self, x):
        stack, _ = _stack(x)
        out = device.empty(stack.shape, x.dtype)
        kernel("decomp", "cholesky_inverse")(stack, out, self.upper)
        return out.reshape(tuple(x.shape))

    def bprop(self, inputs, out, dout):
        x = inputs[0]
        dm = cached_op(Mul)(_mm(_mm(out, dout), out), _const(x, -1.0))
        sym = cached_op(Add)(dm, _t(dm))
        return (_mm(x, sym) if self.upper else _mm(sym, x),)


class Lstsq(Primitive):
    """out = the least-squares solution of x out = a for x (m, n) and a (m, k) or (m,):
    out (n, k) ((n, 1) for a vector a). MindSpore's CPU kernel: m >= n, Eigen's
    ColPivHouseholderQR solve (a rank-deficient x gets the basic solution: the unknowns of its
    dependent columns 0); m < n, x^T inv(x x^T) a (the minimum-norm solution).
    x, a: float16 (through float32)/float32/float64, one dtype. Only MindSpore's attributes
    fast=True and l2_regularizer=0.0 are accepted (as MindSpore 2.7.2).
    No gradient (as MindSpore's: a gradient through it raises).

    Raises TypeError for other attributes, dtypes or mixed dtypes, ValueError for a rank of x
    other than 2, of a other than 1 or 2, or a row count of a other than x's.

    >>> import numpy as np, minispore as ms
    >>> x = ms.Tensor(np.array([[1., 0.], [0., 1.], [1., 1.]]))
    >>> ms.ops.Lstsq()(x, ms.Tensor(np.array([1., 2., 4.]))).asnumpy().round(6).tolist()
    [[1.333333], [2.333333]]
    """
    no_bprop_reason = "MindSpore defines no bprop for it either"

    float16_in_float32 = True
    fresh_outputs = True
    sharding_rule = rules.replicate_only("Lstsq solves one 2-D system: there is no batch dim "
                                         "to cut")

    def __init__(self, fast=True, l2_regularizer=0.0):
        super().__init__()
        if fast is not True:
            raise TypeError(f"For '{self.name}', the 'fast' should be True, but got '{fast}'.")
        if not isinstance(l2_regularizer, float) or l2_regularizer != 0.0:
            raise TypeError(f"For '{self.name}', the 'l2_regularizer' should be 0.0, but got "
                            f"'{l2_regularizer}'.")
        self.fast = fast
        self.l2_regularizer = l2_regularizer
        self.add_prim_attr("fast", fast)
        self.add_prim_attr("l2_regularizer", l2_regularizer)

    def infer(self, x, a):
        check_tensor(self, "x", x)
        check_tensor(self, "a", a)
        check_dtype(self, "x", x, HALF_FLOATS)
        check_dtype(self, "a", a, HALF_FLOATS)
        if x.dtype != a.dtype:
            raise self.error(f"the input type must be same, but got x {x.dtype} and a "
                             f"{a.dtype}.", TypeError)
        if x.ndim != 2:
            raise self.error(f"the dimension of x must be equal to 2, but got x_dim: {x.ndim}.")
        if a.ndim not in (1, 2):
            raise self.error(f"the dimension of a must be 1 or 2, but got a_dim: {a.ndim}.")
        if not dims_equal(self, x.shape[0], a.shape[0]):
            raise self.error(f"the length of x_dim[0] must be equal to the length of "
                             f"a_dims[0]. But got x_dim[0]: {x.shape[0]}, a_dims[0]: "
                             f"{a.shape[0]}.")
        return Aval((x.shape[1], a.shape[1] if a.ndim == 2 else 1), x.dtype)

    def impl(self, x, a):
        m, n = x.shape
        rhs = contiguous(a).reshape((m, a.shape[1] if a.ndim == 2 else 1))
        out = device.empty((n, rhs.shape[1]), x.dtype)
        eps, tiny = _consts(x.dtype)
        kernel("decomp", "lstsq")(contiguous(x), rhs, out, eps, tiny)
        return out


class LuUnpack(Primitive):
    """``p, l, u = LuUnpack()(lu_data, lu_pivots)``: the factors of a packed LU factorisation
    (LAPACK getrf's, as ``mindspore.scipy.linalg.lu_factor`` returns) of (..., m, n) with
    1-based row swaps lu_pivots (..., k), k = min(m, n): p (..., m, m) the permutation, l
    (..., m, k) unit lower triangular, u (..., k, n) upper triangular, p l u the original.
    lu_data: float16/32/64 or int8/16/32/64/uint8; lu_pivots: int8/16/32/64/uint8.
    Gradient (of l and u): d lu_data = tril(dl, -1) + triu(du) (LuUnpackGrad).

    Raises TypeError for a non-bool attribute or another dtype, ValueError for rank < 2, a
    pivot count other than k, batch dims that differ, or a pivot outside [1, m].

    >>> import numpy as np, minispore as ms
    >>> p, l, u = ms.ops.LuUnpack()(ms.Tensor(np.array([[2., 1.], [0.5, 3.]])),
    ...                             ms.Tensor(np.array([2, 2], np.int32)))
    >>> p.asnumpy().tolist(), l.asnumpy().tolist(), u.asnumpy().tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.5, 1.0]], [[2.0, 1.0], [0.0, 3.0]])
    """
    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2, 1)

    def __init__(self, unpack_data=True, unpack_pivots=True):
        super().__init__()
        for name, value in (("unpack_data", unpack_data), ("unpack_pivots", unpack_pivots)):
            if not isinstance(value, bool):
                raise TypeError(f"For '{self.name}', the type of '{name}' should be 'bool', "
                                f"but got type '{type(value).__name__}'.")
        self.unpack_data = unpack_data
        self.unpack_pivots = unpack_pivots
        self.add_prim_attr("unpack_data", unpack_data)
        self.add_prim_attr("unpack_pivots", unpack_pivots)

    def infer(self, lu_data, lu_pivots):
        _check_matrices(self, lu_data, HALF_FLOATS + _INTS, "LU_data")
        check_tensor(self, "LU_pivots", lu_pivots)
        check_dtype(self, "LU_pivots", lu_pivots, _INTS)
        m, n = lu_data.shape[-2:]
        k = _min(self, m, n)
        batch = tuple(lu_data.shape[:-2])
        if lu_pivots.ndim < 1 or not dims_equal(self, lu_pivots.shape[-1], k):
            raise self.error(f"the last dimension of LU_pivots must be the same as the minimum "
                             f"value of the last two dimensions of LU_data, but got "
                             f"LU_pivots.shape {tuple(lu_pivots.shape)}, LU_data.shape "
                             f"{tuple(lu_data.shape)}.")
        if len(lu_pivots.shape) - 1 != len(batch) or not all(
                dims_equal(self, a, b) for a, b in zip(lu_pivots.shape[:-1], batch)):
            raise self.error(f"the batch dimensions of LU_pivots and LU_data must be the same, "
                             f"but got LU_pivots.shape {tuple(lu_pivots.shape)}, LU_data.shape "
                             f"{tuple(lu_data.shape)}.")
        dt = lu_data.dtype
        return Aval(batch + (m, m), dt), Aval(batch + (m, k), dt), Aval(batch + (k, n), dt)

    def impl(self, lu_data, lu_pivots):
        stack, batch = _stack(lu_data)
        B, m, n = stack.shape
        k = min(m, n)
        piv = contiguous(lu_pivots).reshape((B, k))
        p = device.empty((B, m, m), lu_data.dtype)
        lo = device.empty((B, m, k), lu_data.dtype)
        up = device.empty((B, k, n), lu_data.dtype)
        info = device.empty((B,), np.int32)
        kernel("decomp", "lu_unpack")(stack, piv, p, lo, up, info)
        flags = device.to_host(info)
        if flags.any():
            raise self.error(f"the value of the elements in LU_pivots must be greater than or "
                             f"equal to 1 and less than or equal to the size of the penultimate "
                             f"dimension of LU_data ({m}), but got "
                             f"{device.to_host(piv)[int(np.flatnonzero(flags)[0])].tolist()}.")
        return (p.reshape(batch + (m, m)), lo.reshape(batch + (m, k)),
                up.reshape(batch + (k, n)))

    def bprop(self, inputs, out, dout):
        return cached_op(LuUnpackGrad)(dout[1], dout[2]), None


class LuUnpackGrad(Primitive):
    """d lu_data = tril(dl, -1) + triu(du) for LuUnpack's l (..., m, k) and u (..., k, n)
    cotangents: the (..., m, n) gradient of the packed factors (the unit diagonal and the
    zeros are constants). Linear in (dl, du), and LuUnpack's only use: not differentiated
    further."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    fresh_outputs = True
    sharding_rule = rules.matrix_factor(2, 2)

    def infer(self, dl, du):
        return Aval(tuple(dl.shape[:-1]) + (du.shape[-1],), dl.dtype)

    def impl(self, dl, du):
        sl, batch = _stack(dl)
        su, _ = _stack(du)
        B, m, _ = sl.shape
        n = su.shape[2]
        out = device.empty((B, m, n), dl.dtype)
        kernel("decomp", "lu_unpack_grad")(sl, su, out)
        return out.reshape(batch + (m, n))
