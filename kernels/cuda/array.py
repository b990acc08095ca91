"""Array CUDA kernels: cast, fill and the strided copy behind transpose, slicing, concat and tile
(device twins of kernels/cpu/array.py, same names and signatures)."""
import numpy as np
from numba import cuda

from . import launch


@cuda.jit
def _cast(x, out):
    """for i (grid-stride): out[i] = out.dtype(x[i]) (the store converts)."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = x[i]


def cast(x, out):
    """out.flat[i] = out.dtype(x.flat[i]); x and out C-contiguous device arrays, equal sizes."""
    if x.size:
        blocks, threads = launch.elementwise(x.size)
        _cast[blocks, threads](launch.flat(x), launch.flat(out))


@cuda.jit
def _scale(x, factor, out):
    """for i (grid-stride): out[i] = x[i] * factor[0]."""
    f = factor[0]
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = x[i] * f


def scale(x, factor, out):
    """out.flat[i] = x.flat[i] * factor[0] (the CPU twin's contract; factor a 1-element
    device array, read by the kernel: no host round trip)."""
    if x.size:
        blocks, threads = launch.elementwise(x.size)
        _scale[blocks, threads](launch.flat(x), launch.flat(factor), launch.flat(out))


@cuda.jit
def _fill(out, value):
    """for i (grid-stride): out[i] = value."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = value


def fill(out, value):
    """out[...] = value (value already of out's dtype, a numpy scalar)."""
    if out.size:
        blocks, threads = launch.elementwise(out.size)
        _fill[blocks, threads](launch.flat(out), value)


@cuda.jit
def _strided_copy(src, src_off, dst, dst_off, nd, shape, src_strides, dst_strides, total):
    """for i (grid-stride over prod(shape)): unravel i over shape (C order) into the index
    (i0..ik); dst[dst_off + sum i_j dst_strides[j]] = src[src_off + sum i_j src_strides[j]]."""
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        rem = i
        s = src_off
        d = dst_off
        for k in range(nd - 1, -1, -1):
            c = rem % shape[k]
            rem //= shape[k]
            s += c * src_strides[k]
            d += c * dst_strides[k]
        dst[d] = src[s]


def strided_copy(src, src_off, dst, dst_off, shape, src_strides, dst_strides):
    """Copy an n-d strided view of a flat device buffer into an n-d strided view of another.

    for every index (i0, ..., ik) < shape:
        dst[dst_off + sum(i_j * dst_strides[j])] = src[src_off + sum(i_j * src_strides[j])]

    src, dst: 1-d device buffers of one dtype; shape, src_strides, dst_strides: host int64
    arrays of equal length (index metadata, uploaded once per distinct value by
    launch.device_ints), strides in elements (negative for reversed slices, 0 for broadcast
    dims). The caller guarantees every computed offset lies inside its buffer. One thread per
    copied element (grid-stride); dst positions must be distinct (as for every CPU caller).
    """
    shape = np.asarray(shape, dtype=np.int64)
    total = int(np.prod(shape)) if shape.size else 1
    if total == 0:
        return
    blocks, threads = launch.elementwise(total)
    _strided_copy[blocks, threads](src, int(src_off), dst, int(dst_off), shape.size,
                                   launch.device_ints(shape), launch.device_ints(src_strides),
                                   launch.device_ints(dst_strides), total)
