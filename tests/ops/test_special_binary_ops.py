"""Igamma, Igammac, Zeta, NextAfter, Polygamma: values vs scipy.special / numpy in float64,
float32 rounding, MindSpore 2.7.2's answers at the edges, gradients vs central differences,
and the errors MindSpore raises."""
import numpy as np
import pytest
import scipy.special as sp

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

RNG = np.random.default_rng(7)


def _t(values, dtype=np.float64):
    return Tensor(np.asarray(values, dtype))


# -- forward against scipy ---------------------------------------------------------------------
@pytest.mark.parametrize("op,ref", [(ops.igamma, sp.gammainc), (ops.igammac, sp.gammaincc)])
def test_incomplete_gamma_matches_scipy_in_float64(op, ref):
    """Over a wide range (series and continued-fraction branches, tiny and large a, the
    transition x ~ a), relative error near float64's (the exponent a log x - x - lgamma(a)
    loses a few digits to cancellation for large a)."""
    a = np.concatenate([RNG.uniform(0.01, 60.0, 400), np.logspace(-3, 3, 50), [500.0, 2000.0]])
    x = np.concatenate([RNG.uniform(0.0, 90.0, 400), np.logspace(-3, 3, 50), [510.0, 1990.0]])
    got = op(Tensor(a), Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, ref(a, x), rtol=1e-11, atol=1e-300)


@pytest.mark.parametrize("op,ref", [(ops.igamma, sp.gammainc), (ops.igammac, sp.gammaincc)])
def test_incomplete_gamma_float32_is_the_rounded_float64(op, ref):
    a = RNG.uniform(0.05, 30.0, 500).astype(np.float32)
    x = RNG.uniform(0.0, 40.0, 500).astype(np.float32)
    got = op(Tensor(a), Tensor(x))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), ref(a.astype(np.float64), x.astype(np.float64)),
                               rtol=2e-7, atol=1e-37)


@pytest.mark.parametrize("sa,sx", [((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((5,), ())])
def test_incomplete_gamma_broadcasts(sa, sx):
    a = rand(*sa, low=0.2, high=5.0, seed=1)
    x = rand(*sx, low=0.1, high=6.0, seed=2)
    check_forward(ops.igamma, sp.gammainc, [a, x], rtol=1e-6)
    check_forward(ops.igammac, sp.gammaincc, [a, x], rtol=1e-6)
    assert ops.igamma(Tensor(a), Tensor(x)).shape == np.broadcast_shapes(sa, sx)


def test_zeta_matches_scipy():
    x = np.concatenate([RNG.uniform(1.001, 30.0, 300), [2.0, 3.0, 4.5, 50.0]])
    q = np.concatenate([RNG.uniform(0.001, 50.0, 300), [1.0, 2.0, 1e-3, 1e9]])
    np.testing.assert_allclose(ops.zeta(Tensor(x), Tensor(q)).asnumpy(), sp.zeta(x, q),
                               rtol=1e-13)
    # A negative non-integer q at integer x continues the sum (scipy has no such branch):
    # zeta(2, -1.5) = 1/2.25 + 1/0.25 + zeta(2, 0.5).
    np.testing.assert_allclose(ops.zeta(_t([2.0]), _t([-1.5])).asnumpy(),
                               [1 / 2.25 + 4.0 + sp.zeta(2.0, 0.5)], rtol=1e-14)
    x32, q32 = x.astype(np.float32), q.astype(np.float32)
    got = ops.zeta(Tensor(x32), Tensor(q32))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), sp.zeta(x32.astype(float), q32.astype(float)),
                               rtol=2e-7, atol=1e-37)      # float32 subnormals keep fewer digits


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_matches_scipy(n):
    x = np.concatenate([RNG.uniform(-8.0, 30.0, 300), [1e-3, 0.5, 100.0, -1.5]])
    got = ops.polygamma(Tensor(np.array(n, np.int64)), Tensor(x)).asnumpy()
    want = sp.polygamma(n, x)
    # Relative error of digamma near its roots is large; there the absolute error is tiny.
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=2e-12 if n == 0 else 0)
    got32 = ops.polygamma(Tensor(np.array(n, np.int32)), Tensor(x.astype(np.float32)))
    assert got32.dtype == ms.float32
    np.testing.assert_allclose(got32.asnumpy(),
                               sp.polygamma(n, x.astype(np.float32).astype(float)),
                               rtol=2e-6, atol=1e-5)


