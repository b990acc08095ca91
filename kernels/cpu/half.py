"""IEEE binary16 <-> float conversion on uint16 bit patterns (Numba has no float16 on CPU).

float16 tensors reach these kernels as `arr.view(np.uint16)`; every other float16 operation
goes through float32 and comes back here, so this module is the one place rounding happens.
"""
import numpy as np
from numba import njit

from .. import scalar


# The bit arithmetic is shared with kernels/cuda/half.py through kernels/scalar.py.
_half_bits_to_float = njit(cache=True)(scalar.half_bits_to_float)
_float_to_half_bits = njit(cache=True)(scalar.float_to_half_bits)


@njit(cache=True)
def half_to_float(bits, out):
    """out.flat[i] = the value of half bit pattern bits.flat[i], in out's float dtype.

    Loop: for i (serial). bits: C-contiguous uint16; out: C-contiguous float32/float64, same size.
    """
    b = bits.reshape(bits.size)
    o = out.reshape(out.size)
    for i in range(b.size):
        o[i] = _half_bits_to_float(np.int64(b[i]))


@njit(cache=True)
def float_to_half(x, bits):
    """bits.flat[i] = the half bit pattern nearest x.flat[i] (ties to even; overflow to inf).

    Loop: for i (serial). x: C-contiguous float32/float64; bits: C-contiguous uint16, same size.
    """
    xf = x.reshape(x.size)
    b = bits.reshape(bits.size)
    for i in range(xf.size):
        b[i] = _float_to_half_bits(np.float64(xf[i]))
