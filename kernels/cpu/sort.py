"""Sort and scan CPU kernels (cumulative sum, cumulative max/min, stable sort, top-k, scatter
along an axis, binary search).

Every kernel works on C-contiguous (A, R, B) views: R is the sorted or scanned axis, A the dims
before it, B the dims after it (B = 1 for the last axis). A "line" is x[a, :, b]; lines are
independent, and the CUDA twins in kernels/cuda/sort.py give one thread to each.

Ordering (sort, top-k): NaN counts as larger than every number (numpy's ascending order puts
it last); ties keep their input order in both directions (a stable sort).
"""
from numba import njit

from ..lines import cumextreme_line, cumsum_line, merge_sort_line, search_line

_cumsum_line = njit(cache=True)(cumsum_line)
_cumextreme_line = njit(cache=True)(cumextreme_line)
_merge_sort_line = njit(cache=True)(merge_sort_line)
_search_line = njit(cache=True)(search_line)


@njit(cache=True)
def cumsum_middle(x, out, acc0, exclusive, reverse):
    """out[a, r, b] = sum of x[a, s, b] over s <= r (s >= r when reverse; strictly when
    exclusive, so the first element of each line is 0).

    Loop nest: for a: for b: for r (one running sum per line). `acc0` is a zero of the
    accumulation type (float64 for floats, int64 for integers): float32 sums then match a
    float64 reference to ~1e-7 relative. Preconditions: x, out C-contiguous (A, R, B) of one
    dtype.
    """
    A, _, B = x.shape
    for a in range(A):
        for b in range(B):
            _cumsum_line(x, out, a, b, acc0, exclusive, reverse)


@njit(cache=True)
def sort_middle(x, values, indices, work, descending):
    """Stable sort of every line x[a, :, b]: values[a, r, b] is the r-th value in order and
    indices[a, r, b] its position in the line.

    Loop nest: for a: for b: a bottom-up merge sort of the positions (log2 R passes over the
    line), then a gather of the values. Preconditions: x, values C-contiguous (A, R, B) of one
    dtype; indices, work (A, R, B) of one integer dtype (work is scratch).
    """
    A, R, B = x.shape
    for a in range(A):
        for b in range(B):
            if not _merge_sort_line(x, a, b, indices, work, descending):
                for r in range(R):
                    indices[a, r, b] = work[a, r, b]
            for r in range(R):
                values[a, r, b] = x[a, indices[a, r, b], b]


@njit(cache=True)
def topk_middle(x, values, indices, order, work):
    """The k largest of every line x[a, :, b] in descending order (ties: the earlier position
    first), k = values.shape[1]: values[a, j, b] and their positions indices[a, j, b].

    Loop nest: for a: for b: the stable descending merge sort of sort_middle into the scratch
    buffers, then the first k positions gathered. Preconditions: x C-contiguous (A, R, B);
    values (A, k, B) of x's dtype, indices (A, k, B) and order, work (A, R, B) of one integer
    dtype; 1 <= k <= R.
    """
    A, R, B = x.shape
    K = values.shape[1]
    for a in range(A):
        for b in range(B):
            src = order if _merge_sort_line(x, a, b, order, work, True) else work
            for j in range(K):
                p = src[a, j, b]
                indices[a, j, b] = p
                values[a, j, b] = x[a, p, b]


@njit(cache=True)
def scatter_middle(dout, indices, dx):
    """dx[a, indices[a, j, b], b] = dout[a, j, b], every other element of dx 0: the gradient of
    a sort or top-k, whose positions are distinct within a line.

    Loop nest: for a: for b: zero the line, then for j: one write. Preconditions: dout,
    indices (A, K, B); dx C-contiguous (A, R, B) of dout's dtype; 0 <= indices < R.
    """
    A, R, B = dx.shape
    K = dout.shape[1]
    zero = dx.dtype.type(0)
    for a in range(A):
        for b in range(B):
            for r in range(R):
                dx[a, r, b] = zero
            for j in range(K):
                dx[a, indices[a, j, b], b] = dout[a, j, b]


@njit(cache=True)
def cumextreme_middle(x, values, indices, largest):
    """values[a, r, b] = max (min unless `largest`) of x[a, :r+1, b], indices[a, r, b] its
    position (the last of equal values; a NaN wins): Cummax / Cummin.

    Loop nest: for a: for b: for r (one running extreme per line). Preconditions: x, values
    C-contiguous (A, R, B) of one dtype; indices (A, R, B) of an integer dtype.
    """
    A, _, B = x.shape
    for a in range(A):
        for b in range(B):
            _cumextreme_line(x, values, indices, a, b, largest)


@njit(cache=True)
def searchsorted_rows(seq, values, out, right):
    """out[a, j] = the insertion point of values[a, j] in the sorted row seq[a, :] (the first
    position whose element is >= the value; > when `right`); a 1-row seq serves every row.

    Loop nest: for a: for j: a binary search (log2 R steps). Preconditions: seq (S, R) with
    S == 1 or S == A, values (A, V) of seq's dtype, out (A, V) of an integer dtype.
    """
    A, V = values.shape
    shared = seq.shape[0] == 1
    for a in range(A):
        for j in range(V):
            _search_line(seq, 0 if shared else a, values, out, a, j, right)
