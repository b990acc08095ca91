"""Random operators: StandardNormal, StandardLaplace, UniformReal, Bernoulli, Multinomial.

Each draws float64 uniforms on the host from the global generator (``ms.set_seed``), or from
its own when seed or seed2 is non-zero, as Dropout does, and a kernel of kernels/<device>/
random.py turns them into the distribution on either device (Box-Muller for the normal, the
inverse CDF for Laplace, a threshold for Bernoulli, a cumulative search for Multinomial), so a
seeded run draws the same numbers on CPU and GPU. A compiled graph draws anew at every run
(not replayable); none is differentiable.
"""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.seed import rng
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import check_float, check_tensor
from minispore.ops.primitive import Aval, Primitive

__all__ = ["StandardNormal", "StandardLaplace", "UniformReal", "Bernoulli", "Multinomial"]


class _Random(Primitive):
    """Seeds, the generator, and what every random operator shares."""
    differentiable = False
    replayable = False      # a re-run draws other numbers
    sharding_rule = rules.replicate_only("its draws are made whole, on the host")

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        for name, v in (("seed", seed), ("seed2", seed2)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
            if v < 0:
                raise ValueError(f"For '{self.name}', '{name}' must be non-negative, but got "
                                 f"{v}.")
            self.add_prim_attr(name, v)
        self._rng = np.random.default_rng((seed, seed2)) if (seed or seed2) else None

    def generators(self):
        return (self._rng,) if self._rng is not None else ()

    def _uniforms(self, shape):
        return device.asarray((self._rng or rng()).random(shape))


def _shape_arg(prim, shape):
    """`shape` as MindSpore's random operators take it: a tuple of non-negative ints, or an
    integer Tensor whose values are the dims."""
    if isinstance(shape, Tensor):
        if not shape.dtype.is_int:
            raise prim.error(f"'shape' as a Tensor must hold integers, but got {shape.dtype}.",
                             TypeError)
        shape = tuple(int(v) for v in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)) or any(
            not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 0
            for d in shape):
        raise prim.error(f"'shape' must be a tuple of non-negative ints, but got {shape!r}.",
                         TypeError)
    return tuple(int(d) for d in shape)


class _Sampler(_Random):
    """shape -> float32 draws of that shape, from the uniforms by `kernel_name`."""
    kernel_name = None
    uniforms_per_value = 1

    def __call__(self, shape):
        return super().__call__(_shape_arg(self, shape))

    def infer(self, shape):
        return Aval(shape, mstype.float32)

    def impl(self, shape):
        out = device.empty(shape, np.float32)
        draws = [self._uniforms(shape) for _ in range(self.uniforms_per_value)]
        kernel("random", self.kernel_name)(*draws, out)
        return out


class StandardNormal(_Sampler):
    """``StandardNormal(seed=0, seed2=0)(shape)``: float32 draws of N(0, 1)."""
    kernel_name = "normal"
    uniforms_per_value = 2


class StandardLaplace(_Sampler):
    """``StandardLaplace(seed=0, seed2=0)(shape)``: float32 draws of Laplace(0, 1)."""
    kernel_name = "laplace"


class UniformReal(_Random):
    """``UniformReal(seed=0, seed2=0)(shape)``: float32 draws of U[0, 1)."""

    def __call__(self, shape):
        return super().__call__(_shape_arg(self, shape))

    def infer(self, shape):
        return Aval(shape, mstype.float32)

    def impl(self, shape):
        out = device.empty(shape, np.float32)
        kernel("array", "cast")(self._uniforms(shape), out)
        return out


class Bernoulli(_Random):
    """``Bernoulli(seed=-1, offset=0)(x, p)``: 1 with probability p (a float or a Tensor
    broadcast to x's shape), else 0, in x's float dtype and shape. seed -1 draws from the
    global generator."""
    float16_in_float32 = True

    def __init__(self, seed=-1, offset=0):
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < -1:
            raise ValueError(f"For 'Bernoulli', 'seed' must be -1 or a non-negative int, but "
                             f"got {seed!r}.")
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            raise ValueError(f"For 'Bernoulli', 'offset' must be a non-negative int, but got "
                             f"{offset!r}.")
        super().__init__(max(seed, 0), offset)

    def __call__(self, x, p):
        check_float(self, "x", x)
        if not isinstance(p, Tensor):
            if not isinstance(p, (int, float)) or isinstance(p, bool):
                raise self.error(f"'p' must be a float or a Tensor, but got "
                                 f"{type(p).__name__}.", TypeError)
            p = Tensor(np.float32(p))
        if not p.dtype.is_float:
            raise self.error(f"'p' must be a float Tensor, but got {p.dtype}.", TypeError)
        if not p.traced:
            values = p.asnumpy()
            if values.size and (values.min() < 0 or values.max() > 1):
                raise self.error(f"'p' must be in [0, 1], but got values in "
                                 f"[{values.min()}, {values.max()}].")
        return super().__call__(x, p)

    def infer(self, x, p):
        try:
            np.broadcast_shapes(tuple(p.shape), tuple(x.shape))
        except ValueError:
            raise self.error(f"'p' of shape {tuple(p.shape)} does not broadcast to x's shape "
                             f"{tuple(x.shape)}.") from None
        return Aval(x.shape, x.dtype)

    def impl(self, x, p):
        probabilities = device.asarray(np.ascontiguousarray(
            np.broadcast_to(np.asarray(device.to_host(p), np.float64), x.shape)))
        out = device.empty(x.shape, x.dtype)
        kernel("random", "bernoulli")(self._uniforms(x.shape), probabilities, out)
        return out


class Multinomial(_Random):
    """``Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples)``: for each row of x (1-D
    or 2-D non-negative weights, not necessarily normalised) `num_samples` category indices
    drawn with replacement, shaped x.shape[:-1] + (num_samples,)."""

    def __init__(self, seed=0, seed2=0, dtype=mstype.int32):
        super().__init__(seed, seed2)
        if dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'Multinomial', 'dtype' must be int32 or int64, but got "
                            f"{dtype}.")
        self.dtype = dtype
        self.add_prim_attr("dtype", dtype)

    def __call__(self, x, num_samples):
        check_tensor(self, "x", x)
        if x.ndim not in (1, 2) or not x.dtype.is_float:
            raise self.error(f"'x' must be a 1-D or 2-D float Tensor, but got a {x.ndim}-D "
                             f"{x.dtype} Tensor.")
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise self.error(f"'num_samples' must be a positive int, but got {num_samples!r}.")
        if not x.traced:
            rows = x.asnumpy().reshape(-1, x.shape[-1])
            if (rows < 0).any() or not np.isfinite(rows).all() or (rows.sum(-1) <= 0).any():
                raise self.error("each row of 'x' must hold finite non-negative weights with "
                                 "a positive sum.")
        return super().__call__(x, num_samples)

    def infer(self, x, num_samples):
        return Aval(tuple(x.shape[:-1]) + (num_samples,), self.dtype)

    def impl(self, x, num_samples):
        rows = int(np.prod(x.shape[:-1], dtype=np.int64))
        weights = device.asarray(np.ascontiguousarray(
            np.asarray(device.to_host(x), np.float64).reshape(rows, x.shape[-1])))
        out = device.empty((rows, num_samples), self.dtype.np_dtype)
        kernel("random", "multinomial")(weights, self._uniforms((rows, num_samples)), out)
        return out.reshape(tuple(x.shape[:-1]) + (num_samples,))
