"""General transforms (TypeCast, OneHot, Compose) and TensorOperation, the base of all ops."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.dataset import config
from minispore.dataset.engine.chunk import as_array


class TensorOperation:
    """A per-sample transform, callable on numpy arrays.

    Subclasses implement `_compute(*columns, rng)` on arrays whose axis 0 indexes samples, so
    a map can run them once over a whole chunk of rows; calling the op on one sample runs
    `_compute` on a batch of one. Random ops draw from `rng` (the pipeline's seeded generator).
    """

    def __call__(self, *arrays):
        if not arrays:
            raise TypeError(f"{type(self).__name__}: expected at least one input array.")
        batch = [as_array(a)[None] for a in arrays]
        out = self._compute(*batch, rng=self._eager_rng())
        if isinstance(out, tuple):
            # MindSpore's eager call returns a lone output column as the array itself
            return out[0][0] if len(out) == 1 else tuple(o[0] for o in out)
        return out[0]

    def _eager_rng(self):
        if getattr(self, "_rng", None) is None:
            self._rng = np.random.default_rng(config.seed_if_set())
        return self._rng

    def _compute(self, *columns, rng):
        raise NotImplementedError

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({attrs})"


class TypeCast(TensorOperation):
    """Cast to `data_type` (a minispore dtype such as mstype.int32, or a numpy dtype)."""

    def __init__(self, data_type):
        try:
            self.data_type = mstype.to_type(data_type)
        except TypeError as e:
            raise TypeError(f"TypeCast: {e}") from None

    def _compute(self, x, rng):
        return x.astype(self.data_type.np_dtype, copy=False)


class OneHot(TensorOperation):
    """Integer labels -> one-hot vectors of length num_classes (label smoothing optional).

    Output keeps the label dtype; with smoothing_rate > 0 it is float32 with
    (1 - rate) + rate/num_classes on the hot entry and rate/num_classes elsewhere.
    """

    def __init__(self, num_classes, smoothing_rate=0.0):
        if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be an int >= 1, got {num_classes!r}.")
        if not 0.0 <= float(smoothing_rate) <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate}.")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def _compute(self, x, rng):
        if x.dtype.kind not in "iu":
            raise TypeError(f"OneHot: labels must be integers, got {x.dtype}.")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must lie in [0, {self.num_classes}), got values in "
                             f"[{x.min()}, {x.max()}].")
        hot = x[..., None] == np.arange(self.num_classes)
        if self.smoothing_rate == 0.0:
            return hot.astype(x.dtype)
        off = np.float32(self.smoothing_rate / self.num_classes)
        return np.where(hot, np.float32(1.0 - self.smoothing_rate) + off, off)


class Compose:
    """Several transforms applied in order; map() expands it into its members."""

    def __init__(self, transforms):
        ops = list(transforms) if isinstance(transforms, (list, tuple)) else None
        if not ops or not all(callable(t) for t in ops):
            raise TypeError(f"Compose: transforms must be a non-empty list of callables, "
                            f"got {transforms!r}.")
        self.transforms = ops

    def __call__(self, *arrays):
        out = arrays
        for t in self.transforms:
            out = t(*out)
            out = out if isinstance(out, tuple) else (out,)
        return out if len(out) > 1 else out[0]

    def __repr__(self):
        return f"Compose({self.transforms!r})"


_FILL_TYPES = (str, float, bool, int, bytes)


def _type_check(op, name, value, types):
    """MindSpore's type_check: a TypeError naming the argument; bool is no int unless listed."""
    if (int in types and bool not in types and isinstance(value, bool)) or \
            not isinstance(value, types):
        raise TypeError(f"{op}: argument {name} with value {value!r} is not of type "
                        f"{[t.__name__ for t in types]}, but got {type(value).__name__}.")


def _is_text(dtype):
    return dtype.kind in "US"


def _scalar_for(op, value, dtype):
    """`value` cast to `dtype` as MindSpore's C++ cast does (C truncation and wrap-around);
    strings and numbers do not mix (RuntimeError, as MindSpore's pipeline raises)."""
    if isinstance(value, (str, bytes)) != _is_text(dtype):
        raise RuntimeError(f"{op}: fill value {value!r} and the input of dtype {dtype} must both "
                           f"be strings or both be numbers.")
    if _is_text(dtype):
        return np.array(value)
    return np.array(value).astype(dtype)


class Concatenate(TensorOperation):
    """Each 1-D sample becomes prepend ++ sample ++ append (axis must be 0 or -1).

    prepend and append are numpy 1-D arrays whose dtype must equal the input's (MindSpore casts
    nothing and raises; string arrays of any width go together).
    """

    def __init__(self, axis=0, prepend=None, append=None):
        _type_check("Concatenate", "axis", axis, (int,))
        if axis not in (0, -1):
            raise ValueError(f"Concatenate: only 1D concatenation supported, got axis {axis}.")
        for name, arr in (("prepend", prepend), ("append", append)):
            if arr is not None:
                _type_check("Concatenate", name, arr, (np.ndarray,))
                if arr.ndim != 1:
                    raise ValueError(f"Concatenate: can only {name} 1D arrays, got shape "
                                     f"{list(arr.shape)}.")
        self.axis, self.prepend, self.append = axis, prepend, append

    def _compute(self, x, rng):
        if x.ndim != 2:
            raise RuntimeError(f"Concatenate: only 1D input supported, got shape "
                               f"{list(x.shape[1:])}.")
        parts = [x]
        for name, arr in (("prepend", self.prepend), ("append", self.append)):
            if arr is None:
                continue
            if arr.size == 0:
                raise RuntimeError(f"Concatenate: an empty {name} array is not supported "
                                   f"(MindSpore fails copying it).")
            same = _is_text(arr.dtype) and _is_text(x.dtype) and arr.dtype.kind == x.dtype.kind
            if arr.dtype != x.dtype and not same:
                raise RuntimeError(f"Concatenate: input datatype {x.dtype} does not match the "
                                   f"{name} datatype {arr.dtype}.")
            block = np.broadcast_to(arr, (x.shape[0], arr.size))
            parts.insert(0 if name == "prepend" else len(parts), block)
        return np.concatenate(parts, axis=1)


class Duplicate(TensorOperation):
    """One column in, two equal columns out (copies)."""

    def __call__(self, *arrays):
        if len(arrays) != 1:
            raise RuntimeError(f"Duplicate: only supports transform one column each time, got "
                               f"{len(arrays)} columns.")
        return super().__call__(*arrays)

    def _compute(self, *columns, rng):
        if len(columns) != 1:
            raise RuntimeError(f"Duplicate: only supports transform one column each time, got "
                               f"{len(columns)} columns.")
        x = columns[0]
        return x, x.copy()


class Fill(TensorOperation):
    """Every element set to fill_value, cast to the input's dtype (shape and dtype kept)."""

    def __init__(self, fill_value):
        _type_check("Fill", "fill_value", fill_value, _FILL_TYPES)
        self.fill_value = fill_value

    def _compute(self, x, rng):
        value = _scalar_for("Fill", self.fill_value, x.dtype)
        if _is_text(x.dtype):
            return np.full(x.shape, value)
        return np.full(x.shape, value, x.dtype)


class PadEnd(TensorOperation):
    """Pad each sample at the end of every axis to pad_shape with pad_value (0, or '' for
    strings); a longer axis is truncated. pad_shape must have the sample's rank."""

    def __init__(self, pad_shape, pad_value=None):
        if pad_value is not None:
            _type_check("PadEnd", "pad_value", pad_value, _FILL_TYPES)
        _type_check("PadEnd", "pad_shape", pad_shape, (list,))
        for dim in pad_shape:
            if dim is None:
                continue
            _type_check("PadEnd", "pad_shape element", dim, (int,))
            if not 1 <= dim <= np.iinfo(np.int64).max:
                raise ValueError(f"PadEnd: pad_shape values must lie in [1, {np.iinfo(np.int64).max}"
                                 f"], got {dim}.")
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def _compute(self, x, rng):
        if x.ndim == 1:  # a scalar sample: MindSpore returns it unchanged
            return x
        if None in self.pad_shape:
            # MindSpore documents None as "keep this axis" but fails creating the output tensor.
            raise RuntimeError(f"PadEnd: Failed to create empty tensor for pad_shape "
                               f"{self.pad_shape}: None entries are not supported.")
        if len(self.pad_shape) != x.ndim - 1:
            raise RuntimeError(f"PadEnd: invalid pad shape {self.pad_shape}, as rank of input "
                               f"shape {list(x.shape[1:])} is not equal to it.")
        if self.pad_value is None:
            value = np.array("" if x.dtype.kind == "U" else b"") if _is_text(x.dtype) else \
                np.zeros((), x.dtype)
        else:
            if isinstance(self.pad_value, (str, bytes)) != _is_text(x.dtype):
                raise RuntimeError(f"PadEnd: can not pad numeric and string tensors (input "
                                   f"{x.dtype}, pad_value {self.pad_value!r}).")
            value = _scalar_for("PadEnd", self.pad_value, x.dtype)
        kept = x[(slice(None),) + tuple(slice(0, d) for d in self.pad_shape)]
        dtype = np.result_type(x.dtype, value.dtype) if _is_text(x.dtype) else x.dtype
        out = np.full((x.shape[0], *self.pad_shape), value, dtype)
        out[tuple(slice(0, s) for s in kept.shape)] = kept
        return out


def _slice_indices(spec, n):
    """The indices one Slice entry takes from an axis of length n, as MindSpore computes them."""
    if spec is True:
        return np.arange(n)
    if spec is False:
        raise RuntimeError("Slice: Both indices and slices can not be empty (got False).")
    if isinstance(spec, slice):
        # MindSpore accepts slice(stop), slice(start, stop) and slice(start, stop, step) only;
        # start and stop wrap once when negative and are then clamped into [0, n].
        start, stop, step = spec.start, spec.stop, spec.step
        valid = stop is not None and (start is not None or step is None) and step != 0
        if not valid:
            raise RuntimeError(f"Slice: Wrong slice object {spec}.")
        start, step = (0 if start is None else start), (1 if step is None else step)
        start, stop = (min(max(v + n if v < 0 else v, 0), n) for v in (start, stop))
        idx = np.arange(start, stop, step)
        if idx.size and (idx.max() >= n):
            raise RuntimeError(f"Slice: Not a valid index {int(idx.max())} for an axis of "
                               f"length {n}.")
        return idx
    if not spec:
        raise RuntimeError("Slice: Both indices and slices can not be empty.")
    idx = np.asarray(spec, np.int64)
    bad = (idx >= n) | (idx < -n)
    if bad.any():
        raise RuntimeError(f"Slice: Index {int(idx[bad][0] + (n if idx[bad][0] < 0 else 0))} "
                           f"is out of bounds.")
    return np.where(idx < 0, idx + n, idx)


class Slice(TensorOperation):
    """Select along each leading axis: an int or list of ints (negative allowed; an int keeps
    its axis, of length 1), a slice, or None / Ellipsis / True for the whole axis."""

    def __init__(self, *slices):
        specs = []
        for s in slices:
            if s is not None:
                _type_check("Slice", "slice", s, (int, list, slice, bool, type(Ellipsis)))
                if isinstance(s, list) and s and isinstance(s[0], int):
                    for i, v in enumerate(s):
                        _type_check("Slice", f"slice[{i}]", v, (int,))
                elif isinstance(s, list):
                    for i, v in enumerate(s):
                        _type_check("Slice", f"slice_option[{i}]", v, (int,))
            if s is None or s is Ellipsis:
                s = True
            elif isinstance(s, int) and not isinstance(s, bool):
                s = [s]
            specs.append(s)
        self.slices = specs

    def _compute(self, x, rng):
        if len(self.slices) > x.ndim - 1:
            raise RuntimeError(f"Slice: {len(self.slices)} slice entries for an input of rank "
                               f"{x.ndim - 1} (shape {list(x.shape[1:])}).")
        out = x
        for axis, spec in enumerate(self.slices, start=1):
            out = np.take(out, _slice_indices(spec, x.shape[axis]), axis=axis)
        return out
