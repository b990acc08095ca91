"""Indexing CPU kernels: gather, its scatter-add transpose (unsorted segment sum), one-hot, the
range check of class-index labels and the stable compaction of masked_select."""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def gather(params, indices, out, zero_out_of_range):
    """out[o, n, i] = params[o, indices[n], i].

    params: (outer, axis_dim, inner) C-contiguous; indices: 1-d int32/int64;
    out: (outer, indices.size, inner) C-contiguous. Loop nest: o, n, i (rows copied whole).
    An index outside [0, axis_dim) gives a zero row when zero_out_of_range, else the kernel
    writes nothing and returns that index's position; it returns -1 on success.
    """
    outer, dim, inner = params.shape
    n_idx = indices.size
    if not zero_out_of_range:
        for n in range(n_idx):
            if indices[n] < 0 or indices[n] >= dim:
                return n
    for o in range(np.uint64(outer)):
        for n in range(np.uint64(n_idx)):
            idx = indices[n]
            if idx < 0 or idx >= dim:
                for i in range(np.uint64(inner)):
                    out[o, n, i] = 0
                continue
            row = np.uint64(idx)
            for i in range(np.uint64(inner)):
                out[o, n, i] = params[o, row, i]
    return -1


@njit(cache=True)
def unsorted_segment_sum(x, segment_ids, out):
    """out[o, segment_ids[n], i] += x[o, n, i] for ids in [0, out.shape[1]); others are dropped.

    x: (outer, n, inner) C-contiguous; segment_ids: 1-d int32/int64 of size n;
    out: (outer, num_segments, inner) C-contiguous, zeroed here. Loop nest: o, n, i.
    """
    outer, n_ids, inner = x.shape
    num = out.shape[1]
    of = out.reshape(out.size)
    for k in range(of.size):
        of[k] = 0
    for o in range(np.uint64(outer)):
        for n in range(np.uint64(n_ids)):
            seg = segment_ids[n]
            if seg < 0 or seg >= num:
                continue
            row = np.uint64(seg)
            for i in range(np.uint64(inner)):
                out[o, row, i] += x[o, n, i]


# The loop above adds each segment's rows in increasing n: deterministic already (the CUDA
# module has a separate kernel for set_context(deterministic="ON")).
unsorted_segment_sum_deterministic = unsorted_segment_sum


@njit(cache=True)
def one_hot(indices, on_value, off_value, out):
    """out[o, d, i] = on_value if indices[o, i] == d else off_value.

    indices: (outer, inner) int32/int64 C-contiguous; out: (outer, depth, inner) C-contiguous;
    on_value/off_value scalars of out's dtype. Indices outside [0, depth) give an all-off row.
    """
    outer, depth, inner = out.shape
    of = out.reshape(out.size)
    for k in range(of.size):
        of[k] = off_value
    for o in range(np.uint64(outer)):
        for i in range(np.uint64(inner)):
            d = indices[o, i]
            if d >= 0 and d < depth:
                out[o, np.uint64(d), i] = on_value


@njit(cache=True)
def first_label_out_of_range(labels, num_classes, ignore_index):
    """The position of the first label outside [0, num_classes) other than ignore_index, or -1.

    Loop: one pass over n, stopping at the first bad label. labels: 1-d int32/int64
    C-contiguous; when no label is ignored the caller passes an in-range ignore_index (0).
    """
    for n in range(labels.size):
        lab = labels[n]
        if (lab < 0 or lab >= num_classes) and lab != ignore_index:
            return n
    return -1


@njit(cache=True)
def first_nonfinite(x):
    """The position of the first NaN or infinite element of x, or -1.

    Loop: one pass over n, stopping at the first. x: 1-d float32/float64 C-contiguous.
    """
    for n in range(x.size):
        if not math.isfinite(x[n]):
            return n
    return -1


def masked_offsets(mask):
    """(offsets, total) for masked_select: the start of each chunk's selected elements in the
    output, and how many elements mask selects. mask: 1-d bool. On the CPU the whole mask is
    one chunk (offsets == [0]); the CUDA twin cuts it into block-sized chunks."""
    return np.zeros(1, dtype=np.int64), int(np.count_nonzero(mask))


@njit(cache=True)
def masked_select(x, mask, offsets, out):
    """out[k] = x[i] for the k-th i (in order) with mask[i] True.

    x, mask: 1-d of one size (mask bool); offsets from masked_offsets; out: 1-d of the
    selected count. Loop: i serially (the output position is a running count).
    """
    k = offsets[0]
    for i in range(x.size):
        if mask[i]:
            out[k] = x[i]
            k += 1
