"""IEEE binary16 <-> float conversion on uint16 bit patterns, on the GPU (device twins of
kernels/cpu/half.py: the same bit arithmetic, so rounding matches numpy's astype bit for bit).

float16 tensors reach these kernels as uint16 device views; one thread per element
(grid-stride over the flat arrays).
"""
import math

import numpy as np
from numba import cuda

from . import launch


@cuda.jit(device=True)
def _half_bits_to_float(h):
    sign = -1.0 if (h >> 15) & 1 else 1.0
    exp = (h >> 10) & 0x1F
    mant = h & 0x3FF
    if exp == 0:                         # zero and subnormals: mant * 2**-24
        return sign * mant * 5.960464477539063e-08
    if exp == 31:
        return sign * math.inf if mant == 0 else math.nan
    return sign * (1.0 + mant / 1024.0) * 2.0 ** (exp - 15)


@cuda.jit(device=True)
def _round_half_even(v):
    f = math.floor(v)
    d = v - f
    if d > 0.5 or (d == 0.5 and f % 2 == 1):
        f += 1.0
    return f


@cuda.jit(device=True)
def _float_to_half_bits(x):
    """Round-to-nearest-even, like numpy's astype(float16); x is a float64."""
    if math.isnan(x):
        return np.uint16(0x7E00)
    sign = 0x8000 if (x < 0 or (x == 0 and math.copysign(1.0, x) < 0)) else 0
    a = abs(x)
    if a >= 65520.0:                     # the halfway point above 65504 rounds to inf
        return np.uint16(sign | 0x7C00)
    if a < 6.103515625e-05:              # below 2**-14: subnormal, in units of 2**-24
        # 1024 units carry into the smallest normal's bit pattern by themselves.
        return np.uint16(sign | int(_round_half_even(a / 5.960464477539063e-08)))
    m, e = math.frexp(a)                 # a = m * 2**e, m in [0.5, 1)
    exp = e - 1
    mant = int(_round_half_even((m * 2.0 - 1.0) * 1024.0))
    if mant == 1024:
        mant = 0
        exp += 1
    if exp + 15 >= 31:
        return np.uint16(sign | 0x7C00)
    return np.uint16(sign | ((exp + 15) << 10) | mant)


@cuda.jit
def _half_to_float(bits, out):
    """for i (grid-stride): out[i] = value of the half pattern bits[i]."""
    for i in range(cuda.grid(1), bits.size, cuda.gridsize(1)):
        out[i] = _half_bits_to_float(np.int64(bits[i]))


@cuda.jit
def _float_to_half(x, bits):
    """for i (grid-stride): bits[i] = the half pattern nearest x[i]."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        bits[i] = _float_to_half_bits(np.float64(x[i]))


def half_to_float(bits, out):
    """out.flat[i] = the value of half bit pattern bits.flat[i], in out's float dtype.

    bits: C-contiguous uint16 device array; out: C-contiguous float32/float64, same size.
    """
    if bits.size:
        blocks, threads = launch.elementwise(bits.size)
        _half_to_float[blocks, threads](launch.flat(bits), launch.flat(out))


def float_to_half(x, bits):
    """bits.flat[i] = the half bit pattern nearest x.flat[i] (ties to even; overflow to inf).

    x: C-contiguous float32/float64 device array; bits: C-contiguous uint16, same size.
    """
    if x.size:
        blocks, threads = launch.elementwise(x.size)
        _float_to_half[blocks, threads](launch.flat(x), launch.flat(bits))
