"""Creation functions composed of existing primitives: linspace, logspace, range, fills, and
MindSpore's primitives of the same (LinSpace, LogSpace, Range, Eye, FillV2, Fills).

linspace and logspace are ``start + i * step`` computed in the output dtype with Mul and Add
(MindSpore's kernel's arithmetic, so float32 answers agree bit for bit), hence
differentiable in start and stop and traceable; range's length depends on its bounds'
values, so it needs concrete bounds, as arange does."""
import math
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_prims import _composite
from minispore.ops.function.matrix_compose_func import eye as _eye

__all__ = ["linspace", "logspace", "range", "fills", "LinSpace", "LogSpace", "Range", "Eye",
           "FillV2", "Fills"]


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _scalar_tensor(name, arg, v, rank0=True):
    """v as a Tensor (a Python number becomes float32, or int64 for an int when ints are
    allowed by the caller); rank0: MindSpore's 'the rank of start must be 0'."""
    if isinstance(v, Tensor):
        if rank0 and v.ndim != 0:
            raise ValueError(f"For primitive[{name}], the rank of '{arg}' must be equal to 0, "
                             f"but got {v.ndim}.")
        return v
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a Tensor "
                        f"or a number, but got {type(v).__name__}.")
    return Tensor(np.float32(v))


def _ramp(start, step, num, dtype):
    """start + i * step for i in 0 .. num-1, in dtype."""
    index = Tensor(np.arange(num).astype(dtype.np_dtype), dtype)
    return M.add(M.mul(index, step), start)


def linspace(start, end, steps):
    """`steps` evenly spaced values from start to end inclusive: start + i * (end - start) /
    (steps - 1), in the dtype of start and end (float32 or float64 0-d Tensors, or numbers,
    taken as float32). MindSpore's checks: both of one float dtype, rank 0, steps a positive
    int (or an int 0-d Tensor)."""
    start = _scalar_tensor("LinSpace", "start", start)
    end = _scalar_tensor("LinSpace", "stop", end)
    if isinstance(steps, Tensor) and steps.dtype.is_int and steps.ndim == 0:
        steps = int(steps.asnumpy())
    if not _is_int(steps):
        raise TypeError(f"For primitive[LinSpace], 'num' must be an int, but got "
                        f"{type(steps).__name__}.")
    for arg, t in (("start", start), ("stop", end)):
        if t.dtype not in (mstype.float32, mstype.float64):
            raise TypeError(f"For primitive[LinSpace], the input argument[{arg} type] must be a "
                            f"type of {{Tensor[Float32], Tensor[Float64]}}, but got "
                            f"Tensor[{t.dtype}].")
    if start.dtype != end.dtype:
        raise TypeError(f"For primitive[LinSpace], the input type must be same: start is "
                        f"Tensor[{start.dtype}], stop is Tensor[{end.dtype}].")
    if steps <= 0:
        raise ValueError(f"For primitive[LinSpace], the num must be greater than 0, but got "
                         f"{steps}.")
    if steps == 1:
        return A.reshape(start, (1,))
    step = M.div(M.sub(end, start), Tensor(np.asarray(steps - 1, start.dtype.np_dtype)))
    return _ramp(start, step, int(steps), start.dtype)


_LOGSPACE_DTYPES = (mstype.float16, mstype.float32, mstype.float64)


def _check_logspace_attrs(steps, base, dtype):
    if not _is_int(steps):
        raise TypeError(f"For 'LogSpace', the type of 'steps' should be 'int', but got type "
                        f"'{type(steps).__name__}'.")
    if steps < 0:
        raise ValueError(f"For 'LogSpace', the 'steps' must be int and must >= 0, but got "
                         f"'{steps}' with type 'int'.")
    if not _is_int(base):
        raise TypeError(f"For 'LogSpace', the type of 'base' should be 'int', but got type "
                        f"'{type(base).__name__}'.")
    if base < 0:
        raise ValueError(f"For 'LogSpace', the 'base' must be int and must >= 0, but got "
                         f"'{base}' with type 'int'.")
    dtype = mstype.to_type(dtype)
    if dtype not in _LOGSPACE_DTYPES:
        raise TypeError(f"For 'LogSpace', the 'dtype' should be one of [mindspore.float16, "
                        f"mindspore.float32, mindspore.float64], but got "
                        f"'mindspore.{str(dtype).lower()}'.")
    return dtype


