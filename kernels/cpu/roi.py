"""PSROIPooling CPU kernels (position-sensitive ROI average pooling, R-FCN): the forward and
MindSpore's PSROIPoolingGrad, each bin as kernels/roi_bins.py draws it (the forward reads rois
flat, the gradient as (batch, 5, rois_n)). Outputs and gradients are C-contiguous.
"""
from numba import njit

from ..roi_bins import ps_roi_bin, ps_roi_grad_bin

_bin = njit(cache=True)(ps_roi_bin)
_grad_bin = njit(cache=True)(ps_roi_grad_bin)


@njit(cache=True)
def ps_roi_pool(x, rois, scale, group, out):
    """out[n, c, ph, pw] = mean of x[batch(n), (c * g + ph) * g + pw] over bin (ph, pw) of roi
    n (0 for an empty bin). x: (N, C, H, W); rois: flat, 5 per roi; out: (R, D, g, g)."""
    R, D = out.shape[0], out.shape[1]
    H, W = x.shape[2], x.shape[3]
    zero = out.dtype.type(0)
    for n in range(R):
        for c in range(D):
            for ph in range(group):
                for pw in range(group):
                    b, h0, h1, w0, w1 = _bin(rois, n, ph, pw, scale, group, H, W)
                    channel = (c * group + ph) * group + pw
                    if h1 <= h0 or w1 <= w0:
                        out[n, c, ph, pw] = zero
                        continue
                    acc = zero
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            acc += x[b, channel, h, w]
                    out[n, c, ph, pw] = acc / ((h1 - h0) * (w1 - w0))


@njit(cache=True)
def ps_roi_pool_grad(dy, rois, scale, group, dx):
    """dx (zeros from the caller) += each dy[n, c, ph, pw] / bin area on every pixel of the
    gradient's bin (ph, pw) of roi n. dy: (R, D, g, g); rois: (batch, 5, rois_n); dx: (N, C,
    H, W)."""
    R, D = dy.shape[0], dy.shape[1]
    H, W = dx.shape[2], dx.shape[3]
    for n in range(R):
        for c in range(D):
            for ph in range(group):
                for pw in range(group):
                    b, h0, h1, w0, w1 = _grad_bin(rois, n, ph, pw, scale, group, H, W)
                    if h1 <= h0 or w1 <= w0:
                        continue
                    channel = (c * group + ph) * group + pw
                    share = dy[n, c, ph, pw] / ((h1 - h0) * (w1 - w0))
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            dx[b, channel, h, w] += share
