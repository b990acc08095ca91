"""mindspore.ops.operations._grad_ops' max-pool backward primitives, with MindSpore's
constructors: MaxPoolGradWithArgmax(V2) (the scatter-add kernel MaxPoolWithArgmax's bprop
runs) and the second-order MaxPoolGradGrad / MaxPoolGradGradWithArgmax / MaxPool3DGradGrad,
composed of an argmax (MaxPoolWithArgmaxV2's, or Argmax over the stacked windows in 3-D) and
GatherD: the maximum's position, then the incoming values there."""
import itertools

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.array_compose_func import constant_pad
from minispore.ops.function.index_func import gather_elements
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.conv_ops import _pair
from minispore.ops.operations.pool_argmax_ops import MaxPoolGradWithArgmax as _ScatterArgmax
from minispore.ops.operations.pool_argmax_ops import MaxPoolWithArgmaxV2

__all__ = ["MaxPoolGradWithArgmax", "MaxPoolGradWithArgmaxV2", "MaxPoolGradGrad",
           "MaxPoolGradGradWithArgmax", "MaxPool3DGradGrad"]


def _check_tensors(name, **tensors):
    for arg, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                            f"{type(t).__name__}.")
        if t.ndim != 4:
            raise ValueError(f"For '{name}', '{arg}' must be 4-D (NCHW), but got shape "
                             f"{tuple(t.shape)}.")


def _pad_mode(name, pad_mode):
    if not isinstance(pad_mode, str) or pad_mode.upper() not in ("VALID", "SAME"):
        raise ValueError(f"For '{name}', 'pad_mode' must be 'VALID' or 'SAME' (any case), but "
                         f"got {pad_mode!r}.")
    return pad_mode.upper()


def _data_format(name, data_format):
    if data_format != "NCHW":
        raise NotImplementedError(f"For '{name}', data_format {data_format!r} is not "
                                  f"implemented in minispore; only 'NCHW' is.")


def _check_argmax(name, argmax):
    # Shapes are the scatter primitive's to check (it knows dynamic dims).
    if argmax.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{name}', 'argmax' must be an int32 or int64 Tensor, but got "
                        f"{argmax.dtype}.")


class _Pool2DGrad:
    """kernel_size, strides, pad_mode and data_format as MindSpore's 2-D max-pool grads take
    them (an int, a pair or (1, 1, h, w))."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCHW"):
        self.name = type(self).__name__
        self.kernel_size = _pair(self.name, "kernel_size", kernel_size)
        self.strides = _pair(self.name, "strides", strides)
        self.pad_mode = _pad_mode(self.name, pad_mode)
        _data_format(self.name, data_format)

    def __repr__(self):
        return f"Prim[{self.name}]"


class MaxPoolGradWithArgmax(_Pool2DGrad):
    """(x, grad, argmax) -> dx: grad added at argmax, an index into each sample's flattened
    (C, H, W) as MaxPoolWithArgmax returns it; the pooling attributes only describe how grad
    was made."""

    def __call__(self, x, grad, argmax):
        _check_tensors(self.name, x=x, grad=grad, argmax=argmax)
        _check_argmax(self.name, argmax)
        return cached_op(_ScatterArgmax, True)(x, grad, argmax)


class MaxPoolGradWithArgmaxV2:
    """MaxPoolGradWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1),
    ceil_mode=False, argmax_type=mstype.int64)(x, grad, argmax) -> dx: grad added at argmax,
    an index into each (H, W) plane as MaxPoolWithArgmaxV2 returns it."""

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                 argmax_type=mstype.int64):
        # The forward's checks of the same attributes (it owns their rules and messages).
        MaxPoolWithArgmaxV2(kernel_size, strides, pads, dilation, ceil_mode, argmax_type)
        self.name = "MaxPoolGradWithArgmaxV2"

    def __call__(self, x, grad, argmax):
        _check_tensors(self.name, x=x, grad=grad, argmax=argmax)
        _check_argmax(self.name, argmax)
        return cached_op(_ScatterArgmax, False)(x, grad, argmax)

    def __repr__(self):
        return f"Prim[{self.name}]"


class MaxPoolGradGradWithArgmax(_Pool2DGrad):
    """(x, grad, argmax) -> out shaped like argmax: grad (x's shape) read at argmax, an index
    into each sample's flattened (C, H, W): the gradient of MaxPoolGradWithArgmax to its
    incoming gradient, i.e. MaxPoolWithArgmax's output for a perturbation `grad` of x."""

    def __call__(self, x, grad, argmax):
        _check_tensors(self.name, x=x, grad=grad, argmax=argmax)
        if tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'grad' {tuple(grad.shape)} must have the "
                             f"shape of 'x' {tuple(x.shape)}.")
        _check_argmax(self.name, argmax)
        n = x.shape[0]
        picked = gather_elements(A.reshape(grad, (n, -1)), 1, A.reshape(argmax, (n, -1)))
        return A.reshape(picked, tuple(argmax.shape))


