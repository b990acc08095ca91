"""The primitives behind nn.Unfold, nn.SparseToDense and nn.SparseTensorDenseMatmul, as
compositions of existing primitives (so they differentiate, trace and run on both devices):
ExtractImagePatches, SparseToDense and SparseTensorDenseMatmul."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.common.context import context
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import pad
from minispore.ops.function.composite_func import stack
from minispore.ops.function.composite_prims import _composite
from minispore.ops.function.index_func import tensor_scatter_update

__all__ = ["ExtractImagePatches", "SparseToDense", "SparseTensorDenseMatmul"]

_CTX = context()
_EIP = "ExtractImagePatches"


def _window_pair(arg, value):
    """ksizes / strides / rates as (row, col): a pair, or MindSpore's NCHW 4-form
    (1, 1, row, col) (its argument handler keeps the last two of four)."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"For '{_EIP}', the type of '{arg}' should be one of '[list of int, "
                        f"tuple of int]', but got {type(value)}.")
    value = tuple(value)[2:] if len(value) == 4 else tuple(value)
    if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                                  for v in value):
        raise ValueError(f"For '{_EIP}', '{arg}' must be 2 positive ints (or 4 with the last "
                         f"two used), but got {value}.")
    return value


def _padding_mode(padding):
    if not isinstance(padding, str):
        raise TypeError(f"For '{_EIP}', the input 'padding' should be a str, but got "
                        f"{type(padding)}.")
    if padding.upper() not in ("VALID", "SAME"):
        raise ValueError(f'Failed to convert the value "{padding}" of input \'padding\' of '
                         f"'{_EIP}' to enum.")
    return padding.upper()


