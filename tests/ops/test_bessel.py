"""The Bessel operators (BesselI0 ... BesselY1, ops.bessel_*, ops.i0, Tensor.i0): values against
scipy.special in float64 and float32, symmetry, MindSpore 2.7.2's answers at the domain edges,
gradients against central differences, dtype errors."""
import numpy as np
import pytest
import scipy.special as sp

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

# name: (function, primitive class, scipy reference, whether defined only for x > 0)
BESSEL = {
    "i0": (ops.bessel_i0, ops.BesselI0, sp.i0, False),
    "i0e": (ops.bessel_i0e, ops.BesselI0e, sp.i0e, False),
    "i1": (ops.bessel_i1, ops.BesselI1, sp.i1, False),
    "i1e": (ops.bessel_i1e, ops.BesselI1e, sp.i1e, False),
    "j0": (ops.bessel_j0, ops.BesselJ0, sp.j0, False),
    "j1": (ops.bessel_j1, ops.BesselJ1, sp.j1, False),
    "k0": (ops.bessel_k0, ops.BesselK0, sp.k0, True),
    "k0e": (ops.bessel_k0e, ops.BesselK0e, sp.k0e, True),
    "k1": (ops.bessel_k1, ops.BesselK1, sp.k1, True),
    "k1e": (ops.bessel_k1e, ops.BesselK1e, sp.k1e, True),
    "y0": (ops.bessel_y0, ops.BesselY0, sp.y0, True),
    "y1": (ops.bessel_y1, ops.BesselY1, sp.y1, True),
}
NAMES = sorted(BESSEL)
EVEN, ODD = ("i0", "i0e", "j0"), ("i1", "i1e", "j1")


def _grid(positive_only):
    """0 (where defined), tiny, both sides of every branch point (2, 5, 8), the oscillating
    range, and large arguments up to where I0/I1 overflow float64."""
    pos = np.concatenate([[1e-300, 1e-10, 1e-5, 2.0, 5.0, 8.0],
                          np.nextafter([2.0, 5.0, 8.0], 10.0), np.linspace(1e-3, 40.0, 801),
                          np.geomspace(40.0, 700.0, 40)])
    return pos if positive_only else np.concatenate([[0.0], pos, -pos])


@pytest.mark.parametrize("name", NAMES)
def test_bessel_float64_matches_scipy(name):
    fn, _, ref, positive = BESSEL[name]
    x = _grid(positive)
    check_forward(fn, ref, [x], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), ()])
def test_bessel_float32_is_the_rounded_float64_value(name, shape):
    fn, _, ref, positive = BESSEL[name]
    x = rand(*shape, seed=3, low=0.05 if positive else -12.0, high=12.0)
    out = fn(Tensor(x))
    assert out.dtype == ms.float32 and tuple(out.shape) == shape
    # float32 results are the float64 values rounded once: within half an ulp of float32
    np.testing.assert_allclose(out.asnumpy(), ref(x.astype(np.float64)), rtol=6e-8, atol=1e-38)


@pytest.mark.parametrize("name", NAMES)
def test_bessel_float16_keeps_its_dtype(name):
    fn, _, ref, _ = BESSEL[name]
    x = np.array([0.5, 1.25, 3.0, 7.5], np.float16)
    out = fn(Tensor(x))
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), ref(x.astype(np.float64)),
                               rtol=1e-3)


def test_bessel_symmetry():
    x = np.linspace(0.1, 30.0, 97)
    for name in EVEN + ODD:
        fn = BESSEL[name][0]
        sign = 1.0 if name in EVEN else -1.0
        np.testing.assert_array_equal(fn(Tensor(-x)).asnumpy(), sign * fn(Tensor(x)).asnumpy())


