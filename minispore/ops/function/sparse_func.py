"""The operations of CSRTensor and COOTensor (common/sparse_tensor.py holds their data), each a
composition of existing primitives, so they run in every mode and differentiate through the
values; and ops.dense_to_sparse_coo / dense_to_sparse_csr.

Row ids of a CSR matrix come from searchsorted over indptr; scatter-adds are
unsorted_segment_sum over flattened (row * columns + column) positions.
"""
import logging

from minispore.common import dtype as mstype
from minispore.common.sparse_tensor import COOTensor, CSRTensor
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import argwhere
from minispore.ops.function.composite_func import arange, stack
from minispore.ops.function.index_func import gather_nd
from minispore.ops.function.scan_func import searchsorted
from minispore.ops.function.sort_func import argsort
from minispore.ops.function.unique_func import unique

__all__ = ["dense_to_sparse_coo", "dense_to_sparse_csr"]

logger = logging.getLogger("minispore")


def _column(t, j):
    return A.gather(t, Tensor(j, mstype.int64), 1)


def _scatter_dense(rows, cols, values, shape):
    """The dense `shape` tensor holding the sum of `values` at (rows, cols)."""
    if values.shape[0] == 0:
        return A.zeros(shape, values.dtype)
    pos = M.add(M.mul(A.cast(rows, mstype.int64), shape[1]), A.cast(cols, mstype.int64))
    flat = A.unsorted_segment_sum(values, pos, shape[0] * shape[1])  # (M*N, *shape[2:])
    return A.reshape(flat, shape)


def _csr_rows(csr):
    """Each stored value's row (int64)."""
    nnz = csr.values.shape[0]
    positions = arange(0, nnz, dtype=mstype.int64)
    return searchsorted(A.cast(csr.indptr[1:], mstype.int64), positions, right=True)


def _need_int32(csr):
    # MindSpore's CSR kernels (mv, mm, sum, mul, div, to_coo) take int32 indices only
    if csr.indptr.dtype != mstype.int32:
        raise TypeError(f"The dtype of Indptr only support Int32 for now, but got "
                        f"{csr.indptr.dtype}.")
    if csr.indices.dtype != mstype.int32:
        raise TypeError(f"The dtype of Indices only support Int32 for now, but got "
                        f"{csr.indices.dtype}.")


def _same_shape(a, other, what):
    # (MindSpore reads other.shape first, so a Python number fails with an AttributeError)
    if not isinstance(other, (Tensor, COOTensor, CSRTensor)):
        raise TypeError(f"{type(a).__name__} {what} with {type(other)} is not supported.")
    if tuple(other.shape) != tuple(a.shape):
        raise ValueError("Input tensors should have the same shape.")


# -- COOTensor ------------------------------------------------------------------------------
def _coo_to_dense(self):
    """The dense Tensor (repeated coordinates add up)."""
    if self.values.shape[0] == 0:
        return A.zeros(self.shape, self.values.dtype)
    return _scatter_dense(_column(self.indices, 0), _column(self.indices, 1), self.values,
                          self.shape)


def _coo_astype(self, dtype):
    return COOTensor(self.indices, A.cast(self.values, dtype), self.shape)


def _coo_abs(self):
    return COOTensor(self.indices, M.abs(self.values), self.shape)


def _coo_neg(self):
    return COOTensor(self.indices, M.neg(self.values), self.shape)


def _coo_add(self, other):
    _same_shape(self, other, "add")
    if isinstance(other, Tensor):
        return M.add(other, _coo_to_dense(self))
    if isinstance(other, COOTensor):
        raise NotImplementedError("COOTensor + COOTensor (MindSpore's SparseAdd) is not "
                                  "implemented in minispore; add their to_dense() instead.")
    raise TypeError(f"COOTensor add with {type(other)} is not supported.")


def _coo_sub(self, other):
    _same_shape(self, other, "subtract")
    if isinstance(other, Tensor):
        return M.sub(_coo_to_dense(self), other)
    if isinstance(other, COOTensor):
        raise NotImplementedError("COOTensor - COOTensor (MindSpore's SparseAdd) is not "
                                  "implemented in minispore; subtract their to_dense() instead.")
    raise TypeError(f"COOTensor subtract with {type(other)} is not supported.")


def _coo_binary(name, fn):
    def method(self, other):
        _same_shape(self, other, name)
        if isinstance(other, Tensor):
            return COOTensor(self.indices, fn(self.values, gather_nd(other, self.indices)),
                             self.shape)
        raise TypeError(f"COOTensor {name} with {type(other)} is not supported.")
    return method


