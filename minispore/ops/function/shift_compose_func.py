"""Shifting, rotating and narrowing functions composed of existing primitives (StridedSlice,
Concat, Transpose, BroadcastTo, Gather): roll, rot90, narrow, slice, expand, reverse,
reverse_sequence, and MindSpore's primitives of the same (Roll, ReverseV2, ReverseSequence,
Expand). Each is exact and differentiable through the primitives it is made of."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import flip as _flip
from minispore.ops.function.composite_func import swapaxes as _swapaxes
from minispore.ops.function.composite_func import where as _where
from minispore.ops.function.composite_prims import _composite

__all__ = ["roll", "rot90", "narrow", "slice", "expand", "reverse", "reverse_sequence", "Roll",
           "ReverseV2", "ReverseSequence", "Expand"]


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _axis(name, arg, d, ndim):
    if not _is_int(d):
        raise TypeError(f"For '{name}', '{arg}' must be an int, but got {type(d).__name__}.")
    if not -ndim <= d < max(ndim, 1):
        raise ValueError(f"For '{name}', '{arg}' must be in range of [{-ndim}, {ndim}), but got "
                         f"{d}.")
    return int(d) % max(ndim, 1)


def _cut(x, dim, lo, hi):
    """x[..., lo:hi, ...] along dim."""
    begin, end = [0] * x.ndim, list(x.shape)
    begin[dim], end[dim] = lo, hi
    return A.strided_slice(x, begin, end, [1] * x.ndim)


def _roll_dim(x, shift, dim):
    n = x.shape[dim]
    shift = shift % n if n else 0
    if shift == 0:
        return x
    return A.concat((_cut(x, dim, n - shift, n), _cut(x, dim, 0, n - shift)), dim)


def roll(input, shifts, dims=None):  # noqa: A002
    """input with its elements shifted by `shifts` along `dims` (cyclically: what leaves one
    end enters at the other); dims None rolls the flattened input and restores its shape.
    shifts and dims: ints, or tuples of one length."""
    _check_tensor("roll", "input", input)
    shifts = (shifts,) if not isinstance(shifts, (tuple, list)) else tuple(shifts)
    if not all(_is_int(s) for s in shifts):
        raise TypeError(f"For 'roll', 'shifts' must be an int or a tuple of ints, but got "
                        f"{shifts!r}.")
    if dims is None:
        if len(shifts) != 1:
            raise ValueError(f"For 'roll', 'shifts' must be one int when 'dims' is None, but "
                             f"got {shifts!r}.")
        flat = _roll_dim(A.reshape(input, (-1,)), int(shifts[0]), 0)
        return A.reshape(flat, tuple(input.shape))
    dims = (dims,) if not isinstance(dims, (tuple, list)) else tuple(dims)
    if len(dims) != len(shifts):
        raise ValueError(f"For 'roll', 'shifts' and 'dims' must have one length, but got "
                         f"shifts {shifts!r} and dims {dims!r}.")
    out = input
    for s, d in zip(shifts, dims):
        out = _roll_dim(out, int(s), _axis("roll", "dims", d, input.ndim))
    return out


def rot90(input, k, dims):  # noqa: A002
    """input rotated by k * 90 degrees in the plane of dims (from dims[0] towards dims[1]),
    numpy's rot90: a flip and a swap of the two dims."""
    _check_tensor("rot90", "input", input)
    if not _is_int(k):
        raise TypeError(f"For `rot90`, the `k` must be int!, but get {type(k)}.")
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(dims) != 2:
        raise ValueError(f"For `rot90`, total rotation dims must be 2, but get {len(dims)}.")
    ndim = input.ndim
    if ndim < 2:
        raise ValueError(f"For `rot90`, 'input' must have rank >= 2, but got {ndim}.")
    d0, d1 = (_axis("rot90", "dims", d, ndim) for d in dims)
    if d0 == d1:
        raise ValueError(f"For `rot90`, rotation dims must be different, but get dim0={dims[0]}, "
                         f"dim1={dims[1]}.")
    k = int(k) % 4
    if k == 0:
        return input
    if k == 2:
        return _flip(input, (d0, d1))
    if k == 1:
        return _swapaxes(_flip(input, (d1,)), d0, d1)
    return _flip(_swapaxes(input, d0, d1), (d1,))


