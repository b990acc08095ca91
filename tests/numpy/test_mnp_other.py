"""mindspore.numpy's less common functions (bitwise, searchsorted, interp, pad, trapz,
gradient, polynomials, convolve, cov, windows, random draws, promotion) against NumPy in float64
and against results recorded from MindSpore 2.7.2."""
import numpy as np
import pytest

import minispore as ms
import minispore.numpy as mnp
from minispore import Tensor
from tests.ops.harness import check_grad

# {expression: (dtype, shape, value)} as MindSpore 2.7.2's mnp returned them (first element of
# a tuple result).
RECORDED = {
    'mnp.argwhere(mnp.array([[0, 1], [2, 0]]))':
        ('Int64', (2, 2), [[0, 1], [1, 0]]),
    'mnp.bitwise_and(mnp.array([12, 10]), mnp.array([10, 6]))':
        ('Int32', (2,), [8, 2]),
    'mnp.bitwise_or(mnp.array([12, 10]), mnp.array([10, 6]))':
        ('Int32', (2,), [14, 14]),
    'mnp.bitwise_xor(mnp.array([12, 10]), mnp.array([10, 6]))':
        ('Int32', (2,), [6, 12]),
    'mnp.bitwise_not(mnp.array([12, -3]))':
        ('Int32', (2,), [-13, 2]),
    "mnp.searchsorted(mnp.array([1.0, 2.0, 3.0]), mnp.array([2.0, 0.5, 9.0]), side='right')":
        ('Int32', (3,), [2, 0, 3]),
    'mnp.trapz(mnp.array([1.0, 2.0, 4.0]))':
        ('Float32', (), 4.5),
    'mnp.trapz(mnp.array([1, 2, 4]), dx=0.5)':
        ('Float32', (), 2.25),
    'mnp.trapz(mnp.array([1.0, 2.0, 4.0]), x=mnp.array([0.0, 1.0, 3.0]))':
        ('Float32', (), 7.5),
    'mnp.polyval(mnp.array([1.0, 2.0, 3.0]), mnp.array([2.0, -1.0]))':
        ('Float32', (2,), [11.0, 2.0]),
    'mnp.polyval(mnp.array([1, 2]), mnp.array([3]))':
        ('Float32', (1,), [5.0]),
    'mnp.polyadd(mnp.array([1.0, 2.0]), mnp.array([3.0, 4.0, 5.0]))':
        ('Float32', (3,), [3.0, 5.0, 7.0]),
    'mnp.polysub(mnp.array([1, 2]), mnp.array([3, 4, 5]))':
        ('Int32', (3,), [-3, -3, -3]),
    'mnp.polyder(mnp.array([1.0, 2.0, 3.0, 4.0]))':
        ('Float32', (3,), [3.0, 4.0, 3.0]),
    'mnp.polyder(mnp.array([1, 2, 3, 4]), 2)':
        ('Int32', (2,), [6, 4]),
    'mnp.polyint(mnp.array([3.0, 2.0, 1.0]))':
        ('Float32', (4,), [1.0, 1.0, 1.0, 0.0]),
    'mnp.polymul(mnp.array([1.0, 2.0]), mnp.array([3.0, 4.0, 5.0]))':
        ('Float32', (4,), [3.0, 10.0, 13.0, 10.0]),
    'mnp.hamming(4)':
        ('Float32', (4,), [0.08000001311302185, 0.7700000405311584, 0.7699999809265137, 0.08000001311302185]),
    'mnp.hanning(4)':
        ('Float32', (4,), [0.0, 0.75, 0.7499999403953552, 0.0]),
    'mnp.bartlett(5)':
        ('Float32', (5,), [0.0, 0.5, 1.0, 0.5, 0.0]),
    'mnp.blackman(4)':
        ('Float32', (4,), [-1.4901161193847656e-08, 0.6299999356269836, 0.6299999356269836, -1.4901161193847656e-08]),
    'mnp.diag_indices(3)':
        ('Int32', (3,), [0, 1, 2]),
    'mnp.ix_(mnp.array([0, 1]), mnp.array([2, 3, 4]))':
        ('Int32', (2, 1), [[0], [1]]),
    'mnp.pad(mnp.array([1.0, 2.0]), (1, 2))':
        ('Float32', (5,), [0.0, 1.0, 2.0, 0.0, 0.0]),
    'mnp.pad(mnp.array([[1, 2]]), ((1, 0), (0, 1)), constant_values=5)':
        ('Int32', (2, 3), [[5, 5, 5], [1, 2, 5]]),
    'mnp.cov(mnp.array([[1.0, 2.0, 4.0], [2.0, 1.0, 0.0]]))':
        ('Float32', (2, 2), [[2.3333334922790527, -1.5], [-1.5, 1.0]]),
    'mnp.corrcoef(mnp.array([[1.0, 2.0, 4.0], [2.0, 1.0, 0.0]]))':
        ('Float32', (2, 2), [[1.0, -0.9819804430007935], [-0.9819804430007935, 1.0]]),
    'mnp.cov(mnp.array([[1, 2, 4], [2, 1, 0]]), bias=True)':
        ('Float32', (2, 2), [[1.5555557012557983, -1.0], [-1.0, 0.6666666865348816]]),
    'mnp.convolve(mnp.array([1.0, 2.0, 3.0]), mnp.array([0.0, 1.0, 0.5]))':
        ('Float32', (5,), [0.0, 1.0, 2.5, 4.0, 1.5]),
    "mnp.convolve(mnp.array([1, 2, 3]), mnp.array([0, 1]), mode='same')":
        ('Int32', (3,), [0, 1, 2]),
    'mnp.correlate(mnp.array([1.0, 2.0, 3.0]), mnp.array([0.0, 1.0, 0.5]))':
        ('Float32', (1,), [3.5]),
    'mnp.choose(mnp.array([0, 1, 0]), [mnp.array([1, 2, 3]), mnp.array([10, 20, 30])])':
        ('Int32', (3,), [1, 20, 3]),
    'mnp.gradient(mnp.array([1.0, 2.0, 4.0, 7.0]))':
        ('Float32', (4,), [1.0, 1.5, 2.5, 3.0]),
    'mnp.interp(mnp.array([0.5, 2.5]), mnp.array([0.0, 1.0, 3.0]), mnp.array([0.0, 10.0, 30.0]))':
        ('Float32', (2,), [5.0, 25.0]),
    'mnp.digitize(mnp.array([0.2, 6.4, 3.0]), mnp.array([0.0, 1.0, 2.5, 4.0]))':
        ('Int32', (3,), [1, 4, 3]),
    'mnp.digitize(mnp.array([0.2, 6.4, 3.0]), mnp.array([4.0, 2.5, 1.0, 0.0]))':
        ('Int32', (3,), [3, 0, 1]),
    'mnp.unravel_index(mnp.array([5, 7]), (3, 4))': ('Int32', (2,), [1, 1]),
    'mnp.apply_along_axis(mnp.sum, 1, mnp.ones((2, 3)))': ('Float32', (2,), [3.0, 3.0]),
    'mnp.apply_over_axes(mnp.sum, mnp.ones((2, 3, 4)), [0, 2])':
        ('Float32', (1, 3, 1), [[[8.0], [8.0], [8.0]]]),
    'mnp.unwrap(mnp.array([0.0, 3.0, 6.5, 0.2]))':
        ('Float32', (4,), [0.0, 3.0, 0.21681499481201172, 0.20000047981739044]),
}