def test_polygamma_float16_runs_in_float32():
    x = np.array([1.0, 0.5, 3.25], np.float16)
    got = ops.polygamma(Tensor(np.array(1, np.int64)), Tensor(x))
    assert got.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(),
                                  sp.polygamma(1, x.astype(float)).astype(np.float16))


def _special_values(dtype):
    fi = np.finfo(dtype)
    return np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, fi.max, -fi.max, fi.tiny,
                     fi.smallest_subnormal, -fi.smallest_subnormal, np.inf, -np.inf, np.nan,
                     3.0], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_is_exact_in_each_dtype(dtype):
    """Bit for bit numpy.nextafter: random magnitudes over the whole range, subnormals, the
    largest finite value, infinities, signed zeros (x2 itself when x1 == x2) and NaN."""
    lo, hi = (-44, 38) if dtype == np.float32 else (-320, 307)
    x1 = (RNG.standard_normal(2000) * 10.0 ** RNG.uniform(lo, hi, 2000)).astype(dtype)
    x2 = (RNG.standard_normal(2000) * 10.0 ** RNG.uniform(lo, hi, 2000)).astype(dtype)
    got = ops.nextafter(Tensor(x1), Tensor(x2)).asnumpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.nextafter(x1, x2))
    special = _special_values(dtype)
    a, b = np.meshgrid(special, special)
    with np.errstate(over="ignore"):
        got = ops.nextafter(Tensor(a), Tensor(b)).asnumpy()
        want = np.nextafter(a, b)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert ops.nextafter(Tensor(a), Tensor(special[:1])).shape == a.shape   # broadcasts


@pytest.mark.parametrize("sx,sy", [((3, 4), (4,)), ((2, 1, 4), (3, 1))])
def test_nextafter_broadcasts(sx, sy):
    x = rand(*sx, seed=13).astype(np.float64)
    y = rand(*sy, seed=14).astype(np.float64)
    out = check_forward(ops.nextafter, np.nextafter, [x, y], rtol=0, atol=0)
    np.testing.assert_array_equal(out.asnumpy(), np.nextafter(x, y))


# -- MindSpore 2.7.2's answers at the edges (recorded from the oracle) ------------------------
def test_incomplete_gamma_edges_are_mindspores():
    a = [0.5, 1.0, 0.0, -1.0, 3.0, np.nan, 1.0, 3.0, np.inf, np.inf, np.nan, 1e-3, 1.0, 0.0]
    x = [1.0, 0.0, 1.0, 1.0, np.inf, 1.0, np.nan, -1.0, 1.0, np.inf, 0.0, np.inf, -0.0, 0.0]
    for dtype in (np.float32, np.float64):
        p = ops.igamma(_t(a, dtype), _t(x, dtype)).asnumpy()
        q = ops.igammac(_t(a, dtype), _t(x, dtype)).asnumpy()
        nan = np.nan
        np.testing.assert_allclose(
            p, [0.84270079294971545, 0, nan, nan, 1, nan, nan, nan, nan, nan, 0, 1, 0, 0],
            rtol=1e-7)
        np.testing.assert_allclose(
            q, [0.15729920705028513, 1, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 1, nan],
            rtol=1e-6)
    # Underflow of x^a e^-x / Gamma(a): MindSpore's float64 igamma(100, 1) is 3.98e-159 (its
    # Lanczos lgamma is good to ~1e-8 there; the true value is scipy's), 0 in float32.
    np.testing.assert_allclose(ops.igamma(_t([100.0]), _t([1.0])).asnumpy(),
                               [3.9813171923599216e-159], rtol=1e-4)
    assert ops.igamma(_t([100.0], np.float32), _t([1.0], np.float32)).asnumpy()[0] == 0.0
    assert ops.igammac(_t([5.0], np.float32), _t([200.0], np.float32)).asnumpy()[0] == 0.0


