"""Random operators with parameters per element: UniformInt, RandomPoisson, RandomGamma
(ops.Poisson and ops.Gamma are composed of the last two in ops/function/random_compose_func.py).

As random_ops.py's, each draws float64 uniforms on the host from the global generator
(``ms.set_seed``) or from its own when seed or seed2 is non-zero, and a kernel of
kernels/<device>/random.py turns them into draws (kernels/sampling.py: a scaled floor for
UniformInt, inversion of the CDF for the Poisson counts, Marsaglia and Tsang's rejection for
Gamma, whose rejected elements are retried with fresh uniforms until every one is drawn), so a
seeded run draws the same numbers on CPU and GPU. None is differentiable.
"""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.seed import rng
from minispore.common.tensor import Tensor
from minispore.ops.casting import cast_array
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import check_tensor
from minispore.ops.operations.random_ops import _Random, _shape_arg
from minispore.ops.primitive import Aval

__all__ = ["UniformInt", "RandomPoisson", "RandomGamma", "UniformCandidateSampler"]

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _broadcast(prim, *shapes):
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise prim.error(f"the shapes {', '.join(str(tuple(s)) for s in shapes)} do not "
                         f"broadcast together.") from None


def _tensor_shape(prim, shape):
    """MindSpore's RandomPoisson / RandomGamma take the output's leading shape as a 1-D int32
    or int64 Tensor."""
    if not isinstance(shape, Tensor) or shape.dtype not in (mstype.int32, mstype.int64):
        got = f"Tensor[{shape.dtype}]" if isinstance(shape, Tensor) else type(shape).__name__
        raise prim.error(f"'shape' must be a 1-D Tensor of Int32 or Int64, but got {got}.",
                         TypeError)
    return _shape_arg(prim, shape)


def _float64_of(x, shape):
    """x's values as a C-contiguous float64 array of `shape` on x's device."""
    return device.asarray(np.ascontiguousarray(
        np.broadcast_to(np.asarray(device.to_host(x), np.float64), shape)))


class UniformInt(_Random):
    """``UniformInt(seed=0, seed2=0)(shape, minval, maxval)``: int32 draws uniform on
    [minval, maxval) (0-d Int32 Tensors, minval < maxval). minispore's `dtype` attribute
    (int32 or int64, default int32, MindSpore's only) serves ops.randint's int64."""

    def __init__(self, seed=0, seed2=0, dtype=mstype.int32):
        super().__init__(seed, seed2)
        if dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'UniformInt', 'dtype' must be int32 or int64, but got "
                            f"{dtype}.")
        self.dtype = dtype

    def __call__(self, shape, minval, maxval):
        shape = _shape_arg(self, shape)
        for arg, v in (("minval", minval), ("maxval", maxval)):
            if not isinstance(v, Tensor):
                raise self.error(f"the input '{arg}' should be a Tensor, but got "
                                 f"{type(v).__name__}.", TypeError)
            if v.dtype != self.dtype:
                raise self.error(f"the input argument[{arg}] must be a type of "
                                 f"{{Tensor[{self.dtype}]}}, but got Tensor[{v.dtype}].",
                                 TypeError)
            if v.size != 1:
                raise self.error(f"'{arg}' must hold one value, but got shape "
                                 f"{tuple(v.shape)}.")
        if not minval.traced and not maxval.traced:
            self._check_range(minval.asnumpy(), maxval.asnumpy())
        return super().__call__(shape, minval, maxval)

    @staticmethod
    def _check_range(low, high):
        low, high = int(np.asarray(low).reshape(())), int(np.asarray(high).reshape(()))
        if not low < high:
            raise RuntimeError(f"For 'Random', invalid min/max values: ({low}/{high})")
        return low, high

    def infer(self, shape, minval, maxval):
        return Aval(shape, self.dtype)

    def impl(self, shape, minval, maxval):
        low, high = self._check_range(device.to_host(minval), device.to_host(maxval))
        out = device.empty(shape, self.dtype.np_dtype)
        kernel("random", "uniform_int")(self._uniforms(shape), np.int64(low),
                                        np.int64(high - low), out)
        return out


class RandomPoisson(_Random):
    """``RandomPoisson(seed=0, seed2=0, dtype=int64)(shape, rate)``: Poisson(rate) counts of
    shape ``shape + rate.shape`` (shape a 1-D int Tensor), in `dtype` (float16/32/64,
    int32/64). A rate <= 0 gives 0."""
    _DTYPES = (mstype.int64, mstype.int32, mstype.float16, mstype.float32, mstype.float64)

    def __init__(self, seed=0, seed2=0, dtype=mstype.int64):
        super().__init__(seed, seed2)
        if dtype not in self._DTYPES:
            raise TypeError(f"For 'RandomPoisson', the 'dtype' should be one of "
                            f"[mindspore.int64, mindspore.int32, mindspore.float16, "
                            f"mindspore.float32, mindspore.float64], but got {dtype}.")
        self.dtype = dtype
        self.add_prim_attr("dtype", dtype)

    def __call__(self, shape, rate):
        shape = _tensor_shape(self, shape)
        check_tensor(self, "rate", rate)
        if rate.dtype not in _FLOATS + (mstype.int32, mstype.int64):
            raise self.error(f"'rate' must be a float or int Tensor, but got {rate.dtype}.",
                             TypeError)
        return super().__call__(shape, rate)

    def infer(self, shape, rate):
        return Aval(tuple(shape) + tuple(rate.shape), self.dtype)

    def impl(self, shape, rate):
        shape = tuple(shape) + tuple(rate.shape)
        # float16 counts are drawn as float32 (exact: counts below 2 ** 24) and rounded once
        half = self.dtype == mstype.float16
        out = device.empty(shape, np.float32 if half else self.dtype.np_dtype)
        kernel("random", "poisson")(_float64_of(rate, shape), self._uniforms(shape), out)
        return cast_array(out, np.float16) if half else out


