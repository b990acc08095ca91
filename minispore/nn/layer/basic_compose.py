"""Basic cells composed of existing primitives through ops' functional forms: Identity,
Linear, Tril/Triu, Norm, Moments, ReduceLogSumExp, L1Regularizer, the channel dropouts,
ChannelShuffle, PixelUnshuffle, ImageGradients, the constant pads, LGamma and DiGamma."""
import numbers

from minispore.nn.cell import Cell
from minispore.nn.layer.activation import get_activation
from minispore.nn.layer.basic import Dense
from minispore.nn.layer.conv import Conv2d
from minispore.nn.layer.normalization import BatchNorm1d, BatchNorm2d
from minispore.ops import functional as F

__all__ = ["Identity", "Linear", "Tril", "Triu", "Norm", "Moments", "ReduceLogSumExp",
           "L1Regularizer", "Dropout1d", "Dropout2d", "Dropout3d", "DropoutExt",
           "Dropout2dExt", "ChannelShuffle", "PixelUnshuffle", "ImageGradients", "ZeroPad2d",
           "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "DenseBnAct", "Conv2dBnAct",
           "LGamma", "DiGamma"]


class Identity(Cell):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, x):
        return x


class Linear(Dense):
    """y = x @ W.T + b (MindSpore's mint-style Dense): Linear(in_features, out_features,
    bias=True, weight_init=None, bias_init=None, dtype=None)."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        from minispore.common import dtype as mstype
        super().__init__(in_features, out_features, weight_init, bias_init, bias,
                         dtype=dtype or mstype.float32)


class Tril(Cell):
    """x with the elements above the k-th diagonal zeroed."""

    def construct(self, x, k=0):
        return F.tril(x, k)


class Triu(Cell):
    """x with the elements below the k-th diagonal zeroed."""

    def construct(self, x, k=0):
        return F.triu(x, k)


class Norm(Cell):
    """sqrt(sum(x^2)) over axis (all dims for ())."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return F.sqrt(F.reduce_sum(F.square(x), self.axis, self.keep_dims))


class LGamma(Cell):
    """log|Gamma(x)| elementwise (the Lgamma operator; MindSpore's cell evaluates its own
    Lanczos series, equal to within float32 rounding)."""

    def construct(self, x):
        return F.lgamma(x)


class DiGamma(Cell):
    """psi(x) = d/dx log Gamma(x) elementwise (the Digamma operator)."""

    def construct(self, x):
        return F.digamma(x)


class Moments(Cell):
    """(mean, variance) over axis (all dims when None); the population variance."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        self.axis = () if axis is None else axis
        self.keep_dims = bool(keep_dims)

    def construct(self, x):
        mean = F.reduce_mean(x, self.axis, True)
        var = F.reduce_mean(F.square(F.sub(x, F.stop_gradient(mean))), self.axis,
                            self.keep_dims)
        return (mean if self.keep_dims else F.reduce_mean(x, self.axis, False)), var


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over axis."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return F.logsumexp(x, self.axis, self.keep_dims)


class L1Regularizer(Cell):
    """scale * sum(|weights|); scale must be a positive number."""

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
            raise TypeError(f"For 'L1Regularizer', 'scale' must be a float, but got "
                            f"{type(scale).__name__}.")
        if scale <= 0:
            raise ValueError(f"For 'L1Regularizer', 'scale' must be > 0, but got {scale}.")
        self.scale = float(scale)

    def construct(self, weights):
        return F.mul(F.reduce_sum(F.abs(weights)), self.scale)


def _check_p(name, p):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"For '{name}', 'p' must be a float, but got {type(p).__name__}.")
    if not 0 <= p <= 1:
        raise ValueError(f"For '{name}', 'p' must be in [0, 1], but got {p}.")
    return float(p)


class DropoutExt(Cell):
    """Dropout(p) while training (each element zeroed with probability p, the rest scaled by
    1/(1-p)); the identity in inference."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _check_p(type(self).__name__, p)

    def construct(self, x):
        return F.dropout(x, self.p, self.training)


