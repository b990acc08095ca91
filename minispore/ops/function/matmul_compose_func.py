"""Matrix products composed of MatMul / BatchMatMul (floats) and Mul + ReduceSum (integers,
which MatMul does not take): mm, mv, dot, tensor_dot, the scaled sums addmm, addmv, addr,
addbmm, baddbmm, and MindSpore's primitive Ger. Differentiable wherever the inputs are
floats, through the primitives they are made of."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_prims import _composite

__all__ = ["mm", "mv", "dot", "tensor_dot", "addmm", "addmv", "addr", "addbmm", "baddbmm",
           "Ger"]


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _same_dtype(name, a, b, first="x1", second="x2"):
    if a.dtype != b.dtype:
        raise TypeError(f"For '{name}', the type of '{second}' should be same as '{first}', but "
                        f"got '{first}' with type Tensor[{a.dtype}] and '{second}' with type "
                        f"Tensor[{b.dtype}].")


def _matmul2d(a, b):
    """(m, k) @ (k, n) for two 2-D Tensors of one dtype (MindSpore's MatMul checks)."""
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"MatMul inputs should have the same dimension size and equal to 2, "
                         f"but got shapes {tuple(a.shape)} and {tuple(b.shape)}.")
    _same_dtype("MatMul", a, b)
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"For 'MatMul' the input dimensions must be equal, but got 'x1_col': "
                         f"{a.shape[1]} and 'x2_row': {b.shape[0]}.")
    if a.dtype.is_float:
        return M.matmul(a, b)
    # integers: exact sums of products (MatMul's kernels are float-only)
    return M.reduce_sum(M.mul(A.expand_dims(a, 2), A.expand_dims(b, 0)), 1)


def _bmm3d(name, a, b):
    """(B, m, k) @ (B, k, n) of one dtype."""
    if a.ndim != 3 or b.ndim != 3:
        raise ValueError(f"For '{name}', 'batch1' and 'batch2' must be 3-D, but got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}.")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"For '{name}', the shapes {tuple(a.shape)} and {tuple(b.shape)} do "
                         f"not form a batched matrix product.")
    if a.dtype.is_float:
        return M.bmm(a, b)
    return M.reduce_sum(M.mul(A.expand_dims(a, 3), A.expand_dims(b, 1)), 2)


def mm(input, mat2):  # noqa: A002
    """The matrix product of two 2-D Tensors of one dtype (no broadcasting)."""
    _check_tensor("mm", "input", input)
    _check_tensor("mm", "mat2", mat2)
    return _matmul2d(input, mat2)


def mv(mat, vec):
    """The product of a 2-D mat (n, m) and a 1-D vec (m,): shape (n,)."""
    _check_tensor("mv", "mat", mat)
    _check_tensor("mv", "vec", vec)
    if vec.ndim != 1:
        raise ValueError("MatMul inputs should have the same dimension size and equal to 2, but "
                         f"'vec' has shape {tuple(vec.shape)}.")
    return A.reshape(_matmul2d(mat, A.reshape(vec, (-1, 1))), (-1,))


def dot(input, other):  # noqa: A002
    """numpy's dot for Tensors of rank >= 2 (MindSpore's ops.dot): input's last dim against
    other's second-to-last, out shape input.shape[:-1] + other.shape[:-2] + other.shape[-1:].
    float16 / float32 only, as MindSpore."""
    _check_tensor("dot", "input", input)
    _check_tensor("dot", "other", other)
    for arg, t in (("x1", input), ("x2", other)):
        if t.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"The '{arg}' doesn't support '{t.dtype}' and expect to receive "
                            f"[mindspore.float16, mindspore.float32].")
    if input.ndim < 2 or other.ndim < 2:
        raise ValueError(f"For 'dot', the inputs x1, x2 should have 'dimension >= 2', but got "
                         f"'len(x1_shape)': ({input.ndim}) and 'len(x2_shape)': "
                         f"({other.ndim}).")
    _same_dtype("dot", input, other)
    k = input.shape[-1]
    if other.shape[-2] != k:
        raise ValueError(f"For 'MatMul' the input dimensions must be equal, but got 'x1_col': "
                         f"{k} and 'x2_row': {other.shape[-2]}.")
    # other (..., k, n) -> (k, prod(...) * n): one GEMM with input's rows
    lead = tuple(other.shape[:-2])
    n = other.shape[-1]
    perm = [other.ndim - 2] + list(range(other.ndim - 2)) + [other.ndim - 1]
    right = A.reshape(A.transpose(other, perm), (k, -1))
    out = M.matmul(A.reshape(input, (-1, k)), right)
    return A.reshape(out, tuple(input.shape[:-1]) + lead + (n,))


def _axes_pair(x1, x2, axes):
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > x1.ndim or n > x2.ndim:
            raise ValueError(f"For 'tensor_dot', the 'axes' cannot be greater than the length of "
                             f"'x1_shape' and 'x2_shape', but got 'axes': {n}, 'x1_shape': "
                             f"{tuple(x1.shape)}, 'x2_shape': {tuple(x2.shape)}.")
        return list(range(x1.ndim - n, x1.ndim)), list(range(n))
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise TypeError(f"For 'tensor_dot', 'axes' must be an int or a pair of axis lists, but "
                        f"got {axes!r}.")
    a, b = ([v] if isinstance(v, int) else list(v) for v in axes)
    if len(a) != len(b):
        raise ValueError(f"For 'tensor_dot', the first and second dim of 'axes' have to be the "
                         f"same size/length, but got 'axes': {list(axes)}.")
    for ax, t, arg in ((a, x1, "x1"), (b, x2, "x2")):
        for d in ax:
            if not -t.ndim <= d < t.ndim:
                raise ValueError(f"For 'tensor_dot', axis {d} is out of range for '{arg}' of "
                                 f"rank {t.ndim}.")
    return [d % x1.ndim for d in a], [d % x2.ndim for d in b]


