"""Indexing CUDA kernels: gather, its scatter-add transpose (unsorted segment sum), one-hot, the
range check of class-index labels and the stable compaction of masked_select.

One thread per output (or input, for the scatter) element in a grid-stride loop with the
inner axis fastest, so a warp copies consecutive words of a row. masked_select works on
chunks of one block's size instead: a count per chunk, their prefix sums on the host (the
output's length must be known there anyway), then a block scan inside each chunk.
"""
import math

import numpy as np
from numba import cuda, int64

from . import launch
from .launch import elementwise

# A plain global (numba-cuda needs a compile-time size for shared arrays): one chunk of the
# mask per block, one element per thread; a power of two for the tree and the scan.
_CHUNK = launch.REDUCE_THREADS


@cuda.jit
def _first_bad_index_kernel(indices, dim, first):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for n in range(start, indices.size, stride):
        if indices[n] < 0 or indices[n] >= dim:
            cuda.atomic.min(first, 0, n)


@cuda.jit
def _first_bad_label_kernel(labels, num_classes, ignore_index, first):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for n in range(start, labels.size, stride):
        lab = labels[n]
        if (lab < 0 or lab >= num_classes) and lab != ignore_index:
            cuda.atomic.min(first, 0, n)


@cuda.jit
def _first_nonfinite_kernel(x, first):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for n in range(start, x.size, stride):
        if not math.isfinite(x[n]):
            cuda.atomic.min(first, 0, n)


@cuda.jit
def _gather_kernel(params, indices, out):
    outer, dim, inner = params.shape
    n_idx = indices.size
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, out.size, stride):
        i = e % inner
        n = (e // inner) % n_idx
        o = e // (inner * n_idx)
        idx = indices[n]
        if idx < 0 or idx >= dim:
            out[o, n, i] = 0
        else:
            out[o, n, i] = params[o, idx, i]


@cuda.jit
def _fill_kernel(flat_out, value):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, flat_out.size, stride):
        flat_out[e] = value


