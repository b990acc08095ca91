"""IEEE binary16 <-> float conversion on uint16 bit patterns, on the GPU (device twins of
kernels/cpu/half.py: the same bit arithmetic, so rounding matches numpy's astype bit for bit).

float16 tensors reach these kernels as uint16 device views; one thread per element
(grid-stride over the flat arrays).
"""
import numpy as np
from numba import cuda

from .. import scalar
from . import launch


# The bit arithmetic is shared with kernels/cpu/half.py through kernels/scalar.py.
_half_bits_to_float = cuda.jit(device=True)(scalar.half_bits_to_float)
_float_to_half_bits = cuda.jit(device=True)(scalar.float_to_half_bits)


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