def test_bessel_edges_are_mindspores():
    """MindSpore 2.7.2's float64 answers (recorded from the oracle) at 0, -0, +-inf, NaN, a
    negative x and overflowing |x|: K is +inf and Y -inf for every x <= 0 (scipy: NaN below
    0); J, Y at +-inf and I0, I1 at +-inf are NaN."""
    x = Tensor(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -2.0, 800.0, -800.0]))
    nan, inf = np.nan, np.inf
    want = {
        "i0": [1.0, 1.0, nan, nan, nan, 2.279585302336067, inf, inf],
        "i0e": [1.0, 1.0, 0.0, 0.0, nan, 0.308508322553671, 0.014106945005869183,
                0.014106945005869183],
        "i1": [0.0, 0.0, nan, nan, nan, -1.5906368546373295, inf, -inf],
        "i1e": [0.0, 0.0, 0.0, -0.0, nan, -0.2152692892489377, 0.014098125406526996,
                -0.014098125406526996],
        "j0": [1.0, 1.0, nan, nan, nan, 0.22389077914123562, 0.008897445883815304,
               0.008897445883815304],
        "j1": [0.0, -0.0, nan, nan, nan, -0.5767248077568734, 0.02677513872232301,
               -0.02677513872232301],
        "k0": [inf, inf, 0.0, inf, nan, inf, 0.0, inf],
        "k0e": [inf, inf, 0.0, inf, nan, inf, 0.044304427486646016, inf],
        "k1": [inf, inf, 0.0, inf, nan, inf, 0.0, inf],
        "k1e": [inf, inf, 0.0, inf, nan, inf, 0.0443321091114121, inf],
        "y0": [-inf, -inf, nan, -inf, nan, -inf, 0.02676957259239893, -inf],
        "y1": [-inf, -inf, nan, -inf, nan, -inf, -0.008880716645260096, -inf],
    }
    for name, values in want.items():
        got = BESSEL[name][0](x).asnumpy()
        np.testing.assert_allclose(got, values, rtol=1e-14, err_msg=name)
        np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(values[:2]))


def test_bessel_float32_at_zero_and_below_is_mindspores():
    """MindSpore 2.7.2's float32 outputs on [0, -1.5, -3, 0.5, 3]: the same edges in float32
    (its float32 Y1(0) is NaN, its float64 one -inf: minispore gives -inf in both)."""
    x = Tensor(np.array([0.0, -1.5, -3.0, 0.5, 3.0], np.float32))
    inf = np.inf
    want = {
        "k0": [inf, inf, inf, 0.92441911, 0.034739509],
        "k0e": [inf, inf, inf, 1.5241094, 0.69776165],
        "k1": [inf, inf, inf, 1.6564410, 0.040156435],
        "k1e": [inf, inf, inf, 2.7310095, 0.8065635],
        "y0": [-inf, -inf, -inf, -0.44451872, 0.37685004],
        "y1": [-inf, -inf, -inf, -1.4714724, 0.3246744],
        "i0": [1.0, 1.6467233, 4.8807931, 1.0634835, 4.8807931],
        "i1": [0.0, -0.98166639, -3.9533710, 0.25789434, 3.9533710],
        "j0": [1.0, 0.5118277, -0.26005194, 0.9384699, -0.26005194],
        "j1": [0.0, -0.55793655, -0.33905897, 0.24226847, 0.33905897],
    }
    for name, values in want.items():
        np.testing.assert_allclose(BESSEL[name][0](x).asnumpy(), values, rtol=1e-6,
                                   err_msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_bessel_grad(name):
    fn, _, _, positive = BESSEL[name]
    x = rand(3, 4, seed=11, low=0.2 if positive else -6.0, high=6.0)
    check_grad(fn, [x])


def test_bessel_grads_at_zero():
    """The limits where the formulas divide by x: I1'(0) = I1e'(0) = J1'(0) = 1/2 (MindSpore
    2.7.2's BesselI1 bprop says 1 there, the true limit is 1/2), and I0e'(0) = 0 (MindSpore's
    choice between the one-sided -1 and +1)."""
    zero = Tensor(np.zeros(2))
    for fn, want in ((ops.bessel_i1, 0.5), (ops.bessel_i1e, 0.5), (ops.bessel_j1, 0.5),
                     (ops.bessel_i0e, 0.0), (ops.bessel_i0, 0.0), (ops.bessel_j0, 0.0)):
        np.testing.assert_array_equal(ms.grad(fn)(zero).asnumpy(), [want, want])


def test_bessel_primitives_i0_and_tensor_method_agree():
    x = Tensor(rand(2, 3, seed=5, low=0.1, high=4.0))
    for name in NAMES:
        fn, prim, _, _ = BESSEL[name]
        np.testing.assert_array_equal(prim()(x).asnumpy(), fn(x).asnumpy())
    np.testing.assert_array_equal(ops.i0(x).asnumpy(), ops.bessel_i0(x).asnumpy())
    np.testing.assert_array_equal(x.i0().asnumpy(), ops.bessel_i0(x).asnumpy())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
def test_bessel_rejects_non_float_inputs(name, dtype):
    """MindSpore 2.7.2 raises TypeError for integer and bool inputs of every Bessel op."""
    fn, prim, _, _ = BESSEL[name]
    with pytest.raises(TypeError, match=rf"For '{prim.__name__}'.*Float16, Float32, Float64"):
        fn(Tensor(np.array([1, 2], dtype)))
