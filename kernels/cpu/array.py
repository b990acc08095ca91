"""Array CPU kernels: cast, fill, scale and the strided copy behind transpose, slicing, concat and
tile."""
import numpy as np
from numba import njit


@njit(cache=True)
def cast(x, out):
    """out.flat[i] = out.dtype(x.flat[i]); x and out C-contiguous with equal sizes."""
    xf = x.ravel()
    of = out.reshape(out.size)
    for i in range(xf.size):
        of[i] = xf[i]


@njit(cache=True)
def scale(x, factor, out):
    """out.flat[i] = x.flat[i] * factor[0]; x and out C-contiguous float32 or float64 of one
    dtype and size, factor a 1-element array of it (on the GPU it stays on the device).
    A plain loop LLVM vectorises: the mul ufunc broadcasting a 0-d factor ran 3x slower."""
    xf = x.ravel()
    of = out.reshape(out.size)
    f = factor[0]
    for i in range(xf.size):
        of[i] = xf[i] * f


@njit(cache=True)
def fill(out, value):
    """out[...] = value (value already of out's dtype)."""
    of = out.reshape(out.size)
    for i in range(of.size):
        of[i] = value


@njit(cache=True)
def strided_copy(src, src_off, dst, dst_off, shape, src_strides, dst_strides):
    """Copy an n-d strided view of a flat buffer into an n-d strided view of another.

    for every index (i0, ..., ik) < shape:
        dst[dst_off + sum(i_j * dst_strides[j])] = src[src_off + sum(i_j * src_strides[j])]

    src, dst: 1-d buffers of one dtype; shape, src_strides, dst_strides: int64 arrays of equal
    length, strides in elements (negative for reversed slices, 0 for broadcast dims). The
    caller guarantees every computed offset lies inside its buffer, so offsets are cast to
    unsigned (no wraparound checks in the inner loop). Transpose, strided slices and their
    gradient scatter, concat/split blocks, tile and broadcast are all one call of this.
    The odometer walks the outer dims; the innermost dim is a plain loop.
    """
    ndim = shape.size
    total = 1
    for k in range(ndim):
        total *= shape[k]
    if total == 0:
        return
    if ndim == 0:
        dst[np.uint64(dst_off)] = src[np.uint64(src_off)]
        return
    inner = shape[ndim - 1]
    ss = src_strides[ndim - 1]
    ds = dst_strides[ndim - 1]
    counter = np.zeros(ndim, np.int64)
    s = src_off
    d = dst_off
    for _ in range(total // inner):
        if ss == 1 and ds == 1:
            s0 = np.uint64(s)
            d0 = np.uint64(d)
            for j in range(np.uint64(inner)):
                dst[d0 + j] = src[s0 + j]
        else:
            for j in range(inner):
                dst[np.uint64(d + j * ds)] = src[np.uint64(s + j * ss)]
        k = ndim - 2
        while k >= 0:
            counter[k] += 1
            s += src_strides[k]
            d += dst_strides[k]
            if counter[k] < shape[k]:
                break
            s -= src_strides[k] * shape[k]
            d -= dst_strides[k] * shape[k]
            counter[k] = 0
            k -= 1