def test_zeta_edges_are_mindspores():
    x = [1.0, 0.5, 2.0, 2.0, 3.0, 3.0, 4.0, 1.5, np.nan, 2.0, np.inf, np.inf, np.inf, np.inf,
         30.0]
    q = [1.0, 1.0, 0.0, -1.0, 0.0, -1.0, -2.0, -0.5, 1.0, np.inf, 1.0, 2.0, 0.5, -1.0, 2.0]
    inf, nan = np.inf, np.nan
    want = [inf, nan, inf, inf, nan, nan, inf, nan, nan, nan, 1.0, nan, inf, inf,
            9.3132743241966817e-10]
    for dtype in (np.float32, np.float64):
        np.testing.assert_allclose(ops.zeta(_t(x, dtype), _t(q, dtype)).asnumpy(), want,
                                   rtol=1e-6)
    # Every float past 2^52 is an integer, -inf included: poles as well.
    np.testing.assert_array_equal(
        ops.zeta(_t([2.0, 3.0, 2.5]), _t([-np.inf, -1e20, -np.inf])).asnumpy(), [inf, nan, nan])
    # MindSpore 2.7.2: zeta(2, 1e-3) = 1.0000016425331959e+06, zeta(4.5, 0.5) = 22.81059914612840.
    np.testing.assert_allclose(ops.zeta(_t([2.0, 4.5]), _t([1e-3, 0.5])).asnumpy(),
                               [1.0000016425331959e+06, 22.8105991461284], rtol=1e-12)


def test_polygamma_edges_are_mindspores():
    x = _t([1.0, 0.5, -1.5, 0.0, -1.0, 3.0, np.nan, np.inf])
    inf, nan = np.inf, np.nan
    want = {0: [-0.57721566490153275, -1.9635100260214229, 0.7031566406452433, -inf, nan,
                0.92278433509846702, nan, inf],
            1: [1.6449340668482266, 4.9348022005446799, 9.3792466449891236, inf, inf,
                0.39493406684822646, nan, nan],
            2: [-2.404113806319188, -16.828796644234316, -0.23620405164172825, -inf, -inf,
                -0.15411380631918856, nan, nan],
            3: [6.4939394022668289, 97.409091034002415, 194.59427621918758, inf, inf,
                0.11893940226682916, nan, nan]}
    for n, values in want.items():
        np.testing.assert_allclose(ops.polygamma(Tensor(np.array(n, np.int64)), x).asnumpy(),
                                   values, rtol=1e-7)
    assert np.isnan(ops.polygamma(Tensor(np.array(-1, np.int32)), x).asnumpy()).all()
    far = _t([-np.inf, -1e20, 1e20])            # -inf and -1e20 are poles too
    for n, values in {0: [nan, nan, 46.051701859880914], 1: [inf, inf, 1e-20],
                      2: [-inf, -inf, -1e-40]}.items():
        np.testing.assert_allclose(
            ops.polygamma(Tensor(np.array(n, np.int64)), far).asnumpy(), values, rtol=1e-12)
    # The docstring's example: polygamma(1, [3.14, -2.71]) = [0.37446456, 15.49884838].
    np.testing.assert_allclose(
        ops.polygamma(Tensor(np.array(1, np.int64)), _t([3.14, -2.71])).asnumpy(),
        [0.37446456, 15.49884838], rtol=1e-8)


def test_tensor_methods_and_primitives_agree_with_the_functions():
    a = Tensor(rand(2, 3, low=0.2, high=3.0, seed=3))
    x = Tensor(rand(2, 3, low=0.1, high=4.0, seed=4))
    np.testing.assert_array_equal(a.igamma(x).asnumpy(), ops.Igamma()(a, x).asnumpy())
    np.testing.assert_array_equal(a.igammac(x).asnumpy(), ops.Igammac()(a, x).asnumpy())
    np.testing.assert_array_equal(a.nextafter(x).asnumpy(), ops.NextAfter()(a, x).asnumpy())
    np.testing.assert_array_equal(ops.zeta(a + 1, x).asnumpy(), ops.Zeta()(a + 1, x).asnumpy())
    n = Tensor(np.array(2, np.int32))
    np.testing.assert_array_equal(ops.polygamma(n, x).asnumpy(), ops.Polygamma()(n, x).asnumpy())


