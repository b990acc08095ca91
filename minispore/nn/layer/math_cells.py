"""MindSpore's matrix and image-metric cells over minispore's operators: MatrixDiag,
MatrixDiagPart, MatrixSetDiag, MatDet, MatInverse, Roll, PSNR, SSIM and MSSSIM (MindSpore 2.7.2's
CPU build refuses the first seven, "kernel select failed", so their behaviour follows its
documentation; SSIM and MSSSIM run there in GRAPH_MODE only, PyNative failing in ScalarCast, and
match those numbers; all run on both devices here)."""
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.container import CellList
from minispore.nn.layer.conv import Conv2d
from minispore.ops import functional as F

__all__ = ["MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatDet", "MatInverse", "Roll",
           "PSNR", "SSIM", "MSSSIM"]


def _tensor(cell, name, x, min_rank=0):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cell}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    if len(x.shape) < min_rank:
        raise ValueError(f"For '{cell}', '{name}' must have rank at least {min_rank}, but got "
                         f"shape {tuple(x.shape)}.")


class MatrixDiag(Cell):
    """x (..., n) -> (..., n, n) with x on the main diagonal, zeros elsewhere."""

    def construct(self, input_x):
        _tensor("MatrixDiag", "input_x", input_x, 1)
        return F.matrix_diag(input_x)


class MatrixDiagPart(Cell):
    """x (..., m, n) -> its main diagonal (..., min(m, n))."""

    def construct(self, input_x):
        _tensor("MatrixDiagPart", "input_x", input_x, 2)
        padding = Tensor(np.zeros((), input_x.dtype.np_dtype))
        return F.matrix_diag_part(input_x, Tensor(np.int32(0)), padding)


class MatrixSetDiag(Cell):
    """x (..., m, n) with its main diagonal replaced by `diagonal` (..., min(m, n))."""

    def construct(self, input_x, diagonal):
        _tensor("MatrixSetDiag", "input_x", input_x, 2)
        _tensor("MatrixSetDiag", "diagonal", diagonal, 1)
        return F.matrix_set_diag(input_x, diagonal)


class MatDet(Cell):
    """Determinants of the square matrices (..., n, n) -> (...)."""

    def construct(self, a):
        _tensor("MatDet", "a", a, 2)
        return F.det(a)


class MatInverse(Cell):
    """Inverses of the square matrices (..., n, n)."""

    def construct(self, a):
        _tensor("MatInverse", "a", a, 2)
        return F.inverse(a)


class Roll(Cell):
    """``Roll(shift, axis)``: x rolled by `shift` places along `axis` (ints, or equal-length
    lists), elements leaving one end entering at the other."""

    def __init__(self, shift, axis):
        super().__init__()
        shifts = list(shift) if isinstance(shift, (list, tuple)) else [shift]
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        for name, values in (("shift", shifts), ("axis", axes)):
            if not values or any(isinstance(v, bool) or not isinstance(v, int) for v in values):
                raise TypeError(f"For 'Roll', '{name}' must be an int or a non-empty list/tuple "
                                f"of ints, but got {shift if name == 'shift' else axis!r}.")
        if len(shifts) != len(axes):
            raise ValueError(f"For 'Roll', the shape of 'shift' and the shape of 'axis' must be "
                             f"the same, but got the length of 'shift' {len(shifts)} and the "
                             f"length of 'axis' {len(axes)}.")
        self.shift, self.axis = tuple(shifts), tuple(axes)

    def construct(self, input_x):
        _tensor("Roll", "input_x", input_x)
        return F.roll(input_x, self.shift, self.axis)


class PSNR(Cell):
    """``PSNR(max_val=1.0)(img1, img2)``: 10 log10(max_val^2 / MSE) per image of the NCHW
    batches (shape (N,)). Integer images are read as fractions of their dtype's maximum, as
    MindSpore converts them, and max_val likewise."""

    def __init__(self, max_val=1.0):
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
            raise TypeError(f"For 'PSNR', the 'max_val' must be int or float, but got "
                            f"{type(max_val).__name__}.")
        if max_val <= 0:
            raise ValueError(f"For 'PSNR', the 'max_val' must be > 0, but got {max_val}.")
        self.max_val = max_val

    def construct(self, img1, img2):
        for name, img in (("img1", img1), ("img2", img2)):
            _tensor("PSNR", name, img)
            if len(img.shape) != 4:
                raise ValueError(f"For 'PSNR', the dimension of '{name}' must be 4, but got "
                                 f"{len(img.shape)}.")
        if img1.dtype != img2.dtype:
            raise TypeError(f"For 'PSNR', 'img1' and 'img2' must have the same dtype, but got "
                            f"{img1.dtype} and {img2.dtype}.")
        scale = 1.0
        if img1.dtype in mstype.int_types:
            scale = float(np.iinfo(img1.dtype.np_dtype).max)
        max_val = self.max_val / scale
        a = F.div(F.cast(img1, mstype.float32), scale)
        b = F.div(F.cast(img2, mstype.float32), scale)
        mse = F.reduce_mean(F.square(F.sub(a, b)), (1, 2, 3))
        return F.mul(F.log(F.div(max_val * max_val, mse)), 10.0 / math.log(10.0))


