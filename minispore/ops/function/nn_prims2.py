"""MindSpore nn, random and optimizer primitives composed of existing operators: Dropout3D,
MaxPool3D, AvgPool3D, RandomCategorical, Uniform, TruncatedNormal, ApplyGradientDescent and
ApplyProximalGradientDescent, and ResizeLinear1D. The pools pad, then reduce one dim at a time over its windows
(pool_compose_func's separable scheme); the updates write the Parameter with Assign."""
import math
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function import nn_func as N
from minispore.ops.function.array_compose_func import constant_pad
from minispore.ops.function.pool_compose_func import _window_reduce
from minispore.ops.function.random_func import rand, random_categorical

__all__ = ["Dropout3D", "MaxPool3D", "AvgPool3D", "ResizeLinear1D", "RandomCategorical",
           "Uniform", "TruncatedNormal", "ApplyGradientDescent", "ApplyProximalGradientDescent"]


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _seed(seed, seed2):
    # 0, 0 draws from the global generator (ms.set_seed), as MindSpore's seeded operators do.
    return None if seed == 0 and seed2 == 0 else seed * 4099 + seed2


class _Prim:
    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class Dropout3D(_Prim):
    """``P.Dropout3D(keep_prob=0.5)(x)``: (output, mask) for NCDHW x: whole channels zeroed
    with probability 1 - keep_prob, the rest scaled by 1 / keep_prob; mask (Bool, x's shape)
    is True where kept. Integer x is scaled in Float32 and cast back, as MindSpore does."""

    def __init__(self, keep_prob=0.5):
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, numbers.Real):
            raise TypeError(f"For 'Dropout3D', the type of 'keep_prob' should be 'float', but "
                            f"got type '{type(keep_prob).__name__}'.")
        if not 0.0 <= keep_prob <= 1.0:
            raise ValueError(f"For 'Dropout3D', the 'keep_prob' must be in range of [0.0, 1.0],"
                             f" but got {keep_prob} with type 'float'.")
        self.keep_prob = float(keep_prob)

    def __call__(self, x):
        _check_tensor("Dropout3D", "x", x)
        if x.ndim != 5:
            raise ValueError(f"For primitive[Dropout3D], the rank of input  must be equal to 5 "
                             f", but got {x.ndim}.")
        work = x.dtype if x.dtype in mstype.float_types else mstype.float32
        scale = N.dropout(A.ones(tuple(x.shape[:2]) + (1, 1, 1), work), 1.0 - self.keep_prob)
        out = M.mul(A.cast(x, work), scale)
        return A.cast(out, x.dtype), A.broadcast_to(M.not_equal(scale, 0), tuple(x.shape))


def _triple(name, arg, v, size=3):
    vals = (v,) * size if _is_int(v) else tuple(v)
    if len(vals) == 5 and size == 3:
        vals = vals[2:]      # MindSpore also takes (1, 1, d, h, w)
    if len(vals) != size or not all(_is_int(u) and u >= 0 for u in vals):
        raise ValueError(f"For '{name}', '{arg}' must be an int or a tuple of {size} "
                         f"non-negative ints, but got {v!r}.")
    return vals


