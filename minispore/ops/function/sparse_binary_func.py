"""MindSpore's functional sparse ops that are not elementwise on the values: csr_add, coo_add,
csr_mul, csr_div, csr_mv, csr_mm, csr_reduce_sum, csr_softmax, coo_concat, csr_to_coo and
csr_to_dense, with the dtype and shape rules of MindSpore 2.7.2's CPU kernels.

Values always flow through gather / unsorted_segment_sum / elementwise primitives, so every
result differentiates through the values. Where an output's sparsity pattern depends on the index
data (the union of two patterns, a merge order, which duplicate wins) the integer plan is worked
out on the host from the index tensors: indices are not differentiable and the output's size is
data-dependent anyway, as in MindSpore's kernels.
"""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.sparse_tensor import COOTensor, CSRTensor
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import stack
from minispore.ops.function.index_func import gather_nd
from minispore.ops.function.sparse_func import _csr_rows, _need_int32
from minispore.ops.operations.elementwise import promote_types

__all__ = ["csr_add", "coo_add", "csr_mul", "csr_div", "csr_mv", "csr_mm", "csr_reduce_sum",
           "csr_softmax", "coo_concat", "csr_to_coo", "csr_to_dense"]

_INT32_INT64 = (mstype.int32, mstype.int64)
# (MindSpore also takes complex64 / complex128 here; minispore has no complex dtypes)
_MATRIX_VALUE_TYPES = (mstype.float32, mstype.float64)
_MATRIX_VALUE_TEXT = ("{Tensor[Complex128], Tensor[Complex64], Tensor[Float32], "
                      "Tensor[Float64]}")


def _promote(a, b):
    dtype = promote_types(a.dtype, b.dtype)
    return A.cast(a, dtype), A.cast(b, dtype)


def _take(values, positions):
    """values[positions] for a host int64 array (an empty result keeps values' trailing dims)."""
    return A.gather(values, Tensor(np.asarray(positions, np.int64)), 0)


def _need_float32(op, dtype):
    # MindSpore 2.7.2's CPU CSRMul / CSRDiv / CSRMV / CSRReduceSum kernels are float32 only
    if dtype != mstype.float32:
        raise TypeError(f"Select CPU operator[{op}] fail! Unsupported data type!")


def _need_matrix_values(op, arg, values):
    if values.dtype not in _MATRIX_VALUE_TYPES:
        raise TypeError(f"For primitive[{op}], the input argument[{arg}] must be a type of "
                        f"{_MATRIX_VALUE_TEXT}, but got Tensor[{values.dtype}].")


def _check_csr(name, x, what="input argument"):
    if not isinstance(x, CSRTensor):
        raise TypeError(f"For functional operator {name}, {what} must be a CSRTensor.")


# -- elementwise with a dense tensor --------------------------------------------------------
def _csr_dense_binary(name, op, fn, x, y):
    if isinstance(y, (bool, int, float)):
        y = Tensor(y)
    if not isinstance(y, Tensor):
        raise TypeError(f"For '{name}', 'y' must be a Tensor or a Python number, but got "
                        f"{type(y).__name__}.")
    if y.size == 1 and y.ndim <= 2:
        # MindSpore returns a scalar's product with the values as a dense Tensor, not a CSRTensor
        if y.ndim > x.ndim:
            raise ValueError("dense tensor cannot broadcast to the sparse tensor.")
        return A.reshape(fn(x.values, y), x.values.shape)
    values, y = _promote(x.values, y)
    _need_int32(x)
    if y.ndim > len(x.shape):
        raise ValueError(f"Currently, only support dense tensor broadcast to sparse tensor, but "
                         f"sparse tensor has {len(x.shape)} dimensions, and dense tensor has "
                         f"{y.ndim} dimensions. ")
    target = tuple(x.shape)[len(x.shape) - y.ndim:]
    if any(d not in (1, t) for d, t in zip(y.shape, target)):
        raise ValueError("Dense shape cannot broadcast to sparse shape.")
    _need_float32(op, values.dtype)
    dense = A.broadcast_to(y, x.shape)
    where = stack((A.cast(_csr_rows(x), mstype.int64), A.cast(x.indices, mstype.int64)), 1)
    return CSRTensor(x.indptr, x.indices, fn(values, gather_nd(dense, where)), x.shape)


