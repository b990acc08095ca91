"""Random-operator CUDA kernels that consume uniform draws made by the caller (seeded globally).

The uniforms come from the host's generator (copied to the device by the caller), exactly as
for kernels/cpu/random.py, so a seeded run draws the same mask on either device.
"""
from numba import cuda

from .launch import elementwise


@cuda.jit
def _dropout_kernel(x, u, keep_prob, scale, out, mask):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.size, stride):
        if u[i] < keep_prob:
            mask[i] = 1
            out[i] = x[i] * scale
        else:
            mask[i] = 0
            out[i] = 0


def dropout(x, u, keep_prob, out, mask):
    """mask[i] = 1 if u[i] < keep_prob else 0;  out[i] = x[i] * mask[i] / keep_prob.

    One thread per element over the flat views. Preconditions: x, out, mask C-contiguous
    device arrays, same shape and dtype; u C-contiguous uniform [0, 1) draws of the same size;
    keep_prob a scalar of x's dtype in (0, 1].
    """
    if x.size:
        # 1 / keep_prob rounded in x's dtype once, as the CPU kernel scales.
        scale = x.dtype.type(1) / x.dtype.type(keep_prob)
        blocks, threads = elementwise(x.size)
        _dropout_kernel[blocks, threads](x.reshape(x.size), u.reshape(u.size), keep_prob, scale,
                                         out.reshape(out.size), mask.reshape(mask.size))
