"""mindspore.numpy math, reductions, products and logic against NumPy in float64."""
import numpy as np
import pytest

import minispore.numpy as mnp
from minispore import Tensor

RNG = np.random.default_rng(0)
X = RNG.uniform(-2.0, 2.0, (3, 4))
Y = RNG.uniform(-2.0, 2.0, (3, 4))
POS = RNG.uniform(0.1, 3.0, (3, 4))
UNIT = RNG.uniform(-0.9, 0.9, (3, 4))
BIG = RNG.uniform(1.1, 3.0, (3, 4))
ROW = RNG.uniform(-2.0, 2.0, (4,))


def close(got, want, rtol=1e-10, atol=1e-12):
    want = np.asarray(want)
    assert tuple(got.shape) == want.shape, f"shape {tuple(got.shape)} != {want.shape}"
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want, rtol=rtol, atol=atol)


UNARY = [
    ("sqrt", POS), ("cbrt", X), ("square", X), ("exp", X), ("exp2", X), ("expm1", X),
    ("log", POS), ("log2", POS), ("log10", POS), ("log1p", POS), ("sin", X), ("cos", X),
    ("tan", UNIT), ("arcsin", UNIT), ("arccos", UNIT), ("arctan", X), ("sinh", X), ("cosh", X),
    ("tanh", X), ("arcsinh", X), ("arccosh", BIG), ("arctanh", UNIT), ("deg2rad", X),
    ("rad2deg", X), ("radians", X), ("abs", X), ("absolute", X), ("fabs", X), ("negative", X),
    ("positive", X), ("sign", X), ("reciprocal", POS), ("floor", X), ("ceil", X), ("trunc", X),
    ("fix", X), ("rint", X * 3),
]


@pytest.mark.parametrize("name,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_matches_numpy(name, x):
    close(getattr(mnp, name)(Tensor(x)), getattr(np, name)(x))


BINARY = [
    ("add", X, Y), ("subtract", X, Y), ("multiply", X, Y), ("divide", X, POS),
    ("true_divide", X, POS), ("floor_divide", X, POS), ("power", POS, X),
    ("float_power", POS, X), ("remainder", X, POS), ("mod", X, POS), ("fmod", X, POS),
    ("maximum", X, Y), ("minimum", X, Y), ("arctan2", X, Y), ("hypot", X, Y),
    ("copysign", X, Y), ("logaddexp", X, Y), ("logaddexp2", X, Y), ("add", X, ROW),
]


@pytest.mark.parametrize("name,a,b", BINARY, ids=[f"{b[0]}{i}" for i, b in enumerate(BINARY)])
def test_binary_matches_numpy(name, a, b):
    close(getattr(mnp, name)(Tensor(a), Tensor(b)), getattr(np, name)(a, b))


def test_binary_with_python_scalars_and_dtype():
    close(mnp.add(Tensor(X), 2.5), X + 2.5)
    close(mnp.power(Tensor(POS), 2), POS ** 2)
    close(mnp.subtract(3, Tensor(X)), 3 - X)
    out = mnp.multiply(Tensor(X), Tensor(Y), dtype=mnp.float32)
    assert out.dtype == mnp.float32
    close(out, X * Y, rtol=1e-6, atol=1e-6)
    q, r = mnp.divmod(Tensor(X), Tensor(POS))
    close(q, np.floor_divide(X, POS))
    close(r, np.remainder(X, POS))


def test_heaviside_gcd_lcm_clip():
    x = np.array([-1.5, 0.0, 2.0])
    close(mnp.heaviside(Tensor(x), Tensor(np.array(0.5))), np.heaviside(x, 0.5))
    a, b = np.array([12, 18, 7], np.int32), np.array([8, 27, 5], np.int32)
    np.testing.assert_array_equal(mnp.gcd(Tensor(a), Tensor(b)).asnumpy(), np.gcd(a, b))
    np.testing.assert_array_equal(mnp.lcm(Tensor(a), Tensor(b)).asnumpy(), np.lcm(a, b))
    close(mnp.clip(Tensor(X), -0.5, 0.75), np.clip(X, -0.5, 0.75))
    close(mnp.clip(Tensor(X), None, 0.75), np.clip(X, None, 0.75))
    with pytest.raises(ValueError, match="xmin and xmax must not both be None"):
        mnp.clip(Tensor(X), None, None)


REDUCE_AXES = [None, 0, 1, -1, (0, 1)]


@pytest.mark.parametrize("axis", REDUCE_AXES)
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "max", "min", "ptp"])
def test_reductions_match_numpy(name, axis):
    close(getattr(mnp, name)(Tensor(X), axis=axis), getattr(np, name)(X, axis=axis))
    close(getattr(mnp, name)(Tensor(X), axis=axis, keepdims=True),
          getattr(np, name)(X, axis=axis, keepdims=True))