def csr_mul(x, y):
    """x * y at x's stored positions: a CSRTensor with x's pattern, y a dense Tensor that
    broadcasts to x.shape. A one-element y (or Python number) gives the dense product of the
    values instead, as in MindSpore. The CPU kernel takes float32 values only.

    >>> import numpy as np
    >>> c = CSRTensor(Tensor(np.array([0, 1, 2], np.int32)), Tensor(np.array([1, 0], np.int32)),
    ...               Tensor(np.array([2.0, 3.0], np.float32)), (2, 2))
    >>> csr_mul(c, Tensor(np.array([[1.0, 10.0], [100.0, 1.0]], np.float32))).values.asnumpy()
    array([ 20., 300.], dtype=float32)
    """
    return _csr_dense_binary("csr_mul", "CSRMul", M.mul, x, y)


def csr_div(x, y):
    """x / y at x's stored positions (see csr_mul for the argument rules)."""
    return _csr_dense_binary("csr_div", "CSRDiv", M.div, x, y)


def csr_mv(csr_tensor, dense):
    """csr_tensor @ dense for a (shape[1], 1) column: a dense (shape[0], 1) Tensor (float32)."""
    values, dense = _promote(csr_tensor.values, dense)
    _need_int32(csr_tensor)
    if dense.ndim != 2:
        raise ValueError(f"Currently, only support 2-D inputs! But csr tensor has "
                         f"{len(csr_tensor.shape)} dimensions, and dense tensor has {dense.ndim} "
                         f"dimension(s). ")
    if tuple(dense.shape) != (csr_tensor.shape[1], 1):
        raise ValueError(f"The dense_vector's shape should be ({csr_tensor.shape[1]}, 1), but "
                         f"its current shape is: {tuple(dense.shape)}.")
    _need_float32("CSRMV", values.dtype)
    terms = M.mul(A.expand_dims(values, 1), A.gather(dense, csr_tensor.indices, 0))
    return A.unsorted_segment_sum(terms, _csr_rows(csr_tensor), csr_tensor.shape[0])


def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """CSRTensor @ CSRTensor. MindSpore 2.7.2 has no CPU kernel for it
    (SparseMatrixSparseMatMul), so minispore refuses it too rather than guess its output."""
    if not isinstance(a, CSRTensor) or not isinstance(b, CSRTensor):
        raise TypeError("For functional operator csr_mm, inputs a and b must be type of "
                        "CSRTensor currently.")
    raise NotImplementedError("ops.csr_mm (SparseMatrixSparseMatMul) is not implemented in "
                              "minispore: MindSpore 2.7.2 has no CPU kernel for it. Use "
                              "CSRTensor.mm with a dense matrix.")