@cuda.jit
def _segment_sum_kernel(x, segment_ids, out):
    outer, n_ids, inner = x.shape
    num = out.shape[1]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, x.size, stride):
        i = e % inner
        n = (e // inner) % n_ids
        o = e // (inner * n_ids)
        seg = segment_ids[n]
        if seg >= 0 and seg < num:
            # Several n can share a segment: concurrent adds to one word need the atomic.
            cuda.atomic.add(out, (o, seg, i), x[o, n, i])


@cuda.jit
def _segment_sum_in_order_kernel(x, order, offsets, zero, out):
    outer, num, inner = out.shape
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, out.size, stride):
        i = e % inner
        seg = (e // inner) % num
        o = e // (inner * num)
        acc = zero
        for k in range(offsets[seg], offsets[seg + 1]):
            acc += x[o, order[k], i]
        out[o, seg, i] = acc


@cuda.jit
def _one_hot_kernel(indices, on_value, off_value, out):
    outer, depth, inner = out.shape
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, out.size, stride):
        i = e % inner
        d = (e // inner) % depth
        o = e // (inner * depth)
        out[o, d, i] = on_value if indices[o, i] == d else off_value


def _launch(kernel, total, *args):
    # Empty arrays are not launchable on every driver, and there is nothing to do.
    if total:
        blocks, threads = elementwise(total)
        kernel[blocks, threads](*args)


def gather(params, indices, out, zero_out_of_range):
    """out[o, n, i] = params[o, indices[n], i].

    params: (outer, axis_dim, inner) C-contiguous; indices: 1-d int32/int64;
    out: (outer, indices.size, inner) C-contiguous. An index outside [0, axis_dim) gives a zero
    row when zero_out_of_range, else nothing is written and the first such index's position is
    returned (a check kernel + a one-word copy to the host: the caller raises on it);
    returns -1 on success.
    """
    if not zero_out_of_range:
        first = cuda.to_device(np.array([indices.size], dtype=np.int64))
        _launch(_first_bad_index_kernel, indices.size, indices, params.shape[1], first)
        pos = int(first.copy_to_host()[0])
        if pos < indices.size:
            return pos
    _launch(_gather_kernel, out.size, params, indices, out)
    return -1


def unsorted_segment_sum(x, segment_ids, out):
    """out[o, segment_ids[n], i] += x[o, n, i] for ids in [0, out.shape[1]); others are dropped.

    x: (outer, n, inner) C-contiguous; segment_ids: 1-d int32/int64 of size n;
    out: (outer, num_segments, inner) C-contiguous, zeroed here. One thread per x element
    scatter-adding with cuda.atomic.add, so the float summation order (and the last bits of
    a float32 result) may vary from run to run.
    """
    _launch(_fill_kernel, out.size, out.reshape(out.size), out.dtype.type(0))
    _launch(_segment_sum_kernel, x.size, x, segment_ids, out)


def unsorted_segment_sum_deterministic(x, segment_ids, out):
    """unsorted_segment_sum with a fixed summation order (set_context(deterministic="ON")):
    each output element is one thread that adds its segment's rows in increasing n, the CPU
    kernel's order, so the result is the CPU result bit for bit and the same on every run. The
    ids go to the host for a stable argsort (the order and each segment's span come back):
    one synchronisation and O(n log n) host work per call, the price of determinism."""
    ids = segment_ids.copy_to_host()
    order = np.argsort(ids, kind="stable")
    offsets = np.searchsorted(ids[order], np.arange(out.shape[1] + 1)).astype(np.int64)
    _launch(_segment_sum_in_order_kernel, out.size, x, cuda.to_device(order.astype(np.int64)),
            cuda.to_device(offsets), out.dtype.type(0), out)


def one_hot(indices, on_value, off_value, out):
    """out[o, d, i] = on_value if indices[o, i] == d else off_value.

    indices: (outer, inner) int32/int64 C-contiguous; out: (outer, depth, inner) C-contiguous;
    on_value/off_value scalars of out's dtype. Indices outside [0, depth) give an all-off row.
    One thread per out element (every element written once: no fill pass).
    """
    _launch(_one_hot_kernel, out.size, indices, on_value, off_value, out)


def first_label_out_of_range(labels, num_classes, ignore_index):
    """The position of the first label outside [0, num_classes) other than ignore_index, or -1.

    labels: 1-d int32/int64; when no label is ignored the caller passes an in-range
    ignore_index (0). One thread per label, atomic.min keeps the first bad position; reading
    that one word back synchronises with the device.
    """
    first = cuda.to_device(np.array([labels.size], dtype=np.int64))
    _launch(_first_bad_label_kernel, labels.size, labels, num_classes, ignore_index, first)
    pos = int(first.copy_to_host()[0])
    return -1 if pos == labels.size else pos


def first_nonfinite(x):
    """The position of the first NaN or infinite element of 1-d float x, or -1 (one thread
    per element, atomic.min keeps the first; reading that word back synchronises)."""
    first = cuda.to_device(np.array([x.size], dtype=np.int64))
    _launch(_first_nonfinite_kernel, x.size, x, first)
    pos = int(first.copy_to_host()[0])
    return -1 if pos == x.size else pos


@cuda.jit
def _chunk_counts_kernel(mask, counts):
    """counts[c] = number of True in mask[c * _CHUNK:(c + 1) * _CHUNK] (block-stride over c)."""
    buf = cuda.shared.array(_CHUNK, int64)
    tid = cuda.threadIdx.x
    for c in range(cuda.blockIdx.x, counts.size, cuda.gridDim.x):
        i = c * _CHUNK + tid
        buf[tid] = 1 if i < mask.size and mask[i] else 0
        launch.tree_sum(buf, tid)
        if tid == 0:
            counts[c] = buf[0]
        cuda.syncthreads()  # buf[0] is read before the next chunk overwrites buf


@cuda.jit
def _compact_kernel(x, mask, offsets, out):
    """For chunk c (block-stride): an inclusive scan of its flags gives each selected element
    its rank inside the chunk; it goes to out[offsets[c] + rank - 1]."""
    buf = cuda.shared.array(_CHUNK, int64)
    tid = cuda.threadIdx.x
    for c in range(cuda.blockIdx.x, offsets.size, cuda.gridDim.x):
        i = c * _CHUNK + tid
        flag = 1 if i < mask.size and mask[i] else 0
        buf[tid] = flag
        cuda.syncthreads()  # every flag is stored before the scan reads its neighbours
        d = 1
        while d < _CHUNK:
            t = buf[tid - d] if tid >= d else 0
            cuda.syncthreads()  # every thread read its addend before any buf[tid] changes
            buf[tid] += t
            cuda.syncthreads()  # this step's sums are complete before the next step reads
            d *= 2
        if flag:
            out[offsets[c] + buf[tid] - 1] = x[i]
        cuda.syncthreads()  # the scan of this chunk is done before the next chunk's flags


def masked_offsets(mask):
    """(offsets, total) for masked_select: offsets[c] is where chunk c's selected elements
    start in the output (a device array), total how many mask selects. mask: 1-d bool. One
    block per chunk counts it (a shared tree sum); the counts come to the host for their
    prefix sums, which give the output's length."""
    chunks = max((mask.size + _CHUNK - 1) // _CHUNK, 1)
    counts = cuda.device_array(chunks, dtype=np.int64)
    _chunk_counts_kernel[min(chunks, launch.MAX_BLOCKS), _CHUNK](mask, counts)
    host = counts.copy_to_host()
    offsets = np.zeros(chunks, dtype=np.int64)
    np.cumsum(host[:-1], out=offsets[1:])
    return cuda.to_device(offsets), int(host.sum())


def masked_select(x, mask, offsets, out):
    """out[k] = x[i] for the k-th i (in order) with mask[i] True.

    x, mask: 1-d of one size (mask bool); offsets from masked_offsets; out: 1-d of the
    selected count. One block per chunk of the mask (see _compact_kernel).
    """
    if out.size:
        _compact_kernel[min(offsets.size, launch.MAX_BLOCKS), _CHUNK](x, mask, offsets, out)
