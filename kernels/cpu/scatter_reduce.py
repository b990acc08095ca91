"""Row scatters with a reduction (MindSpore's Scatter*, ScatterNd*, TensorScatter*,
UnsortedSegmentMax/Min/Prod, IndexAdd, Inplace*): rows of `updates` combined, in index order,
into the rows of `out` that `index` names."""
from numba import njit

# The reductions, by code (ops/operations/scatter_reduce_ops.py names them).
UPDATE, ADD, SUB, MUL, DIV, MAX, MIN = range(7)


# error_model="numpy": an integer divided by 0 goes through the float quotient (+-inf, cast to
# the int type's minimum), as MindSpore's CPU ScatterNdDiv gives, instead of raising.
@njit(cache=True, error_model="numpy")
def combine(a, b, mode):
    """a combined with b by reduction `mode` (an integer quotient is truncated toward zero)."""
    if mode == 1:
        return a + b
    if mode == 2:
        return a - b
    if mode == 3:
        return a * b
    if mode == 4:
        return a / b
    if mode == 5:
        return a if a >= b else b
    if mode == 6:
        return a if a <= b else b
    return b


@njit(cache=True, error_model="numpy")
def scatter_rows(out, index, updates, mode):
    """out[o, index[j], c] = combine(out[o, index[j], c], updates[o, j, c]) for j in
    increasing order (so repeated rows fold every update in turn and UPDATE keeps the last).

    out: (O, R, C) C-contiguous, already holding the input; index: (n,) int32/int64; updates:
    (O, n, C), out's dtype. Returns the position of the first index outside [0, R) with
    nothing written, else -1. Serial: the order of repeated rows is MindSpore's CPU result.
    """
    rows = out.shape[1]
    for j in range(index.size):
        if index[j] < 0 or index[j] >= rows:
            return j
    for o in range(out.shape[0]):
        for j in range(index.size):
            r = index[j]
            for c in range(out.shape[2]):
                out[o, r, c] = combine(out[o, r, c], updates[o, j, c], mode)
    return -1
