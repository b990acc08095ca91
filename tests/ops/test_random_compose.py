"""normal, laplace, randint, randint_like, poisson / random_poisson / Poisson / RandomPoisson,
gamma / random_gamma / Gamma / RandomGamma, UniformInt, and Tensor's uniform_, normal_,
random_, bernoulli, bernoulli_, exponential_: dtypes and shapes as MindSpore 2.7.2 gives them,
seeded reproducibility, moments within statistical bounds (fixed seeds, 200k draws: a bound of
6 standard errors fails by chance with probability ~1e-9), and MindSpore's errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

N = 200_000


def _close_moments(draws, mean, var, tol=6.0):
    draws = np.asarray(draws, np.float64).reshape(-1)
    n = draws.size
    assert abs(draws.mean() - mean) < tol * np.sqrt(var / n), (draws.mean(), mean)
    # var of the sample variance ~ (mu4 - var^2) / n; 3 var^2 bounds mu4 - var^2 loosely for
    # these distributions except heavy tails, whose callers pass a wider tol
    assert abs(draws.var() - var) < tol * np.sqrt(8 * var * var / n) + 1e-12, (draws.var(), var)


def test_normal_laplace_moments_dtypes_and_broadcast():
    ms.set_seed(0)
    out = ops.normal((N,), Tensor(1.5), Tensor(2.0))
    assert out.dtype == ms.float32 and out.shape == (N,)
    _close_moments(out.asnumpy(), 1.5, 4.0)
    out = ops.normal((2, 3), Tensor([[1.0], [2.0]]), Tensor(2.0, ms.float64))
    assert out.dtype == ms.float64 and out.shape == (2, 3)
    assert ops.normal((2, 3), 1, 1).dtype == ms.float32
    out = ops.laplace((N,), Tensor(-1.0), Tensor(0.5))
    assert out.dtype == ms.float32
    _close_moments(out.asnumpy(), -1.0, 2 * 0.25, tol=12.0)   # Laplace: var 2 b^2, heavy-ish
    assert ops.laplace((2, 3), Tensor(1.0), Tensor([[2.0], [3.0]])).shape == (2, 3)


def test_seeds_reproduce():
    ms.set_seed(7)
    a = ops.randint(0, 100, (50,)).asnumpy()
    ms.set_seed(7)
    b = ops.randint(0, 100, (50,)).asnumpy()
    np.testing.assert_array_equal(a, b)
    for draw in (lambda s: ops.random_poisson(Tensor([40], ms.int32), Tensor([3.0]), seed=s),
                 lambda s: ops.random_gamma(Tensor([40], ms.int32), Tensor([0.7]), seed=s),
                 lambda s: ops.normal((40,), 0.0, 1.0, seed=s),
                 lambda s: ops.randint(0, 9, (40,), seed=s)):
        np.testing.assert_array_equal(draw(3).asnumpy(), draw(3).asnumpy())
        assert not np.array_equal(draw(3).asnumpy(), draw(4).asnumpy())


def test_randint_and_uniform_int():
    ms.set_seed(1)
    out = ops.randint(-3, 4, (N,))
    assert out.dtype == ms.int64
    counts = np.bincount(out.asnumpy() + 3, minlength=7)
    assert counts.size == 7 and np.all(np.abs(counts - N / 7) < 6 * np.sqrt(N / 7))
    assert ops.randint(0, 5, (2, 3), dtype=ms.int8).dtype == ms.int8
    like = ops.randint_like(Tensor(np.ones((2, 2), np.int32)), 0, 5)
    assert like.dtype == ms.int32 and like.shape == (2, 2)
    assert ops.randint_like(Tensor(np.ones(2, np.int32)), 0, 5, dtype=ms.int64).dtype == ms.int64
    out = ops.UniformInt(seed=2)((3, 4), Tensor(1, ms.int32), Tensor(5, ms.int32))
    assert out.dtype == ms.int32 and out.shape == (3, 4)
    values = out.asnumpy()
    assert values.min() >= 1 and values.max() <= 4
    big = ops.randint(-2 ** 40, 2 ** 40, (1000,)).asnumpy()
    assert big.min() >= -2 ** 40 and big.max() < 2 ** 40 and np.abs(big).max() > 2 ** 38


@pytest.mark.parametrize("rate", [0.05, 1.0, 7.5, 300.0, 5e4])
def test_poisson_moments(rate):
    ms.set_seed(2)
    out = ops.random_poisson(Tensor([N], ms.int64), Tensor([rate], ms.float64),
                             dtype=ms.float64)
    values = out.asnumpy()
    assert out.shape == (N, 1) and (values == np.round(values)).all() and values.min() >= 0
    _close_moments(values, rate, rate, tol=8.0)


def test_poisson_shapes_dtypes_and_edges():
    ms.set_seed(3)
    out = ops.random_poisson(Tensor([2, 3], ms.int32), Tensor([1.0, 5.0]))
    assert out.dtype == ms.float32 and out.shape == (2, 3, 2)
    out = ops.RandomPoisson(dtype=ms.int32)(Tensor([4], ms.int64), Tensor([[0.0, -2.0]]))
    assert out.dtype == ms.int32 and out.shape == (4, 1, 2) and (out.asnumpy() == 0).all()
    assert ops.RandomPoisson()(Tensor([3], ms.int32), Tensor([2.0])).dtype == ms.int64
    out = ops.RandomPoisson(dtype=ms.float16)(Tensor([3], ms.int64), Tensor([1], ms.int32))
    assert out.dtype == ms.float16 and out.shape == (3, 1)
    out = ops.poisson((2, 3), Tensor([1.0, 5.0, 100.0]))
    assert out.dtype == ms.float32 and out.shape == (2, 3)
    out = ops.Poisson(seed=5)((N, 1), Tensor([4.0]))
    _close_moments(out.asnumpy(), 4.0, 4.0)


@pytest.mark.parametrize("alpha", [0.1, 0.6, 1.0, 3.3, 250.0])
def test_gamma_moments(alpha):
    ms.set_seed(4)
    out = ops.random_gamma(Tensor([N], ms.int32), Tensor([alpha], ms.float64))
    values = out.asnumpy()
    assert out.dtype == ms.float64 and out.shape == (N, 1) and values.min() >= 0
    # Gamma(a): mean a, variance a (skewed for small a: a wider bound)
    _close_moments(values, alpha, alpha, tol=6.0 if alpha >= 1 else 20.0)


def test_gamma_shapes_dtypes_and_edges():
    ms.set_seed(5)
    out = ops.random_gamma(Tensor([3], ms.int32), Tensor([0.0, -1.0, 1.0], ms.float64))
    values = out.asnumpy()
    assert (values[:, 0] == 0).all() and np.isnan(values[:, 1]).all() and (values[:, 2] > 0).all()
    assert ops.random_gamma(Tensor([3], ms.int32), Tensor([1.0], ms.float16)).dtype == ms.float16
    out = ops.gamma((2, 3), Tensor([1.0, 5.0, 3.0]), Tensor([1.0]))
    assert out.dtype == ms.float32 and out.shape == (2, 3)
    # Gamma(alpha, beta) with beta the inverse scale: mean alpha / beta, variance alpha / beta^2
    out = ops.Gamma(seed=1)((N, 1), Tensor([3.0]), Tensor([2.0]))
    _close_moments(out.asnumpy(), 1.5, 0.75)


def test_tensor_in_place_draws():
    ms.set_seed(6)
    t = Tensor(np.zeros(N, np.float32))
    assert t.uniform_(1, 3) is t and t.dtype == ms.float32
    values = t.asnumpy()
    assert values.min() >= 1 and values.max() < 3
    _close_moments(values, 2.0, 4 / 12)
    _close_moments(t.normal_(1, 2).asnumpy(), 1.0, 4.0)
    _close_moments(t.exponential_(2.0).asnumpy(), 0.5, 0.25, tol=12.0)
    _close_moments(t.bernoulli_(0.3).asnumpy(), 0.3, 0.21)
    values = t.random_(0, 5).asnumpy()
    assert set(np.unique(values)) == {0.0, 1.0, 2.0, 3.0, 4.0}
    p = Tensor(np.full(N, 0.8, np.float32))
    _close_moments(p.bernoulli().asnumpy(), 0.8, 0.16)
    ti = Tensor(np.zeros(1000, np.int32))
    assert ti.random_().dtype == ms.int32 and ti.asnumpy().min() >= 0
    with pytest.raises(NotImplementedError, match="generator"):
        t.uniform_(generator=object())


@pytest.mark.parametrize("call,error,match", [
    (lambda: ops.randint(5, 5, (2, 3)), RuntimeError, "invalid min/max"),
    (lambda: ops.randint(0.5, 5, (2, 3)), TypeError, "'low' must be an int"),
    (lambda: ops.randint(0, 5, (2, 3), dtype=ms.float32), ValueError, "int type"),
    (lambda: ops.randint(0, 5, [2, 3]), ValueError, "must be a tuple"),
    (lambda: ops.randint(0, 5, (2, 3), seed=-1), ValueError, "'seed'"),
    (lambda: ops.randint_like(Tensor(np.ones(2, np.float32)), 0, 5), ValueError, "int type"),
    (lambda: ops.UniformInt()((2, 3), 1, 5), TypeError, "should be a Tensor"),
    (lambda: ops.UniformInt()((2, 3), Tensor(1), Tensor(5)), TypeError, "Int32"),
    (lambda: ops.UniformInt()((2,), Tensor(5, ms.int32), Tensor(5, ms.int32)), RuntimeError,
     "invalid min/max"),
    (lambda: ops.laplace((2, 3), 1.0, 2.0), TypeError, "must be a Tensor"),
    (lambda: ops.laplace((2,), Tensor(1.0, ms.float64), Tensor(2.0, ms.float64)), TypeError,
     "not consistent"),
    (lambda: ops.random_poisson((2, 3), Tensor([1.0])), TypeError, "Int32 or Int64"),
    (lambda: ops.RandomPoisson(dtype=ms.bool_), TypeError, "'dtype'"),
    (lambda: ops.random_gamma((2, 3), Tensor([1.0])), TypeError, "only support tensor"),
    (lambda: ops.random_gamma(Tensor([3], ms.int32), Tensor([1], ms.int32)), TypeError,
     "Float16"),
    (lambda: ops.poisson((2,), Tensor(3, ms.int32)), TypeError, "Tensor\\[Float32\\]"),
    (lambda: ops.poisson((2, 3), Tensor([1.0, 5.0])), ValueError, "broadcast"),
    (lambda: ops.gamma((2, 3), 1.0, Tensor(2.0)), TypeError, "Tensor\\[Float32\\]"),
])
def test_random_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_poisson_and_gamma_in_graph_mode_draw_anew():
    @ms.jit
    def f(rate):
        return ops.random_poisson(Tensor([1000], ms.int32), rate) + \
            ops.random_gamma(Tensor([1000], ms.int32), rate)
    a, b = f(Tensor([5.0])), f(Tensor([5.0]))
    assert a.shape == (1000, 1) and not np.array_equal(a.asnumpy(), b.asnumpy())
    assert 8.0 < a.asnumpy().mean() < 12.0