def _check_float(cell, name, value, positive=False):
    if not isinstance(value, float):
        raise TypeError(f"For '{cell}', the type of '{name}' should be 'float', but got type "
                        f"'{type(value).__name__}'.")
    if positive and not value > 0:
        raise ValueError(f"For '{cell}', the '{name}' must be float and must > 0, but got "
                         f"'{value}' with type 'float'.")
    return value


def _check_max_val(cell, max_val):
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise TypeError(f"For '{cell}', the type of 'max_val' should be one of '['int', "
                        f"'float']', but got type '{type(max_val).__name__}'.")
    if not max_val > 0:
        raise ValueError(f"For '{cell}', the argument 'max_val' must > 0.0, but got {max_val}.")


def _check_filter_args(cell, filter_size, filter_sigma, k1, k2):
    if isinstance(filter_size, bool) or not isinstance(filter_size, int):
        raise TypeError(f"For '{cell}', the 'filter_size' must be int, but got "
                        f"'{type(filter_size).__name__}'")
    if filter_size < 1:
        raise ValueError(f"For '{cell}', the 'filter_size' must be int and must >= 1, but got "
                         f"'{filter_size}' with type 'int'.")
    _check_float(cell, "filter_sigma", filter_sigma, positive=True)
    _check_float(cell, "k1", k1)
    _check_float(cell, "k2", k2)