def _coo_coalesce(self):
    """Coordinates sorted by (row, column), each once, with the values at it summed."""
    if self.indices.dtype != mstype.int64:
        raise TypeError(f"For primitive[Coalesce], the input argument[x_indices] must be a type "
                        f"of {{Tensor[Int64]}}, but got Tensor[{self.indices.dtype}].")
    pos = M.add(M.mul(_column(self.indices, 0), self.shape[1]), _column(self.indices, 1))
    keys, inverse = unique(pos)
    sums = A.unsorted_segment_sum(self.values, inverse, keys.shape[0])
    order = argsort(keys)
    keys, sums = A.gather(keys, order, 0), A.gather(sums, order, 0)
    rows = M.floor_div(keys, self.shape[1])
    cols = M.sub(keys, M.mul(rows, self.shape[1]))
    return COOTensor(stack((rows, cols), 1), sums, self.shape)


def _coo_to_csr(self):
    """The CSRTensor of the same matrix: values ordered by row (stably), then as stored."""
    if self.indices.dtype != mstype.int32:
        raise TypeError(f"The dtype of row_indices only support Int32 for now, but got "
                        f"{self.indices.dtype}.")
    rows = _column(self.indices, 0)
    order = argsort(A.cast(rows, mstype.int64))
    rows = A.gather(rows, order, 0)
    boundaries = arange(0, self.shape[0] + 1, dtype=mstype.int32)
    indptr = searchsorted(rows, boundaries, out_int32=True)
    return CSRTensor(indptr, A.gather(_column(self.indices, 1), order, 0),
                     A.gather(self.values, order, 0), self.shape)


def _coo_unsupported_add(self, other, thresh):
    raise NotImplementedError("COOTensor.add (MindSpore's SparseAdd with a threshold) is not "
                              "implemented in minispore.")


# -- CSRTensor ------------------------------------------------------------------------------
def _csr_to_dense(self):
    if self.values.shape[0] == 0:
        return A.zeros(self.shape, self.values.dtype)
    return _scatter_dense(_csr_rows(self), self.indices, self.values, self.shape)


def _csr_astype(self, dtype):
    return CSRTensor(self.indptr, self.indices, A.cast(self.values, dtype), self.shape)


def _csr_abs(self):
    return CSRTensor(self.indptr, self.indices, M.abs(self.values), self.shape)


def _csr_neg(self):
    return CSRTensor(self.indptr, self.indices, M.neg(self.values), self.shape)


def _csr_to_coo(self):
    if len(self.shape) != 2:
        raise ValueError("Currently only support 2-D CSRTensor when converting to COOTensor.")
    _need_int32(self)
    rows = A.cast(_csr_rows(self), self.indices.dtype)
    return COOTensor(stack((rows, self.indices), 1), self.values, self.shape)


def _csr_mm(self, matrix):
    """self @ matrix for a dense (shape[1], K) matrix: a dense (shape[0], K) Tensor."""
    if isinstance(matrix, CSRTensor):
        raise NotImplementedError("CSRTensor.mm of two CSRTensors (MindSpore's CSRMM) is not "
                                  "implemented in minispore; pass a dense Tensor.")
    if not isinstance(matrix, Tensor):
        raise TypeError(f"For 'CSRTensor.mm', the type of 'matrix' should be Tensor, but got "
                        f"{type(matrix).__name__}.")
    _need_int32(self)
    if matrix.ndim != 2 or matrix.shape[0] != self.shape[1] or len(self.shape) != 2:
        raise ValueError(f"For 'CSRTensor.mm', the matrix must be 2-D with shape[0] equal to "
                         f"the CSRTensor's shape[1] ({self.shape}), but got {matrix.shape}.")
    picked = A.gather(matrix, self.indices, 0)                # (nnz, K)
    terms = M.mul(A.expand_dims(A.cast(self.values, matrix.dtype), 1), picked)
    return A.unsorted_segment_sum(terms, _csr_rows(self), self.shape[0])


def _csr_mv(self, dense_vector):
    """self @ dense_vector for a (shape[1], 1) column: a (shape[0], 1) Tensor."""
    if not isinstance(dense_vector, Tensor):
        raise TypeError(f"For 'CSRTensor.mv', the type of 'dense_vector' should be Tensor, but "
                        f"got {type(dense_vector).__name__}.")
    return _csr_mm(self, dense_vector)


def _csr_sum(self, axis):
    """The sum of each row, kept as a (shape[0], 1) column (only axis 1 / -1, as MindSpore)."""
    _need_int32(self)
    if axis not in (1, -1):
        raise ValueError(f"For CSRReduceSum, `axis` should be 1 or 1-dim. But got `axis`: "
                         f"{axis}and `1- dim`: -1.")
    sums = A.unsorted_segment_sum(self.values, _csr_rows(self), self.shape[0])
    return A.expand_dims(sums, 1)


