"""Tensor.choose: elements picked from a list of choices by an index tensor, composed of
selects (exact for any values, inf and NaN included, and differentiable in the choices)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.operations.math_ops import broadcast_to

__all__ = ["choose"]

_MODES = ("clip", "wrap", "raise")


def choose(a, choices, mode="clip"):
    """out = choices[a[i]][i] with a and every choice broadcast together (numpy.choose).

    mode: 'clip' clamps indices into [0, n), 'wrap' takes them modulo n, 'raise' refuses an
    index outside [0, n) (it reads the indices, so it runs eagerly only). Float indices are
    truncated to integers, as MindSpore does.
    """
    if mode not in _MODES:
        raise ValueError(f"For 'Tensor.choose', 'mode' must be one of {list(_MODES)}, but got "
                         f"{mode!r}.")
    if isinstance(choices, Tensor):
        choices = list(A.split(choices, 1, 0)) if choices.ndim else [choices]
        choices = [A.squeeze(c, 0) for c in choices]
    if not isinstance(choices, (list, tuple)) or not choices:
        raise TypeError(f"For 'Tensor.choose', 'choices' must be a non-empty list, tuple or "
                        f"Tensor, but got {type(choices).__name__}.")
    choices = [c if isinstance(c, Tensor) else Tensor(np.asarray(c)) for c in choices]
    common = mstype.to_type(np.result_type(*(c.dtype.np_dtype for c in choices)))
    choices = [c if c.dtype == common else A.cast(c, common) for c in choices]
    n = len(choices)
    index = A.cast(a, mstype.int32) if a.dtype != mstype.int32 else a
    if mode == "clip":
        index = M.minimum(M.maximum(index, 0), n - 1)
    elif mode == "wrap":
        index = M.floor_mod(index, n)
    else:
        values = index.asnumpy()
        if values.size and (values.min() < 0 or values.max() >= n):
            raise ValueError(f"For 'Tensor.choose' with mode 'raise', every index must be in "
                             f"[0, {n}), but got values from {values.min()} to {values.max()}.")
    shape = np.broadcast_shapes(tuple(index.shape), *(tuple(c.shape) for c in choices))
    index = broadcast_to(index, shape)
    out = broadcast_to(choices[0], shape)
    for k in range(1, n):
        out = M.select(M.equal(index, k), broadcast_to(choices[k], shape), out)
    return out