@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_std_var_match_numpy(axis, ddof):
    close(mnp.std(Tensor(X), axis, ddof), np.std(X, axis, ddof=ddof))
    close(mnp.var(Tensor(X), axis, ddof, keepdims=True), np.var(X, axis, ddof=ddof, keepdims=True))


def test_sum_initial_and_extreme_initial():
    close(mnp.sum(Tensor(X), axis=0, initial=2.0), np.sum(X, axis=0, initial=2.0))
    close(mnp.amax(Tensor(X), axis=1, initial=1.5), np.amax(X, axis=1, initial=1.5))
    with pytest.raises(NotImplementedError, match="'where'"):
        mnp.amax(Tensor(X), where=Tensor(X > 0))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_arg_and_scans_match_numpy(axis):
    np.testing.assert_array_equal(mnp.argmax(Tensor(X), axis).asnumpy(), np.argmax(X, axis))
    np.testing.assert_array_equal(mnp.argmin(Tensor(X), axis).asnumpy(), np.argmin(X, axis))
    close(mnp.cumsum(Tensor(X), axis), np.cumsum(X, axis))
    close(mnp.cumprod(Tensor(X), axis), np.cumprod(X, axis))


def test_nan_reductions_match_numpy():
    x = X.copy()
    x[0, 1] = x[2, 3] = np.nan
    for name in ("nansum", "nanmean", "nanmax", "nanmin", "nanvar", "nanstd", "nancumsum"):
        for axis in (None, 0, 1):
            close(getattr(mnp, name)(Tensor(x), axis=axis), getattr(np, name)(x, axis=axis))
    close(mnp.nanvar(Tensor(x), 1, ddof=1), np.nanvar(x, 1, ddof=1))


def test_average_count_nonzero_diff_sometrue():
    w = RNG.uniform(0.5, 1.5, (4,))
    close(mnp.average(Tensor(X)), np.average(X))
    close(mnp.average(Tensor(X), axis=1, weights=Tensor(w)), np.average(X, axis=1, weights=w))
    got, wsum = mnp.average(Tensor(X), axis=1, weights=Tensor(w), returned=True)
    want, wwant = np.average(X, axis=1, weights=w, returned=True)
    close(got, want)
    close(wsum, wwant)
    z = np.array([[0, 1, 2], [0, 0, 3]], np.int32)
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(mnp.count_nonzero(Tensor(z), axis).asnumpy(),
                                      np.count_nonzero(z, axis))
    close(mnp.diff(Tensor(X)), np.diff(X))
    close(mnp.diff(Tensor(X), n=2, axis=0), np.diff(X, n=2, axis=0))
    close(mnp.diff(Tensor(X), prepend=0.0, append=Tensor(Y[:, :1])),
          np.diff(X, prepend=0.0, append=Y[:, :1]))
    close(mnp.ediff1d(Tensor(ROW), to_end=Tensor(np.array([9.0])), to_begin=-1.0),
          np.ediff1d(ROW, to_end=[9.0], to_begin=-1.0))
    np.testing.assert_array_equal(mnp.sometrue(Tensor(z), axis=1).asnumpy(), np.any(z, axis=1))


PRODUCTS = [
    ("dot", (4,), (4,)), ("dot", (3, 4), (4, 2)), ("dot", (2, 3, 4), (4, 5)),
    ("dot", (2, 3, 4), (5, 4, 2)), ("dot", (3, 4), (4,)), ("matmul", (3, 4), (4, 2)),
    ("matmul", (2, 3, 4), (4, 5)), ("matmul", (2, 1, 3, 4), (5, 4, 2)), ("matmul", (4,), (4, 2)),
    ("matmul", (3, 4), (4,)), ("inner", (3, 4), (2, 4)), ("inner", (4,), (4,)),
    ("outer", (3,), (2, 2)), ("kron", (2, 3), (3, 2)), ("kron", (3,), (2, 2)),
]