class _ChannelDropout(Cell):
    """Whole channels (dim 1 of an input of rank `rank`) zeroed with probability p while
    training, the rest scaled by 1/(1-p): a dropout mask drawn on ones of shape (N, C, 1, ...)
    broadcast over the channel. The identity in inference."""
    rank = None

    def __init__(self, p=0.5):
        super().__init__()
        self.p = _check_p(type(self).__name__, p)

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        if x.ndim not in self.rank:
            raise ValueError(f"For '{type(self).__name__}', the input must have rank in "
                             f"{self.rank}, but got {x.ndim}.")
        lead = 2 if x.ndim == max(self.rank) else 1
        shape = tuple(x.shape[:lead]) + (1,) * (x.ndim - lead)
        mask = F.dropout(F.ones(shape, x.dtype), self.p, True)
        return F.mul(x, mask)


class Dropout1d(_ChannelDropout):
    rank = (2, 3)


class Dropout2d(_ChannelDropout):
    rank = (3, 4)


class Dropout3d(_ChannelDropout):
    rank = (4, 5)


class Dropout2dExt(Dropout2d):
    def __init__(self, p=0.5, inplace=False):
        super().__init__(p)


class ChannelShuffle(Cell):
    """(N, C, ...) with its C = g * k channels reordered from (g, k) to (k, g)."""

    def __init__(self, groups):
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f"For 'ChannelShuffle', 'groups' must be a positive int, but got "
                             f"{groups!r}.")
        self.groups = groups

    def construct(self, x):
        return F.channel_shuffle(x, self.groups)


class PixelUnshuffle(Cell):
    """(..., C, H*r, W*r) -> (..., C*r*r, H, W)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, x):
        return F.pixel_unshuffle(x, self.downscale_factor)


class ImageGradients(Cell):
    """(dy, dx) of (N, C, H, W) images: forward differences along H and W, the last row
    (column) zero."""

    def construct(self, images):
        if images.ndim != 4:
            raise ValueError(f"For 'ImageGradients', 'images' must be 4-D, but got rank "
                             f"{images.ndim}.")
        n, c, h, w = images.shape
        dy = F.concat([F.diff(images, 1, 2), F.zeros((n, c, 1, w), images.dtype)], 2)
        dx = F.concat([F.diff(images, 1, 3), F.zeros((n, c, h, 1), images.dtype)], 3)
        return dy, dx


class _ConstantPad(Cell):
    """x padded with `value` on the last `dims` dims; padding is an int (every side) or a
    tuple (left, right, top, bottom, front, back), last dim first."""
    dims = None

    def __init__(self, padding, value=0.0):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self.dims)
        if not isinstance(padding, (tuple, list)) or len(padding) % 2 or \
                len(padding) > 2 * self.dims:
            raise ValueError(f"For '{name}', 'padding' must be an int or a tuple of up to "
                             f"{2 * self.dims} ints (pairs), but got {padding!r}.")
        self.padding = tuple(padding)
        self.value = value

    def construct(self, x):
        return F.constant_pad(x, self.padding, self.value)


class ConstantPad1d(_ConstantPad):
    dims = 1


class ConstantPad2d(_ConstantPad):
    dims = 2


class ConstantPad3d(_ConstantPad):
    dims = 3


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


def _act(activation):
    return get_activation(activation) if isinstance(activation, str) else activation


class DenseBnAct(Cell):
    """Dense, then BatchNorm1d when has_bn, then the activation (a name or a Cell)."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = has_bn
        self.batchnorm = BatchNorm1d(out_channels, eps, momentum) if has_bn else None
        self.activation = _act(activation)

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return x if self.activation is None else self.activation(x)


class Conv2dBnAct(Cell):
    """Conv2d, then BatchNorm2d when has_bn, then the activation (a name or a Cell)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", has_bn=False, momentum=0.997, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                           dilation, group, has_bias, weight_init, bias_init)
        self.has_bn = has_bn
        self.batchnorm = BatchNorm2d(out_channels, eps, momentum) if has_bn else None
        self.activation = _act(activation)

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return x if self.activation is None else self.activation(x)