@pytest.mark.parametrize("code", list(RECORDED))
def test_matches_mindspore_recorded(code):
    dtype, shape, value = RECORDED[code]
    out = eval(code, {"mnp": mnp, "ms": ms})  # noqa: S307  (the recorded snippets)
    if isinstance(out, (tuple, list)):
        out = out[0]
    assert str(out.dtype) == dtype
    assert tuple(out.shape) == shape
    np.testing.assert_allclose(out.asnumpy(), np.asarray(value), rtol=1e-6, atol=1e-7)


def test_invert_refuses_bool_as_mindspore():
    with pytest.raises(TypeError, match="mindspore.numpy.invert, bool input"):
        mnp.invert(mnp.array([True, False]))


def test_promotion_matches_mindspore():
    # MindSpore 2.7.2: promote_types(int32, float16) -> Float16; result_type(int32 Tensor, 1.0)
    # -> Float32; result_type(int32, float16 Tensor, int64) -> Float16.
    assert mnp.promote_types(mnp.int32, mnp.float16) == mnp.float16
    assert mnp.result_type(mnp.array([1]), 1.0) == mnp.float32
    assert mnp.result_type(mnp.array([1]), mnp.array([1.0], mnp.float16), mnp.int64) == mnp.float16


RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 5))


def same(got, want, rtol=1e-10, atol=1e-12):
    want = np.asarray(want)
    assert tuple(got.shape) == want.shape, f"shape {tuple(got.shape)} != {want.shape}"
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want, rtol=rtol, atol=atol)


