"""1-D, adaptive and power-average pooling, max unpooling, reflection / replication padding,
nearest upsampling and LRN cells, each one call of an ops function."""
from minispore.nn.cell import Cell
from minispore.ops import functional as F

__all__ = ["AvgPool1d", "MaxPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "Upsample", "LRN",
           "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]


def _positive_int(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"For '{name}', '{arg}' must be a positive int, but got {v!r}.")
    return v


class _Pool1d(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _positive_int(name, "kernel_size", kernel_size)
        self.stride = _positive_int(name, "stride", stride)
        if pad_mode.lower() != "valid" or padding or ceil_mode:
            raise NotImplementedError(f"For '{name}', only pad_mode 'valid' without padding "
                                      f"or ceil_mode is implemented in minispore.")


class AvgPool1d(_Pool1d):
    """Mean over kernel_size windows of the last dim moved by stride."""

    def construct(self, x):
        return F.avg_pool1d(x, self.kernel_size, self.stride)


class MaxPool1d(_Pool1d):
    """Max over kernel_size windows of the last dim moved by stride."""

    def construct(self, x):
        return F.max_pool1d(x, self.kernel_size, self.stride)


class _AdaptivePool1d(Cell):
    """Pooling of the last dim into output_size equal windows (MindSpore's cells require the
    length to divide evenly; ops.adaptive_*_pool1d take near-equal bins)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _positive_int(type(self).__name__, "output_size", output_size)

    def check(self, x):
        if x.shape[-1] % self.output_size:
            raise ValueError(f"For {type(self).__name__}, the input's last dimension must be "
                             f"divisible by output size {self.output_size}, but got "
                             f"{x.shape[-1]}.")


class AdaptiveAvgPool1d(_AdaptivePool1d):
    def construct(self, x):
        self.check(x)
        return F.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveMaxPool1d(_AdaptivePool1d):
    def construct(self, x):
        self.check(x)
        return F.adaptive_max_pool1d(x, self.output_size)


class AdaptiveMaxPool2d(Cell):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, x):
        return F.adaptive_max_pool2d(x, self.output_size, self.return_indices)


class LPPool1d(Cell):
    """(sum over each window of x^p)^(1/p) along the last dim."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = float(norm_type), kernel_size, stride

    def construct(self, x):
        return F.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride)


class LPPool2d(LPPool1d):
    """(sum over each window of x^p)^(1/p) over the last two dims."""

    def construct(self, x):
        return F.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride)


class _EdgePad(Cell):
    dims = None
    mirror = None

    def __init__(self, padding):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self.dims)
        if not isinstance(padding, (tuple, list)) or len(padding) != 2 * self.dims or any(
                isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in padding):
            raise ValueError(f"For '{name}', 'padding' must be a non-negative int or a tuple of "
                             f"{2 * self.dims} of them, but got {padding!r}.")
        self.padding = tuple(padding)

    def construct(self, x):
        pad = F.reflection_pad if self.mirror else F.replication_pad
        return pad(x, self.padding)


class ReflectionPad1d(_EdgePad):
    dims, mirror = 1, True


class ReflectionPad2d(_EdgePad):
    dims, mirror = 2, True


class ReflectionPad3d(_EdgePad):
    dims, mirror = 3, True


class ReplicationPad1d(_EdgePad):
    dims, mirror = 1, False


class ReplicationPad2d(_EdgePad):
    dims, mirror = 2, False


class ReplicationPad3d(_EdgePad):
    dims, mirror = 3, False


class Upsample(Cell):
    """Nearest-neighbour resize to `size` or by `scale_factor`."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode

    def construct(self, x):
        return F.upsample(x, self.size, self.scale_factor, self.mode)


class LRN(Cell):
    """Local response normalisation across channels."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        self.args = (depth_radius, bias, alpha, beta, norm_region)

    def construct(self, x):
        return F.lrn(x, *self.args)


class _Pool3d(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 ceil_mode=False, *args, **kwargs):
        super().__init__()
        if pad_mode.lower() != "valid" or padding or dilation != 1 or ceil_mode:
            raise NotImplementedError(f"For '{type(self).__name__}', only pad_mode 'valid' "
                                      f"without padding, dilation or ceil_mode is implemented "
                                      f"in minispore.")
        self.kernel_size, self.stride = kernel_size, stride


class MaxPool3d(_Pool3d):
    """Max over kernel_size boxes of (N, C, D, H, W) or (C, D, H, W) moved by stride."""

    def construct(self, x):
        return F.max_pool3d(x, self.kernel_size, self.stride)


class AvgPool3d(_Pool3d):
    """Mean over kernel_size boxes of (N, C, D, H, W) or (C, D, H, W) moved by stride."""

    def construct(self, x):
        return F.avg_pool3d(x, self.kernel_size, self.stride)


class AdaptiveAvgPool3d(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return F.adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool3d(Cell):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, x):
        return F.adaptive_max_pool3d(x, self.output_size, self.return_indices)


class _MaxUnpool(Cell):
    """``MaxUnpoolNd(kernel_size, stride=None, padding=0)(x, indices, output_size=None)``."""
    unpool = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return type(self).unpool(x, indices, self.kernel_size, self.stride, self.padding,
                                 output_size)


class MaxUnpool1d(_MaxUnpool):
    unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    unpool = staticmethod(F.max_unpool3d)


class _FractionalMaxPool(Cell):
    """Holds the arguments of ops.fractional_max_pool2d / 3d (the windows and the samples'
    meaning are described there) and applies `pool` with them."""
    pool = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, x):
        return self.pool(x, self.kernel_size, self.output_size, self.output_ratio,
                         self.return_indices, self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """``FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: ops.fractional_max_pool2d as a Cell."""
    pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPool):
    """``FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: ops.fractional_max_pool3d as a Cell."""
    pool = staticmethod(F.fractional_max_pool3d)