class RandomGamma(_Random):
    """``RandomGamma(seed=0, seed2=0)(shape, alpha)``: Gamma(alpha, 1) draws of shape
    ``shape + alpha.shape`` (shape a 1-D int Tensor) in alpha's dtype (float16/32/64).
    alpha 0 gives 0, alpha < 0 NaN (MindSpore 2.7.2's answers). Drawn in rounds of
    Marsaglia-Tsang attempts (four uniforms per element per round; about 1 attempt in 20 is
    rejected) until every element is drawn."""
    float16_in_float32 = True

    def _draw(self, alpha, shape, np_dtype):
        size = int(np.prod(shape, dtype=np.int64))
        alphas = _float64_of(alpha, shape)
        out = device.empty(shape, np.float64)
        done = device.zeros(shape, np.uint8)
        while size:
            kernel("random", "gamma_round")(alphas, self._uniforms((4, size)), out, done)
            if device.to_host(done).all():
                break
        if np_dtype == np.float64:
            return out
        cast = device.empty(shape, np_dtype)
        kernel("array", "cast")(out, cast)
        return cast

    def __call__(self, shape, alpha):
        if not isinstance(shape, Tensor):
            raise TypeError("For RandomGamma, input[0] only support tensor!")
        shape = _tensor_shape(self, shape)
        check_tensor(self, "alpha", alpha)
        if alpha.dtype not in _FLOATS:
            raise self.error(f"the input argument[alpha] must be a type of {{Tensor[Float16], "
                             f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{alpha.dtype}].",
                             TypeError)
        return super().__call__(shape, alpha)

    def infer(self, shape, alpha):
        return Aval(tuple(shape) + tuple(alpha.shape), alpha.dtype)

    def impl(self, shape, alpha):
        return self._draw(alpha, tuple(shape) + tuple(alpha.shape), np.dtype(alpha.dtype))


class UniformCandidateSampler(_Random):
    """``UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed=0,
    remove_accidental_hits=False)(true_classes)`` -> (sampled_candidates, true_expected_count,
    sampled_expected_count): num_sampled classes drawn uniformly from [0, range_max) (without
    repeats when `unique`; with remove_accidental_hits, never one of the true classes), and
    the expected count of each class among the draws, as TensorFlow's sampler (which
    MindSpore's CPU kernel follows) gives it: p * num_sampled when no draw was rejected, else
    1 - (1 - p)^tries, p = 1 / range_max. true_classes: (batch, num_true) int32/int64; the
    candidates take its dtype, the counts are float32. Drawn on the host (see random_ops)."""

    def __init__(self, num_true, num_sampled, unique, range_max, seed=0,
                 remove_accidental_hits=False):
        super().__init__(seed, 0)
        for arg, v in (("num_true", num_true), ("num_sampled", num_sampled),
                       ("range_max", range_max)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{arg}' must be an int, but got "
                                f"{type(v).__name__}.")
            if v < 1:
                raise ValueError(f"For '{self.name}', '{arg}' must be positive, but got {v}.")
        for arg, v in (("unique", unique), ("remove_accidental_hits", remove_accidental_hits)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{arg}' must be a bool, but got "
                                f"{type(v).__name__}.")
        if unique and num_sampled > range_max:
            raise ValueError(f"For '{self.name}', 'num_sampled' ({num_sampled}) must be at most "
                             f"'range_max' ({range_max}) when 'unique' is True.")
        self.num_true, self.num_sampled, self.range_max = num_true, num_sampled, range_max
        self.unique, self.remove_accidental_hits = unique, remove_accidental_hits
        for k in ("num_true", "num_sampled", "unique", "range_max", "remove_accidental_hits"):
            self.add_prim_attr(k, getattr(self, k))

    def infer(self, true_classes):
        check_tensor(self, "true_classes", true_classes)
        if true_classes.dtype not in (mstype.int32, mstype.int64):
            raise self.error(f"'true_classes' must be int32 or int64, but got "
                             f"{true_classes.dtype}.", TypeError)
        if len(true_classes.shape) != 2 or true_classes.shape[1] != self.num_true:
            raise self.error(f"'true_classes' must have shape (batch, num_true={self.num_true}), "
                             f"but got {tuple(true_classes.shape)}.")
        return (Aval((self.num_sampled,), true_classes.dtype),
                Aval(tuple(true_classes.shape), mstype.float32),
                Aval((self.num_sampled,), mstype.float32))

    def impl(self, true_classes):
        classes = np.asarray(device.to_host(true_classes))
        banned = set(classes.reshape(-1).tolist()) if self.remove_accidental_hits else set()
        left = self.range_max - len(banned & set(range(self.range_max)))
        if left < (self.num_sampled if self.unique else 1):
            raise self.error(f"removing the true classes from [0, {self.range_max}) leaves "
                             f"{left} classes, too few to draw {self.num_sampled} from.")
        gen = self._rng or rng()
        picked, seen, tries = [], set(), 0
        while len(picked) < self.num_sampled:
            c = int(gen.integers(0, self.range_max))
            tries += 1
            if c in banned or (self.unique and c in seen):
                continue
            seen.add(c)
            picked.append(c)
        p = 1.0 / self.range_max
        count = p * self.num_sampled if tries == self.num_sampled else \
            -np.expm1(tries * np.log1p(-p))
        return (device.asarray(np.asarray(picked, classes.dtype)),
                device.asarray(np.full(classes.shape, count, np.float32)),
                device.asarray(np.full((self.num_sampled,), count, np.float32)))
