"""MaxUnpool2D and MaxUnpool3D: the inverse of the argmax pools. Each input value goes to the
position its argmax names in the (flattened) output plane of its (n, c); the rest is zero.
The gradient gathers dout back from those positions."""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_dtype, check_tensor, contiguous,
                                            float_dtypes)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["MaxUnpool2D", "MaxUnpool3D"]


def _ints(name, arg, value, n, allow_zero=False):
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * n
    if (not isinstance(value, (tuple, list)) or len(value) != n
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or any(v < 0 or (v == 0 and not allow_zero) for v in value)):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"For '{name}', '{arg}' must be a {kind} int or a tuple of {n} of "
                         f"them, but got {value!r}.")
    return tuple(value)


class _MaxUnpool(Primitive):
    """Shared by MaxUnpool2D (NCHW) and MaxUnpool3D (NCDHW): out spatial size
    (in - 1) * stride - 2 * pad + ksize per axis, or output_shape when given."""
    float16_in_float32 = True
    sharding_rule = rules.replicate_only("argmax indexes a whole output plane")
    spatial = None

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format=None):
        super().__init__()
        n = self.spatial
        self.ksize = _ints(self.name, "ksize", ksize, n)
        self.strides = self.ksize if strides in (0, None) else _ints(self.name, "strides",
                                                                      strides, n)
        self.pads = _ints(self.name, "pads", pads, n, allow_zero=True)
        output_shape = tuple(output_shape or ())
        if output_shape and len(output_shape) not in (n, n + 2):
            raise ValueError(f"For '{self.name}', 'output_shape' must hold {n} spatial sizes or "
                             f"the whole {n + 2}-D shape, but got {output_shape}.")
        self.output_shape = output_shape[-n:] if output_shape else ()
        for key in ("ksize", "strides", "pads", "output_shape"):
            self.add_prim_attr(key, getattr(self, key))

    def _out_spatial(self, x_shape):
        if self.output_shape:
            return self.output_shape
        return tuple((size - 1) * s - 2 * p + k for size, s, p, k in
                     zip(x_shape[2:], self.strides, self.pads, self.ksize))

    def infer(self, x, argmax):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, float_dtypes(self))
        check_dtype(self, "argmax", argmax, (mstype.int32, mstype.int64))
        if len(x.shape) != self.spatial + 2 or tuple(argmax.shape) != tuple(x.shape):
            raise self.error(f"x {tuple(x.shape)} must be {self.spatial + 2}-D and argmax "
                             f"{tuple(argmax.shape)} of the same shape.")
        out = self._out_spatial(x.shape)
        if any(o <= 0 for o in out):
            raise self.error(f"the output size {out} computed from x {tuple(x.shape)} is not "
                             f"positive.")
        return Aval(tuple(x.shape[:2]) + out, x.dtype)

    def impl(self, x, argmax):
        n, c = x.shape[:2]
        spatial = self._out_spatial(x.shape)
        width = int(np.prod(spatial))
        out = device.empty((n * c, width), x.dtype)
        bad = device.zeros((1,), np.int64)
        kernel("pool", "scatter_rows")(contiguous(x).reshape(n * c, -1),
                                       contiguous(argmax).reshape(n * c, -1), out, bad)
        count = int(device.to_host(bad)[0])
        if count:
            raise RuntimeError(f"{self.name}: {count} argmax values fall outside the output "
                               f"plane of {width} elements ({spatial}).")
        return out.reshape((n, c) + spatial)

    def bprop(self, inputs, out, dout):
        return cached_op(_GatherPlanes)(dout, inputs[1]), None


class _GatherPlanes(Primitive):
    """out[n, c, ...] = dout[n, c].flat[argmax[n, c, ...]]: MaxUnpool's gradient."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    float16_in_float32 = True
    sharding_rule = rules.replicate_only("argmax indexes a whole plane")

    def infer(self, dout, argmax):
        check_tensor(self, "dout", dout)
        return Aval(tuple(argmax.shape), dout.dtype)

    def impl(self, dout, argmax):
        rows = argmax.shape[0] * argmax.shape[1]
        out = device.empty((rows, int(np.prod(argmax.shape[2:]))), dout.dtype)
        kernel("pool", "gather_rows")(contiguous(dout).reshape(rows, -1),
                                      contiguous(argmax).reshape(rows, -1), out)
        return out.reshape(argmax.shape)


class MaxUnpool2D(_MaxUnpool):
    """``MaxUnpool2D(ksize, strides=0, pads=0, output_shape=(), data_format='NCHW')(x,
    argmax)``: x and argmax (Int32/Int64, positions h * W + w in the output plane, as
    MaxPoolWithArgmaxV2 gives them) NCHW; a repeated position keeps the last value."""
    spatial = 2

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
        if data_format != "NCHW":
            raise ValueError(f"For 'MaxUnpool2D', only data_format 'NCHW' is supported, but got "
                             f"{data_format!r}.")
        super().__init__(ksize, strides, pads, output_shape)


class MaxUnpool3D(_MaxUnpool):
    """``MaxUnpool3D(ksize, strides=0, pads=0, output_shape=(), data_format='NCDHW')(x,
    argmax)``: MaxUnpool2D over (D, H, W) planes."""
    spatial = 3

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCDHW"):
        if data_format != "NCDHW":
            raise ValueError(f"For 'MaxUnpool3D', only data_format 'NCDHW' is supported, but "
                             f"got {data_format!r}.")
        super().__init__(ksize, strides, pads, output_shape)