def csr_reduce_sum(csr_tensor, axis):
    """The sum of each row's stored values, a (shape[0], 1) Tensor; axis must be 1 or -1."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"For 'CSRReduceSum', input[4] should be Scalar, but got "
                        f"{type(axis).__name__}.")
    if axis not in (1, -1):
        raise ValueError(f"For CSRReduceSum, `axis` should be 1 or 1-dim. But got `axis`: "
                         f"{axis}and `1- dim`: -1.")
    _need_int32(csr_tensor)
    _need_float32("CSRReduceSum", csr_tensor.values.dtype)
    sums = A.unsorted_segment_sum(csr_tensor.values, _csr_rows(csr_tensor), csr_tensor.shape[0])
    return A.expand_dims(sums, 1)


def csr_softmax(logits, dtype):
    """Softmax over each row's stored values (absent entries take no part): a CSRTensor with
    logits' pattern. `dtype` must be the values' dtype (MindSpore 2.7.2 returns wrong numbers
    for another one, so minispore refuses it)."""
    if not isinstance(logits, CSRTensor):
        raise TypeError("For functional operator sparse_matrix_softmax, logits must be type of "
                        "CSRTensor.")
    if logits.values.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For 'SparseMatrixSoftmax', the logits' values must be float32 or "
                        f"float64, but got {logits.values.dtype}.")
    if dtype != logits.values.dtype:
        raise NotImplementedError(f"csr_softmax with dtype {dtype} for {logits.values.dtype} "
                                  f"values is not implemented in minispore (MindSpore 2.7.2 "
                                  f"reads the values with the wrong type).")
    rows = _csr_rows(logits)
    values = logits.values
    if values.shape[0] == 0:
        return CSRTensor(logits.indptr, logits.indices, values, logits.shape)
    # subtracting each row's max keeps exp in range; a constant shift leaves softmax unchanged
    host_rows, host_values = rows.asnumpy(), values.asnumpy()
    row_max = np.full(logits.shape[0], -np.inf, host_values.dtype)
    np.maximum.at(row_max, host_rows, host_values)
    shifted = M.sub(values, _take(Tensor(row_max), host_rows))
    e = M.exp(shifted)
    total = A.gather(A.unsorted_segment_sum(e, rows, logits.shape[0]), rows, 0)
    return CSRTensor(logits.indptr, logits.indices, M.div(e, total), logits.shape)


# -- two sparse operands --------------------------------------------------------------------
def csr_add(a, b, alpha, beta):
    """alpha * a + beta * b for two CSRTensors of the same shape: the union of their patterns,
    each row's columns ascending, explicit zeros kept. Index and value dtypes are promoted."""
    if not isinstance(a, CSRTensor) or not isinstance(b, CSRTensor):
        raise TypeError("For functional operator csr_add, both inputs a and b must be type of "
                        "CSRTensor.")
    if not isinstance(alpha, Tensor) or not isinstance(beta, Tensor):
        raise TypeError("For functional operator csr_add, both inputs alpha and beta must be "
                        "Tensor.")
    if tuple(a.shape) != tuple(b.shape) or len(a.shape) != 2:
        raise ValueError(f"For functional operator csr_add, a and b must be 2-D CSRTensors of "
                         f"one shape, but got {a.shape} and {b.shape}.")
    indptr_a, indptr_b = _promote(a.indptr, b.indptr)
    values_a, values_b = _promote(a.values, b.values)
    _need_matrix_values("SparseMatrixAdd", "a values", values_a)
    alpha, beta = A.cast(alpha, values_a.dtype), A.cast(beta, values_a.dtype)
    index_dtype = promote_types(a.indices.dtype, b.indices.dtype)
    cols = a.shape[1]
    key_a = _csr_rows(a).asnumpy() * cols + a.indices.asnumpy().astype(np.int64)
    key_b = _csr_rows(b).asnumpy() * cols + b.indices.asnumpy().astype(np.int64)
    keys, inverse = np.unique(np.concatenate([key_a, key_b]), return_inverse=True)
    inverse = Tensor(inverse.reshape(-1).astype(np.int64))
    scaled = A.concat((M.mul(values_a, alpha), M.mul(values_b, beta)), 0)
    values = A.unsorted_segment_sum(scaled, inverse, keys.shape[0])
    counts = np.bincount(keys // cols, minlength=a.shape[0])
    indptr = np.concatenate([[0], np.cumsum(counts)])
    return CSRTensor(Tensor(indptr, indptr_a.dtype), Tensor(keys % cols, index_dtype),
                     values, a.shape)


def _merge_order(keys_a, keys_b):
    """MindSpore's SparseAdd walk over two coordinate lists: the smaller head goes first, equal
    heads are emitted once as a pair. Returns [(i or -1, j or -1), ...] (lists need not be
    sorted; the walk never looks back)."""
    i = j = 0
    plan = []
    while i < len(keys_a) and j < len(keys_b):
        if keys_a[i] < keys_b[j]:
            plan.append((i, -1))
            i += 1
        elif keys_b[j] < keys_a[i]:
            plan.append((-1, j))
            j += 1
        else:
            plan.append((i, j))
            i, j = i + 1, j + 1
    plan += [(k, -1) for k in range(i, len(keys_a))] + [(-1, k) for k in range(j, len(keys_b))]
    return plan


def coo_add(x1, x2, thresh):
    """x1 + x2 for COOTensors with int64 indices: their coordinate lists merged (a coordinate
    in both is added once), a sum whose magnitude is below `thresh` dropped (coordinates only in
    one input are kept whatever their value). The shape is x1's."""
    if not isinstance(x1, COOTensor) or not isinstance(x2, COOTensor):
        raise TypeError("For functional operator coo_add, x1 and x2 must be COOTensors.")
    if not isinstance(thresh, Tensor):
        raise TypeError(f"For functional operator coo_add, 'thresh' must be a Tensor, but got "
                        f"{type(thresh).__name__}.")
    ind_a, ind_b = _promote(x1.indices, x2.indices)
    val_a, val_b = _promote(x1.values, x2.values)
    if ind_a.dtype != mstype.int64:
        raise TypeError(f"For primitive[SparseAdd], the input argument[x1_indices] must be a "
                        f"type of {{Tensor[Int64]}}, but got Tensor[{ind_a.dtype}].")
    thresh = A.cast(thresh, val_a.dtype)
    host_a, host_b = ind_a.asnumpy(), ind_b.asnumpy()
    plan = _merge_order([tuple(r) for r in host_a], [tuple(r) for r in host_b])
    # sums of a coordinate in both inputs, then which of them survive the threshold
    pairs = [(i, j) for i, j in plan if i >= 0 and j >= 0]
    sums = M.add(_take(val_a, [i for i, _ in pairs]), _take(val_b, [j for _, j in pairs]))
    kept = np.abs(sums.asnumpy()) >= thresh.asnumpy()
    parts, rows, pair_at = [], [], 0
    for i, j in plan:
        if i >= 0 and j >= 0:
            if kept[pair_at]:
                parts.append(("sum", pair_at))
                rows.append(host_a[i])
            pair_at += 1
        elif i >= 0:
            parts.append(("a", i))
            rows.append(host_a[i])
        else:
            parts.append(("b", j))
            rows.append(host_b[j])
    # one gather from [a values, b values, sums] puts every output value in place
    offset = {"a": 0, "b": val_a.shape[0], "sum": val_a.shape[0] + val_b.shape[0]}
    pool = A.concat((val_a, val_b, sums), 0)
    values = _take(pool, [offset[kind] + k for kind, k in parts])
    indices = np.asarray(rows, np.int64).reshape(-1, 2)
    return COOTensor(Tensor(indices), values, tuple(x1.shape))


def coo_concat(sp_input, concat_dim=0):
    """COOTensors (or (indices, values, shape) tuples) joined along concat_dim: coordinates
    offset along that dim, then sorted by (row, column); indices must be int64 and the values
    of one dtype."""
    if len(sp_input) < 2:
        raise ValueError("For coo_concat, not support COOTensor input number < 2.")
    if not isinstance(concat_dim, int) or isinstance(concat_dim, bool):
        raise TypeError(f"For 'SparseConcat', the type of 'concat_dim' should be 'int', but got "
                        f"type '{type(concat_dim).__name__}'.")
    parts = [tuple(t) if isinstance(t, tuple) else (t.indices, t.values, t.shape)
             for t in sp_input]
    if not -2 <= concat_dim <= 1:
        raise IndexError(f"For coo_concat, concat_dim must be in range -2 to 1 for 2-D "
                         f"COOTensors, but got {concat_dim}.")
    dim = concat_dim % 2
    for k, (indices, values, _) in enumerate(parts):
        if indices.dtype != mstype.int64:
            raise TypeError(f"For primitive[SparseConcat], the input argument[indices{k}] must "
                            f"be a type of {{Tensor[Int64]}}, but got Tensor[{indices.dtype}].")
        if values.dtype != parts[0][1].dtype:
            raise TypeError("For primitive[SparseConcat], the input type must be same.")
    first = parts[0][2]
    for k, (_, _, shape) in enumerate(parts[1:], 1):
        if shape[1 - dim] != first[1 - dim]:
            raise RuntimeError(f"For op SparseConcat, the No.{k} input COO tensor shape "
                               f"{tuple(shape)} does not match the first one's {tuple(first)} "
                               f"outside concat_dim {concat_dim}.")
    coords, offset = [], 0
    for indices, _, shape in parts:
        shifted = indices.asnumpy().reshape(-1, 2).copy()
        shifted[:, dim] += offset
        coords.append(shifted)
        offset += shape[dim]
    coords = np.concatenate(coords)
    order = np.lexsort((coords[:, 1], coords[:, 0]))  # stable: row first, then column
    values = _take(A.concat(tuple(p[1] for p in parts), 0), order)
    out_shape = list(first)
    out_shape[dim] = offset
    return COOTensor(Tensor(coords[order]), values, tuple(out_shape))


# -- conversions ----------------------------------------------------------------------------
def csr_to_coo(tensor):
    """The COOTensor of a 2-D CSRTensor (int32 indices, values in stored order)."""
    _check_csr("csr_to_coo", tensor)
    if len(tensor.shape) > 2:
        raise ValueError("Currently only support 2-D CSRTensor when converting to COOTensor.")
    for arg, t in (("x_row_pointers", tensor.indptr), ("x_col_indices", tensor.indices)):
        if t.dtype not in _INT32_INT64:
            raise TypeError(f"For primitive[CSRSparseMatrixToSparseTensor], the input "
                            f"argument[{arg}] must be a type of {{Tensor[Int32], "
                            f"Tensor[Int64]}}, but got Tensor[{t.dtype}].")
    rows = A.cast(_csr_rows(tensor), mstype.int32)
    indices = stack((rows, A.cast(tensor.indices, mstype.int32)), 1)
    return COOTensor(indices, tensor.values, tuple(tensor.shape))


def csr_to_dense(csr_tensor):
    """The dense Tensor of a 2-D CSRTensor; of values stored twice at one position the later
    one wins (MindSpore's CSRSparseMatrixToDense writes them in order)."""
    _check_csr("csr_to_dense", csr_tensor)
    if len(csr_tensor.shape) > 2:
        raise ValueError("Currently only support 2-D CSRTensor when converting to COOTensor.")
    if (csr_tensor.indptr.dtype not in _INT32_INT64 or
            csr_tensor.indices.dtype not in _INT32_INT64):
        raise TypeError("For primitive[CSRSparseMatrixToDense], the input type must be same.")
    _need_matrix_values("CSRSparseMatrixToDense", "x_values", csr_tensor.values)
    shape = tuple(csr_tensor.shape)
    pos = (_csr_rows(csr_tensor).asnumpy() * shape[1] +
           csr_tensor.indices.asnumpy().astype(np.int64))
    # the last occurrence of each position: unique over the reversed list finds it first
    last = len(pos) - 1 - np.unique(pos[::-1], return_index=True)[1]
    if last.size == 0:
        return A.zeros(shape, csr_tensor.values.dtype)
    flat = A.unsorted_segment_sum(_take(csr_tensor.values, last), Tensor(pos[last]),
                                  shape[0] * shape[1])
    return A.reshape(flat, shape)
