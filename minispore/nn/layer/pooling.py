"""Pooling layers: MaxPool2d, AvgPool2d (NCHW)."""
from minispore.nn.cell import Cell
from minispore.nn.layer.conv import _pair
from minispore.ops.operations.conv_ops import AvgPool, MaxPool

__all__ = ["MaxPool2d", "AvgPool2d"]


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
