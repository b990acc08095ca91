"""Layout shuffles composed from Gather, Reshape, Transpose, StridedSlice and Concat (so
gradients come free): mirror_pad, padding, batch_to_space_nd, space_to_batch_nd and
select_scatter."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function.array_compose_func import _check_tensor, constant_pad, slice_scatter

__all__ = ["mirror_pad", "padding", "batch_to_space_nd", "space_to_batch_nd", "select_scatter"]


def _index(values):
    return Tensor(np.asarray(values, np.int32))


def mirror_pad(input_x, paddings, mode):
    """input_x padded on every dim by its mirror image: paddings is an int32/int64 Tensor
    (rank, 2) of (before, after); mode 'REFLECT' (edge not repeated, amount < dim) or
    'SYMMETRIC' (edge repeated, amount <= dim). One Gather per padded dim."""
    _check_tensor("MirrorPad", "input_x", input_x)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For 'MirrorPad', the 'mode' must be str and must be in "
                         f"'['REFLECT', 'SYMMETRIC']', but got {mode!r}.")
    if not isinstance(paddings, Tensor):
        raise TypeError(f"For Primitive[MirrorPad], the type of input argument[paddings] must be "
                        f"Tensor but got {type(paddings).__name__}.")
    if paddings.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For 'MirrorPad', 'paddings' must be int32 or int64, but got "
                        f"{paddings.dtype}.")
    pads = paddings.asnumpy()
    if pads.ndim != 2 or pads.shape[1] != 2 or pads.shape[0] != input_x.ndim:
        raise ValueError(f"For 'MirrorPad', paddings.shape[0] must equal to input's rank and "
                         f"paddings.shape[1] to 2, but got shape {pads.shape} for rank "
                         f"{input_x.ndim}.")
    out = input_x
    edge = 1 if mode == "REFLECT" else 0
    for dim, (lo, hi) in enumerate(pads.tolist()):
        n = input_x.shape[dim]
        if lo < 0 or hi < 0 or max(lo, hi) > n - edge:
            raise ValueError(f"For 'MirrorPad', paddings must be non-negative and "
                             f"{'less than' if edge else 'no greater than'} the dimension size "
                             f"({n}), but got [{lo}, {hi}] for dim {dim}.")
        if lo == hi == 0:
            continue
        # REFLECT reads lo..1 before and n-2..n-1-hi after; SYMMETRIC the same shifted by one
        before = list(range(lo - 1 + edge, edge - 1, -1))
        after = list(range(n - 1 - edge, n - 1 - edge - hi, -1))
        out = A.gather(out, _index(before + list(range(n)) + after), dim)
    return out


def padding(x, pad_dim_size=8):
    """x (..., 1) widened to (..., pad_dim_size): x in the first column, zeros after."""
    _check_tensor("Padding", "x", x)
    if isinstance(pad_dim_size, bool) or not isinstance(pad_dim_size, int) or pad_dim_size < 1:
        raise ValueError(f"For 'Padding', 'pad_dim_size' must be a positive int, but got "
                         f"{pad_dim_size!r}.")
    if x.ndim < 1 or x.shape[-1] != 1:
        raise ValueError(f"For 'Padding', the last dimension of 'x' must be 1, but got: "
                         f"{x.shape[-1] if x.ndim else 'a 0-D x'}.")
    return constant_pad(x, (0, pad_dim_size - 1))


def _blocks(name, block, pairs, arg):
    """block: an int (repeated for every pair) or a sequence of positive ints; pairs: one
    non-negative (before, after) per block dim -> (block tuple, list of pairs)."""
    pairs = [tuple(int(v) for v in p) for p in np.asarray(pairs).reshape(-1, 2).tolist()]
    if isinstance(block, int) and not isinstance(block, bool):
        block = (block,) * len(pairs)
    block = tuple(block)
    if (not block or not all(isinstance(b, int) and not isinstance(b, bool) and b >= 1
                             for b in block)):
        raise ValueError(f"For '{name}', the block shape must be positive ints, but got "
                         f"{block!r}.")
    if len(pairs) != len(block) or any(v < 0 for p in pairs for v in p):
        raise ValueError(f"For '{name}', '{arg}' must hold one non-negative pair per block dim "
                         f"({len(block)}), but got {pairs}.")
    return block, pairs


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of space_to_batch_nd: batch slices moved into the last M = len(block_shape)
    dims, then cropped: out[n, ..., s * b + i, ...] = x[(i0 * b1 + i1 ...) * N + n, ..., s, ...]."""
    _check_tensor("BatchToSpaceND", "input_x", input_x)
    block, crops = _blocks("BatchToSpaceND", block_shape, crops, "crops")
    m, prod = len(block), int(np.prod(block))
    if input_x.ndim < m + 1:
        raise ValueError(f"For 'BatchToSpaceND', 'input_x' must have at least {m + 1} dims, but "
                         f"got shape {tuple(input_x.shape)}.")
    if input_x.shape[0] % prod:
        raise ValueError(f"For 'BatchToSpaceND', the first dim of 'input_x' must be divisible by "
                         f"'block_shape_prod'. But got first dim of 'input_x': "
                         f"{input_x.shape[0]}, 'block_shape_prod': {prod}.")
    shape = tuple(input_x.shape)
    n, mid, space = shape[0] // prod, shape[1:-m], shape[-m:]
    y = A.reshape(input_x, block + (n,) + mid + space)
    lead = [m + k for k in range(1 + len(mid))]
    interleave = [d for k in range(m) for d in (m + 1 + len(mid) + k, k)]
    y = A.transpose(y, tuple(lead + interleave))
    full = tuple(s * b for s, b in zip(space, block))
    y = A.reshape(y, (n,) + mid + full)
    for k, (lo, hi) in enumerate(crops):
        if lo + hi >= full[k]:
            raise ValueError(f"For 'BatchToSpaceND', crops {[lo, hi]} must leave part of the "
                             f"block-multiplied dim of size {full[k]}.")
    begin = (0,) * (1 + len(mid)) + tuple(lo for lo, _ in crops)
    end = (n,) + mid + tuple(f - hi for f, (_, hi) in zip(full, crops))
    return A.strided_slice(y, begin, end, (1,) * y.ndim)


