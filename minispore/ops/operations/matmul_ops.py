"""The matrix products: MatMul (2-D) and BatchMatMul (broadcast batch dims)."""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (broadcast_shape, cached_op, check_dtype,
                                            check_same_dtype, check_tensor, contiguous,
                                            dims_equal, is_tensor, shape_size)
from minispore.ops.operations.math_ops import sum_to_shape
from minispore.ops.primitive import Aval, Primitive

__all__ = ["MatMul", "BatchMatMul"]


# The integer dtypes MindSpore 2.7.2's CPU kernels take (others raise TypeError there too);
# an integer product wraps in its type (kernels' int_* GEMMs).
_MATMUL_INTS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8)


class _MatMulBase(Primitive):
    """Shared attributes and bprop of MatMul and BatchMatMul (`_product`: the same operator
with other transpose flags)."""
    float16_in_float32 = True
    sharding_rule = rules.matmul
    dtypes = mstype.float_types + _MATMUL_INTS

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        for name, v in (("transpose_a", transpose_a), ("transpose_b", transpose_b)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{name}' must be bool, but got "
                                f"{type(v).__name__}.")
        self.transpose_a = transpose_a
        self.transpose_b = transpose_b
        self.add_prim_attr("transpose_a", transpose_a)
        self.add_prim_attr("transpose_b", transpose_b)

    def _check_operands(self, x, y, min_rank):
        check_tensor(self, "x", x)
        check_tensor(self, "y", y)
        if x.ndim < min_rank or y.ndim < min_rank:
            raise self.error(f"the inputs must be at least {min_rank}-D, but got x.shape "
                             f"{tuple(x.shape)} and y.shape {tuple(y.shape)}.")
        check_dtype(self, "x", x, self.dtypes)
        check_same_dtype(self, ("x", "y"), (x, y))
        m, k = (x.shape[-1], x.shape[-2]) if self.transpose_a else x.shape[-2:]
        k2, n = (y.shape[-1], y.shape[-2]) if self.transpose_b else y.shape[-2:]
        if not dims_equal(self, k, k2):
            raise self.error(f"the contracted dims must be equal, but x.shape {tuple(x.shape)} "
                             f"(transpose_a={self.transpose_a}) gives {k} and y.shape "
                             f"{tuple(y.shape)} (transpose_b={self.transpose_b}) gives {k2}.")
        return m, n

    def _product(self, a, b, transpose_a, transpose_b):
        raise NotImplementedError

    def bprop(self, inputs, out, dout):
        x, y = inputs
        ta, tb = self.transpose_a, self.transpose_b
        mm = self._product
        # With C = A B (A = op(x), B = op(y)): dA = dC B^T, dB = A^T dC; transposes fold into
        # the GEMM flags so no transpose is ever materialised. A batch dim that was broadcast
        # (BatchMatMul) sums its gradient back over the batches it fed.
        # Each gradient is a deferred product: the tape runs it only for inputs that need one
        # (a first layer's input never does, which saves a whole GEMM per step).
        if ta:
            dx = lambda: sum_to_shape(mm(y, dout, tb, True), x.shape)  # noqa: E731
        else:
            dx = lambda: sum_to_shape(mm(dout, y, False, not tb), x.shape)  # noqa: E731
        if tb:
            dy = lambda: sum_to_shape(mm(dout, x, True, ta), y.shape)  # noqa: E731
        else:
            dy = lambda: sum_to_shape(mm(x, dout, not ta, False), y.shape)  # noqa: E731
        return dx, dy


class MatMul(_MatMulBase):
    """out = op(x) @ op(y) for 2-D x, y, where op transposes when transpose_a / transpose_b.

    Shapes: x (M, K) (or (K, M) with transpose_a), y (K, N) (or (N, K)); out (M, N).
    Raises ValueError when the contracted dims differ, TypeError for mixed dtypes or one
    MindSpore's MatMul refuses (uint16, uint32, uint64, bool); integer products wrap.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.MatMul()(ms.Tensor(np.ones((2, 3), np.float32)),
    ...                 ms.Tensor(np.ones((3, 4), np.float32))).shape
    (2, 4)
    """

    def infer(self, x, y):
        if is_tensor(x) and is_tensor(y) and (x.ndim != 2 or y.ndim != 2):
            raise self.error(f"the inputs must be 2-D, but got x.shape {tuple(x.shape)} and "
                             f"y.shape {tuple(y.shape)}.")
        return Aval(self._check_operands(x, y, 2), x.dtype)

    writes_out = True

    def impl(self, x, y, out=None):
        if out is None:
            m = x.shape[1] if self.transpose_a else x.shape[0]
            n = y.shape[0] if self.transpose_b else y.shape[1]
            out = device.empty((m, n), x.dtype)
        if x.dtype.kind in "iu":
            return kernel("matmul", "int_matmul_into")(x, y, self.transpose_a,
                                                       self.transpose_b, out)
        return kernel("matmul", "matmul_into")(x, y, self.transpose_a, self.transpose_b, out)

    def _product(self, a, b, transpose_a, transpose_b):
        return cached_op(MatMul, transpose_a, transpose_b)(a, b)


