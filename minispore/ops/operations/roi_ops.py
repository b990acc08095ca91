"""Position-sensitive ROI pooling (MindSpore's PSROIPooling, R-FCN's pooling) and its gradient,
PSROIPoolingGrad: each roi's group x group bins average one channel group each; the bins are
MindSpore's CPU kernel's (kernels/roi_bins.py says how, quirks included)."""
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_dtype, check_tensor, contiguous,
                                            float_dtypes)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["PSROIPooling", "PSROIPoolingGrad"]

_WHOLE_PLANES = "each roi's bins read any sample's whole feature plane"
_GRAD_DTYPES = (mstype.float16, mstype.float32)


def _check_attrs(name, spatial_scale, group_size, output_dim):
    if isinstance(spatial_scale, bool) or not isinstance(spatial_scale, numbers.Real):
        raise TypeError(f"For '{name}', 'spatial_scale' must be a float, but got "
                        f"{type(spatial_scale).__name__}.")
    if spatial_scale <= 0:
        raise ValueError(f"For '{name}', 'spatial_scale' must be positive, but got "
                         f"{spatial_scale}.")
    for arg, value in (("group_size", group_size), ("output_dim", output_dim)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For '{name}', '{arg}' must be an int, but got "
                            f"{type(value).__name__}.")
        if value <= 0:
            raise ValueError(f"For '{name}', '{arg}' must be positive, but got {value}.")
    return float(spatial_scale), group_size, output_dim


class _PSROIBase(Primitive):
    float16_in_float32 = True
    sharding_rule = rules.replicate_only(_WHOLE_PLANES)

    def _check_rois(self, rois):
        check_tensor(self, "rois", rois)
        check_dtype(self, "rois", rois, float_dtypes(self))
        if rois.ndim != 3 or rois.shape[1] != 5:
            raise self.error(f"'rois' must have shape (batch, 5, rois_n), but got "
                             f"{tuple(rois.shape)}.", RuntimeError)

    def _check_batch_indices(self, ids, batch):
        """MindSpore's kernels index the batch with these unchecked (a wild write in its
        gradient); minispore refuses them, naming the first."""
        bad = (ids < 0) | (ids >= batch)
        if bad.any():
            raise self.error(f"the batch index of roi {int(bad.argmax())} is "
                             f"{float(ids[bad.argmax()]):g}, out of range [0, {batch}).")

    def _scale(self, rois):
        """spatial_scale in the rois' type: the bins are computed in it, as MindSpore does."""
        return rois.dtype.type(self.spatial_scale)


class PSROIPooling(_PSROIBase):
    """``PSROIPooling(spatial_scale, group_size, output_dim)(features, rois)``: features
    (N, output_dim * group_size², H, W), rois (N, 5, rois_n) of (batch index, x1, y1, x2, y2)
    rows; out (N * rois_n, output_dim, group_size, group_size), out[r, c, i, j] the mean of
    channel (c * group_size + i) * group_size + j of sample batch(r) over bin (i, j) of roi r.

    Raises:
        RuntimeError: the shapes disagree as MindSpore's checks say (its error type).
        ValueError: a roi's batch index is outside the batch.
    """

    def __init__(self, spatial_scale, group_size, output_dim):
        super().__init__()
        self.spatial_scale, self.group_size, self.output_dim = _check_attrs(
            self.name, spatial_scale, group_size, output_dim)
        for key in ("spatial_scale", "group_size", "output_dim"):
            self.add_prim_attr(key, getattr(self, key))

    def infer(self, features, rois):
        check_tensor(self, "features", features)
        check_dtype(self, "features", features, float_dtypes(self))
        self._check_rois(rois)
        g = self.group_size
        if features.ndim != 4:
            raise self.error(f"'features' must be 4-D (N, C, H, W), but got shape "
                             f"{tuple(features.shape)}.", RuntimeError)
        if features.shape[1] != g * g * self.output_dim:
            raise self.error(f"the second dimension({features.shape[1]}) of the input "
                             f"'features' is illegal, it is not equal to group_size({g}) * "
                             f"group_size({g}) * output_dim({self.output_dim}).", RuntimeError)
        if features.shape[0] != rois.shape[0]:
            raise self.error(f"the batch number of input 'features' and 'rois' must be equal, "
                             f"but got: {features.shape[0]} and {rois.shape[0]} respectively.",
                             RuntimeError)
        return Aval((rois.shape[0] * rois.shape[2], self.output_dim, g, g), features.dtype)

    def impl(self, features, rois):
        g = self.group_size
        flat = contiguous(rois).reshape(-1)
        self._check_batch_indices(np.trunc(device.to_host(flat)[::5]), features.shape[0])
        out = device.empty((rois.shape[0] * rois.shape[2], self.output_dim, g, g),
                           features.dtype)
        kernel("roi", "ps_roi_pool")(contiguous(features), flat, self._scale(rois), g, out)
        return out

    def bprop(self, inputs, out, dout):
        features, rois = inputs
        grad = cached_op(PSROIPoolingGrad, tuple(features.shape[2:]), self.spatial_scale,
                         self.group_size, self.output_dim)
        return grad(dout, rois), None


