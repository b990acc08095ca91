"""Initializers: statistics, aliases, seed reproducibility and error cases."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.common.initializer import (Constant, HeNormal, HeUniform, Initializer, Normal, One,
                                          TruncatedNormal, Uniform, XavierNormal, XavierUniform,
                                          Zero, initializer)

SHAPE = (256, 128)          # fan_in 128, fan_out 256


def draw(init, shape=SHAPE, dtype=ms.float32):
    return initializer(init, shape, dtype).asnumpy().astype(np.float64)


@pytest.mark.parametrize("init, mean, std", [
    (Normal(), 0.0, 0.01),
    (Normal(sigma=0.5, mean=2.0), 2.0, 0.5),
    (Uniform(), 0.0, 0.07 / math.sqrt(3)),
    (XavierUniform(), 0.0, math.sqrt(6 / 384) / math.sqrt(3)),
    (XavierNormal(gain=2), 0.0, 2 * math.sqrt(2 / 384)),
    (HeUniform(), 0.0, math.sqrt(2 / 128)),
    (HeUniform(negative_slope=math.sqrt(5)), 0.0, math.sqrt(2 / 6) / math.sqrt(128)),
    (HeNormal(mode="fan_out", nonlinearity="relu"), 0.0, math.sqrt(2 / 256)),
    (TruncatedNormal(sigma=0.02), 0.0, 0.02),
])
def test_initializer_statistics(init, mean, std):
    x = draw(init)
    assert abs(x.mean() - mean) < 5 * std / math.sqrt(x.size) + 1e-12
    assert abs(x.std() - std) / std < 0.03


def test_initializer_uniform_bounds():
    x = draw(Uniform(scale=0.3))
    assert x.min() >= -0.3 and x.max() <= 0.3 and x.max() > 0.29


def test_truncated_normal_absolute_bounds():
    x = draw(TruncatedNormal(sigma=1.0, mean=0.0, a=-0.5, b=1.0))
    assert x.min() >= -0.5 and x.max() <= 1.0
    assert x.min() < -0.49 and x.max() > 0.99


@pytest.mark.parametrize("name, cls", [
    ("normal", Normal), ("zeros", Zero), ("ones", One), ("uniform", Uniform),
    ("xavier_uniform", XavierUniform), ("XavierUniform", XavierUniform),
    ("he_uniform", HeUniform), ("heUniform", HeUniform), ("he_normal", HeNormal),
    ("HeNormal", HeNormal), ("truncatedNormal", TruncatedNormal),
])
def test_initializer_aliases_match_classes(name, cls):
    ms.set_seed(3)
    a = draw(name)
    ms.set_seed(3)
    b = draw(cls())
    np.testing.assert_array_equal(a, b)


def test_initializer_constants_and_dtype():
    t = initializer(2.5, (2, 3), ms.float64)
    assert t.dtype == ms.float64 and np.all(t.asnumpy() == 2.5)
    assert initializer("ones", 4, ms.int32).asnumpy().tolist() == [1, 1, 1, 1]
    assert np.all(draw(Zero()) == 0) and np.all(draw(Constant(-1)) == -1)
    assert isinstance(initializer("normal", [2]), Tensor)


def test_initializer_seed_reproducible():
    ms.set_seed(7)
    a = draw("normal")
    b = draw("normal")
    ms.set_seed(7)
    np.testing.assert_array_equal(a, draw("normal"))
    assert not np.array_equal(a, b)


def test_initializer_tensor_passthrough_and_shape_mismatch():
    t = Tensor(np.ones((2, 3), np.float32))
    assert initializer(t, (2, 3)) is t
    with pytest.raises(ValueError, match=r"\(2, 3\) is not equal to 'shape' \(3, 2\)"):
        initializer(t, (3, 2))


def test_initializer_errors():
    with pytest.raises(ValueError, match="unknown initializer name 'foo'"):
        initializer("foo", (2, 2))
    with pytest.raises(ValueError, match="must be positive"):
        initializer("zeros", (2, 0))
    with pytest.raises(TypeError, match="'init' must be"):
        initializer(object(), (2, 2))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        initializer("he_uniform", (5,))
    with pytest.raises(ValueError, match="'a' must be less than 'b'"):
        TruncatedNormal(a=1.0, b=0.0)


def test_initializer_custom_subclass():
    class Ramp(Initializer):
        def _initialize(self, arr):
            arr[...] = np.arange(arr.size).reshape(arr.shape)

    assert initializer(Ramp(), (2, 2)).asnumpy().tolist() == [[0, 1], [2, 3]]


def test_tensor_init_argument_uses_initializer():
    t = Tensor(shape=(2, 3), dtype=ms.float32, init="ones")
    assert t.asnumpy().sum() == 6