def _extract_image_patches(input_x, ksizes, strides, rates, padding="VALID"):
    """(N, C, H, W) -> (N, kr * kc * C, out_h, out_w): each output position's (kr, kc) window
    (rows `rates[0]` apart, columns `rates[1]`), with depth ordered (window row, window column,
    channel), channel fastest: TensorFlow's NHWC patch layout, which MindSpore's GPU kernel
    computes in NHWC and transposes back. VALID: out = ceil((in - eff + 1) / stride); SAME:
    out = ceil(in / stride) with (out - 1) * stride + eff - in padded, half (rounded toward
    zero, as the kernel's C++ division does, so it can be negative) at the top / left; eff =
    k + (k - 1) * (rate - 1). One strided slice per window offset, stacked."""
    (kr, kc), (sr, sc) = _window_pair("ksizes", ksizes), _window_pair("strides", strides)
    rr, rc = _window_pair("rates", rates)
    mode = _padding_mode(padding)
    if not isinstance(input_x, Tensor):
        raise TypeError(f"For '{_EIP}', 'input_x' must be a Tensor, but got "
                        f"{type(input_x).__name__}.")
    if input_x.ndim != 4:
        raise ValueError(f"For {_EIP}the rank of input_x must be 4.")
    n, c, h, w = input_x.shape
    eff_r, eff_c = kr + (kr - 1) * (rr - 1), kc + (kc - 1) * (rc - 1)
    if mode == "VALID":
        out_h, out_w = -(-(h - eff_r + 1) // sr), -(-(w - eff_c + 1) // sc)
        top = left = 0
    else:
        out_h, out_w = -(-h // sr), -(-w // sc)
        top = int(((out_h - 1) * sr + eff_r - h) / 2)
        left = int(((out_w - 1) * sc + eff_c - w) / 2)
    if out_h <= 0 or out_w <= 0:
        raise ValueError(f"For {_EIP}the output shape should greater than 0, but got "
                         f"{[n, c * kr * kc, out_h, out_w]}.")
    # the rows [-top, -top + span) of the input are read, zero outside it
    span_r, span_c = (out_h - 1) * sr + eff_r, (out_w - 1) * sc + eff_c
    pads = (max(left, 0), max(span_c - left - w, 0), max(top, 0), max(span_r - top - h, 0))
    x = pad(input_x, pads) if any(pads) else input_x
    r0, c0 = max(-top, 0), max(-left, 0)
    blocks = [x[:, :, r0 + i * rr:r0 + i * rr + sr * (out_h - 1) + 1:sr,
                c0 + j * rc:c0 + j * rc + sc * (out_w - 1) + 1:sc]
              for i in range(kr) for j in range(kc)]
    return A.reshape(stack(blocks, 1), (n, kr * kc * c, out_h, out_w))


class ExtractImagePatches(_composite(_EIP, _extract_image_patches, (
        ("ksizes", None), ("strides", None), ("rates", None), ("padding", "VALID")))):
    """``ops.ExtractImagePatches(ksizes, strides, rates, padding='VALID')(x)``: the image
    patches of an NCHW x, (N, kr * kc * C, out_h, out_w), depth ordered (window row, window
    column, channel); see _extract_image_patches. MindSpore runs it on Ascend and GPU only;
    this is the GPU kernel's meaning. The attributes are checked here, as MindSpore's argument
    handlers do at construction."""

    def __init__(self, ksizes, strides, rates, padding="VALID"):
        super().__init__(_window_pair("ksizes", ksizes), _window_pair("strides", strides),
                         _window_pair("rates", rates), _padding_mode(padding))


def _known(t):
    """Whether t's values can be read now (eagerly, not while tracing a graph)."""
    return not t.traced and _CTX.tracer is None


def _dense_shape(name, sparse_shape, err):
    if isinstance(sparse_shape, Tensor):
        return tuple(int(v) for v in sparse_shape.asnumpy())
    if isinstance(sparse_shape, (tuple, list)):
        return tuple(sparse_shape)
    raise err(f"For '{name}', 'sparse_shape' must be a tuple or a Tensor, but got "
              f"{type(sparse_shape).__name__}.")


def _sparse_to_dense(indices, values, sparse_shape):
    """The dense `sparse_shape` tensor holding values[i] at indices[i] (any rank) and zeros
    elsewhere; of repeated indices the last value stays, as MindSpore's CPU kernel writes them
    in order. Indices outside the shape raise ValueError (when their values are known)."""
    name = "SparseToDense"
    for arg, v in (("indices", indices), ("values", values)):
        if not isinstance(v, Tensor):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    if indices.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For primitive[{name}], the input argument[indices] must be a type of "
                        f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{indices.dtype}].")
    shape = _dense_shape(name, sparse_shape, TypeError)
    if indices.ndim != 2 or indices.shape[1] != len(shape):
        raise ValueError(f"For primitive[{name}], 'indices' must be (n, {len(shape)}) for a "
                         f"rank-{len(shape)} sparse_shape, but got {tuple(indices.shape)}.")
    if values.ndim != 1 or values.shape[0] != indices.shape[0]:
        raise ValueError(f"For primitive[{name}], the batch of 'indices' must be equal to "
                         f"{values.shape[0] if values.ndim == 1 else values.ndim}, but got "
                         f"{indices.shape[0]}.")
    if _known(indices):
        rows = indices.asnumpy()
        for j, size in enumerate(shape):
            bad = np.flatnonzero((rows[:, j] < 0) | (rows[:, j] >= size))
            if bad.size:
                raise ValueError(f"For '{name}', the {bad[0]}th value in {j}th dimension "
                                 f"index: {rows[bad[0], j]} of 'output' out of bounds: "
                                 f"[0, {size})")
    return tensor_scatter_update(A.zeros(shape, values.dtype), indices, values)


SparseToDense = _composite("SparseToDense", _sparse_to_dense, doc=(
    "``ops.SparseToDense()(indices, values, sparse_shape)``: the dense tensor with values at "
    "indices (the last of repeated indices stays), zeros elsewhere."))

_SPMM = "SparseTensorDenseMatmul"
# MindSpore also takes complex64/128 (minispore has no complex dtypes)
_SPMM_VALUES = (mstype.float16, mstype.float32, mstype.float64, mstype.int32, mstype.int64)


def _check_spmm(indices, values, shape, dense):
    if indices.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{_SPMM}', the input indices data type should be int32 or int64.")
    if values.dtype not in _SPMM_VALUES:
        raise TypeError(f"For primitive[{_SPMM}], the input argument[values] must be a type of "
                        f"{{Tensor[Complex128], Tensor[Complex64], Tensor[Float16], "
                        f"Tensor[Float32], Tensor[Float64], Tensor[Int32], Tensor[Int64]}}, "
                        f"but got Tensor[{values.dtype}].")
    if dense.dtype != values.dtype:
        raise TypeError(f"For primitive[{_SPMM}], the input type must be same.")
    if len(shape) != 2:
        raise ValueError(f"For '{_SPMM}', the 1st dimension of sparse_shape should be 2, but "
                         f"got {len(shape)}.")
    if indices.ndim != 2 or indices.shape[1] != 2:
        raise ValueError(f"For '{_SPMM}', 'indices' must be (n, 2), but got "
                         f"{tuple(indices.shape)}.")
    if values.ndim != 1 or values.shape[0] != indices.shape[0]:
        raise ValueError(f"For '{_SPMM}', the input values' length is different from indices' "
                         f"first dimension")
    if dense.ndim != 2:
        raise ValueError(f"For '{_SPMM}', 'the shape of input dense' must be a 2-dimensional "
                         f"tensor, but got a {dense.ndim}-dimensional tensor.")
    if _known(indices) and indices.shape[0]:
        rows = indices.asnumpy()
        bad = np.flatnonzero((rows < 0).any(1) | (rows[:, 0] >= shape[0])
                             | (rows[:, 1] >= shape[1]))
        if bad.size:
            r, c = rows[bad[0]]
            raise ValueError(f"For '{_SPMM}', the indices including out of bounds index, row "
                             f"range: [0, {shape[0]}), col range: [0, {shape[1]}), but got "
                             f"row: {r}, col: {c}")


def _sparse_tensor_dense_matmul(indices, values, sparse_shape, dense, adjoint_st=False,
                                adjoint_dt=False):
    """op(S) @ op(D) for the COO matrix S (values at indices, repeated indices adding up):
    out[r] = sum over k with row r of values[k] * op(D)[col_k] (a gather and a segment sum).
    adjoint_st transposes S, adjoint_dt D (MindSpore's CPU kernel also conjugates a complex D,
    never S; minispore has no complex dtypes). Dense's contraction length is not
    checked against sparse_shape (MindSpore does not either); only the indices are read."""
    for arg, v in (("indices", indices), ("values", values), ("dense", dense)):
        if not isinstance(v, Tensor):
            raise TypeError(f"For '{_SPMM}', '{arg}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    if isinstance(sparse_shape, list):
        raise TypeError(f"For '{_SPMM}', the input shape data type should be int32 or int64.")
    shape = _dense_shape(_SPMM, sparse_shape, TypeError)
    _check_spmm(indices, values, shape, dense)
    if adjoint_dt:
        dense = A.transpose(dense, (1, 0))
    rows, cols = A.gather(indices, Tensor(0, mstype.int64), 1), A.gather(
        indices, Tensor(1, mstype.int64), 1)
    out_rows = shape[0]
    if adjoint_st:
        rows, cols, out_rows = cols, rows, shape[1]
    if values.shape[0] == 0:
        return A.zeros((out_rows, dense.shape[1]), values.dtype)
    picked = A.gather(dense, cols, 0)                          # (nnz, M)
    terms = M.mul(A.reshape(values, (values.shape[0], 1)), picked)
    return A.unsorted_segment_sum(terms, rows, out_rows)


def _check_adjoint(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{_SPMM}', the type of '{name}' should be 'bool', but got type "
                        f"'{type(value).__name__}'.")
    return value


class SparseTensorDenseMatmul(_composite(_SPMM, _sparse_tensor_dense_matmul, (
        ("adjoint_st", False), ("adjoint_dt", False)))):
    """``ops.SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values,
    sparse_shape, dense)``: the COO matrix (values at indices, shape sparse_shape) times the
    dense matrix; see _sparse_tensor_dense_matmul."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__(_check_adjoint("adjoint_st", adjoint_st),
                         _check_adjoint("adjoint_dt", adjoint_dt))
