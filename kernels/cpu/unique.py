"""Unique values with padding (UniqueWithPad), CPU kernel."""
from numba import njit


@njit(cache=True)
def unique_with_pad(x, pad, y, idx):
    """y[:u] = the distinct values of the 1-D x in order of first occurrence, y[u:] = pad;
    idx[i] = the position of x[i] in y.

    One pass with a hash map from value to position (NaNs compare unequal, so each NaN is a
    value of its own, as in MindSpore's CPU kernel).
    Preconditions: x, y, idx 1-D of the same length; y of x's dtype.
    """
    seen = {x[0]: 0} if x.shape[0] else {x.dtype.type(0): 0}
    seen.clear()
    u = 0
    for i in range(x.shape[0]):
        v = x[i]
        k = seen.get(v, -1)
        if k < 0 or v != v:
            k = u
            seen[v] = u
            y[u] = v
            u += 1
        idx[i] = k
    for j in range(u, y.shape[0]):
        y[j] = pad