def space_to_batch_nd(input_x, block_size, paddings):
    """The last M = len(block_size) dims zero-padded by paddings, then split into blocks moved
    to the batch: out[(i0 * b1 + i1 ...) * N + n, ..., s, ...] = padded[n, ..., s * b + i, ...]."""
    _check_tensor("SpaceToBatchND", "input_x", input_x)
    block, pads = _blocks("SpaceToBatchND", block_size, paddings, "paddings")
    m = len(block)
    if input_x.ndim < m + 1:
        raise ValueError(f"For 'SpaceToBatchND', 'input_x' must have at least {m + 1} dims, but "
                         f"got shape {tuple(input_x.shape)}.")
    flat = tuple(v for lo, hi in reversed(pads) for v in (lo, hi))
    y = constant_pad(input_x, flat) if any(flat) else input_x
    shape = tuple(y.shape)
    n, mid, space = shape[0], shape[1:-m], shape[-m:]
    for s, b in zip(space, block):
        if s % b:
            raise ValueError(f"For 'SpaceToBatchND', padded shape should be divisible by "
                             f"block_size, but got padded shape: {s}, block_size: {b}.")
    split = tuple(v for s, b in zip(space, block) for v in (s // b, b))
    y = A.reshape(y, (n,) + mid + split)
    base = 1 + len(mid)
    blocks_first = [base + 2 * k + 1 for k in range(m)]
    perm = blocks_first + list(range(base)) + [base + 2 * k for k in range(m)]
    y = A.transpose(y, tuple(perm))
    return A.reshape(y, (n * int(np.prod(block)),) + mid + tuple(s // b for s, b in
                                                                  zip(space, block)))


def select_scatter(input, src, axis, index):  # noqa: A002
    """input with its slice at `index` along `axis` replaced by src (input's shape without that
    axis): a slice_scatter of src with the axis put back."""
    _check_tensor("select_scatter", "input", input)
    _check_tensor("select_scatter", "src", src)
    if src.dtype != input.dtype:
        raise TypeError(f"For primitive[TensorScatterElements], the input type must be same, but "
                        f"got {input.dtype} and {src.dtype}.")
    if not -input.ndim <= axis < input.ndim:
        raise ValueError(f"For 'select_scatter', 'axis' must be in [{-input.ndim}, "
                         f"{input.ndim}), but got {axis}.")
    axis %= input.ndim
    n = input.shape[axis]
    if not -n <= index < n:
        raise ValueError(f"For 'select_scatter', 'index' must be in [{-n}, {n}) for axis "
                         f"{axis} of shape {tuple(input.shape)}, but got {index}.")
    index %= n
    expected = tuple(input.shape[:axis]) + tuple(input.shape[axis + 1:])
    if tuple(src.shape) != expected:
        raise ValueError(f"For select_scatter, src shape should be {expected} (input's shape "
                         f"without axis {axis}), but got {tuple(src.shape)}.")
    return slice_scatter(input, A.expand_dims(src, axis), axis, index, index + 1)
