"""Weight initializer classes and the arrays they fill, below Tensor: ``Tensor(shape, dtype,
init=...)`` fills its data here, and ``common/initializer.py`` (MindSpore's module, which makes
Tensors) re-exports them.

Every random draw comes from `minispore.common.seed.rng()`, so ``ms.set_seed(n)`` makes weights
reproducible. Values are drawn in float64 and cast once to the requested dtype.

Version choice: ``TruncatedNormal(sigma, mean, a, b)`` follows MindSpore r2.3+, where ``a`` and ``b``
are **absolute** bounds (default [-2, 2]), not multiples of sigma as in r2.2 and before; with the
default sigma=0.01 the truncation practically never bites.
"""
import math
import numbers

import numpy as np
from scipy import special

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.seed import rng

__all__ = ["Initializer", "Normal", "TruncatedNormal", "Uniform", "XavierUniform", "XavierNormal",
           "HeUniform", "HeNormal", "Zero", "One", "Constant", "init_array"]


def _calculate_fan_in_and_fan_out(shape):
    """(fan_in, fan_out) of a weight: dims 1 and 0 times the receptive field (dims 2..)."""
    if len(shape) < 2:
        raise ValueError(f"'fan_in' and 'fan_out' can not be computed for a tensor with fewer "
                         f"than 2 dimensions, but got shape {tuple(shape)}.")
    receptive = int(np.prod(shape[2:], dtype=np.int64)) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(shape, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"'mode' must be 'fan_in' or 'fan_out', but got {mode!r}.")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


def _calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (the same table as torch and MindSpore)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, numbers.Number):
            raise ValueError(f"'negative_slope' must be a number, but got {slope!r}.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity!r}; valid ones are "
                     f"{list(linear) + ['tanh', 'relu', 'leaky_relu', 'selu']}.")


class Initializer:
    """Base class: ``init(arr)`` fills a numpy array in place via ``_initialize``."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _initialize(self, arr):
        raise NotImplementedError(f"{type(self).__name__} must define _initialize")

    def __call__(self, arr):
        self._initialize(arr)
        return arr

    def __repr__(self):
        body = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({body})"


class Zero(Initializer):
    """Fill with 0."""

    def _initialize(self, arr):
        arr[...] = 0


class One(Initializer):
    """Fill with 1."""

    def _initialize(self, arr):
        arr[...] = 1


class Constant(Initializer):
    """Fill with ``value``."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        arr[...] = self.value


class Normal(Initializer):
    """N(mean, sigma^2)."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _initialize(self, arr):
        arr[...] = rng().normal(self.mean, self.sigma, arr.shape)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) restricted to the absolute interval [a, b] (MindSpore r2.3+ semantics).

    Sampled exactly by inverting the normal CDF on [Phi((a-mean)/sigma), Phi((b-mean)/sigma)].
    """

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        if not a < b:
            raise ValueError(f"For 'TruncatedNormal', 'a' must be less than 'b', but got "
                             f"a={a}, b={b}.")
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, arr):
        lo = special.ndtr((self.a - self.mean) / self.sigma)
        hi = special.ndtr((self.b - self.mean) / self.sigma)
        u = rng().uniform(lo, hi, arr.shape)
        arr[...] = np.clip(self.mean + self.sigma * special.ndtri(u), self.a, self.b)


class Uniform(Initializer):
    """U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        arr[...] = rng().uniform(-self.scale, self.scale, arr.shape)


class XavierUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        arr[...] = rng().uniform(-bound, bound, arr.shape)


class XavierNormal(Initializer):
    """N(0, s^2) with s = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        arr[...] = rng().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), arr.shape)


class _Kaiming(Initializer):
    """Shared by HeUniform/HeNormal: std = gain(nonlinearity, negative_slope) / sqrt(fan)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _std(self, shape):
        fan = _calculate_correct_fan(shape, self.mode)
        return _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


class HeUniform(_Kaiming):
    """U(-b, b) with b = gain(nonlinearity, negative_slope) * sqrt(3 / fan) (Kaiming)."""

    def _initialize(self, arr):
        bound = math.sqrt(3.0) * self._std(arr.shape)
        arr[...] = rng().uniform(-bound, bound, arr.shape)


class HeNormal(_Kaiming):
    """N(0, s^2) with s = gain(nonlinearity, negative_slope) / sqrt(fan) (Kaiming)."""

    def _initialize(self, arr):
        arr[...] = rng().normal(0.0, self._std(arr.shape), arr.shape)


# Keys are lower-case: MindSpore looks aliases up with init.lower(), so 'heUniform',
# 'HeUniform' and 'he_uniform' all resolve.
_ALIASES = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One,
    "normal": Normal, "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
    "uniform": Uniform,
    "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform,
    "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
    "he_uniform": HeUniform, "heuniform": HeUniform,
    "he_normal": HeNormal, "henormal": HeNormal,
}


def check_shape(shape):
    if shape is None:
        raise ValueError("For 'initializer', 'shape' must be given unless 'init' is a Tensor.")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"For 'initializer', 'shape' must be an int or a tuple/list of ints, "
                        f"but got {shape!r}.")
    if any(d <= 0 for d in shape):
        raise ValueError(f"For 'initializer', every dim of 'shape' must be positive, but got "
                         f"{tuple(shape)}.")
    return tuple(int(d) for d in shape)


def init_array(init, shape, dtype=mstype.float32):
    """The device array of ``shape`` and ``dtype`` filled by ``init``: an Initializer (instance
    or class), an alias string ('normal', 'zeros', 'ones', 'uniform', 'xavier_uniform',
    'he_uniform', 'he_normal', 'truncatedNormal', camelCase forms such as 'heUniform' too) or a
    number (a constant)."""
    dtype = mstype.to_type(dtype)
    shape = check_shape(shape)
    init = resolve_initializer(init)
    arr = np.empty(shape, np.float64)
    init(arr)
    return device.asarray(arr.astype(dtype.np_dtype))


def resolve_initializer(init):
    """The Initializer instance `init` names (see init_array).

    Raises:
        ValueError: an unknown alias string.
        TypeError: `init` is none of the accepted kinds.
    """
    if isinstance(init, str):
        cls = _ALIASES.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', unknown initializer name {init!r}; valid "
                             f"names are {sorted(_ALIASES)} (case-insensitive).")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif isinstance(init, bool):
        init = Constant(int(init))
    elif isinstance(init, type) and issubclass(init, Initializer):
        init = init()
    if not isinstance(init, Initializer):
        raise TypeError(f"For 'initializer', 'init' must be a Tensor, str, number or "
                        f"Initializer, but got {type(init).__name__}.")
    return init
