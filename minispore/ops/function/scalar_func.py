"""Python-scalar helpers of MindSpore's ops: is_nonzero (the truth of a one-element tensor) and
scalar_cast (a Python number converted to the Python type of an Int64, Float64 or Bool)."""
import numbers

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor

__all__ = ["is_nonzero", "scalar_cast"]


def is_nonzero(input):  # noqa: A002 - MindSpore's argument name
    """bool(input) for a Tensor of exactly one element (it reads the value, so it runs eagerly
    only)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For is_nonzero, the input must be a Tensor, but got "
                        f"{type(input).__name__}.")
    if input.size != 1:
        raise ValueError(f"For is_nonzero, the numel of input must be 1, but got {input.size}.")
    return bool(input.asnumpy().reshape(()))


_CASTS = {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}


def scalar_cast(input_x, input_y):
    """input_x (a Python bool or number) as input_y's Python type: int for mindspore.int64
    (truncated toward zero), float for mindspore.float64, bool for mindspore.bool_."""
    if isinstance(input_x, Tensor) or not isinstance(input_x, (bool, numbers.Number)):
        raise TypeError(f"For 'ScalarCast', the type of 'x' should be one of '['bool', "
                        f"'Number']', but got type '{type(input_x).__name__}'.")
    cast = _CASTS.get(input_y)
    if cast is None:
        raise ValueError(f"For 'ScalarCast', the supported type is in the list: "
                         f"[mindspore.int64, mindspore.float64, mindspore.bool], but got "
                         f"{input_y}")
    return cast(input_x)
