"""Array CPU kernels: cast, fill, copies (shape-only ops such as reshape need no kernel)."""
from numba import njit


@njit(cache=True)
def cast(x, out):
    """out.flat[i] = out.dtype(x.flat[i]); x and out C-contiguous with equal sizes."""
    xf = x.ravel()
    of = out.reshape(out.size)
    for i in range(xf.size):
        of[i] = xf[i]


@njit(cache=True)
def fill(out, value):
    """out[...] = value (value already of out's dtype)."""
    of = out.reshape(out.size)
    for i in range(of.size):
        of[i] = value