class _Pool3D(_Prim):
    """Shared attributes: kernel_size / strides (int or 3 ints), pad_mode VALID, SAME or PAD
    (with `pads`: one int or (front, back, top, bottom, left, right)); NCDHW only."""

    def __init__(self, kernel_size, strides, pad_mode, pads, ceil_mode, data_format):
        name = type(self).__name__
        self.kernel_size = _triple(name, "kernel_size", kernel_size)
        self.strides = _triple(name, "strides", strides)
        if min(self.kernel_size) < 1 or min(self.strides) < 1:
            raise ValueError(f"For '{name}', 'kernel_size' and 'strides' must be positive, but "
                             f"got {kernel_size!r} and {strides!r}.")
        mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
        if mode not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{name}', the 'pad_mode' must be str and must be in "
                             f"'['VALID', 'SAME', 'PAD']', but got {pad_mode!r}.")
        self.pad_mode = mode
        self.pads = _triple(name, "pad", pads, 6) if not _is_int(pads) else (pads,) * 6
        if mode != "PAD" and any(self.pads):
            raise ValueError(f"For '{name}', the pads must be zero when pad_mode is not 'PAD', "
                             f"but got {pads!r}.")
        if ceil_mode:
            raise NotImplementedError(f"For '{name}', ceil_mode=True is not implemented in "
                                      f"minispore.")
        if data_format != "NCDHW":
            raise NotImplementedError(f"For '{name}', data_format {data_format!r} is not "
                                      f"implemented in minispore; only 'NCDHW' is.")

    def _padding(self, spatial):
        """(lo, hi) per spatial dim. SAME splits the padding that makes the output
        ceil(n / stride) long, the smaller half first."""
        if self.pad_mode == "PAD":
            return [tuple(self.pads[2 * i:2 * i + 2]) for i in range(3)]
        if self.pad_mode == "VALID":
            return [(0, 0)] * 3
        out = []
        for n, k, s in zip(spatial, self.kernel_size, self.strides):
            total = max((-(-n // s) - 1) * s + k - n, 0)
            out.append((total // 2, total - total // 2))
        return out

    def _check(self, x):
        name = type(self).__name__
        _check_tensor(name, "x", x)
        if x.ndim != 5:
            raise ValueError(f"For primitive[{name}], the x_rank must be equal to 5, but got "
                             f"{x.ndim}.")

    def _windows(self, x, reduce):
        for i in range(3):
            x = _window_reduce(x, 2 + i, self.kernel_size[i], self.strides[i], reduce)
        return x


def _flat_pads(padding):
    return [v for lo_hi in reversed(padding) for v in lo_hi]


class MaxPool3D(_Pool3D):
    """``P.MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None,
    data_format='NCDHW')(x)``: the max over each (kd, kh, kw) window; padding never wins (it
    is -inf, or the dtype's lowest for integers)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None,
                 data_format="NCDHW"):
        super().__init__(kernel_size, strides, pad_mode, pad_list, ceil_mode, data_format)

    def __call__(self, x):
        self._check(x)
        dtype = x.dtype
        if dtype == mstype.float16:
            # ReduceMax's gradient kernel has no Float16 form; the max of Float16 values is
            # exact in Float32.
            x = A.cast(x, mstype.float32)
        padding = self._padding(x.shape[2:])
        if any(v for lo_hi in padding for v in lo_hi):
            np_dt = x.dtype.np_dtype
            low = -np.inf if np_dt.kind == "f" else np.iinfo(np_dt).min
            x = constant_pad(x, _flat_pads(padding), low)
        return A.cast(self._windows(x, M.reduce_max), dtype)


class AvgPool3D(_Pool3D):
    """``P.AvgPool3D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0, data_format='NCDHW')(x)``: the mean over each
    window. The divisor is divisor_override when set, else the window volume with
    count_include_pad, else the number of x's elements in the window."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=0, data_format="NCDHW"):
        super().__init__(kernel_size, strides, pad_mode, pad, ceil_mode, data_format)
        if not isinstance(count_include_pad, bool):
            raise TypeError(f"For 'AvgPool3D', the type of 'count_include_pad' should be "
                            f"'bool', but got type '{type(count_include_pad).__name__}'.")
        if not _is_int(divisor_override) or divisor_override < 0:
            raise ValueError(f"For 'AvgPool3D', 'divisor_override' must be a non-negative int, "
                             f"but got {divisor_override!r}.")
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def __call__(self, x):
        self._check(x)
        padding = self._padding(x.shape[2:])
        sums = self._windows(constant_pad(x, _flat_pads(padding), 0), M.reduce_sum)
        if self.divisor_override:
            return M.div(sums, float(self.divisor_override))
        if self.count_include_pad:
            return M.div(sums, float(np.prod(self.kernel_size)))
        # The count of real elements per window: a box sum of ones over the padded extent.
        count = np.pad(np.ones(x.shape[2:]), padding)
        for axis, (k, s) in enumerate(zip(self.kernel_size, self.strides)):
            c = np.cumsum(np.insert(count, 0, 0, axis=axis), axis=axis)
            starts = np.arange(0, count.shape[axis] - k + 1, s)
            count = np.take(c, starts + k, axis=axis) - np.take(c, starts, axis=axis)
        return M.div(sums, Tensor(count.astype(x.dtype.np_dtype)))


class ResizeLinear1D(_Prim):
    """``ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size)``: (N, C, W)
    float x linearly resampled along W to size[0] points (size: a 1-element int Tensor or
    tuple). Output point j reads source position j (W - 1) / (size - 1) ('align_corners') or
    max((j + 1/2) W / size - 1/2, 0) ('half_pixel'); a single output point reads position 0.
    Two Gathers of constant indices blended with constant weights.

    Raises:
        TypeError: x is not a float Tensor.
        ValueError: x is not 3-D; size is not positive.
        RuntimeError: another coordinate_transformation_mode (MindSpore's CPU kernel's error).
    """

    def __init__(self, coordinate_transformation_mode="align_corners"):
        self.coordinate_transformation_mode = coordinate_transformation_mode

    def __call__(self, x, size):
        name = "ResizeLinear1D"
        _check_tensor(name, "x", x)
        if x.dtype not in mstype.float_types:
            raise TypeError(f"For '{name}', 'x' must be a Float16, Float32 or Float64 Tensor, "
                            f"but got {x.dtype}.")
        if x.ndim != 3:
            raise ValueError(f"For primitive[{name}], the image rank must be equal to 3, but "
                             f"got {x.ndim}.")
        mode = self.coordinate_transformation_mode
        if mode not in ("align_corners", "half_pixel"):
            raise RuntimeError(f"For '{name}', coordinate_transformation_mode not support now.")
        (out,) = [int(v) for v in (size.asnumpy().reshape(-1) if isinstance(size, Tensor)
                                   else size)]
        if out <= 0:
            raise ValueError(f"For primitive[{name}], the size value must be greater than 0, "
                             f"but got {out}.")
        w = x.shape[-1]
        j = np.arange(out, dtype=np.float64)
        if out == 1:
            src = np.zeros(1)
        elif mode == "align_corners":
            src = j * (w - 1) / (out - 1)
        else:
            src = np.maximum((j + 0.5) * w / out - 0.5, 0.0)
        lo = np.minimum(np.floor(src).astype(np.int64), w - 1)
        hi = np.minimum(lo + 1, w - 1)
        frac = Tensor((src - lo).astype(x.dtype.np_dtype))
        left = A.gather(x, Tensor(lo), 2)
        right = A.gather(x, Tensor(hi), 2)
        return M.add(left, M.mul(M.sub(right, left), frac))


class RandomCategorical(_Prim):
    """``P.RandomCategorical(dtype=mindspore.int64)(logits, num_sample, seed=0)``:
    ops.random_categorical with the index dtype an attribute (Int16, Int32 or Int64)."""

    def __init__(self, dtype=mstype.int64):
        if dtype not in (mstype.int16, mstype.int32, mstype.int64):
            raise TypeError(f"For 'RandomCategorical', the 'dtype' should be one of "
                            f"[mindspore.int32, mindspore.int16, mindspore.int64], but got "
                            f"'mindspore.{str(dtype).lower()}'.")
        self.dtype = dtype

    def __call__(self, logits, num_sample, seed=0):
        _check_tensor("RandomCategorical", "logits", logits)
        if not _is_int(num_sample) or num_sample <= 0:
            raise ValueError(f"For 'RandomCategorical', 'num_sample' must be a positive int, "
                             f"but got {num_sample!r}.")
        return random_categorical(logits, int(num_sample), int(seed), self.dtype)


def _check_seeds(name, seed, seed2):
    for arg, v in (("seed", seed), ("seed2", seed2)):
        if not _is_int(v):
            raise TypeError(f"For '{name}', the type of '{arg}' should be 'int', but got type "
                            f"'{type(v).__name__}'.")
    return _seed(seed, seed2)


class Uniform(_Prim):
    """``random_ops.Uniform(minval=0., maxval=1., seed=0, seed2=0)(x)``: U[minval, maxval)
    draws of x's shape and (float) dtype."""

    def __init__(self, minval=0., maxval=1., seed=0, seed2=0):
        for arg, v in (("minval", minval), ("maxval", maxval)):
            if not isinstance(v, float):
                raise TypeError(f"For 'Uniform', the '{arg}' must be float, but got "
                                f"'{type(v).__name__}'")
        if minval > maxval:
            raise ValueError(f"For 'Uniform', the 'minval' should be <= maxval: {maxval}, but "
                             f"got {minval}.")
        self.minval, self.maxval = minval, maxval
        self.seed = _check_seeds("Uniform", seed, seed2)

    def __call__(self, x):
        _check_tensor("Uniform", "x", x)
        if x.dtype not in mstype.float_types:
            raise TypeError(f"For 'Uniform', 'x' must be a float Tensor, but got {x.dtype}.")
        u = rand(*x.shape, seed=self.seed)
        return A.cast(M.add(M.mul(u, self.maxval - self.minval), self.minval), x.dtype)


_LOW_CDF = 0.5 * math.erfc(math.sqrt(2.0))     # Phi(-2)


class TruncatedNormal(_Prim):
    """``random_ops.TruncatedNormal(seed=0, seed2=0, dtype=mindspore.float32)(shape)``: N(0, 1)
    draws restricted to (-2, 2), of `shape` (a 1-D int Tensor). Inverse-CDF sampling:
    sqrt(2) erfinv(2p - 1) for p uniform in (Phi(-2), Phi(2)), so no draw is rejected."""

    def __init__(self, seed=0, seed2=0, dtype=mstype.float32):
        if dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For 'TruncatedNormal', the 'dtype' should be one of "
                            f"[mindspore.float16, mindspore.float32, mindspore.float64], but "
                            f"got 'mindspore.{str(dtype).lower()}'.")
        self.dtype = dtype
        self.seed = _check_seeds("TruncatedNormal", seed, seed2)

    def __call__(self, shape):
        if not isinstance(shape, Tensor):
            raise TypeError(f"For Primitive[TruncatedNormal], the type of input argument[shape] "
                            f"must be Tensor but got {type(shape).__name__}.")
        if shape.dtype not in (mstype.int32, mstype.int64) or shape.ndim != 1:
            raise TypeError(f"For 'TruncatedNormal', 'shape' must be a 1-D Int32 or Int64 "
                            f"Tensor, but got {shape.dtype} of rank {shape.ndim}.")
        size = tuple(int(v) for v in shape.asnumpy())
        p = M.add(M.mul(rand(*size, seed=self.seed), 1.0 - 2.0 * _LOW_CDF), _LOW_CDF)
        z = M.mul(M.erfinv(M.sub(M.mul(p, 2.0), 1.0)), math.sqrt(2.0))
        return A.cast(z, self.dtype)


def _check_update(name, var, pairs):
    """var a float Tensor; each (arg, tensor, same_shape) a Tensor (or a number for scalars)
    of var's dtype, of var's shape where same_shape. Returns them as Tensors."""
    _check_tensor(name, "var", var)
    if var.dtype not in mstype.float_types:
        raise TypeError(f"For '{name}', 'var' must be a float Tensor, but got {var.dtype}.")
    out = []
    for arg, t, same_shape in pairs:
        if not same_shape and isinstance(t, numbers.Real) and not isinstance(t, bool):
            out.append(Tensor(np.asarray(t, var.dtype.np_dtype), var.dtype))
            continue
        _check_tensor(name, arg, t)
        if same_shape and tuple(t.shape) != tuple(var.shape):
            raise ValueError(f"For '{name}', evaluator arg '{arg}' must have the same shape as "
                             f"'var'. But got '{arg}' shape: {tuple(t.shape)}, 'var' shape: "
                             f"{tuple(var.shape)}.")
        if not same_shape and t.size != 1:
            raise ValueError(f"For '{name}', '{arg}' must be a scalar, but got shape "
                             f"{tuple(t.shape)}.")
        if t.dtype != var.dtype:
            raise TypeError(f"For '{name}', '{arg}' must have the dtype of 'var' {var.dtype}, "
                            f"but got {t.dtype}.")
        out.append(t)
    return out


def _written(var, value):
    # A Parameter is updated in place (and returned); MindSpore also takes a plain Tensor and
    # returns the update.
    return A.assign(var, value) if isinstance(var, Parameter) else value


class ApplyGradientDescent(_Prim):
    """``P.ApplyGradientDescent()(var, alpha, delta)``: var -= alpha * delta, in place on the
    Parameter var; returns var."""

    def __call__(self, var, alpha, delta):
        alpha, delta = _check_update("ApplyGradientDescent", var, (("alpha", alpha, False),
                                                                   ("delta", delta, True)))
        return _written(var, M.sub(var, M.mul(delta, alpha)))


class ApplyProximalGradientDescent(_Prim):
    """``P.ApplyProximalGradientDescent()(var, alpha, l1, l2, delta)``: with
    prox_v = var - alpha * delta, var = sign(prox_v) * max(|prox_v| - alpha * l1, 0) /
    (1 + alpha * l2), in place on the Parameter var; returns var."""

    def __call__(self, var, alpha, l1, l2, delta):
        alpha, l1, l2, delta = _check_update(
            "ApplyProximalGradientDescent", var,
            (("alpha", alpha, False), ("l1", l1, False), ("l2", l2, False),
             ("delta", delta, True)))
        prox = M.sub(var, M.mul(delta, alpha))
        shrunk = M.maximum(M.sub(M.abs(prox), M.mul(alpha, l1)), 0.0)
        value = M.div(M.mul(M.sign(prox), shrunk), M.add(M.mul(alpha, l2), 1.0))
        return _written(var, A.cast(value, var.dtype))
