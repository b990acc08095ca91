"""Element-wise gathers and scatters along one axis on the GPU (GatherD, MindSpore's
gather_elements, and TensorScatterElements): one thread per index element in a grid-stride
loop, after a range check whose first failing position (an atomic min) is read back on the
host so the caller can raise."""
import numpy as np
from numba import cuda

from . import launch


@cuda.jit
def _first_bad_kernel(index, dim_size, first):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, index.size, stride):
        if index[e] < -dim_size or index[e] >= dim_size:
            cuda.atomic.min(first, 0, e)


@cuda.jit(device=True)
def _offset(e, strides, index, index_shape, dim, dim_size):
    """The flat offset of index element e's position, its coordinate along dim replaced."""
    nd = index_shape.size
    rem = e
    off = 0
    for k in range(nd):
        d = nd - 1 - k
        c = rem % index_shape[d]
        rem //= index_shape[d]
        if d == dim:
            c = index[e]
            if c < 0:
                c += dim_size
        off += c * strides[d]
    return off


@cuda.jit
def _gather_d_kernel(x, x_strides, index, index_shape, dim, dim_size, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, index.size, stride):
        out[e] = x[_offset(e, x_strides, index, index_shape, dim, dim_size)]


@cuda.jit
def _scatter_put_kernel(out, out_strides, index, index_shape, updates, dim, dim_size):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, index.size, stride):
        out[_offset(e, out_strides, index, index_shape, dim, dim_size)] = updates[e]


@cuda.jit
def _scatter_add_kernel(out, out_strides, index, index_shape, updates, dim, dim_size):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, index.size, stride):
        # Repeated positions are added by several threads: the atomic keeps every add.
        cuda.atomic.add(out, _offset(e, out_strides, index, index_shape, dim, dim_size),
                        updates[e])


# The dtypes cuda.atomic.add takes (the accumulating scatter needs it).
_ATOMIC_ADD = (np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64)


def _launch(kern, total, *args):
    # Empty arrays are not launchable on every driver, and there is nothing to do.
    if total:
        blocks, threads = launch.elementwise(total)
        kern[blocks, threads](*args)


def first_out_of_range(index, dim_size):
    """The position of the first element of 1-d `index` outside [-dim_size, dim_size), or -1
    (reading that one word back synchronises with the device)."""
    if index.size == 0:
        return -1
    first = cuda.to_device(np.array([index.size], dtype=np.int64))
    _launch(_first_bad_kernel, index.size, index, np.int64(dim_size), first)
    pos = int(first.copy_to_host()[0])
    return -1 if pos == index.size else pos


def gather_d(x, x_strides, index, index_shape, dim, dim_size, out):
    """out[p] = x[p with p[dim] replaced by index[p]] for every position p of index.

    x: flat C-contiguous device buffer, x_strides its element strides (host int64); index:
    flat int32/int64 of shape index_shape (host int64), index_shape[d] <= x's extent for
    d != dim; out: flat, index.size elements. An index in [-dim_size, 0) counts from the end.
    Returns the position of the first index outside [-dim_size, dim_size) with nothing
    written, else -1 after one thread per index element has copied its element.
    """
    bad = first_out_of_range(index, dim_size)
    if bad >= 0:
        return bad
    _launch(_gather_d_kernel, index.size, x, launch.device_ints(x_strides), index,
            launch.device_ints(index_shape), np.int64(dim), np.int64(dim_size), out)
    return -1


def scatter_elements(out, out_strides, index, index_shape, updates, dim, dim_size, accumulate):
    """out[p with p[dim] replaced by index[p]] = updates[p] (+= when accumulate) for every
    position p of index: one thread per index element. Of repeated positions without
    accumulate, which update stays is not defined (the threads race); accumulating uses
    cuda.atomic.add (int32/int64/uint32/uint64/float32/float64 only: NotImplementedError
    otherwise), so float sums may vary in their last bits from run to run.

    out: flat C-contiguous device buffer holding the input, out_strides its element strides
    (host int64); index: flat int32/int64 of shape index_shape (host int64); updates: flat,
    index's size, out's dtype. Returns the position of the first index outside
    [-dim_size, dim_size) with nothing written, else -1.
    """
    if accumulate and out.dtype.type not in _ATOMIC_ADD:
        raise NotImplementedError(
            f"scatter_elements: an accumulating scatter of {out.dtype} on the GPU is not "
            f"implemented (cuda.atomic.add takes int32/int64/uint32/uint64/float32/float64).")
    bad = first_out_of_range(index, dim_size)
    if bad >= 0:
        return bad
    _launch(_scatter_add_kernel if accumulate else _scatter_put_kernel, index.size, out,
            launch.device_ints(out_strides), index, launch.device_ints(index_shape), updates,
            np.int64(dim), np.int64(dim_size))
    return -1
