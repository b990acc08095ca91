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
            mid = min(lo + width, R)
            hi = min(lo + 2 * width, R)
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