def tensor_dot(x1, x2, axes):
    """The sum of x1 * x2 over the paired axes (numpy's tensordot): axes an int n (x1's last n
    against x2's first n) or a pair (x1 axes, x2 axes); the result has x1's free dims then
    x2's. One transpose + reshape per operand and one GEMM."""
    _check_tensor("tensor_dot", "x1", x1)
    _check_tensor("tensor_dot", "x2", x2)
    a, b = _axes_pair(x1, x2, axes)
    for i, j in zip(a, b):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError(f"For 'tensor_dot', the contracted dims differ: x1_shape[{i}] = "
                             f"{x1.shape[i]}, x2_shape[{j}] = {x2.shape[j]} ('x1_shape': "
                             f"{tuple(x1.shape)}, 'x2_shape': {tuple(x2.shape)}, 'axes': "
                             f"{(tuple(a), tuple(b))}).")
    _same_dtype("MatMul", x1, x2)
    free1 = [d for d in range(x1.ndim) if d not in a]
    free2 = [d for d in range(x2.ndim) if d not in b]
    k = int(np.prod([x1.shape[d] for d in a], dtype=np.int64))
    left = A.reshape(A.transpose(x1, free1 + a), (-1, k))
    right = A.reshape(A.transpose(x2, b + free2), (k, -1))
    shape = tuple(x1.shape[d] for d in free1) + tuple(x2.shape[d] for d in free2)
    return A.reshape(_matmul2d(left, right), shape)


def _check_scale(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Number):
        raise TypeError(f"For '{name}', '{arg}' must be a number, but got {type(v).__name__}.")


def _scaled_sum(input, product, beta, alpha):  # noqa: A002
    """beta * input + alpha * product; a scale of 1 multiplies nothing (beta 0 still
    multiplies, so NaN in input stays NaN, as in MindSpore)."""
    left = input if beta == 1 else M.mul(input, beta)
    right = product if alpha == 1 else M.mul(product, alpha)
    return M.add(left, right)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (mat1 @ mat2), input broadcast to the product's shape."""
    _check_tensor("addmm", "input", input)
    _check_scale("addmm", "beta", beta)
    _check_scale("addmm", "alpha", alpha)
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (mat @ vec)."""
    _check_tensor("addmv", "input", input)
    _check_scale("addmv", "beta", beta)
    _check_scale("addmv", "alpha", alpha)
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2). MindSpore casts beta and alpha to x's dtype first
    (for an integer x, beta=0.5 counts as 0)."""
    _check_tensor("addr", "x", x)
    _check_tensor("addr", "vec1", vec1)
    _check_tensor("addr", "vec2", vec2)
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise ValueError(f"For 'Addr', 'vec1' and 'vec2' must be 1-D, but got shapes "
                         f"{tuple(vec1.shape)} and {tuple(vec2.shape)}.")
    if vec1.dtype != vec2.dtype:
        raise TypeError("For Addr, the vec1 and vec2 should be the same dtype.")
    _check_scale("addr", "beta", beta)
    _check_scale("addr", "alpha", alpha)
    kind = x.dtype.np_dtype.type
    beta, alpha = kind(beta).item(), kind(alpha).item()
    product = M.mul(A.reshape(vec1, (-1, 1)), A.reshape(vec2, (1, -1)))
    return _scaled_sum(x, product, beta, alpha)


def _check_batches(name, input, batch1, batch2):  # noqa: A002
    _check_tensor(name, "input", input)
    _check_tensor(name, "batch1", batch1)
    _check_tensor(name, "batch2", batch2)
    if not input.dtype == batch1.dtype == batch2.dtype:
        raise TypeError(f"For {name.capitalize()}, the inputs should be the same dtype.")
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise ValueError(f"For BatchMatMul, inputs shape cannot be broadcast on CPU/GPU, with x "
                         f"shape {tuple(batch1.shape)}, y shape {tuple(batch2.shape)}.")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * sum_b batch1[b] @ batch2[b]."""
    _check_batches("addbmm", input, batch1, batch2)
    _check_scale("addbmm", "beta", beta)
    _check_scale("addbmm", "alpha", alpha)
    return _scaled_sum(input, M.reduce_sum(_bmm3d("addbmm", batch1, batch2), 0), beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (batch1 @ batch2) per batch, input broadcast to (B, m, n)."""
    _check_batches("baddbmm", input, batch1, batch2)
    _check_scale("baddbmm", "beta", beta)
    _check_scale("baddbmm", "alpha", alpha)
    return _scaled_sum(input, _bmm3d("baddbmm", batch1, batch2), beta, alpha)


def _ger(x1, x2):
    """Ger()(x1, x2): the outer product of two 1-D float Tensors of one dtype."""
    for arg, t in (("x1", x1), ("x2", x2)):
        _check_tensor("Ger", arg, t)
        if t.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For primitive[Ger], the input argument[{arg}] must be a type of "
                            f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got "
                            f"Tensor[{t.dtype}].")
        if t.ndim != 1:
            raise ValueError(f"For primitive[Ger], the {arg} rank must be equal to 1, but got "
                             f"{t.ndim}.")
    if x1.dtype != x2.dtype:
        raise TypeError(f"For primitive[Ger], the input type must be same: x1 is "
                        f"Tensor[{x1.dtype}], x2 is Tensor[{x2.dtype}].")
    return M.mul(A.reshape(x1, (-1, 1)), A.reshape(x2, (1, -1)))


Ger = _composite("Ger", _ger)