def test_against_numpy_float64():
    a, b = np.array([12, 10, 7], np.int32), np.array([10, 6, 3], np.int32)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        same(getattr(mnp, name)(Tensor(a), Tensor(b)), getattr(np, name)(a, b))
    same(mnp.invert(Tensor(a)), np.invert(a))
    same(mnp.argwhere(Tensor(X > 0)), np.argwhere(X > 0))
    s, v = np.sort(X[0]), X[1]
    for side in ("left", "right"):
        same(mnp.searchsorted(Tensor(s), Tensor(v), side), np.searchsorted(s, v, side))
    xp, fp = np.sort(X[0]), X[1]
    q = np.linspace(xp[0] - 1, xp[-1] + 1, 11)
    same(mnp.interp(Tensor(q), Tensor(xp), Tensor(fp)), np.interp(q, xp, fp))
    same(mnp.interp(Tensor(q), Tensor(xp), Tensor(fp), -7.0, 9.0), np.interp(q, xp, fp, -7.0, 9.0))
    for mode in ("constant", "edge", "reflect", "wrap"):
        same(mnp.pad(Tensor(X), ((1, 2), (2, 0)), mode), np.pad(X, ((1, 2), (2, 0)), mode))
    same(mnp.pad(Tensor(X), 1, constant_values=3.5), np.pad(X, 1, constant_values=3.5))
    same(mnp.trapz(Tensor(X)), np.trapezoid(X))
    same(mnp.trapz(Tensor(X), dx=0.5, axis=0), np.trapezoid(X, dx=0.5, axis=0))
    same(mnp.trapz(Tensor(X), Tensor(np.cumsum(np.abs(X[0])))),
         np.trapezoid(X, np.cumsum(np.abs(X[0]))))
    same(mnp.gradient(Tensor(X), 0.5, axis=1), np.gradient(X, 0.5, axis=1))
    for g, w in zip(mnp.gradient(Tensor(X), 2.0, 3.0), np.gradient(X, 2.0, 3.0)):
        same(g, w)
    p, r = X[0], X[1, :3]
    same(mnp.polyval(Tensor(p), Tensor(X)), np.polyval(p, X))
    same(mnp.polyadd(Tensor(p), Tensor(r)), np.polyadd(p, r))
    same(mnp.polysub(Tensor(r), Tensor(p)), np.polysub(r, p))
    same(mnp.polyder(Tensor(p), 2), np.polyder(p, 2))
    same(mnp.polyint(Tensor(p), 2, [1.0, -2.0]), np.polyint(p, 2, [1.0, -2.0]))
    same(mnp.polymul(Tensor(p), Tensor(r)), np.polymul(p, r))
    for mode in ("full", "same", "valid"):
        same(mnp.convolve(Tensor(p), Tensor(r), mode), np.convolve(p, r, mode))
        same(mnp.convolve(Tensor(r), Tensor(p), mode), np.convolve(r, p, mode))
        same(mnp.correlate(Tensor(p), Tensor(r), mode), np.correlate(p, r, mode))
        same(mnp.correlate(Tensor(r), Tensor(p), mode), np.correlate(r, p, mode))
    same(mnp.cov(Tensor(X)), np.cov(X))
    same(mnp.cov(Tensor(X), Tensor(X[:1] * 2), rowvar=True, ddof=0), np.cov(X, X[:1] * 2, ddof=0))
    same(mnp.cov(Tensor(X.T), rowvar=False, bias=True), np.cov(X.T, rowvar=False, bias=True))
    same(mnp.corrcoef(Tensor(X)), np.corrcoef(X))
    for name in ("hamming", "hanning", "bartlett", "blackman"):
        same(getattr(mnp, name)(7), getattr(np, name)(7), rtol=1e-6, atol=1e-7)
    for g, w in zip(mnp.diag_indices(4, 3), np.diag_indices(4, 3)):
        same(g, w)
    for g, w in zip(mnp.ix_(Tensor(np.array([0, 2])), Tensor(np.array([1, 3, 4]))),
                    np.ix_([0, 2], [1, 3, 4])):
        same(g, w)
    idx = np.array([[0, 2, 1, 5, -1]], np.int32)
    choices = [X[0], X[1], X[2]]
    for mode in ("clip", "wrap"):
        same(mnp.choose(Tensor(idx), [Tensor(c) for c in choices], mode),
             np.choose(idx, choices, mode=mode))


