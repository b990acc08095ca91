"""Per-line bodies of the sort and scan kernels, shared by kernels/cpu/sort.py (njit) and
kernels/cuda/sort.py (device functions), written once like the bodies in scalar.py, so CPU and
GPU sum in the same order and order ties and NaNs identically. A line is x[a, :, b] of a
C-contiguous (A, R, B) view. Plain Python that calls no other function of ours: numba compiles
each for either target as it is.
"""


def cumsum_line(x, out, a, b, acc0, exclusive, reverse):
    """out[a, r, b] = sum of x[a, s, b] over s <= r (s >= r when reverse; strictly when
    exclusive), accumulated from acc0 (a zero of the accumulation type)."""
    R = x.shape[1]
    acc = acc0
    for i in range(R):
        r = R - 1 - i if reverse else i
        if exclusive:
            out[a, r, b] = acc
            acc += x[a, r, b]
        else:
            acc += x[a, r, b]
            out[a, r, b] = acc


def merge_sort_line(x, a, b, src, dst, descending):
    """Stable bottom-up merge sort of the positions 0..R-1 of line x[a, :, b] by value, with
    src[a, :, b] and dst[a, :, b] as ping-pong buffers; True when the sorted positions end in
    src, False when in dst. NaN counts as the largest value; ties keep input order."""
    R = x.shape[1]
    for r in range(R):
        src[a, r, b] = r
    width = 1
    in_src = True
    while width < R:
        if in_src:
            s, d = src, dst
        else:
            s, d = dst, src
        for lo in range(0, R, 2 * width):
            # Not min(): numba's own CUDA target refuses two-argument min (kernels/cuda/pool.py).
            mid = lo + width if lo + width < R else R
            hi = lo + 2 * width if lo + 2 * width < R else R
            i, j = lo, mid
            for k in range(lo, hi):
                take_right = False
                if j < hi:
                    if i >= mid:
                        take_right = True
                    else:
                        # Take from the right run only when strictly before: ties keep order.
                        u = x[a, s[a, j, b], b]
                        v = x[a, s[a, i, b], b]
                        if descending:
                            take_right = u > v or (u != u and v == v)
                        else:
                            take_right = u < v or (v != v and u == u)
                if take_right:
                    d[a, k, b] = s[a, j, b]
                    j += 1
                else:
                    d[a, k, b] = s[a, i, b]
                    i += 1
        in_src = not in_src
        width *= 2
    return in_src


def cumextreme_line(x, values, indices, a, b, largest):
    """values[a, r, b] = the max (min unless `largest`) of x[a, :r+1, b], indices[a, r, b] its
    position: of equal values the last (MindSpore's Cummax/Cummin take x[r] when it is >=
    (<=) the running one), and a NaN wins and stays, each later NaN moving the index."""
    R = x.shape[1]
    if R == 0:
        return
    best = x[a, 0, b]
    at = 0
    for r in range(R):
        v = x[a, r, b]
        if v != v:
            best = v
            at = r
        elif best == best and ((largest and v >= best) or (not largest and v <= best)):
            best = v
            at = r
        values[a, r, b] = best
        indices[a, r, b] = at


def search_line(seq, s, values, out, a, j, right):
    """out[a, j] = the number of elements of the line seq[s, :] that go before values[a, j]: a
    binary search (std::lower_bound's halving of a count, so an unsorted line gives what
    MindSpore's CPU kernel gives) for the first element >= the value (> with `right`). A
    comparison with NaN is false, so a NaN element counts as before every value and a NaN
    value goes after every element, as MindSpore 2.7 returns."""
    v = values[a, j]
    lo = 0
    n = seq.shape[1]
    while n > 0:
        half = n // 2
        e = seq[s, lo + half]
        before = not (e > v) if right else not (e >= v)
        if before:
            lo += half + 1
            n -= half + 1
        else:
            n = half
    out[a, j] = lo
