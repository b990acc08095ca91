"""Shape, indexing, creation and type-conversion operators."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import broadcast_shape, check_tensor, sum_to_shape
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Reshape", "Cast", "ZerosLike", "OnesLike", "Fill", "Identity", "BroadcastTo"]


def _F():
    from minispore.ops import functional
    return functional


class Reshape(Primitive):
    """out = x viewed with `shape`; one entry may be -1 (inferred). No data moves."""

    def infer(self, x, shape):
        check_tensor(self, "x", x)
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
            raise self.error(f"'shape' must be a tuple of ints, but got {shape!r}.", TypeError)
        shape = tuple(int(d) for d in shape)
        if shape.count(-1) > 1 or any(d < -1 for d in shape):
            raise self.error(f"'shape' {shape} may contain at most one -1 and no other "
                             f"negative dims.")
        size = int(np.prod(x.shape, dtype=np.int64))
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if -1 in shape:
            if known == 0 or size % known:
                raise self.error(f"cannot reshape x of shape {tuple(x.shape)} (size {size}) "
                                 f"into {shape}: {size} is not divisible by {known}.")
            shape = tuple(size // known if d == -1 else d for d in shape)
        elif known != size:
            raise self.error(f"cannot reshape x of shape {tuple(x.shape)} (size {size}) into "
                             f"{shape} (size {known}).")
        return Aval(shape, x.dtype)

    def impl(self, x, shape):
        return x.reshape(shape)

    def bprop(self, inputs, out, dout):
        x, _ = inputs
        return _F().reshape(dout, x.shape), None


class Cast(Primitive):
    """out = x converted to `dtype` (a minispore dtype). Gradient flows back as the input dtype
    for float inputs and is None for integer inputs."""

    def infer(self, x, dtype):
        check_tensor(self, "x", x)
        try:
            dtype = mstype.to_type(dtype)
        except TypeError as e:
            raise self.error(str(e), TypeError) from None
        return Aval(x.shape, dtype)

    def impl(self, x, dtype):
        out = np.empty(x.shape, mstype.to_type(dtype).np_dtype)
        kernel("array", "cast")(np.ascontiguousarray(x), out)
        return out

    def bprop(self, inputs, out, dout):
        x, _ = inputs
        if not x.dtype.is_float:
            return None, None
        return _F().cast(dout, x.dtype), None


class _FillLike(Primitive):
    value = 0
    differentiable = False

    def infer(self, x):
        check_tensor(self, "x", x)
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        out = np.empty(x.shape, x.dtype)
        kernel("array", "fill")(out, out.dtype.type(self.value))
        return out


class ZerosLike(_FillLike):
    """out = zeros with x's shape and dtype."""
    value = 0


class OnesLike(_FillLike):
    """out = ones with x's shape and dtype."""
    value = 1


class Fill(Primitive):
    """out = a tensor of `shape` and `dtype` filled with `value`: Fill()(dtype, shape, value)."""
    differentiable = False

    def infer(self, dtype, shape, value):
        try:
            dtype = mstype.to_type(dtype)
        except TypeError as e:
            raise self.error(str(e), TypeError) from None
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
            raise self.error(f"'shape' must be a tuple of non-negative ints, but got "
                             f"{shape!r}.", TypeError)
        return Aval(tuple(shape), dtype)

    def impl(self, dtype, shape, value):
        out = np.empty(tuple(shape), mstype.to_type(dtype).np_dtype)
        kernel("array", "fill")(out, out.dtype.type(value))
        return out


class Identity(Primitive):
    """out = a copy of x (the gradient passes through)."""

    def infer(self, x):
        check_tensor(self, "x", x)
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        out = np.empty(x.shape, x.dtype)
        kernel("array", "cast")(np.ascontiguousarray(x), out)
        return out

    def bprop(self, inputs, out, dout):
        return (dout,)


class BroadcastTo(Primitive):
    """out = x broadcast (numpy rules) to `shape`; BroadcastTo(shape)(x). -1 keeps x's dim."""

    def __init__(self, shape):
        super().__init__()
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"For 'BroadcastTo', 'shape' must be a tuple, but got "
                            f"{type(shape).__name__}.")
        self.shape = tuple(shape)
        self.add_prim_attr("shape", self.shape)

    def _target(self, x_shape):
        lead = len(self.shape) - len(x_shape)
        return tuple(x_shape[i - lead] if d == -1 else d for i, d in enumerate(self.shape))

    def infer(self, x):
        check_tensor(self, "x", x)
        if len(x.shape) > len(self.shape):
            raise self.error(f"x.shape {tuple(x.shape)} has more dims than the target "
                             f"shape {self.shape}.")
        target = self._target(x.shape)
        if broadcast_shape(self, x.shape, target) != target:
            raise self.error(f"x.shape {tuple(x.shape)} cannot be broadcast to {target}.")
        return Aval(target, x.dtype)

    def impl(self, x):
        # A contiguous copy: later in-place kernels (optimizer updates) must never see a view.
        return np.ascontiguousarray(np.broadcast_to(x, self._target(x.shape)))

    def bprop(self, inputs, out, dout):
        return (sum_to_shape(dout, inputs[0].shape),)
