"""Unique values with padding (UniqueWithPad), CUDA kernel.

A single thread walks the input and searches the distinct values found so far: O(n * u) work
for n elements and u distinct values, serial, so it suits the small id lists this operator
takes in practice; the order of first occurrence it must keep makes the CPU kernel's hash map
the only pass that is not quadratic, and device hash maps are not written here.
"""
from numba import cuda


@cuda.jit
def _unique_with_pad_kernel(x, pad, y, idx):
    if cuda.grid(1) != 0:
        return
    u = 0
    for i in range(x.shape[0]):
        v = x[i]
        k = -1
        if v == v:      # a NaN equals nothing found before
            for j in range(u):
                if y[j] == v:
                    k = j
                    break
        if k < 0:
            k = u
            y[u] = v
            u += 1
        idx[i] = k
    for j in range(u, y.shape[0]):
        y[j] = pad


def unique_with_pad(x, pad, y, idx):
    """Same contract as the CPU kernel (kernels/cpu/unique.py); `pad` a scalar of x's dtype."""
    _unique_with_pad_kernel[1, 1](x, pad, y, idx)