def narrow(input, axis, start, length):  # noqa: A002
    """input[..., start:start + length, ...] along axis: start in [0, n), length in
    [1, n - start] (MindSpore's ranges)."""
    _check_tensor("narrow", "input", input)
    ndim = input.ndim
    if not _is_int(axis) or not -ndim <= axis < ndim:
        raise ValueError(f"The 'axis' must be in the range of [{-ndim}, {ndim}), but got "
                         f"{axis}.")
    axis = int(axis) % ndim
    n = input.shape[axis]
    for v in (start, length):
        if not _is_int(v):
            raise TypeError(f"The input value must be 'int',  but got '{type(v).__name__}'.")
    if not 0 <= start < n:
        raise ValueError(f"The input value must be in range of [0, {n}), but got {start} with "
                         f"type 'int'.")
    if not 1 <= length <= n - start:
        raise ValueError(f"The input value must be in range of [1, {n - start}], but got "
                         f"{length} with type 'int'.")
    return _cut(input, axis, int(start), int(start + length))


def _ints(name, arg, v):
    if isinstance(v, Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    if not isinstance(v, (tuple, list)) or not all(_is_int(d) for d in v):
        raise TypeError(f"For '{name}', '{arg}' must be a tuple of ints or an int Tensor, but "
                        f"got {v!r}.")
    return [int(d) for d in v]


def slice(input_x, begin, size):  # noqa: A001 - MindSpore's name
    """The block of input_x starting at `begin` with extent `size` per dim (size -1: to the
    end)."""
    _check_tensor("Slice", "input_x", input_x)
    begin, size = _ints("Slice", "begin", begin), _ints("Slice", "size", size)
    shape = tuple(input_x.shape)
    if not len(begin) == len(size) == len(shape):
        raise ValueError("For Slice, the shape of input|begin|size must be equal.")
    end = []
    for i, (b, s, n) in enumerate(zip(begin, size, shape)):
        if not 0 <= b <= n:
            raise ValueError(f"For Slice, the begin is invalid: begin[{i}] is {b}, not in "
                             f"[0, {n}].")
        s = n - b if s == -1 else s
        if s < 0 or b + s > n:
            raise ValueError(f"For Slice, the sum of begin_shape[{i}] and size_shape[{i}] must "
                             f"be no greater than input_x_shape[{i}].")
        end.append(b + s)
    return A.strided_slice(input_x, begin, end, [1] * len(shape))


def expand(input_x, size):
    """input_x broadcast to `size` (an int Tensor of the dims, or a tuple; -1 keeps a dim):
    MindSpore's Expand, a BroadcastTo."""
    _check_tensor("expand", "input_x", input_x)
    size = tuple(_ints("Expand", "size", size))
    lead = len(size) - input_x.ndim
    if lead < 0:
        raise ValueError(f"For Expand, the size {size} has fewer dims than the input's shape "
                         f"{tuple(input_x.shape)}.")
    for i, n in enumerate(input_x.shape):
        want = size[lead + i]
        if want != -1 and n != 1 and want != n:
            raise ValueError(f"For Expand, the expanded size of the tensor ({want}) must be "
                             f"equal to the existing size ({n}) which is not 1 at dim ({i}).")
    return A.broadcast_to(input_x, size)


def _reverse_axes(x, axis):
    if not isinstance(axis, (tuple, list)):
        raise TypeError(f"For 'ReverseV2', the type of 'axis' should be one of '[list of int, "
                        f"tuple of int]', but got {type(axis)}.")
    dims = [_axis("ReverseV2", f"axis[{i}]", d, x.ndim) for i, d in enumerate(axis)]
    if len(set(dims)) != len(dims):
        raise ValueError(f"For ReverseV2, 'axis' cannot contain duplicate dimensions, but got "
                         f"{list(axis)}.")
    return dims


def reverse(x, axis):
    """x reversed along each dim in `axis` (a tuple or list of ints)."""
    _check_tensor("ReverseV2", "x", x)
    dims = _reverse_axes(x, axis)
    return _flip(x, tuple(dims)) if dims else x


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each batch b (along batch_dim), the first seq_lengths[b] elements along seq_dim
    reversed, the rest kept. seq_lengths: a 1-D int32/int64 Tensor of x.shape[batch_dim]
    values, each <= x.shape[seq_dim]. One Gather over the (batch, seq) rows, its indices
    computed from seq_lengths with tensor ops, so it traces and differentiates in x."""
    _check_tensor("ReverseSequence", "x", x)
    _check_tensor("ReverseSequence", "seq_lengths", seq_lengths)
    if seq_lengths.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For primitive[ReverseSequence], the input argument[seq_lengths] must "
                        f"be a type of {{Tensor[Int32], Tensor[Int64]}}, but got "
                        f"Tensor[{seq_lengths.dtype}].")
    ndim = x.ndim
    seq_dim = _axis("ReverseSequence", "seq_dim", seq_dim, ndim)
    batch_dim = _axis("ReverseSequence", "batch_dim", batch_dim, ndim)
    if seq_dim == batch_dim:
        raise ValueError(f"For 'ReverseSequence', the 'batch_dim' should be != seq_dim: "
                         f"{seq_dim}, but got {batch_dim}.")
    n_batch, n_seq = x.shape[batch_dim], x.shape[seq_dim]
    if seq_lengths.ndim != 1 or seq_lengths.shape[0] != n_batch:
        raise ValueError(f"For 'ReverseSequence', the 'seq_lengths' vector size should be = "
                         f"input size along batch_dim: {n_batch}, but got "
                         f"{tuple(seq_lengths.shape)}.")
    if not seq_lengths.traced:
        lengths = seq_lengths.asnumpy()
        for i, v in enumerate(lengths):
            if not 0 <= v <= n_seq:
                raise ValueError(f"For 'ReverseSequence', seq_lengths[{i}] must be in "
                                 f"[0, {n_seq}], but got {v}.")
    # rows (batch, seq, rest...) -> the flat row b * n_seq + (len[b] - 1 - s if s < len[b])
    perm = [batch_dim, seq_dim] + [d for d in range(ndim) if d not in (batch_dim, seq_dim)]
    moved = A.transpose(x, perm)
    rest = tuple(moved.shape[2:])
    rows = A.reshape(moved, (n_batch * n_seq,) + rest)
    lengths = A.reshape(A.cast(seq_lengths, mstype.int64), (n_batch, 1))
    s = Tensor(np.arange(n_seq, dtype=np.int64).reshape(1, n_seq))
    within = M.less(s, lengths)
    keep = M.add(M.mul(lengths, 0), s)                  # s broadcast to (batch, seq)
    source = _where(within, M.sub(M.sub(lengths, 1), s), keep)
    base = Tensor(np.arange(n_batch, dtype=np.int64).reshape(n_batch, 1) * n_seq)
    index = A.reshape(M.add(source, base), (-1,))
    out = A.reshape(A.gather(rows, index, 0), (n_batch, n_seq) + rest)
    return A.transpose(out, np.argsort(perm).tolist())


def _reverse_v2(x, axis):
    return reverse(x, axis)


def _reverse_sequence_prim(x, seq_lengths, seq_dim, batch_dim=0):
    return reverse_sequence(x, seq_lengths, seq_dim, batch_dim)


def _expand_prim(input_x, shape):
    if not isinstance(shape, Tensor):
        raise TypeError(f"For Primitive[Expand], the type of input argument[shape] must be "
                        f"Tensor but got {type(shape).__name__}.")
    return expand(input_x, shape)


Roll = _composite("Roll", roll, (("shifts", None), ("dims", None)),
                  doc="``ops.Roll(shifts, dims=None)(input)``: ops.roll.")
ReverseV2 = _composite("ReverseV2", _reverse_v2, (("axis", None),),
                       doc="``ops.ReverseV2(axis)(x)``: ops.reverse.")
ReverseSequence = _composite("ReverseSequence", _reverse_sequence_prim,
                             (("seq_dim", None), ("batch_dim", 0)),
                             doc="``ops.ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths)``: "
                                 "ops.reverse_sequence.")
Expand = _composite("Expand", _expand_prim,
                    doc="``ops.Expand()(input_x, shape)``: input_x broadcast to the int Tensor "
                        "shape.")
