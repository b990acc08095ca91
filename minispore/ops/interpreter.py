"""The eager interpreter: infer, run the kernel, wrap the result, and record on active tapes."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.context import context
from minispore.common.tensor import Tensor

_CTX = context()
_THREAD = _CTX._local


def apply_primitive(prim, args):
    """Run `prim` on `args` eagerly (PYNATIVE). Tensors go to the kernel as arrays; every other
    argument (axes, shapes, Python scalars the op accepts) goes through unchanged.
    While a graph tracer is active on this thread, the call is recorded by it instead."""
    tracer = _THREAD.tracer
    if tracer is not None:
        return tracer.apply(prim, args)
    out_aval = prim.infer(*args)
    arrays = [a._require_data() if isinstance(a, Tensor) else a for a in args]
    result = prim.impl(*arrays)
    if isinstance(out_aval, tuple):
        outs = tuple(Tensor(_as_array(r), av.dtype, internal=True)
                     for r, av in zip(result, out_aval))
    else:
        outs = Tensor(_as_array(result), out_aval.dtype, internal=True)
    tapes = _CTX.tapes
    if tapes and prim.differentiable:
        for tape in tapes:
            tape.record(prim, args, outs)
    return outs


def _as_array(result):
    # Numba ufuncs return numpy scalars for 0-d inputs; a Tensor always holds an array.
    if isinstance(result, np.generic):
        return np.asarray(result)
    return result


def to_tensor(value, like=None):
    """Turn a Python/numpy scalar operand into a Tensor, taking `like`'s dtype for numbers
    (so ``x * 2.0`` stays float32, as in MindSpore)."""
    if isinstance(value, Tensor):
        return value
    if like is not None and isinstance(value, (numbers.Number, np.generic)):
        dtype = like.dtype
        if dtype == mstype.bool_ or (dtype.is_int and isinstance(value, float)):
            dtype = mstype.float32 if isinstance(value, float) else mstype.int64
        return Tensor(np.asarray(value, dtype.np_dtype), dtype, internal=True)
    return Tensor(value)