class BatchMatMul(_MatMulBase):
    """out[..., :, :] = op(x[...]) @ op(y[...]) over leading (batch) dims that broadcast.

    Shapes: x (*Bx, M, K) (or (*Bx, K, M) with transpose_a), y (*By, K, N) (or (*By, N, K));
    out (*B, M, N) with B the numpy broadcast of Bx and By, e.g. (2, 1, 3, 4) x (1, 5, 4, 6)
    -> (2, 5, 3, 6). x and y have equal ranks >= 3 (MindSpore's rule; ops.matmul pads ranks).
    The gradient of a broadcast batch dim is summed over the batches it fed.
    Raises ValueError for unequal ranks, batch dims that do not broadcast or unequal
    contracted dims; TypeError for mixed dtypes or one MindSpore's BatchMatMul refuses (uint16,
    bool); integer products wrap.

    >>> import numpy as np, minispore as ms
    >>> ms.ops.BatchMatMul()(ms.Tensor(np.ones((5, 2, 3), np.float32)),
    ...                      ms.Tensor(np.ones((5, 3, 4), np.float32))).shape
    (5, 2, 4)
    >>> ms.ops.BatchMatMul(transpose_b=True)(ms.Tensor(np.ones((2, 1, 3, 4), np.float32)),
    ...                                      ms.Tensor(np.ones((1, 5, 6, 4), np.float32))).shape
    (2, 5, 3, 6)
    """

    dtypes = _MatMulBase.dtypes + (mstype.uint32, mstype.uint64)

    def infer(self, x, y):
        m, n = self._check_operands(x, y, 3)
        if x.ndim != y.ndim:
            raise self.error(f"x and y must have equal ranks, but got x.shape {tuple(x.shape)} "
                             f"and y.shape {tuple(y.shape)}; ops.matmul broadcasts mixed ranks.")
        try:
            batch = broadcast_shape(self, x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise self.error(f"the batch dims of x and y must be equal or broadcastable (numpy "
                             f"rules), but got x.shape {tuple(x.shape)} and y.shape "
                             f"{tuple(y.shape)}.") from None
        return Aval(tuple(batch) + (m, n), x.dtype)

    def impl(self, x, y):
        batch = tuple(np.broadcast_shapes(x.shape[:-2], y.shape[:-2]))
        a = _batch_operand(x, batch)
        b = _batch_operand(y, batch)
        m = x.shape[-1] if self.transpose_a else x.shape[-2]
        n = y.shape[-2] if self.transpose_b else y.shape[-1]
        out = device.empty((shape_size(batch), m, n), x.dtype)
        if out.shape[0] and x.dtype.kind in "iu":
            kernel("matmul", "int_batch_matmul")(a, b, self.transpose_a, self.transpose_b, out)
        elif out.shape[0]:
            kernel("matmul", "batch_matmul")(a, b, self.transpose_a, self.transpose_b, out)
        return out.reshape(batch + (m, n))

    def _product(self, a, b, transpose_a, transpose_b):
        return cached_op(BatchMatMul, transpose_a, transpose_b)(a, b)


def _batch_operand(x, batch):
    """x as the 3-D contiguous (Bx, rows, cols) operand of the batch_matmul kernel, which
    reads batch z of the (prod(batch), ., .) output from x[z % Bx].

    Flattened batch z % Bx is x's batch exactly when x's batch dims, after leading 1s, equal
    the trailing dims of `batch` (equal batches, or x repeated over leading dims): then no
    copy. Otherwise (a 1 inside, as (2, 1) against (2, 5)) only the dims from the first
    non-1 on are materialised by broadcasting.
    """
    xb = tuple(x.shape[:-2])
    lead = 0
    while lead < len(xb) and xb[lead] == 1:
        lead += 1
    if xb[lead:] != batch[lead:]:
        x = device.broadcast_to(x, batch[lead:] + tuple(x.shape[-2:]))
    return contiguous(x).reshape((shape_size(x.shape[:-2]),) + tuple(x.shape[-2:]))