@pytest.mark.parametrize("name,sa,sb", PRODUCTS, ids=[f"{p[0]}{i}" for i, p in enumerate(PRODUCTS)])
def test_products_match_numpy(name, sa, sb):
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    close(getattr(mnp, name)(Tensor(a), Tensor(b)), getattr(np, name)(a, b))


def test_tensordot_cross_multi_dot():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 3, 5))
    close(mnp.tensordot(Tensor(a), Tensor(b), ((1, 2), (1, 0))),
          np.tensordot(a, b, ((1, 2), (1, 0))))
    c, d = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    close(mnp.tensordot(Tensor(c), Tensor(d), 1), np.tensordot(c, d, 1))
    close(mnp.tensordot(Tensor(c), Tensor(c), 0), np.tensordot(c, c, 0))
    u, v = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))
    close(mnp.cross(Tensor(u), Tensor(v)), np.cross(u, v))
    close(mnp.cross(Tensor(u.T), Tensor(v.T), axis=0), np.cross(u.T, v.T, axis=0))
    close(mnp.cross(Tensor(u[:, :2]), Tensor(v[:, :2])), u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0])
    e = RNG.standard_normal((2, 5))
    close(mnp.multi_dot([Tensor(c), Tensor(d), Tensor(e)]), np.linalg.multi_dot([c, d, e]))


@pytest.mark.parametrize("ord,axis", [(None, None), (None, 1), (1, 1), (np.inf, 0), (-np.inf, 1),
                                      (0, 1), (3, 1), (2, 0), ("fro", None), (1, None),
                                      (-1, None), (np.inf, None), (-np.inf, (1, 0))])
def test_norm_matches_numpy(ord, axis):
    close(mnp.norm(Tensor(X), ord, axis), np.linalg.norm(X, ord, axis))
    close(mnp.norm(Tensor(X), ord, axis, keepdims=True),
          np.linalg.norm(X, ord, axis, keepdims=True))


def test_norm_refuses_singular_value_norms():
    with pytest.raises(NotImplementedError, match="ord=2"):
        mnp.norm(Tensor(X), 2, (0, 1))


def test_comparisons_and_logic_match_numpy():
    a, b = Tensor(X), Tensor(Y)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        np.testing.assert_array_equal(getattr(mnp, name)(a, b).asnumpy(), getattr(np, name)(X, Y))
    p, q = X > 0, Y > 0
    for name in ("logical_and", "logical_or", "logical_xor"):
        np.testing.assert_array_equal(getattr(mnp, name)(Tensor(p), Tensor(q)).asnumpy(),
                                      getattr(np, name)(p, q))
    np.testing.assert_array_equal(mnp.logical_not(Tensor(X)).asnumpy(), np.logical_not(X))
    s = np.array([1.0, -np.inf, np.inf, np.nan, -0.5, 0.0])
    for name in ("isfinite", "isnan", "isinf", "isneginf", "isposinf", "signbit"):
        np.testing.assert_array_equal(getattr(mnp, name)(Tensor(s)).asnumpy(), getattr(np, name)(s))
    t = np.array([1.0, 1.0 + 1e-7, np.inf, np.nan, 2.0])
    u = np.array([1.0, 1.0, np.inf, np.nan, 2.1])
    for equal_nan in (False, True):
        np.testing.assert_array_equal(mnp.isclose(Tensor(t), Tensor(u), equal_nan=equal_nan).asnumpy(),
                                      np.isclose(t, u, equal_nan=equal_nan))
    assert bool(mnp.array_equal(Tensor(X), Tensor(X.copy())).asnumpy())
    assert not bool(mnp.array_equal(Tensor(X), Tensor(Y)).asnumpy())
    assert not bool(mnp.array_equal(Tensor(X), Tensor(X[:2])).asnumpy())
    assert bool(mnp.array_equiv(Tensor(X[:1]), Tensor(np.repeat(X[:1], 3, 0))).asnumpy())
    e, tst = np.array([[1, 2], [3, 4]], np.int32), np.array([4, 1, 9], np.int32)
    np.testing.assert_array_equal(mnp.isin(Tensor(e), Tensor(tst)).asnumpy(), np.isin(e, tst))
    np.testing.assert_array_equal(mnp.in1d(Tensor(e), Tensor(tst), invert=True).asnumpy(),
                                  np.isin(e.ravel(), tst, invert=True))