def logspace(start, end, steps, base=10, *, dtype=mstype.float32):
    """base ** linspace(start, end, steps), in `dtype` (float16/32/64): steps >= 0 values
    (0 gives an empty tensor), base a non-negative int. start and end: 0-d float Tensors of
    one dtype (or numbers, taken as float32). The exponents and powers are computed in float64
    and rounded once to `dtype`, as MindSpore's kernel does."""
    dtype = _check_logspace_attrs(steps, base, dtype)
    start = _scalar_tensor("LogSpace", "start", start, rank0=False)
    end = _scalar_tensor("LogSpace", "end", end, rank0=False)
    for arg, t in (("start", start), ("end", end)):
        if t.ndim != 0:
            raise ValueError(f"For LogSpace, The dim of {arg} must be 0, but got {t.ndim}")
        if t.dtype not in _LOGSPACE_DTYPES:
            raise TypeError(f"For primitive[LogSpace], the input argument[{arg}] must be a type "
                            f"of {{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got "
                            f"Tensor[{t.dtype}].")
    if start.dtype != end.dtype:
        raise TypeError(f"For primitive[LogSpace], the input type must be same: start is "
                        f"Tensor[{start.dtype}], end is Tensor[{end.dtype}].")
    if steps == 0:
        return Tensor(np.zeros((0,), dtype.np_dtype), dtype)
    exponents = linspace(A.cast(start, mstype.float64), A.cast(end, mstype.float64), steps)
    return A.cast(M.pow(Tensor(np.float64(base)), exponents), dtype)


def _range_value(arg, v):
    if isinstance(v, Tensor):
        if v.traced:
            raise NotImplementedError(f"ops.range with a traced '{arg}' (an output length that "
                                      f"depends on data) is not implemented in minispore; pass "
                                      f"Python numbers or concrete Tensors.")
        if v.size != 1:
            raise ValueError(f"For Range, '{arg}' must hold one value, but got shape "
                             f"{tuple(v.shape)}.")
        return v.asnumpy().reshape(()).item(), v.dtype
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"For Range, '{arg}' must be a Tensor, an int or a float, but got "
                        f"{type(v).__name__}.")
    return v, (mstype.int64 if isinstance(v, int) else mstype.float32)


def range(start, end, step, maxlen=1000000):  # noqa: A001 - MindSpore's name
    """[start, end) by `step`, as a 1-D Tensor: int64 when the bounds are ints (Python ints or
    integer Tensors), float32 when floats; the three must be of one dtype. Concrete values
    only (the length depends on them). MindSpore 2.7.2's CPU kernel ignores maxlen; so do we.

    Raises:
        TypeError: the bounds' dtypes differ.
        ValueError: step is 0, or points away from end.
    """
    values = [_range_value(n, v) for n, v in (("start", start), ("end", end), ("step", step))]
    dtypes = tuple(d for _, d in values)
    if len(set(dtypes)) != 1:
        raise TypeError(f"For Range, the dtypes of inputs must be the same, but got "
                        f"({', '.join(str(d) for d in dtypes)}).")
    (lo, _), (hi, _), (delta, _) = values
    if delta == 0:
        raise ValueError("For Range, delta cannot be equal to zero.")
    if hi < lo and delta > 0:
        raise ValueError("For Range, delta cannot be positive when limit < start.")
    if hi > lo and delta < 0:
        raise ValueError("For Range, delta cannot be negative when limit > start.")
    out = mstype.int64 if dtypes[0].is_int else mstype.float32
    if out.is_int:
        n = (abs(hi - lo) + abs(delta) - 1) // abs(delta)
        return Tensor(lo + np.arange(n, dtype=np.int64) * delta, out)
    lo, hi, delta = (np.float32(v) for v in (lo, hi, delta))
    n = int(math.ceil(abs((float(hi) - float(lo)) / float(delta))))
    return Tensor(lo + np.arange(n).astype(np.float32) * delta, out)