def test_zeta_function_takes_numbers_and_broadcasts_the_smaller_input():
    """As MindSpore's ops.zeta: a number takes the tensor's dtype; the input with fewer
    elements is broadcast to the other's shape (the primitive itself wants equal shapes)."""
    q = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    out = ops.zeta(2, q)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), sp.zeta(2.0, [1.0, 2.0, 3.0]), rtol=1e-6)
    np.testing.assert_allclose(ops.zeta(q + 1, 2.0).asnumpy(), sp.zeta([2.0, 3.0, 4.0], 2.0),
                               rtol=1e-6)
    grid = Tensor(np.full((2, 3), 3.0))
    np.testing.assert_allclose(ops.zeta(grid, Tensor(np.array([1.0, 2.0, 3.0]))).asnumpy(),
                               np.broadcast_to(sp.zeta(3.0, [1.0, 2.0, 3.0]), (2, 3)))


# -- gradients ---------------------------------------------------------------------------------
@pytest.mark.parametrize("op", [ops.igamma, ops.igammac])
@pytest.mark.parametrize("sa,sx", [((2, 3), (2, 3)), ((2, 3), (3,)), ((3, 1), (4,))])
def test_incomplete_gamma_gradients_match_finite_differences(op, sa, sx):
    """Both inputs; the `a` gradient crosses both the series (x < a) and the continued
    fraction (x > a, x > 1) branches."""
    a = rand(*sa, low=0.3, high=6.0, seed=5)
    x = rand(*sx, low=0.2, high=9.0, seed=6)
    check_grad(op, [a, x], rtol=1e-6, atol=1e-8)


def test_igamma_gradients_are_mindspores():
    """MindSpore 2.7.2's values of both gradients (its IgammaGradA agrees to ~1e-8)."""
    a, x = _t([0.5, 2.0, 3.0, 10.0]), _t([1.0, 3.0, 0.5, 12.0])
    da, dx = ms.grad(ops.igamma, grad_position=(0, 1))(a, x)
    np.testing.assert_allclose(da.asnumpy(), [-3.89837266e-01, -1.97425415e-01,
                                              -2.85202353e-02, -9.71779332e-02], rtol=1e-6)
    np.testing.assert_allclose(dx.asnumpy(), [2.07553749e-01, 1.49361205e-01, 7.58163325e-02,
                                              8.73643799e-02], rtol=1e-8)
    dac, dxc = ms.grad(ops.igammac, grad_position=(0, 1))(a, x)
    np.testing.assert_allclose(dac.asnumpy(), -da.asnumpy())
    np.testing.assert_allclose(dxc.asnumpy(), -dx.asnumpy())


def test_zeta_gradient_in_q_and_zero_in_x():
    x = rand(2, 3, low=1.5, high=4.0, seed=8)
    q = rand(2, 3, low=0.5, high=3.0, seed=9)
    check_grad(ops.zeta, [x, q], positions=[1], rtol=1e-6)
    dx, dq = ms.grad(ops.zeta, grad_position=(0, 1))(_t([2.0, 3.0]), _t([1.0, 2.5]))
    np.testing.assert_array_equal(dx.asnumpy(), [0.0, 0.0])          # MindSpore's bprop
    np.testing.assert_allclose(dq.asnumpy(), [-2.40411381e+00, -1.11952924e-01], rtol=1e-8)


def test_polygamma_gradient_is_the_next_order():
    x = rand(2, 3, low=0.3, high=5.0, seed=10)
    for n in (0, 1, 3):
        order = Tensor(np.array(n, np.int64))
        check_grad(lambda t, order=order: ops.polygamma(order, t), [x], rtol=1e-6, atol=1e-6)
    g = ms.grad(lambda t: ops.polygamma(Tensor(np.array(1, np.int64)), t))(_t([2.0, 3.0]))
    np.testing.assert_allclose(g.asnumpy(), [-0.4041138063191886, -0.15411380631918856],
                               rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_gradient_passes_dout_to_x1(dtype):
    """MindSpore's bprop: dx1 = dout (summed over broadcast axes), dx2 = 0."""
    x1 = Tensor(np.array([[2.0, 3.0], [1.0, 0.5]], dtype))
    x2 = Tensor(np.array([1.0, 2.5], dtype))
    d1, d2 = ms.grad(lambda a, b: (ops.nextafter(a, b) * 3).sum(), grad_position=(0, 1))(x1, x2)
    np.testing.assert_array_equal(d1.asnumpy(), np.full((2, 2), 3.0, dtype))
    np.testing.assert_array_equal(d2.asnumpy(), np.zeros(2, dtype))
    assert d1.dtype == x1.dtype


def test_graph_mode_matches_eager():
    a = Tensor(rand(3, 4, low=0.2, high=4.0, seed=11))
    x = Tensor(rand(3, 4, low=0.2, high=4.0, seed=12))
    n = Tensor(np.array(1, np.int64))

    def f(a, x):
        return ops.igamma(a, x) + ops.igammac(x, a) + ops.nextafter(a, x) + ops.polygamma(n, x)

    np.testing.assert_allclose(ms.jit(f)(a, x).asnumpy(), f(a, x).asnumpy(), rtol=1e-6)


# -- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("op,name", [(ops.igamma, "Igamma"), (ops.igammac, "Igammac"),
                                     (ops.nextafter, "NextAfter"), (ops.Zeta(), "Zeta")])