def test_index_and_apply_helpers_against_numpy():
    for order in ("C", "F"):
        flat = np.array([0, 5, 11, 7, -1], np.int32)
        for g, w in zip(mnp.unravel_index(Tensor(flat), (3, 4), order),
                        np.unravel_index(flat % 12, (3, 4), order)):
            same(g, w)
    x, bins = X.ravel(), np.array([-1.0, 0.0, 0.5, 2.0])
    for right in (False, True):
        same(mnp.digitize(Tensor(x), Tensor(bins), right), np.digitize(x, bins, right))
        same(mnp.digitize(Tensor(x), Tensor(bins[::-1].copy()), right),
             np.digitize(x, bins[::-1], right))
    with pytest.raises(ValueError, match="monotonically"):
        mnp.digitize(Tensor(x), Tensor(np.array([0.0, 2.0, 1.0])))
    same(mnp.apply_along_axis(lambda v: mnp.cumsum(v) * 2, 0, Tensor(X)),
         np.apply_along_axis(lambda v: np.cumsum(v) * 2, 0, X))
    same(mnp.apply_along_axis(mnp.amax, 1, Tensor(X)), np.apply_along_axis(np.amax, 1, X))
    same(mnp.apply_over_axes(mnp.sum, Tensor(X), (1, 0)), np.apply_over_axes(np.sum, X, (1, 0)))
    ph = np.cumsum(RNG.uniform(-4.0, 4.0, (2, 9)), axis=1)
    same(mnp.unwrap(Tensor(ph)), np.unwrap(ph))
    same(mnp.unwrap(Tensor(ph.T), discont=2.0, axis=0), np.unwrap(ph.T, discont=2.0, axis=0))


def test_random_draws_shapes_dtypes_ranges():
    ms.set_seed(5)
    u = mnp.rand(200, 3)
    assert u.dtype == mnp.float32 and tuple(u.shape) == (200, 3)
    assert 0.0 <= u.asnumpy().min() and u.asnumpy().max() < 1.0
    n = mnp.randn((4000,), dtype=mnp.float64)
    assert n.dtype == mnp.float64 and abs(float(n.asnumpy().mean())) < 0.1
    k = mnp.randint(-2, 3, (500,))
    assert k.dtype == mnp.int32 and set(np.unique(k.asnumpy())) == {-2, -1, 0, 1, 2}
    with pytest.raises(ValueError, match="maxval 1 must exceed minval 1"):
        mnp.randint(1, 1)


def test_refusals_name_the_argument():
    with pytest.raises(NotImplementedError, match="'sorter'"):
        mnp.searchsorted(mnp.arange(3), mnp.arange(2), sorter=mnp.arange(3))
    with pytest.raises(NotImplementedError, match="mode 'mean'"):
        mnp.pad(mnp.ones((2,)), 1, "mean")
    with pytest.raises(NotImplementedError, match="'aweights'"):
        mnp.cov(mnp.ones((2, 3)), aweights=mnp.ones(3))
    with pytest.raises(NotImplementedError, match="'edge_order'"):
        mnp.gradient(mnp.ones((3,)), edge_order=2)


@pytest.mark.parametrize("fn,shapes", [
    (lambda x, y: mnp.convolve(x, y), [(5,), (3,)]),
    (lambda x: mnp.pad(x, ((1, 2), (2, 1)), "reflect"), [(3, 4)]),
    (lambda x, y: mnp.interp(Tensor(np.array([0.3, 1.1, 1.9])), mnp.cumsum(x), y), [(3,), (3,)]),
    (lambda x: mnp.cov(x), [(2, 5)]),
    (lambda x, y: mnp.polyval(x, y), [(3,), (4,)]),
])
def test_gradients_match_finite_differences(fn, shapes):
    arrays = [RNG.uniform(0.2, 1.5, s) for s in shapes]
    check_grad(fn, arrays, rtol=1e-5, atol=1e-7)


def test_unique_keeps_first_appearance_order_as_mindspore():
    # MindSpore 2.7.2: mnp.unique([3, 1, 2, 3, 1]) -> [3 1 2], inverse [0 1 2 0 1];
    # a 2-D input is flattened first: [[2., 1.], [2., 5.]] -> [2. 1. 5.]
    x = Tensor(np.array([3, 1, 2, 3, 1], np.int32))
    assert mnp.unique(x).asnumpy().tolist() == [3, 1, 2]
    values, inverse = mnp.unique(x, return_inverse=True)
    assert inverse.asnumpy().tolist() == [0, 1, 2, 0, 1] and inverse.dtype == ms.int32
    got = mnp.unique(Tensor(np.array([[2., 1.], [2., 5.]], np.float32)))
    assert got.asnumpy().tolist() == [2.0, 1.0, 5.0]
