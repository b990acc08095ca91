"""Element-wise gathers and scatters along one axis (GatherD, MindSpore's gather_elements, and
TensorScatterElements): every index element names one position along `dim`; its other
coordinates are its own."""
import numpy as np
from numba import njit


@njit(cache=True)
def _first_out_of_range(index, dim_size):
    for e in range(index.size):
        if index[e] < -dim_size or index[e] >= dim_size:
            return e
    return -1


@njit(cache=True)
def _offset(e, index, index_shape, strides, dim, dim_size):
    """The flat offset, under `strides`, of index element e's position with its coordinate
    along dim replaced by index[e] (negative counted from the end); coordinates unravel from
    the last axis."""
    rem = np.int64(e)
    off = np.int64(0)
    for d in range(index_shape.size - 1, -1, -1):
        c = rem % index_shape[d]
        rem //= index_shape[d]
        if d == dim:
            c = np.int64(index[e])
            if c < 0:
                c += dim_size
        off += c * strides[d]
    return off


@njit(cache=True)
def gather_d(x, x_strides, index, index_shape, dim, dim_size, out):
    """out[p] = x[p with p[dim] replaced by index[p]] for every position p of index.

    x: flat C-contiguous buffer, x_strides its element strides (int64); index: flat int32/int64
    of shape index_shape (int64), with index_shape[d] <= x's extent for d != dim (the caller
    checked); out: flat, index.size elements. An index in [-dim_size, 0) counts from the end.
    Pass 1 finds the first index outside [-dim_size, dim_size) and returns its position with
    nothing written; pass 2 (loop over index elements, coordinates unravelled from the last
    axis) copies, and -1 is returned.
    """
    bad = _first_out_of_range(index, dim_size)
    if bad >= 0:
        return bad
    for e in range(index.size):
        out[e] = x[_offset(e, index, index_shape, x_strides, dim, dim_size)]
    return -1


@njit(cache=True)
def scatter_elements(out, out_strides, index, index_shape, updates, dim, dim_size, accumulate):
    """out[p with p[dim] replaced by index[p]] = updates[p] (+= when accumulate) for every
    position p of index, in increasing p (so of repeated positions the last update stays).

    out: flat C-contiguous buffer already holding the input, out_strides its element strides
    (int64); index: flat int32/int64 of shape index_shape (int64), index_shape[d] <= out's
    extent for d != dim (the caller checked); updates: flat, index's size, out's dtype. An
    index in [-dim_size, 0) counts from the end. Returns the position of the first index
    outside [-dim_size, dim_size) with nothing written, else -1.
    """
    bad = _first_out_of_range(index, dim_size)
    if bad >= 0:
        return bad
    for e in range(index.size):
        off = _offset(e, index, index_shape, out_strides, dim, dim_size)
        if accumulate:
            out[off] += updates[e]
        else:
            out[off] = updates[e]
    return -1