def test_float_pair_errors(op, name):
    f32 = Tensor(np.ones(3, np.float32))
    for bad, shown in ((np.float16, "Float16"), (np.int32, "Int32")):   # float32/64 only
        with pytest.raises(TypeError, match=rf"For '{name}'.*must be one of.*{shown}"):
            op(Tensor(np.ones(3, bad)), Tensor(np.ones(3, bad)))
    with pytest.raises(TypeError, match=rf"For '{name}'.*same dtype.*Float32.*Float64"):
        op(f32, Tensor(np.ones(3, np.float64)))
    with pytest.raises(TypeError, match=rf"For '{name}'.*Tensors"):
        op(f32, 2.0)
    with pytest.raises(ValueError, match=rf"For '{name}'"):
        op(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(4, np.float32)))


def test_zeta_primitive_wants_equal_shapes_and_the_function_broadcasts_one_way():
    with pytest.raises(ValueError, match=r"For 'Zeta'.*\(2, 1\).*\(3,\).*same"):
        ops.Zeta()(Tensor(np.ones((2, 1))), Tensor(np.ones(3)))
    with pytest.raises(ValueError):          # MindSpore: BroadcastTo's ValueError
        ops.zeta(Tensor(np.ones((2, 1))), Tensor(np.ones(3)))
    with pytest.raises(TypeError, match="at least one of the inputs should be Tensor"):
        ops.zeta(2.0, 3.0)


def test_polygamma_errors():
    x = Tensor(np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"For 'Polygamma'.*'n' must be a Tensor.*int"):
        ops.polygamma(1, x)
    with pytest.raises(TypeError, match=r"For 'Polygamma'.*'n'.*\[Int32, Int64\].*Float32"):
        ops.polygamma(Tensor(1.0), x)
    with pytest.raises(TypeError, match=r"For 'Polygamma'.*'n'.*Int8"):
        ops.polygamma(Tensor(np.array(1, np.int8)), x)
    with pytest.raises(ValueError, match=r"For 'Polygamma'.*0-dim.*rank 1"):
        ops.polygamma(Tensor(np.array([1, 2])), x)
    with pytest.raises(TypeError, match=r"For 'Polygamma'.*'x'.*Int64"):
        ops.polygamma(Tensor(np.array(1)), Tensor(np.array([1, 2])))


def test_zeta_and_polygamma_of_a_large_negative_q_finish_and_are_exact():
    """q = f - m far below 0: the m terms below f come from the reflection identity, not a
    sum of m terms (MindSpore 2.7.2 and scipy run for hours at q = -1e15 + 0.5). References:
    mpmath at 30 digits, the finite sum plus zeta(x, f) (its values, to 17 digits)."""
    x = Tensor(np.array([2.0, 3.0, 2.0, 4.0, 2.0]))
    q = Tensor(np.array([-70.3, -70.3, -1e15 + 0.5, -12345.678, -63.7]))
    want = [15.065289643812127, -34.41867211440542, 9.869604401089358, 98.28370714676826,
            15.063837693717996]
    np.testing.assert_allclose(ops.zeta(x, q).asnumpy(), want, rtol=1e-15)
    n = Tensor(np.array(1, np.int64))
    got = ops.polygamma(n, Tensor(np.array([-1e15 + 0.5, -70.3]))).asnumpy()
    np.testing.assert_allclose(got, [9.869604401089358, 15.065289643812127], rtol=1e-15)


