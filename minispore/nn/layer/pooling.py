"""Pooling layers: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d (NCHW)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.conv import _pair
from minispore.ops import functional as F
from minispore.ops.operations.conv_ops import AvgPool, MaxPool

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class _Pool2d(Cell):
    primitive = None

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", data_format="NCHW"):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.stride = _pair(name, "stride", stride)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid"):
            raise ValueError(f"For '{name}', 'pad_mode' must be 'same' or 'valid', but got "
                             f"{pad_mode!r}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', only data_format 'NCHW' is supported on CPU, but "
                             f"got {data_format!r}.")
        self.pad_mode = pad_mode.lower()
        self.data_format = data_format
        self.pool = self.primitive(self.kernel_size, self.stride, self.pad_mode, data_format)

    def construct(self, x):
        return self.pool(x)

    def extend_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode.upper()}")


class MaxPool2d(_Pool2d):
    """Max over kernel_size windows moved by stride; 'valid' gives floor((H - k) / s) + 1."""
    primitive = MaxPool


class AvgPool2d(_Pool2d):
    """Mean over kernel_size windows moved by stride."""
    primitive = AvgPool


def _bins(size, out):
    """(out, size) averaging matrix of adaptive pooling: row i averages
    [floor(i * size / out), ceil((i + 1) * size / out))."""
    m = np.zeros((out, size))
    for i in range(out):
        start, stop = (i * size) // out, -((-(i + 1) * size) // out)
        m[i, start:stop] = 1.0 / (stop - start)
    return m


class AdaptiveAvgPool2d(Cell):
    """Average pooling to a fixed output size over (N, C, H, W) or (C, H, W) input: output
    cell (i, j) averages rows [floor(i*H/oh), ceil((i+1)*H/oh)) and the same for columns.
    ``output_size``: an int (square) or a tuple of two, where None keeps that input dim.

    Computed as A_h @ x @ A_w^T with the averaging matrices A (two MatMuls), so it runs and
    differentiates in every mode; (1, 1) is a plain mean over H and W.
    """

    def __init__(self, output_size):
        super().__init__()
        if isinstance(output_size, int) and not isinstance(output_size, bool):
            output_size = (output_size, output_size)
        if not isinstance(output_size, tuple) or len(output_size) != 2 or not all(
                v is None or (isinstance(v, int) and not isinstance(v, bool) and v > 0)
                for v in output_size):
            raise ValueError(f"For 'AdaptiveAvgPool2d', 'output_size' must be a positive int or "
                             f"a tuple of two positive ints or None, but got {output_size!r}.")
        self.output_size = output_size

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'AdaptiveAvgPool2d', the input must be 3-D (C, H, W) or 4-D "
                             f"(N, C, H, W), but got shape {tuple(x.shape)}.")
        if x.dtype not in (mstype.float32, mstype.float64):
            raise TypeError(f"For 'AdaptiveAvgPool2d', the input dtype must be float32 or "
                            f"float64, but got {x.dtype}.")
        lead, (h, w) = tuple(x.shape[:-2]), tuple(x.shape[-2:])
        oh = self.output_size[0] or h
        ow = self.output_size[1] or w
        if (oh, ow) == (1, 1):
            return F.reduce_mean(x, (x.ndim - 2, x.ndim - 1), True)
        n = int(np.prod(lead))
        a_h = Tensor(_bins(h, oh).T.astype(x.dtype.np_dtype), x.dtype)   # (H, oh)
        a_w = Tensor(_bins(w, ow).T.astype(x.dtype.np_dtype), x.dtype)   # (W, ow)
        cols = F.reshape(F.matmul(F.reshape(x, (n * h, w)), a_w), (n, h, ow))
        rows = F.matmul(F.reshape(F.transpose(cols, (0, 2, 1)), (n * ow, h)), a_h)
        return F.reshape(F.transpose(F.reshape(rows, (n, ow, oh)), (0, 2, 1)), lead + (oh, ow))

    def extend_repr(self):
        return f"output_size={self.output_size}"
