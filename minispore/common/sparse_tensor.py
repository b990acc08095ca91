"""CSRTensor and COOTensor: sparse matrices held as index and value Tensors (mindspore.common.
sparse_tensor).

This module owns the data, MindSpore's constructor checks, the properties and the text; the
operations (to_dense, astype, abs, mv, arithmetic, ...) are compositions of primitives, which sit
above this layer, so minispore/ops/function/sparse_func.py installs them when minispore.ops is
imported (as ops/tensor_methods.py installs Tensor's).
"""
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.common.tensor_repr import tensor_value_text

_INDEX_TYPES = (mstype.int16, mstype.int32, mstype.int64)
# MindSpore's C++ Tensor::ToString, which a sparse tensor's text uses, shows the values of a
# tensor with fewer items than this and writes '[...]' for the others
_SHOWN_ITEMS = 30


def _inner_text(t):
    """An index or value tensor as a sparse tensor's text shows it (C++ ToString: no commas)."""
    arr = t.asnumpy()
    if arr.size >= _SHOWN_ITEMS:
        return f"Tensor(shape={list(t.shape)}, dtype={t.dtype}, value=[...])"
    sep = "\n" if arr.ndim > 1 else ""
    return (f"Tensor(shape={list(t.shape)}, dtype={t.dtype}, "
            f"value={sep}{tensor_value_text(arr, use_comma=False)})")


def _check_common(indices, values, shape):
    if not isinstance(indices, Tensor):
        raise TypeError(f"For SparseTensors, 'indices' must be Tensor, but got {type(indices)}.")
    if not isinstance(values, Tensor):
        raise TypeError(f"For SparseTensors, 'values' must be Tensor, but got {type(values)}.")
    if not isinstance(shape, tuple):
        raise TypeError(f"For SparseTensors, 'shape' must be tuple, but got {type(shape)}.")


class _SparseBase:
    """What both formats share: values' dtype, size (non-zeros), itemsize, ndim and text."""

    @property
    def values(self):
        """The non-zero values (1-D, or (nnz, *shape[2:]) for a CSRTensor)."""
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def shape(self):
        """The dense shape, a tuple of ints."""
        return self._shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def size(self):
        """The number of stored values (MindSpore: values.size)."""
        return self._values.size

    @property
    def itemsize(self):
        return self._values.itemsize

    @property
    def ndim(self):
        return len(self._shape)

    def __repr__(self):
        parts = ", ".join(f"{name}={_inner_text(getattr(self, name))}" for name in self._PARTS)
        return f"{type(self).__name__}(shape={list(self._shape)}, dtype={self.dtype}, {parts})"

    __str__ = __repr__

    def _unsupported(self, what):
        raise NotImplementedError(f"{type(self).__name__}: {what} is not implemented in "
                                  f"minispore.")


class COOTensor(_SparseBase):
    """A 2-D sparse matrix in coordinate format: `indices` (N, 2) int16/int32/int64 (row,
    column) pairs, `values` (N,) and the dense `shape`. Repeated coordinates add up (to_dense,
    coalesce).

    >>> import numpy as np
    >>> coo = COOTensor(Tensor(np.array([[0, 1], [1, 2]], np.int32)),
    ...                 Tensor(np.array([1, 2], np.float32)), (3, 4))
    >>> coo.shape, coo.size
    ((3, 4), 2)
    """

    _PARTS = ("indices", "values")

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"Expect input `coo_tensor` to be a COOTensor, but got "
                                f"{type(coo_tensor)}")
            if not (indices is None and values is None and shape is None):
                raise TypeError("If input `coo_tensor` is provided, `indices`, `values`, "
                                "`shapes` should all be `None`")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        _check_common(indices, values, shape)
        if len(shape) != 2:
            raise ValueError(f"For COOTensor, the length of 'shape' must be 2, but got {shape}.")
        if not (indices.shape == (0,) and values.shape == (0,)):
            total = 1
            for dim in shape:
                if not isinstance(dim, int) or isinstance(dim, bool):
                    raise TypeError(f"For COOTensor, the element type of 'shape' must be int, "
                                    f"but got {type(dim)}")
                if dim <= 0:
                    raise ValueError(f"For COOTensor, the element of 'shape' must be positive, "
                                     f"but got {dim} in {shape}.")
                total *= dim
            if len(values.shape) != 1:
                raise ValueError(f"For COOTensor, 'values' must be a 1-dimensional tensor, but "
                                 f"got a {len(values.shape)}-dimensional tensor.")
            if total < values.shape[0]:
                raise ValueError(f"For COOTensor, shape is too small: ({total}) to hold all "
                                 f"values({values.shape[0]}).")
            if len(indices.shape) != 2:
                raise ValueError(f"For COOTensor, 'indices' must be a 2-dimensional tensor, but "
                                 f"got a {len(indices.shape)}-dimensional tensor.")
            if indices.shape[0] != values.shape[0]:
                raise ValueError(f"For COOTensor, 'indices.shape[0]' must be equal to "
                                 f"'values.shape[0]', but got 'indices.shape[0]' = "
                                 f"{indices.shape[0]} and 'values.shape[0]' = "
                                 f"{values.shape[0]}.")
            if indices.shape[1] != 2:
                raise ValueError(f"For COOTensor, 'indices.shape[1]' must be 2, but got "
                                 f"{indices.shape[1]}.")
        if indices.dtype not in _INDEX_TYPES:
            raise TypeError(f"For COOTensor, the type of 'indices' must be one of [int16, int32, "
                            f"int64], but got {indices.dtype}.")
        self._indices, self._values, self._shape = indices, values, tuple(shape)

    def to_tuple(self):
        """(indices, values, shape)."""
        return self._indices, self._values, self._shape


