"""Array dtype conversion through the kernels (float16 by its bit patterns: Numba has no float16
on CPU). Below Primitive, whose float16-through-float32 wrapper uses it, and the Cast operator."""
import numpy as np

from minispore import device
from minispore.ops.kernel_registry import kernel


def cast_array(x, target):
    """x converted to numpy dtype `target`; float16 goes through the bit-pattern kernels
    (Numba has no float16 on CPU), everything else through the cast kernel."""
    x = device.contiguous(x)
    if x.dtype == np.float16:
        wide = device.empty(x.shape, np.float32)
        kernel("half", "half_to_float")(x.view(np.uint16), wide)
        if target == np.float32:
            return wide
        x = wide
    if target == np.float16:
        if x.dtype.kind != "f":
            x = cast_array(x, np.dtype(np.float64))
        bits = device.empty(x.shape, np.uint16)
        kernel("half", "float_to_half")(x, bits)
        return bits.view(np.float16)
    out = device.empty(x.shape, target)
    kernel("array", "cast")(x, out)
    return out