class PSROIPoolingGrad(_PSROIBase):
    """``PSROIPoolingGrad(input_size, spatial_scale, group_size, output_dim)(dy, rois)``: the
    gradient of PSROIPooling with respect to its features, of shape (rois.shape[0],
    output_dim * group_size², *input_size): each dy value spread evenly over its bin. As in
    MindSpore, its bins are the forward's only for rois_n == 1 away from the last row and
    column (kernels/roi_bins.py); PSROIPooling's gradient is this operator, as MindSpore's is."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    def __init__(self, input_size, spatial_scale, group_size, output_dim):
        super().__init__()
        if isinstance(input_size, int) and not isinstance(input_size, bool):
            input_size = (input_size, input_size)
        if not isinstance(input_size, tuple) or len(input_size) != 2 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in input_size):
            raise TypeError(f"For '{self.name}', 'input_size' must be an int or a tuple of "
                            f"two ints (height, width), but got {input_size!r}.")
        if min(input_size) <= 0:
            raise ValueError(f"For '{self.name}', 'input_size' must be positive, but got "
                             f"{input_size}.")
        self.input_size = input_size
        self.spatial_scale, self.group_size, self.output_dim = _check_attrs(
            self.name, spatial_scale, group_size, output_dim)
        for key in ("input_size", "spatial_scale", "group_size", "output_dim"):
            self.add_prim_attr(key, getattr(self, key))

    def infer(self, dy, rois):
        check_tensor(self, "dy", dy)
        check_dtype(self, "dy", dy, _GRAD_DTYPES)   # MindSpore's gradient has no float64
        check_dtype(self, "rois", rois, _GRAD_DTYPES)
        self._check_rois(rois)
        g = self.group_size
        if dy.ndim != 4 or tuple(dy.shape[2:]) != (g, g):
            raise self.error(f"'dy' must have shape (rois, output_dim, {g}, {g}), but got "
                             f"{tuple(dy.shape)}.", RuntimeError)
        if dy.shape[0] != rois.shape[0] * rois.shape[2]:
            raise self.error(f"input[0].shape[0]({dy.shape[0]}) should be equal to "
                             f"input[1].shape[0]({rois.shape[0]}) * input[1].shape[2]"
                             f"({rois.shape[2]}).", RuntimeError)
        if dy.shape[1] != self.output_dim:
            raise self.error(f"the channel of input feature is invalid, got: {dy.shape[1]}, "
                             f"must be equal to output_dim: {self.output_dim}.")
        return Aval((rois.shape[0], self.output_dim * g * g) + self.input_size, dy.dtype)

    def impl(self, dy, rois):
        g = self.group_size
        self._check_batch_indices(np.trunc(device.to_host(rois)[:, 0, :].reshape(-1)),
                                  rois.shape[0])
        dx = device.zeros((rois.shape[0], self.output_dim * g * g) + self.input_size, dy.dtype)
        kernel("roi", "ps_roi_pool_grad")(contiguous(dy), contiguous(rois), self._scale(rois),
                                          g, dx)
        return dx