class CSRTensor(_SparseBase):
    """A sparse matrix in compressed-row format: row r's values are values[indptr[r]:
    indptr[r+1]] at columns indices[indptr[r]:indptr[r+1]] (indptr, indices 1-D
    int16/int32/int64). values may have trailing dims: shape[2:] == values.shape[1:].

    >>> import numpy as np
    >>> csr = CSRTensor(Tensor(np.array([0, 1, 2])), Tensor(np.array([0, 1])),
    ...                 Tensor(np.array([1, 2], np.float32)), (2, 4))
    >>> csr.shape, csr.ndim
    ((2, 4), 2)
    """

    _PARTS = ("indptr", "indices", "values")

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"Expect input `csr_tensor` to be a CSRTensor, but got "
                                f"{type(csr_tensor)}")
            if not (indptr is None and indices is None and values is None and shape is None):
                raise TypeError("If input `csr_tensor` is provided, `indptr`, `indices`, "
                                "`values`, `shapes` should all be `None`")
            indptr, indices = csr_tensor.indptr, csr_tensor.indices
            values, shape = csr_tensor.values, csr_tensor.shape
        if not isinstance(indptr, Tensor):
            raise TypeError(f"For CSRTensor, 'indptr' must be Tensor, but got {type(indptr)}.")
        _check_common(indices, values, shape)
        if not (indptr.shape == (0,) and indices.shape == (0,) and values.shape == (0,)):
            _check_csr_shapes(indptr.shape, indices.shape, values.shape, shape)
        for name, t in (("indptr", indptr), ("indices", indices)):
            if t.dtype not in _INDEX_TYPES:
                raise TypeError(f"For CSRTensor, {name} must have int16 or int32 or int64 data "
                                f"type, but got {t.dtype}.")
        self._indptr, self._indices, self._values = indptr, indices, values
        self._shape = tuple(shape)

    @property
    def indptr(self):
        return self._indptr

    def to_tuple(self):
        """(indptr, indices, values, shape)."""
        return self._indptr, self._indices, self._values, self._shape


def _check_csr_shapes(indptr_shape, indices_shape, values_shape, shape):
    """MindSpore's CSRTensor shape rules, in its order and words."""
    total = nnz = 1
    for dim in shape:
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"For CSRTensor, the element type of shape must be int, but got "
                            f"{type(dim)}")
        if dim <= 0:
            raise ValueError(f"For CSRTensor, the element of shape must be positive, but got "
                             f"{dim}")
        total *= dim
    for dim in values_shape:
        if dim <= 0:
            raise ValueError(f"The element of shape must be positive, but got {dim}")
        nnz *= dim
    if total < nnz:
        raise ValueError(f"Shape total size: {total} is too small to hold {nnz} non-zero "
                         f"values.")
    if len(indices_shape) != 1:
        raise ValueError(f"For CSRTensor, indices must be a 1-dimensional tensor, but got a "
                         f"{len(indices_shape)} dimension tensor.")
    if len(indptr_shape) != 1:
        raise ValueError(f"For CSRTensor, indptr must be a 1-dimensional tensor, but got a "
                         f"{len(indptr_shape)} dimension tensor.")
    if shape[0] + 1 != indptr_shape[0]:
        raise ValueError(f"For CSRTensor, indptr must have length (1 + shape[0]), but got: "
                         f"{indptr_shape[0]}")
    if indices_shape[0] != values_shape[0]:
        raise ValueError(f"For CSRTensor, indices and values must equal in their shape, but got "
                         f"indices shape: {indices_shape[0]}, values shape: {values_shape[0]}.")
    if len(values_shape) + 1 != len(shape):
        raise ValueError(f"Values' dimension should equal to CSRTensor's dimension - 1, but got "
                         f"Values' dimension: {len(values_shape)} , CSRTensor's dimension: "
                         f"{len(shape)}")
    if tuple(values_shape[1:]) != tuple(shape[2:]):
        raise ValueError(f"CSRTensor's shape[2: ] must be equal to value's shape[1: ], but "
                         f"CSRTensor's shape[2: ] got: {shape[2:]} and value's shape[1: ] got: "
                         f"{values_shape[1:]}")
