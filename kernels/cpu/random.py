"""Random-operator CPU kernels that consume uniform draws made by the caller (seeded globally)."""
from numba import njit


@njit(cache=True)
def dropout(x, u, keep_prob, out, mask):
    """mask[i] = 1 if u[i] < keep_prob else 0;  out[i] = x[i] * mask[i] / keep_prob.

    Preconditions: x, out, mask C-contiguous, same shape and dtype; u C-contiguous uniform
    [0, 1) draws of the same size; keep_prob a scalar of x's dtype in (0, 1].
    """
    xf = x.reshape(x.size)
    uf = u.reshape(u.size)
    of = out.reshape(out.size)
    mf = mask.reshape(mask.size)
    zero = x.dtype.type(0)
    one = x.dtype.type(1)
    scale = one / keep_prob
    for i in range(xf.size):
        if uf[i] < keep_prob:
            mf[i] = one
            of[i] = xf[i] * scale
        else:
            mf[i] = zero
            of[i] = zero