def _out_size(size, k, s, same):
    return -(-size // s) if same else (size - k) // s + 1


class MaxPoolGradGrad(_Pool2DGrad):
    """(x, out, grad) -> the pooled shape: in each window of MaxPool (kernel_size, strides,
    pad_mode) over x, grad at the window's first maximum: MaxPool's output for a perturbation
    `grad` of x, the gradient of MaxPoolGrad to its incoming gradient. 'SAME' pads as MaxPool
    does (the total centred, the odd cell at the bottom/right); padded cells never win."""

    def __call__(self, x, out, grad):
        _check_tensors(self.name, x=x, out=out, grad=grad)
        if tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'grad' {tuple(grad.shape)} must have the "
                             f"shape of 'x' {tuple(x.shape)}.")
        same = self.pad_mode == "SAME"
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        h, w = x.shape[2:]
        oh, ow = _out_size(h, kh, sh, same), _out_size(w, kw, sw, same)
        if oh <= 0 or ow <= 0:
            raise ValueError(f"For '{self.name}', the input shape {tuple(x.shape)} is too "
                             f"small for kernel_size {self.kernel_size} with 'VALID' padding.")
        if tuple(out.shape) != tuple(x.shape[:2]) + (oh, ow):
            raise ValueError(f"For '{self.name}', 'out' {tuple(out.shape)} must be the pooled "
                             f"shape {tuple(x.shape[:2]) + (oh, ow)}.")
        pad_h = max((oh - 1) * sh + kh - h, 0) if same else 0
        pad_w = max((ow - 1) * sw + kw - w, 0) if same else 0
        padding = (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2)
        if any(padding):
            x = constant_pad(x, padding, float("-inf"))
            grad = constant_pad(grad, padding, 0.0)
        _, argmax = cached_op(MaxPoolWithArgmaxV2, self.kernel_size, self.strides, 0, (1, 1),
                              False, mstype.int64)(x)
        n, c = x.shape[:2]
        picked = gather_elements(A.reshape(grad, (n, c, -1)), 2, A.reshape(argmax, (n, c, -1)))
        return A.reshape(picked, (n, c, oh, ow))


def _triple(name, arg, value):
    """An int, a triple, or a 5-tuple (1, 1, d, h, w) -> (d, h, w) of positive ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * 3
    elif isinstance(value, (tuple, list)) and len(value) == 5 and tuple(value[:2]) == (1, 1):
        value = tuple(value[2:])
    if (not isinstance(value, (tuple, list)) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                       for v in value)):
        raise ValueError(f"For '{name}', '{arg}' must be a positive int or a tuple of three, "
                         f"but got {value!r}.")
    return tuple(value)


class MaxPool3DGradGrad:
    """MaxPool3DGradGrad(kernel_size=(1, 1, 1), strides=(1, 1, 1), pad_mode='VALID')(x, out,
    grad) -> the pooled shape: in each (kd, kh, kw) window of MaxPool3D over x (N, C, D, H, W),
    grad at the window's first maximum (in d, h, w order): MaxPool3D's output for a
    perturbation `grad` of x. The windows are strided slices stacked on a new axis; 'SAME'
    pads x with -inf (never the maximum) and grad with 0, the odd cell at the far end."""

    def __init__(self, kernel_size=(1, 1, 1), strides=(1, 1, 1), pad_mode="VALID",
                 data_format="NCDHW"):
        self.name = "MaxPool3DGradGrad"
        self.kernel_size = _triple(self.name, "kernel_size", kernel_size)
        self.strides = _triple(self.name, "strides", strides)
        if isinstance(pad_mode, str) and pad_mode.upper() == "PAD":
            raise NotImplementedError("For 'MaxPool3DGradGrad', pad_mode 'PAD' (explicit "
                                      "pad_list) is not implemented in minispore.")
        self.pad_mode = _pad_mode(self.name, pad_mode)
        if data_format != "NCDHW":
            raise NotImplementedError(f"For '{self.name}', data_format {data_format!r} is not "
                                      f"implemented in minispore; only 'NCDHW' is.")

    def __call__(self, x, out, grad):
        for arg, t in (("x", x), ("out", out), ("grad", grad)):
            if not isinstance(t, Tensor) or t.ndim != 5:
                got = tuple(t.shape) if isinstance(t, Tensor) else type(t).__name__
                raise ValueError(f"For '{self.name}', '{arg}' must be a 5-D Tensor (NCDHW), "
                                 f"but got {got}.")
        if tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'grad' {tuple(grad.shape)} must have the "
                             f"shape of 'x' {tuple(x.shape)}.")
        same = self.pad_mode == "SAME"
        spatial = tuple(x.shape[2:])
        sizes = tuple(_out_size(n, k, s, same)
                      for n, k, s in zip(spatial, self.kernel_size, self.strides))
        if min(sizes) <= 0:
            raise ValueError(f"For '{self.name}', the input shape {tuple(x.shape)} is too "
                             f"small for kernel_size {self.kernel_size} with 'VALID' padding.")
        if tuple(out.shape) != tuple(x.shape[:2]) + sizes:
            raise ValueError(f"For '{self.name}', 'out' {tuple(out.shape)} must be the pooled "
                             f"shape {tuple(x.shape[:2]) + sizes}.")
        if same:
            totals = [max((o - 1) * s + k - n, 0) for n, k, s, o in
                      zip(spatial, self.kernel_size, self.strides, sizes)]
            padding = tuple(v for t in reversed(totals) for v in (t // 2, t - t // 2))
            if any(padding):
                x = constant_pad(x, padding, float("-inf"))
                grad = constant_pad(grad, padding, 0.0)
        windows_x, windows_g = [], []
        for offset in itertools.product(*(range(k) for k in self.kernel_size)):
            begin = (0, 0) + offset
            end = tuple(x.shape[:2]) + tuple(o + (n - 1) * s + 1 for o, n, s in
                                             zip(offset, sizes, self.strides))
            strides = (1, 1) + self.strides
            windows_x.append(A.expand_dims(A.strided_slice(x, begin, end, strides), 2))
            windows_g.append(A.expand_dims(A.strided_slice(grad, begin, end, strides), 2))
        where_max = M.argmax(A.concat(windows_x, 2), 2, True)
        return A.squeeze(gather_elements(A.concat(windows_g, 2), 2, where_max), 2)
