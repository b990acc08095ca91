"""PSROIPooling CUDA kernels: device twins of kernels/cpu/roi.py (same names and arguments),
each bin drawn by the shared kernels/roi_bins.py (the forward reads rois flat, the
gradient as (batch, 5, rois_n), as MindSpore's kernels do). The forward runs one thread per output
element; the gradient one thread per output element too, adding its share to its bin's
pixels atomically (bins of neighbouring rois overlap).
"""
from numba import cuda

from ..roi_bins import ps_roi_bin, ps_roi_grad_bin
from . import launch

_bin = cuda.jit(device=True)(ps_roi_bin)
_grad_bin = cuda.jit(device=True)(ps_roi_grad_bin)


@cuda.jit
def _ps_roi_pool(x, rois, scale, group, zero, out):
    R, D = out.shape[0], out.shape[1]
    H, W = x.shape[2], x.shape[3]
    for i in range(cuda.grid(1), R * D * group * group, cuda.gridsize(1)):
        pw = i % group
        ph = (i // group) % group
        c = (i // (group * group)) % D
        n = i // (group * group * D)
        b, h0, h1, w0, w1 = _bin(rois, n, ph, pw, scale, group, H, W)
        channel = (c * group + ph) * group + pw
        acc = zero
        if h1 > h0 and w1 > w0:
            for h in range(h0, h1):
                for w in range(w0, w1):
                    acc += x[b, channel, h, w]
            acc = acc / ((h1 - h0) * (w1 - w0))
        out[n, c, ph, pw] = acc


@cuda.jit
def _ps_roi_pool_grad(dy, rois, scale, group, dx):
    R, D = dy.shape[0], dy.shape[1]
    H, W = dx.shape[2], dx.shape[3]
    for i in range(cuda.grid(1), R * D * group * group, cuda.gridsize(1)):
        pw = i % group
        ph = (i // group) % group
        c = (i // (group * group)) % D
        n = i // (group * group * D)
        b, h0, h1, w0, w1 = _grad_bin(rois, n, ph, pw, scale, group, H, W)
        if h1 > h0 and w1 > w0:
            channel = (c * group + ph) * group + pw
            share = dy[n, c, ph, pw] / ((h1 - h0) * (w1 - w0))
            for h in range(h0, h1):
                for w in range(w0, w1):
                    cuda.atomic.add(dx, (b, channel, h, w), share)


def ps_roi_pool(x, rois, scale, group, out):
    """See kernels/cpu/roi.py."""
    if out.size:
        blocks, threads = launch.elementwise(out.size)
        _ps_roi_pool[blocks, threads](x, rois, scale, group, out.dtype.type(0), out)


def ps_roi_pool_grad(dy, rois, scale, group, dx):
    """See kernels/cpu/roi.py (dx holds zeros)."""
    if dy.size:
        blocks, threads = launch.elementwise(dy.size)
        _ps_roi_pool_grad[blocks, threads](dy, rois, scale, group, dx)