_FILLS_DTYPES = (mstype.float16, mstype.float32, mstype.int8, mstype.int16, mstype.int32)


def fills(x, value):
    """A tensor of x's shape and dtype filled with `value` (an int, a float, or a 0-d /
    one-element Tensor), converted to x's dtype. x: float16/float32/int8/int16/int32 (the
    dtypes of MindSpore's Fills)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'ops.fills', 'x' must be a Tensor, but got {type(x).__name__}.")
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Tensor)):
        raise TypeError(f"For 'ops.fills', the type of argument 'value' should be int, float or "
                        f"Tensor, but got {type(value)}")
    if x.dtype not in _FILLS_DTYPES:
        raise TypeError(f"For primitive[Fills], the input argument[x] must be a type of "
                        f"{{Tensor[Float16], Tensor[Float32], Tensor[Int16], Tensor[Int32], "
                        f"Tensor[Int8]}}, but got Tensor[{x.dtype}].")
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"For 'ops.fills', a Tensor 'value' must hold one element, but "
                             f"got shape {tuple(value.shape)}.")
        return A.broadcast_to(A.cast(A.reshape(value, ()), x.dtype), tuple(x.shape))
    return A.fill(x.dtype, tuple(x.shape), x.dtype.np_dtype.type(value).item())


def _fill_v2(shape, value):
    """FillV2()(shape, value): `shape` (a tuple, or an int Tensor of dims) filled with the
    0-d Tensor `value`, in value's dtype; differentiable in value."""
    if not isinstance(value, Tensor):
        raise TypeError(f"For Primitive[FillV2], the type of input argument[y] must be Tensor "
                        f"but got {type(value).__name__}.")
    if isinstance(shape, Tensor):
        shape = tuple(int(d) for d in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)) or not all(_is_int(d) and d >= 0 for d in shape):
        raise TypeError(f"For Primitive[FillV2], 'shape' must be a tuple of non-negative ints "
                        f"or an int Tensor, but got {shape!r}.")
    return A.broadcast_to(A.reshape(value, ()), tuple(int(d) for d in shape))


def _eye_prim(n, m, dtype):
    for arg, v in (("n", n), ("m", m)):
        if not _is_int(v):
            raise TypeError(f"For 'Eye', '{arg}' must be an int, but got {type(v).__name__}.")
        if v < 0:
            raise ValueError(f"Eye error: {arg} value can not be negative.")
    return _eye(int(n), int(m), dtype)


def _log_space_prim(start, end, steps=10, base=10, dtype=mstype.float32):
    return logspace(start, end, steps, base, dtype=dtype)


def _range_prim(start, end, step, maxlen=1000000):
    return range(start, end, step, maxlen)


LinSpace = _composite("LinSpace", linspace)
LogSpace = _composite("LogSpace", _log_space_prim,
                      (("steps", 10), ("base", 10), ("dtype", mstype.float32)),
                      doc="``ops.LogSpace(steps=10, base=10, dtype=float32)(start, end)``: "
                          "ops.logspace.")
Range = _composite("Range", _range_prim, (("maxlen", 1000000),),
                   doc="``ops.Range(maxlen=1000000)(start, end, step)``: ops.range.")
Eye = _composite("Eye", _eye_prim, doc="``ops.Eye()(n, m, dtype)``: the n x m identity.")
FillV2 = _composite("FillV2", _fill_v2)
Fills = _composite("Fills", fills)
