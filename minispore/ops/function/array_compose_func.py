"""Shape and layout functions composed of existing primitives (Reshape, Transpose, Concat,
Split, StridedSlice, BroadcastTo, Select, MatMul): unsqueeze, unbind, chunk, the h/v/d stacks
and splits, flips, outer/inner/kron, diff, cross and the like (triangles and diagonals are in
matrix_compose_func.py)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import stack as _stack
from minispore.ops.function.composite_func import swapaxes as _swapaxes
from minispore.ops.function.index_func import masked_select as _masked_select

__all__ = ["unsqueeze", "unbind", "unstack", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit",
           "hstack", "vstack", "row_stack", "column_stack", "dstack", "atleast_1d", "atleast_2d",
           "atleast_3d", "ravel", "t", "adjoint", "movedim", "moveaxis", "swapdims", "flip",
           "fliplr", "flipud", "outer", "ger", "inner", "kron", "diff", "diff_ext", "cross",
           "expand_as", "view_as", "reshape_as", "type_as", "full_like", "full", "glu_split",
           "argwhere", "nonzero", "aminmax", "channel_shuffle", "pixel_shuffle", "pixel_unshuffle",
           "constant_pad", "pad", "slice_scatter", "meshgrid", "cartesian_prod", "sequence_mask",
           "repeat_interleave", "repeat_elements", "space_to_depth", "take", "index_select"]


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _dim(name, dim, ndim):
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not -ndim <= dim < ndim:
        raise ValueError(f"For '{name}', 'dim' must be an int in [{-ndim}, {ndim}), but got "
                         f"{dim!r}.")
    return int(dim) % ndim


def unsqueeze(input, dim):  # noqa: A002
    _check_tensor("unsqueeze", "input", input)
    return A.expand_dims(input, _dim("unsqueeze", dim, input.ndim + 1))


def unbind(input, dim=0):  # noqa: A002
    """The slices of input along dim, as a tuple (dim removed)."""
    _check_tensor("unbind", "input", input)
    dim = _dim("unbind", dim, input.ndim)
    n = input.shape[dim]
    parts = A.split(input, 1, dim) if n > 1 else (input,)
    return tuple(A.squeeze(p, (dim,)) for p in parts)


def unstack(input_x, axis=0):
    return unbind(input_x, axis)


def _split_at(name, x, indices, dim):
    """Pieces of x cut before each index in `indices` along dim (numpy's array_split rule)."""
    n = x.shape[dim]
    bounds = [0] + [min(max(int(i), 0), n) for i in indices] + [n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = max(hi, lo)
        begin = [0] * x.ndim
        end = list(x.shape)
        begin[dim], end[dim] = lo, hi
        out.append(A.strided_slice(x, begin, end, [1] * x.ndim))
    return tuple(out)


def tensor_split(input, indices_or_sections, axis=0):  # noqa: A002
    """numpy.array_split: `sections` near-equal pieces (the first n % sections one longer),
    or pieces cut at the given indices."""
    _check_tensor("tensor_split", "input", input)
    dim = _dim("tensor_split", axis, input.ndim)
    n = input.shape[dim]
    if isinstance(indices_or_sections, (int, np.integer)) and \
            not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"For 'tensor_split', the number of sections must be positive, but "
                             f"got {k}.")
        size, extra = divmod(n, k)
        cuts, at = [], 0
        for i in range(k - 1):
            at += size + (1 if i < extra else 0)
            cuts.append(at)
        return _split_at("tensor_split", input, cuts, dim)
    if not isinstance(indices_or_sections, (tuple, list)):
        raise TypeError(f"For 'tensor_split', 'indices_or_sections' must be an int, a tuple or a "
                        f"list, but got {type(indices_or_sections).__name__}.")
    return _split_at("tensor_split", input, indices_or_sections, dim)


def chunk(input, chunks, axis=0):  # noqa: A002
    """ceil(n / chunks)-long pieces along axis (the last may be shorter; fewer pieces than
    `chunks` when they run out)."""
    _check_tensor("chunk", "input", input)
    if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or chunks <= 0:
        raise ValueError(f"For 'chunk', 'chunks' must be a positive int, but got {chunks!r}.")
    dim = _dim("chunk", axis, input.ndim)
    n = input.shape[dim]
    step = -(-n // int(chunks))
    return _split_at("chunk", input, list(range(step, n, step)), dim)


def hsplit(input, indices_or_sections):  # noqa: A002
    return tensor_split(input, indices_or_sections, 1 if input.ndim > 1 else 0)


def vsplit(input, indices_or_sections):  # noqa: A002
    return tensor_split(input, indices_or_sections, 0)


def dsplit(input, indices_or_sections):  # noqa: A002
    return tensor_split(input, indices_or_sections, 2)


def atleast_1d(inputs):
    if isinstance(inputs, (tuple, list)):
        return tuple(atleast_1d(t) for t in inputs)
    return A.reshape(inputs, (1,)) if inputs.ndim == 0 else inputs


def atleast_2d(inputs):
    if isinstance(inputs, (tuple, list)):
        return tuple(atleast_2d(t) for t in inputs)
    if inputs.ndim >= 2:
        return inputs
    return A.reshape(inputs, (1,) * (2 - inputs.ndim) + tuple(inputs.shape))


def atleast_3d(inputs):
    """(n,) -> (1, n, 1), (m, n) -> (m, n, 1), as numpy."""
    if isinstance(inputs, (tuple, list)):
        return tuple(atleast_3d(t) for t in inputs)
    shape = tuple(inputs.shape)
    if len(shape) == 0:
        return A.reshape(inputs, (1, 1, 1))
    if len(shape) == 1:
        return A.reshape(inputs, (1,) + shape + (1,))
    if len(shape) == 2:
        return A.reshape(inputs, shape + (1,))
    return inputs


def _tensors(name, tensors):
    if not isinstance(tensors, (tuple, list)) or not tensors:
        raise TypeError(f"For '{name}', 'tensors' must be a non-empty tuple or list of Tensors, "
                        f"but got {type(tensors).__name__}.")
    for i, t in enumerate(tensors):
        _check_tensor(name, f"tensors[{i}]", t)
    return tensors


def hstack(tensors):
    tensors = atleast_1d(_tensors("hstack", tensors))
    return A.concat(list(tensors), 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    return A.concat(list(atleast_2d(_tensors("vstack", tensors))), 0)


row_stack = vstack


def column_stack(tensors):
    tensors = _tensors("column_stack", tensors)
    cols = [A.reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in tensors]
    return A.concat(cols, 1)


def dstack(tensors):
    return A.concat(list(atleast_3d(_tensors("dstack", tensors))), 2)


def ravel(input):  # noqa: A002
    return A.reshape(input, (-1,))


def t(input):  # noqa: A002
    """input transposed when 2-D; 0-D and 1-D unchanged."""
    _check_tensor("t", "input", input)
    if input.ndim > 2:
        raise ValueError(f"For 't', 'input' must have rank <= 2, but got {input.ndim}.")
    return A.transpose(input, (1, 0)) if input.ndim == 2 else input


def adjoint(x):
    """The conjugate transpose of the last two dims (the transpose: minispore is real)."""
    _check_tensor("adjoint", "x", x)
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return A.transpose(x, tuple(perm))


def movedim(x, source, destination):
    """x with dims `source` moved to `destination` (ints or sequences of ints)."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError("For 'movedim', 'source' and 'destination' must have the same number "
                         "of dims.")
    src = [_dim("movedim", s, x.ndim) for s in src]
    dst = [_dim("movedim", d, x.ndim) for d in dst]
    rest = [d for d in range(x.ndim) if d not in src]
    perm = [None] * x.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return A.transpose(x, tuple(perm))


moveaxis = movedim


def swapdims(input, dim0, dim1):  # noqa: A002
    return _swapaxes(input, dim0, dim1)


def flip(input, dims):  # noqa: A002
    """input reversed along each dim in dims (a StridedSlice with stride -1)."""
    _check_tensor("flip", "input", input)
    dims = [dims] if isinstance(dims, int) else list(dims)
    begin, end, strides = [0] * input.ndim, list(input.shape), [1] * input.ndim
    for d in dims:
        d = _dim("flip", d, input.ndim)
        begin[d], end[d], strides[d] = input.shape[d] - 1, -input.shape[d] - 1, -1
    return A.strided_slice(input, begin, end, strides)


def fliplr(input):  # noqa: A002
    if input.ndim < 2:
        raise ValueError(f"For 'fliplr', 'input' must have rank >= 2, but got {input.ndim}.")
    return flip(input, 1)


def flipud(input):  # noqa: A002
    if input.ndim < 1:
        raise ValueError("For 'flipud', 'input' must have rank >= 1.")
    return flip(input, 0)


def _promoted(a, b):
    if a.dtype != b.dtype:
        if a.dtype.is_float and not b.dtype.is_float:
            b = A.cast(b, a.dtype)
        elif b.dtype.is_float and not a.dtype.is_float:
            a = A.cast(a, b.dtype)
    return a, b


def outer(input, vec2):  # noqa: A002
    """out[i, j] = input[i] * vec2[j] (both flattened)."""
    _check_tensor("outer", "input", input)
    _check_tensor("outer", "vec2", vec2)
    a, b = _promoted(input, vec2)
    return M.mul(A.reshape(a, (-1, 1)), A.reshape(b, (1, -1)))


ger = outer


def inner(input, other):  # noqa: A002
    """The sum over the last dims: out[i..., j...] = sum_k input[i..., k] * other[j..., k]."""
    _check_tensor("inner", "input", input)
    _check_tensor("inner", "other", other)
    if input.ndim == 0 or other.ndim == 0:
        return M.mul(input, other)
    k = input.shape[-1]
    if other.shape[-1] != k:
        raise ValueError(f"For 'inner', the last dims must match, but got {tuple(input.shape)} "
                         f"and {tuple(other.shape)}.")
    a, b = _promoted(input, other)
    out = M.matmul(A.reshape(a, (-1, k)), A.reshape(b, (-1, k)), transpose_b=True)
    return A.reshape(out, tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def kron(input, other):  # noqa: A002
    """The Kronecker product: each input element times the whole of other."""
    _check_tensor("kron", "input", input)
    _check_tensor("kron", "other", other)
    a, b = _promoted(input, other)
    nd = max(a.ndim, b.ndim)
    a = A.reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    b = A.reshape(b, (1,) * (nd - b.ndim) + tuple(b.shape))
    a_shape = sum(((s, 1) for s in a.shape), ())      # a at even positions, b at odd ones
    b_shape = sum(((1, s) for s in b.shape), ())
    out = M.mul(A.reshape(a, a_shape), A.reshape(b, b_shape))
    return A.reshape(out, tuple(p * q for p, q in zip(a.shape, b.shape)))


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference x[i + 1] - x[i] along axis."""
    _check_tensor("diff", "x", x)
    axis = _dim("diff", axis, x.ndim)
    if prepend is not None or append is not None:
        x = A.concat([t for t in (prepend, x, append) if t is not None], axis)
    for _ in range(int(n)):
        length = x.shape[axis]
        hi, lo = _split_at("diff", x, [1], axis)[1], _split_at("diff", x, [length - 1], axis)[0]
        x = M.sub(hi, lo)
    return x


diff_ext = diff


def cross(input, other, dim=None):  # noqa: A002
    """The 3-vector cross product along dim (the first dim of size 3 when None)."""
    _check_tensor("cross", "input", input)
    _check_tensor("cross", "other", other)
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise ValueError(f"For 'cross', 'input' must have a dim of size 3, but got shape "
                             f"{tuple(input.shape)}.")
    dim = _dim("cross", dim, input.ndim)
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise ValueError(f"For 'cross', dim {dim} must have size 3 in both inputs.")
    a1, a2, a3 = A.split(input, 1, dim)
    b1, b2, b3 = A.split(other, 1, dim)
    return A.concat([M.sub(M.mul(a2, b3), M.mul(a3, b2)), M.sub(M.mul(a3, b1), M.mul(a1, b3)),
                     M.sub(M.mul(a1, b2), M.mul(a2, b1))], dim)


def expand_as(input, other):  # noqa: A002
    return A.broadcast_to(input, tuple(other.shape))


def view_as(input, other):  # noqa: A002
    return A.reshape(input, tuple(other.shape))


reshape_as = view_as


def type_as(input, other):  # noqa: A002
    return A.cast(input, other.dtype)


def full(size, fill_value, *, dtype=None):
    """A tensor of shape size filled with fill_value (dtype from the value when None)."""
    if dtype is None:
        dtype = mstype.bool_ if isinstance(fill_value, bool) else (
            mstype.int64 if isinstance(fill_value, int) else mstype.float32)
    size = (size,) if isinstance(size, int) else tuple(size)
    return A.fill(mstype.to_type(dtype), size, fill_value)


def full_like(input, fill_value, *, dtype=None):  # noqa: A002
    return A.fill(input.dtype if dtype is None else mstype.to_type(dtype), tuple(input.shape),
                  fill_value)


def glu_split(x, axis):
    """The two halves of x along axis (for glu)."""
    axis = _dim("glu", axis, x.ndim)
    if x.shape[axis] % 2:
        raise ValueError(f"For 'glu', dim {axis} of 'x' must be even, but got "
                         f"{x.shape[axis]}.")
    return A.split(x, x.shape[axis] // 2, axis)


def argwhere(input):  # noqa: A002
    """The (n, ndim) int64 indices of the nonzero elements, in row-major order: each dim's
    constant index grid through MaskedSelect (whose output length is data-dependent)."""
    _check_tensor("argwhere", "input", input)
    if input.ndim == 0:
        raise ValueError("For 'argwhere', 'input' must have rank >= 1.")
    mask = A.cast(input, mstype.bool_) if input.dtype != mstype.bool_ else input
    grids = np.indices(tuple(input.shape), dtype=np.int64)
    cols = [_masked_select(Tensor(g), mask) for g in grids]
    return _stack(cols, 1)


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """argwhere(input); as_tuple gives one 1-D index tensor per dim."""
    idx = argwhere(input)
    if as_tuple:
        return unbind(idx, 1) if input.ndim else (idx,)
    return idx


def aminmax(input, *, axis=0, keepdims=False):  # noqa: A002
    """(min, max) along axis."""
    _check_tensor("aminmax", "input", input)
    return M.reduce_min(input, axis, keepdims), M.reduce_max(input, axis, keepdims)


def channel_shuffle(x, groups):
    """(N, C, ...) with its C = groups * k channels reordered from (groups, k) to (k, groups)."""
    _check_tensor("channel_shuffle", "x", x)
    if x.ndim < 2:
        raise ValueError(f"For 'channel_shuffle', 'x' must have rank >= 2, but got {x.ndim}.")
    n, c = x.shape[:2]
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or c % groups:
        raise ValueError(f"For 'channel_shuffle', 'groups' must be a positive int dividing the "
                         f"{c} channels, but got {groups!r}.")
    rest = tuple(x.shape[2:])
    y = A.reshape(x, (n, groups, c // groups) + rest)
    y = A.transpose(y, (0, 2, 1) + tuple(range(3, y.ndim)))
    return A.reshape(y, (n, c) + rest)


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """(..., C*r*r, H, W) -> (..., C, H*r, W*r)."""
    _check_tensor("pixel_shuffle", "input", input)
    r = upscale_factor
    if input.ndim < 3 or input.shape[-3] % (r * r):
        raise ValueError(f"For 'pixel_shuffle', 'input' must have rank >= 3 and channels "
                         f"divisible by {r * r}, but got shape {tuple(input.shape)}.")
    lead, (c, h, w) = tuple(input.shape[:-3]), input.shape[-3:]
    y = A.reshape(input, (-1, c // (r * r), r, r, h, w))
    y = A.transpose(y, (0, 1, 4, 2, 5, 3))
    return A.reshape(y, lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """(..., C, H*r, W*r) -> (..., C*r*r, H, W)."""
    _check_tensor("pixel_unshuffle", "input", input)
    r = downscale_factor
    if input.ndim < 3 or input.shape[-1] % r or input.shape[-2] % r:
        raise ValueError(f"For 'pixel_unshuffle', 'input' must have rank >= 3 and H, W "
                         f"divisible by {r}, but got shape {tuple(input.shape)}.")
    lead, (c, h, w) = tuple(input.shape[:-3]), input.shape[-3:]
    y = A.reshape(input, (-1, c, h // r, r, w // r, r))
    y = A.transpose(y, (0, 1, 3, 5, 2, 4))
    return A.reshape(y, lead + (c * r * r, h // r, w // r))


def constant_pad(x, padding, value=0.0):
    """x padded with `value`: padding = (left, right) of the last dim, then of the one before
    ...; a negative amount crops. Concat of filled blocks and StridedSlice."""
    if isinstance(padding, Tensor):
        padding = tuple(int(p) for p in padding.asnumpy().reshape(-1))
    padding = tuple(int(p) for p in padding)
    if len(padding) % 2 or len(padding) > 2 * x.ndim:
        raise ValueError(f"For 'pad', 'padding' must hold pairs for at most {x.ndim} dims, but "
                         f"got {padding}.")
    value = 0.0 if value is None else value
    for i in range(len(padding) // 2):
        dim = x.ndim - 1 - i
        lo, hi = padding[2 * i], padding[2 * i + 1]
        if lo < 0 or hi < 0:
            n = x.shape[dim]
            x = _split_at("pad", x, [max(-lo, 0), n - max(-hi, 0)], dim)[1]
            lo, hi = max(lo, 0), max(hi, 0)
        parts = []
        for amount in (lo, None, hi):
            if amount is None:
                parts.append(x)
            elif amount > 0:
                shape = list(x.shape)
                shape[dim] = amount
                parts.append(A.fill(x.dtype, tuple(shape), value))
        x = A.concat(parts, dim) if len(parts) > 1 else x
    return x


def pad(input_x, padding, mode="constant", value=None):
    """ops.pad; only mode 'constant' (see constant_pad)."""
    _check_tensor("pad", "input_x", input_x)
    if mode != "constant":
        raise NotImplementedError(f"For 'pad', mode {mode!r} is not implemented in minispore; "
                                  f"only 'constant' is.")
    return constant_pad(input_x, padding, value)


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):  # noqa: A002
    """input with input[start:end] along axis replaced by src (step 1)."""
    _check_tensor("slice_scatter", "input", input)
    if step != 1:
        raise NotImplementedError("For 'slice_scatter', only step 1 is implemented in "
                                  "minispore.")
    axis = _dim("slice_scatter", axis, input.ndim)
    n = input.shape[axis]
    lo, hi, _ = slice(start, end).indices(n)
    head, _, tail = _split_at("slice_scatter", input, [lo, max(hi, lo)], axis)
    parts = [p for p in (head, A.cast(src, input.dtype), tail) if p.shape[axis] > 0]
    return A.concat(parts, axis) if len(parts) > 1 else parts[0]


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids of 1-D inputs ('xy': the first two dims swapped, as numpy)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', 'indexing' must be 'xy' or 'ij', but got "
                         f"{indexing!r}.")
    sizes = [t.shape[0] for t in inputs]
    if indexing == "xy" and len(inputs) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(inputs):
        pos = (1 if i == 0 else 0 if i == 1 else i) if indexing == "xy" and len(inputs) > 1 \
            else i
        shape = [1] * len(inputs)
        shape[pos] = t.shape[0]
        out.append(A.broadcast_to(A.reshape(t, tuple(shape)), tuple(sizes)))
    return tuple(out)


def cartesian_prod(*inputs):
    """All combinations of the 1-D inputs' elements, one per row."""
    grids = meshgrid(*inputs, indexing="ij")
    return _stack([A.reshape(g, (-1,)) for g in grids], 1)


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...]; maxlen defaults to max(lengths) (read eagerly: it
    sets the shape)."""
    _check_tensor("sequence_mask", "lengths", lengths)
    if maxlen is None:
        maxlen = int(np.max(lengths.asnumpy()))
    steps = Tensor(np.arange(int(maxlen), dtype=lengths.dtype.np_dtype))
    return M.less(steps, A.expand_dims(lengths, -1))


def repeat_interleave(input, repeats, axis=None):  # noqa: A002
    """Each element repeated `repeats` (an int) times along axis (the flattened input when
    None)."""
    _check_tensor("repeat_interleave", "input", input)
    if isinstance(repeats, Tensor):
        if repeats.size != 1:
            raise NotImplementedError("For 'repeat_interleave', only a single repeat count is "
                                      "implemented in minispore.")
        repeats = int(repeats.asnumpy().reshape(-1)[0])
    x = A.reshape(input, (-1,)) if axis is None else input
    axis = 0 if axis is None else _dim("repeat_interleave", axis, x.ndim)
    shape = tuple(x.shape)
    y = A.expand_dims(x, axis + 1)
    y = A.broadcast_to(y, shape[:axis + 1] + (int(repeats),) + shape[axis + 1:])
    return A.reshape(y, shape[:axis] + (shape[axis] * int(repeats),) + shape[axis + 1:])


def repeat_elements(x, rep, axis=0):
    return repeat_interleave(x, rep, axis)


def space_to_depth(x, block_size):
    """(N, C, H*b, W*b) -> (N, C*b*b, H, W), output channel (i*b + j)*C + c (TF's order)."""
    _check_tensor("SpaceToDepth", "x", x)
    n, c, h, w = x.shape
    b = block_size
    y = A.reshape(x, (n, c, h // b, b, w // b, b))
    y = A.transpose(y, (0, 3, 5, 1, 2, 4))
    return A.reshape(y, (n, c * b * b, h // b, w // b))


def take(input, indices):  # noqa: A002
    """The elements of the flattened input at indices."""
    _check_tensor("take", "input", input)
    return A.gather(A.reshape(input, (-1,)), indices, 0)


def index_select(input, axis, index):  # noqa: A002
    """input at the 1-D index along axis."""
    _check_tensor("index_select", "input", input)
    return A.gather(input, index, axis)