def _csr_binary(name, fn):
    def method(self, other):
        if isinstance(other, Tensor) and other.ndim == 0:
            # MindSpore 2.7.2 multiplies the values and returns them as a dense Tensor
            return fn(self.values, other)
        if not isinstance(other, Tensor):
            raise TypeError(f"CSRTensor {name} with {type(other)} is not supported.")
        _need_int32(self)
        if name == "divide":
            logger.warning("For CSR divide, zero values in the dense tensor are ignored.")
        dense = A.broadcast_to(other, self.shape)
        picked = gather_nd(dense, stack((A.cast(_csr_rows(self), mstype.int64),
                                         A.cast(self.indices, mstype.int64)), 1))
        return CSRTensor(self.indptr, self.indices, fn(self.values, picked), self.shape)
    return method


def _csr_add_op(self, other, alpha=None, beta=None):
    if not isinstance(other, CSRTensor):
        raise TypeError(f"CSRTensor add with {type(other)} is not supported.")
    if other.shape != self.shape:
        raise ValueError("Input tensors should have the same shape.")
    same = (self.indptr.shape == other.indptr.shape and
            self.indices.shape == other.indices.shape and
            bool((self.indptr.asnumpy() == other.indptr.asnumpy()).all()) and
            bool((self.indices.asnumpy() == other.indices.asnumpy()).all()))
    if not same:
        raise NotImplementedError("CSRTensor + CSRTensor with different sparsity patterns "
                                  "(MindSpore's CSRSparseMatrixAdd) is not implemented in "
                                  "minispore; add their to_dense() instead.")
    a = self.values if alpha is None else M.mul(self.values, alpha)
    b = other.values if beta is None else M.mul(other.values, beta)
    return CSRTensor(self.indptr, self.indices, M.add(a, b), self.shape)


def _csr_sub_op(self, other):
    if isinstance(other, CSRTensor):
        return _csr_add_op(self, _csr_neg(other))
    raise TypeError(f"CSRTensor subtract with {type(other)} is not supported.")


# -- functional ops -------------------------------------------------------------------------
def _check_dense(name, tensor, kind):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For functional operator {name}, input argument must be a Tensor.")
    if tensor.ndim != 2:
        raise ValueError(f"Currently only support 2-D Tensor when converting to {kind}.")


def dense_to_sparse_coo(tensor):
    """The COOTensor of a 2-D Tensor's non-zeros, in row-major order (int32 indices)."""
    _check_dense("dense_to_sparse_coo", tensor, "COOTensor")
    indices = A.cast(argwhere(tensor), mstype.int32)
    return COOTensor(indices, gather_nd(tensor, indices), tuple(tensor.shape))


def dense_to_sparse_csr(tensor):
    """The CSRTensor of a 2-D Tensor's non-zeros (int32 indptr and indices). A tensor with no
    non-zero fails CSRTensor's check as in MindSpore."""
    _check_dense("dense_to_sparse_csr", tensor, "CSRTensor")
    where = argwhere(tensor)
    rows = _column(where, 0)
    boundaries = arange(0, tensor.shape[0] + 1, dtype=mstype.int64)
    indptr = searchsorted(rows, boundaries, out_int32=True)
    cols = A.cast(_column(where, 1), mstype.int32)
    return CSRTensor(indptr, cols, gather_nd(tensor, where), tuple(tensor.shape))


def install():
    """Set the operations on COOTensor and CSRTensor."""
    for name, fn in {"to_dense": _coo_to_dense, "astype": _coo_astype, "abs": _coo_abs,
                     "__neg__": _coo_neg, "__add__": _coo_add, "__sub__": _coo_sub,
                     "__mul__": _coo_binary("multiply", M.mul),
                     "__truediv__": _coo_binary("divide", M.div),
                     "coalesce": _coo_coalesce, "to_csr": _coo_to_csr,
                     "add": _coo_unsupported_add}.items():
        setattr(COOTensor, name, fn)
    for name, fn in {"to_dense": _csr_to_dense, "astype": _csr_astype, "abs": _csr_abs,
                     "__neg__": _csr_neg, "to_coo": _csr_to_coo, "mv": _csr_mv, "mm": _csr_mm,
                     "sum": _csr_sum, "__mul__": _csr_binary("multiply", M.mul),
                     "__truediv__": _csr_binary("divide", M.div),
                     "__add__": lambda self, other: _csr_add_op(self, other),
                     "__sub__": _csr_sub_op,
                     "add": _csr_add_op}.items():
        setattr(CSRTensor, name, fn)
