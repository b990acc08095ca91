"""Sort and scan CUDA kernels (cumulative sum, cumulative max/min, stable sort, top-k, scatter
along an axis, binary search).

Device twins of kernels/cpu/sort.py, on the same C-contiguous (A, R, B) views. One thread per
line x[a, :, b] in a grid-stride loop over the A * B lines (launch.elementwise), with b
fastest so a warp's threads read neighbouring words; each thread runs the CPU kernel's
sequential algorithm on its line, so results match the CPU bit for bit (sums in the same
order, the same stable merge sort). No shared memory and no syncthreads(): lines are
independent. The merge sort's ping-pong buffers are global scratch the caller passes.
"""
from numba import cuda

from ..lines import cumextreme_line, cumsum_line, merge_sort_line, search_line
from . import launch


_cumsum_line = cuda.jit(device=True)(cumsum_line)
_cumextreme_line = cuda.jit(device=True)(cumextreme_line)
_merge_sort_line = cuda.jit(device=True)(merge_sort_line)
_search_line = cuda.jit(device=True)(search_line)


@cuda.jit
def _cumsum_lines(x, out, acc0, exclusive, reverse):
    """for line q = (a, b) (grid-stride): the running sum of cumsum_middle."""
    A, _, B = x.shape
    for q in range(cuda.grid(1), A * B, cuda.gridsize(1)):
        _cumsum_line(x, out, q // B, q % B, acc0, exclusive, reverse)


@cuda.jit
def _cumextreme_lines(x, values, indices, largest):
    """for line q = (a, b) (grid-stride): the running extreme of cumextreme_middle."""
    A, _, B = x.shape
    for q in range(cuda.grid(1), A * B, cuda.gridsize(1)):
        _cumextreme_line(x, values, indices, q // B, q % B, largest)


@cuda.jit
def _searchsorted_items(seq, values, out, right):
    """for item q = (a, j) of values (grid-stride): one binary search in row a of seq (row 0
    when seq has one row)."""
    A, V = values.shape
    shared = seq.shape[0] == 1
    for q in range(cuda.grid(1), A * V, cuda.gridsize(1)):
        a, j = q // V, q % V
        _search_line(seq, 0 if shared else a, values, out, a, j, right)


@cuda.jit
def _sort_lines(x, values, indices, work, descending):
    A, R, B = x.shape
    for q in range(cuda.grid(1), A * B, cuda.gridsize(1)):
        a, b = q // B, q % B
        if not _merge_sort_line(x, a, b, indices, work, descending):
            for r in range(R):
                indices[a, r, b] = work[a, r, b]
        for r in range(R):
            values[a, r, b] = x[a, indices[a, r, b], b]


@cuda.jit
def _topk_lines(x, values, indices, order, work):
    A, R, B = x.shape
    K = values.shape[1]
    for q in range(cuda.grid(1), A * B, cuda.gridsize(1)):
        a, b = q // B, q % B
        in_order = _merge_sort_line(x, a, b, order, work, True)
        for j in range(K):
            p = order[a, j, b] if in_order else work[a, j, b]
            indices[a, j, b] = p
            values[a, j, b] = x[a, p, b]


@cuda.jit
def _scatter_lines(dout, indices, dx):
    A, R, B = dx.shape
    K = dout.shape[1]
    for q in range(cuda.grid(1), A * B, cuda.gridsize(1)):
        a, b = q // B, q % B
        for r in range(R):
            dx[a, r, b] = 0
        for j in range(K):
            dx[a, indices[a, j, b], b] = dout[a, j, b]


def _lines(kernel, x, *args):
    A, _, B = x.shape
    if A * B:
        blocks, threads = launch.elementwise(A * B)
        kernel[blocks, threads](x, *args)


def cumsum_middle(x, out, acc0, exclusive, reverse):
    """out[a, r, b] = sum of x[a, s, b] over s <= r (s >= r when reverse; strictly when
    exclusive). One thread per line; `acc0` is a zero of the accumulation type (float64 or
    int64). Preconditions: x, out C-contiguous (A, R, B) device arrays of one dtype."""
    _lines(_cumsum_lines, x, out, acc0, exclusive, reverse)


def sort_middle(x, values, indices, work, descending):
    """Stable sort of every line x[a, :, b] into values and positions (see the CPU kernel).
    One thread per line. Preconditions: x, values (A, R, B) of one dtype; indices, work
    (A, R, B) of one integer dtype (work is scratch)."""
    _lines(_sort_lines, x, values, indices, work, descending)


def topk_middle(x, values, indices, order, work):
    """The k = values.shape[1] largest of every line, descending, ties by position (see the
    CPU kernel). One thread per line. Preconditions: x (A, R, B); values, indices (A, k, B);
    order, work (A, R, B) integer scratch; 1 <= k <= R."""
    _lines(_topk_lines, x, values, indices, order, work)


def scatter_middle(dout, indices, dx):
    """dx[a, indices[a, j, b], b] = dout[a, j, b], every other element 0. One thread per line
    of dx (its zeroing and writes stay in that thread: no races). Preconditions: dout,
    indices (A, K, B); dx C-contiguous (A, R, B) of dout's dtype; 0 <= indices < R."""
    A, _, B = dx.shape
    if A * B:
        blocks, threads = launch.elementwise(A * B)
        _scatter_lines[blocks, threads](dout, indices, dx)


def cumextreme_middle(x, values, indices, largest):
    """values[a, r, b] = max (min unless `largest`) of x[a, :r+1, b], indices its position
    (the last of equal values; a NaN wins). One thread per line. Preconditions: x, values
    C-contiguous (A, R, B) device arrays of one dtype; indices (A, R, B) of an integer dtype."""
    _lines(_cumextreme_lines, x, values, indices, largest)


def searchsorted_rows(seq, values, out, right):
    """out[a, j] = the insertion point of values[a, j] in row a of seq (row 0 when seq has one
    row); see the CPU kernel. One thread per value. Preconditions: seq (S, R) with S == 1 or
    S == A, values (A, V) of seq's dtype, out (A, V) of an integer dtype (device arrays)."""
    A, V = values.shape
    if A * V:
        blocks, threads = launch.elementwise(A * V)
        _searchsorted_items[blocks, threads](seq, values, out, right)
