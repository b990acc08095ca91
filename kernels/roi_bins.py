"""The pooling bins of MindSpore's PSROIPooling and PSROIPoolingGrad, shared by
kernels/cpu/roi.py (njit) and kernels/cuda/roi.py (device functions), so CPU and GPU pool the
same pixels. Plain Python that calls no other function of ours: numba compiles each for either
target as it is.

MindSpore's CPU kernels, rule by rule. Both: coordinates times spatial_scale round half away
from zero; a roi is at least 0.1 wide and high; bin (ph, pw) spans rows from floor(ph * h / g)
to ceil((ph + 1) * h / g) past the roi's first row (columns alike). (Conditionals stand for
two-argument min/max, which numba's own CUDA target refuses.)
- The forward reads the rois buffer as rows of 5 (batch index, x1, y1, x2, y2), whatever its
  (batch, 5, rois_n) shape says, and clips a bin to [0, H - 1], so the last row and column
  are never pooled.
- The gradient reads roi r at rois[r // rois_n, :, r % rois_n], as the shape says, and clips
  to [0, H]. The two agree for rois_n == 1 away from the last row and column; elsewhere
  MindSpore's gradient is not the forward's derivative, and minispore's is MindSpore's.
"""
import math


def ps_roi_bin(rois, n, ph, pw, scale, group, height, width):
    """(batch index, first row, end row, first column, end column) of the forward's bin
    (ph, pw) of roi n, rois flat; `scale` has the rois' type, in which the bin arithmetic
    runs."""
    base = n * 5
    batch = int(rois[base])
    x1 = rois[base + 1] * scale
    y1 = rois[base + 2] * scale
    x2 = rois[base + 3] * scale
    y2 = rois[base + 4] * scale
    start_w = math.copysign(math.floor(abs(x1) + 0.5), x1)
    start_h = math.copysign(math.floor(abs(y1) + 0.5), y1)
    end_w = math.copysign(math.floor(abs(x2) + 0.5), x2)
    end_h = math.copysign(math.floor(abs(y2) + 0.5), y2)
    roi_h = end_h - start_h
    bin_h = (roi_h if roi_h > 0.1 else 0.1) / group
    roi_w = end_w - start_w
    bin_w = (roi_w if roi_w > 0.1 else 0.1) / group
    h0 = int(math.floor(ph * bin_h)) + int(start_h)
    h0 = 0 if h0 < 0 else (height - 1 if h0 > height - 1 else h0)
    h1 = int(math.ceil((ph + 1) * bin_h)) + int(start_h)
    h1 = 0 if h1 < 0 else (height - 1 if h1 > height - 1 else h1)
    w0 = int(math.floor(pw * bin_w)) + int(start_w)
    w0 = 0 if w0 < 0 else (width - 1 if w0 > width - 1 else w0)
    w1 = int(math.ceil((pw + 1) * bin_w)) + int(start_w)
    w1 = 0 if w1 < 0 else (width - 1 if w1 > width - 1 else w1)
    return batch, h0, h1, w0, w1


def ps_roi_grad_bin(rois, n, ph, pw, scale, group, height, width):
    """The gradient's bin (ph, pw) of roi n, rois (batch, 5, rois_n): as ps_roi_bin returns."""
    rois_n = rois.shape[2]
    b, j = n // rois_n, n % rois_n
    batch = int(rois[b, 0, j])
    x1 = rois[b, 1, j] * scale
    y1 = rois[b, 2, j] * scale
    x2 = rois[b, 3, j] * scale
    y2 = rois[b, 4, j] * scale
    start_w = math.copysign(math.floor(abs(x1) + 0.5), x1)
    start_h = math.copysign(math.floor(abs(y1) + 0.5), y1)
    end_w = math.copysign(math.floor(abs(x2) + 0.5), x2)
    end_h = math.copysign(math.floor(abs(y2) + 0.5), y2)
    roi_h = end_h - start_h
    bin_h = (roi_h if roi_h > 0.1 else 0.1) / group
    roi_w = end_w - start_w
    bin_w = (roi_w if roi_w > 0.1 else 0.1) / group
    h0 = int(math.floor(ph * bin_h + start_h))
    h0 = 0 if h0 < 0 else (height if h0 > height else h0)
    h1 = int(math.ceil((ph + 1) * bin_h + start_h))
    h1 = 0 if h1 < 0 else (height if h1 > height else h1)
    w0 = int(math.floor(pw * bin_w + start_w))
    w0 = 0 if w0 < 0 else (width if w0 > width else w0)
    w1 = int(math.ceil((pw + 1) * bin_w + start_w))
    w1 = 0 if w1 < 0 else (width if w1 > width else w1)
    return batch, h0, h1, w0, w1