def test_igamma_of_a_large_a_is_accurate_or_nan_never_wrong():
    """Up to a = 1e9 the series runs to convergence (P(1e6, 1e6) = 0.50013298076 by mpmath;
    MindSpore 2.7.2 says 0.363); past it the answer would need Temme's expansion: NaN,
    unless it is 0 or 1 to double precision."""
    a, x = Tensor(np.array([1e6, 1e10, 1e300, 1e12])), Tensor(np.array([1e6, 1e10, 1e300, 1.0]))
    p, q = ops.igamma(a, x).asnumpy(), ops.igammac(a, x).asnumpy()
    np.testing.assert_allclose(p[0], 0.5001329807608725, rtol=1e-8)
    np.testing.assert_allclose(p[0] + q[0], 1.0, rtol=1e-8)
    assert np.isnan(p[1:3]).all() and np.isnan(q[1:3]).all()
    assert p[3] == 0.0 and q[3] == 1.0


# -- Betainc -----------------------------------------------------------------------------------
def test_betainc_matches_scipy_in_float64():
    a = np.concatenate([RNG.uniform(0.01, 50.0, 300), np.logspace(-3, 3, 40), [1e4, 50.0]])
    b = np.concatenate([RNG.uniform(0.01, 50.0, 300), np.logspace(3, -3, 40), [1e4, 1e-3]])
    x = np.concatenate([RNG.uniform(0.0, 1.0, 300), np.linspace(0.01, 0.99, 40), [0.5, 0.999]])
    # lgamma(a + b) - lgamma(a) - lgamma(b) loses a few digits to cancellation at a = b = 1e4.
    check_forward(ops.Betainc(), sp.betainc, [a, b, x], rtol=1e-10, atol=1e-300)


def test_betainc_equals_mindspore_at_edges_and_in_float32():
    got = ops.Betainc()(_t([0.5, 0.5, -1.0, 0.5], np.float32), _t([0.5, 0.5, 1.0, 0.5], np.float32),
                        _t([0.0, 1.0, 0.5, 1.5], np.float32)).asnumpy()
    np.testing.assert_array_equal(got, [0.0, 1.0, np.nan, np.nan])
    # MindSpore 2.7.2's float32 values on the conformance inputs.
    x = _t([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32)
    y = _t([[0.4, 0.7, 0.6], [0.9, 0.1, 0.3]], np.float32)
    z = _t([[0.1, 0.3, 0.5], [0.7, 0.2, 0.4]], np.float32)
    np.testing.assert_allclose(ops.Betainc()(x, y, z).asnumpy(),
                               [[0.17551936, 0.71666646, 0.41074654],
                                [0.87901425, 0.028183507, 0.73357654]],
                               rtol=1e-5)
    grad = ms.grad(lambda c: ops.Betainc()(x, y, c).sum())(z).asnumpy()
    np.testing.assert_allclose(grad, [[0.91561663, 0.52289516, 0.77567732],
                                      [0.41582996, 0.14123693, 0.2542102]], rtol=1e-5)


def test_betainc_gradient_in_x_by_finite_differences_and_zero_in_a_b():
    a, b = RNG.uniform(0.5, 5.0, 6), RNG.uniform(0.5, 5.0, 6)
    x = RNG.uniform(0.05, 0.95, 6)
    check_grad(ops.Betainc(), [a, b, x], positions=[2])
    ga, gb = ms.grad(lambda p, q: ops.Betainc()(p, q, _t(x)).sum(), (0, 1))(_t(a), _t(b))
    assert not ga.asnumpy().any() and not gb.asnumpy().any()   # MindSpore's bprop


@pytest.mark.parametrize("args,err,words", [
    (([0.5], [0.5], [0.5, 0.2]), ValueError, "not consistent"),
    (([0.5], np.array([0.5], np.float32), [0.5]), TypeError, "same"),
])
def test_betainc_errors(args, err, words):
    tensors = [Tensor(np.asarray(v)) for v in args]
    with pytest.raises(err, match=words):
        ops.Betainc()(*tensors)