def _gaussian_conv(size, sigma):
    """A 1-in 1-out 'valid' Conv2d holding MindSpore's normalised size x size Gaussian (float32,
    offsets -size//2+1 .. size//2, so an even size leans right), frozen as MindSpore freezes it."""
    offsets = np.arange(-size // 2 + 1, size // 2 + 1).astype(np.float32) ** 2
    g = np.exp(-(offsets[:, None] + offsets[None, :]) / (2 * sigma ** 2))
    window = (g / np.sum(g)).reshape(1, 1, size, size)
    conv = Conv2d(1, 1, size, pad_mode="valid", weight_init=Tensor(window))
    conv.weight.requires_grad = False
    return conv


def _check_images(cell, img1, img2, dtypes):
    _tensor(cell, "img1", img1)
    _tensor(cell, "img2", img2)
    if img1.dtype not in dtypes:
        names = ", ".join(f"mindspore.{str(d).lower()}" for d in dtypes)
        raise TypeError(f"For '{cell}', the 'img1' should be one of [{names}], but got "
                        f"'mindspore.{str(img1.dtype).lower()}'.")
    for name, img in (("img1", img1), ("img2", img2)):
        if len(img.shape) != 4:
            raise ValueError(f"For '{cell}', the dimension of '{name}' must be 4d, but got "
                             f"{len(img.shape)}.")
    if img1.dtype != img2.dtype or tuple(img1.shape) != tuple(img2.shape):
        raise ValueError(f"For '{cell}', 'img1' and 'img2' must have the same dtype and shape, "
                         f"but got {img1.dtype}{tuple(img1.shape)} and "
                         f"{img2.dtype}{tuple(img2.shape)}.")


def _as_fractions(img, max_val):
    """img as float32 and max_val as a float, both divided by the dtype's maximum for integer
    images (uint8), as MindSpore reads them."""
    img32 = F.cast(img, mstype.float32)
    if img.dtype in mstype.int_types:
        scale = 1.0 / float(np.iinfo(img.dtype.np_dtype).max)
        return F.mul(img32, scale), max_val * scale
    return img32, float(max_val)


def _ssim_and_cs(conv, a, b, c1, c2):
    """Per-image, per-channel means of the SSIM map and of its contrast-structure factor, (N, C)
    each. Every channel is filtered alone: the batch and channel axes fold into one."""
    n, c, h, w = a.shape

    def blur(t):
        out = conv(F.reshape(t, (n * c, 1, h, w)))
        return F.reshape(out, (n, c) + tuple(out.shape[2:]))

    mu1, mu2 = blur(a), blur(b)
    mu1_sq, mu2_sq, mu1_mu2 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    sigma1_sq = blur(a * a) - mu1_sq
    sigma2_sq = blur(b * b) - mu2_sq
    sigma12 = blur(a * b) - mu1_mu2
    v1 = sigma12 * 2.0 + c2
    v2 = sigma1_sq + sigma2_sq + c2
    ssim = ((mu1_mu2 * 2.0 + c1) * v1) / ((mu1_sq + mu2_sq + c1) * v2)
    return F.reduce_mean(ssim, (2, 3)), F.reduce_mean(v1 / v2, (2, 3))


class SSIM(Cell):
    """``SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2)``:
    the mean over channels and 'valid' filter positions of

        ((2 mu1 mu2 + C1)(2 sigma12 + C2)) / ((mu1^2 + mu2^2 + C1)(sigma1^2 + sigma2^2 + C2)),

    the local means and (co)variances taken with a Gaussian window, C1 = (k1 max_val)^2,
    C2 = (k2 max_val)^2. img1, img2: NCHW float32/float16 of one shape, H and W >= filter_size;
    output float32 (N,). The window is the frozen Parameter 'conv.weight'."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        _check_max_val("SSIM", max_val)
        _check_filter_args("SSIM", filter_size, filter_sigma, k1, k2)
        self.max_val, self.filter_size, self.filter_sigma = max_val, filter_size, filter_sigma
        self.k1, self.k2 = k1, k2
        self.conv = _gaussian_conv(filter_size, filter_sigma)

    def construct(self, img1, img2):
        _check_images("SSIM", img1, img2, (mstype.float32, mstype.float16))
        for axis in (2, 3):
            if img1.shape[axis] < self.filter_size:
                raise ValueError(f"For 'SSIM', the img1 shape[{axis}] should be >= filter_size: "
                                 f"{self.filter_size}, but got {img1.shape[axis]}.")
        a, max_val = _as_fractions(img1, self.max_val)
        b, _ = _as_fractions(img2, self.max_val)
        ssim, _ = _ssim_and_cs(self.conv, a, b, (self.k1 * max_val) ** 2,
                               (self.k2 * max_val) ** 2)
        return F.reduce_mean(ssim, -1)


class MSSSIM(Cell):
    """``MSSSIM(max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
    filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2)``: multi-scale SSIM,

        mean over channels of  relu(ssim_L)^p_L * prod_{j<L} relu(cs_j)^p_j,

    scale j + 1 being scale j average-pooled 2x2 (stride 2), L = len(power_factors), ssim_j and
    cs_j SSIM's per-channel means and contrast-structure factor at scale j. img1, img2: NCHW
    float64/float32/float16/uint8 (uint8 and max_val read as fractions of 255) of one shape,
    H and W >= filter_size * 2^(L-1); output float32 (N,). Each scale's window is a frozen
    Parameter 'multi_convs_list.<j>.weight'."""

    _DTYPES = (mstype.float64, mstype.float32, mstype.float16, mstype.uint8)

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        _check_max_val("MSSSIM", max_val)
        if not isinstance(power_factors, (tuple, list)):
            raise TypeError(f"For 'MSSSIM', the type of 'power_factors' should be one of "
                            f"'['tuple', 'list']', but got type '{type(power_factors).__name__}'.")
        _check_filter_args("MSSSIM", filter_size, filter_sigma, k1, k2)
        if not power_factors:
            raise ValueError("For 'MSSSIM', 'power_factors' must not be empty.")
        self.max_val, self.filter_size, self.filter_sigma = max_val, filter_size, filter_sigma
        self.k1, self.k2 = k1, k2
        self.level = len(power_factors)
        self.multi_convs_list = CellList([_gaussian_conv(filter_size, filter_sigma)
                                          for _ in range(self.level)])
        self.weight_tensor = Tensor(np.asarray(power_factors, np.float32))

    def construct(self, img1, img2):
        _check_images("MSSSIM", img1, img2, self._DTYPES)
        least = self.filter_size * 2 ** (self.level - 1)
        if min(img1.shape[2:]) < least:
            raise ValueError(f"For 'MSSSIM', the height and width of 'img1' must be at least "
                             f"filter_size * 2^(len(power_factors) - 1) = {least}, but got "
                             f"shape {tuple(img1.shape)}.")
        a, max_val = _as_fractions(img1, self.max_val)
        b, _ = _as_fractions(img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        factors = []
        for j, conv in enumerate(self.multi_convs_list):
            ssim, cs = _ssim_and_cs(conv, a, b, c1, c2)
            if j + 1 < self.level:
                factors.append(F.relu(cs))
                a, b = F.avg_pool2d(a, 2, 2), F.avg_pool2d(b, 2, 2)
        factors.append(F.relu(ssim))
        weighted = F.pow(F.stack(factors, -1), self.weight_tensor)
        return F.reduce_mean(F.prod(weighted, -1), -1)
