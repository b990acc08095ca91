"""Math operators: forward vs float64 numpy, backward vs finite differences, bad input."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

BINARY_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((5,), ())]

BINARY = {
    "add": (ops.add, np.add),
    "sub": (ops.sub, np.subtract),
    "mul": (ops.mul, np.multiply),
    "div": (ops.div, np.divide),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("sx,sy", BINARY_SHAPES)
def test_binary_forward_and_grad(name, sx, sy):
    op, ref = BINARY[name]
    x = rand(*sx, seed=1)
    y = rand(*sy, seed=2, low=0.5, high=1.5)  # away from 0 for div
    check_forward(op, ref, [x, y])
    check_grad(op, [x, y])


@pytest.mark.parametrize("sx,sy", BINARY_SHAPES)
def test_floor_div_and_floor_mod_forward(sx, sy):
    x = rand(*sx, seed=1, low=-3.0, high=3.0)
    y = rand(*sy, seed=2, low=0.5, high=1.5)
    check_forward(ops.floor_div, np.floor_divide, [x, y])
    check_forward(ops.floor_mod, np.mod, [x, y])


def test_binary_scalar_operand_keeps_dtype():
    x = Tensor(rand(3, seed=0))
    assert (x * 2.0).dtype == x.dtype
    np.testing.assert_allclose((2.0 - x).asnumpy(), 2.0 - x.asnumpy())


def test_binary_bad_broadcast_names_op_and_shapes():
    with pytest.raises(ValueError, match=r"For 'Add'.*\(3, 4\).*\(5,\)"):
        ops.add(Tensor(rand(3, 4)), Tensor(rand(5)))


# MindSpore 2.x's promotion of two tensors: bool < int < float by kind (the higher kind's
# dtype wins, whatever its width), and the wider type within a kind (uint8 with int8: int16).
_KINDS = {"bool": [np.bool_], "int": [np.uint8, np.int8, np.int16, np.int32, np.int64],
          "float": [np.float16, np.float32, np.float64]}
_ORDER = [t for kind in ("bool", "int", "float") for t in _KINDS[kind]]


def _kind(t):
    return next(k for k, ts in _KINDS.items() if t in ts)


def _expected(a, b):
    rank = ("bool", "int", "float").index
    if _kind(a) != _kind(b):
        return a if rank(_kind(a)) > rank(_kind(b)) else b
    return np.promote_types(a, b).type


@pytest.mark.parametrize("a", _ORDER, ids=lambda t: t.__name__)
@pytest.mark.parametrize("b", _ORDER, ids=lambda t: t.__name__)
def test_binary_ops_promote_every_dtype_pair(a, b):
    x = Tensor(np.array([1, 0, 1], a))
    y = Tensor(np.array([1, 1, 0], b))
    want = _expected(a, b)
    if want is not np.bool_:        # (Mul has no bool kernel)
        got = ops.mul(x, y)
        assert got.asnumpy().dtype == want, (a, b, got.dtype)
        np.testing.assert_array_equal(got.asnumpy(), np.array([1, 0, 0], want))
    assert (x == y).dtype == ms.bool_
    np.testing.assert_array_equal((x == y).asnumpy(), [True, False, False])


@pytest.mark.parametrize("tensor_dtype, scalar, want", [
    (np.int32, 2, np.int32), (np.int32, 1.5, np.float32), (np.float16, 2.0, np.float16),
    (np.bool_, 1, np.int64), (np.bool_, 0.5, np.float32), (np.uint8, 3, np.uint8)])
def test_python_scalars_are_weak(tensor_dtype, scalar, want):
    values = np.array([1, 0], tensor_dtype)
    out = Tensor(values) + scalar
    assert out.asnumpy().dtype == want
    np.testing.assert_allclose(out.asnumpy().astype(np.float64),
                               values.astype(np.float64) + scalar)


def test_integer_true_division_gives_float32():
    out = Tensor(np.array([1, 3], np.int32)) / Tensor(np.array([2, 4], np.int64))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [0.5, 0.75])


def test_the_quick_start_accuracy_expression_compares_int64_with_int32():
    pred = Tensor(np.array([[0.1, 0.9], [0.8, 0.2]], np.float32))
    label = Tensor(np.array([1, 1], np.int32))
    correct = (pred.argmax(1) == label).asnumpy().sum()
    assert correct == 1


def test_gradient_flows_through_a_promoted_operand():
    x = Tensor(np.array([1.0, 2.0], np.float16))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    gx, gy = ms.grad(lambda a, b: (a * b).sum(), grad_position=(0, 1))(x, y)
    assert gx.dtype == ms.float16 and gy.dtype == ms.float32
    np.testing.assert_allclose(gx.asnumpy(), [3.0, 4.0])
    np.testing.assert_allclose(gy.asnumpy(), [1.0, 2.0])


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_forward_and_grad(ta, tb):
    a = rand(*((4, 3) if ta else (3, 4)), seed=3)
    b = rand(*((5, 4) if tb else (4, 5)), seed=4)
    def ref(x, y):
        return (x.T if ta else x) @ (y.T if tb else y)
    def op(x, y):
        return ops.matmul(x, y, ta, tb)
    check_forward(op, ref, [a, b])
    check_grad(op, [a, b])


def test_matmul_contracted_dim_mismatch():
    with pytest.raises(ValueError, match=r"For 'MatMul'.*contracted dims"):
        ops.MatMul()(Tensor(rand(2, 3)), Tensor(rand(4, 5)))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (1, 2)])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_sum(axis, keep):
    x = rand(2, 3, 4, seed=5)
    np_axis = axis if axis is not None else None
    check_forward(lambda t: ops.reduce_sum(t, axis, keep),
                  lambda a: np.sum(a, axis=np_axis, keepdims=keep), [x])
    check_grad(lambda t: ops.reduce_sum(t, axis, keep), [x])


def test_reduce_sum_bad_axis():
    with pytest.raises(ValueError, match=r"For 'ReduceSum'.*axis.*\[-2, 2\).*5"):
        ops.reduce_sum(Tensor(rand(2, 3)), 5)


# -- maximum / minimum / pow ---------------------------------------------------------------------
MINMAX = {"maximum": (ops.maximum, np.maximum), "minimum": (ops.minimum, np.minimum)}


@pytest.mark.parametrize("name", sorted(MINMAX))
@pytest.mark.parametrize("sx,sy", BINARY_SHAPES)
def test_minmax_forward_and_grad(name, sx, sy):
    op, ref = MINMAX[name]
    x, y = rand(*sx, seed=1), rand(*sy, seed=2)
    check_forward(op, ref, [x, y])
    check_grad(op, [x, y])


@pytest.mark.parametrize("name", sorted(MINMAX))
def test_minmax_ties_split_gradient_in_halves(name):
    op, _ = MINMAX[name]
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    y = Tensor(np.array([1.0, 5.0, 0.0], np.float32))
    dx, dy = ms.grad(lambda a, b: op(a, b).sum(), grad_position=(0, 1))(x, y)
    want_x = [0.5, 0.0, 1.0] if name == "maximum" else [0.5, 1.0, 0.0]
    np.testing.assert_array_equal(dx.asnumpy(), want_x)
    np.testing.assert_array_equal(dy.asnumpy(), 1.0 - np.array(want_x))


def test_minmax_nan_propagates_and_int_dtype_kept():
    x = Tensor(np.array([np.nan, 1.0], np.float32))
    assert np.isnan(ops.maximum(x, 0.0).asnumpy()[0])
    assert np.isnan(ops.minimum(0.0, x).asnumpy()[0])
    out = ops.maximum(Tensor(np.array([1, 7], np.int32)), Tensor(np.array([3, 2], np.int32)))
    assert out.dtype == ms.int32 and out.asnumpy().dtype == np.int32
    np.testing.assert_array_equal(out.asnumpy(), [3, 7])


def test_maximum_bad_broadcast():
    with pytest.raises(ValueError, match=r"For 'Maximum'.*\(2, 3\).*\(4,\)"):
        ops.maximum(Tensor(rand(2, 3)), Tensor(rand(4)))


@pytest.mark.parametrize("sx,sy", BINARY_SHAPES)
def test_pow_tensor_exponent_forward_and_grad(sx, sy):
    x = rand(*sx, seed=3, low=0.5, high=2.0)
    y = rand(*sy, seed=4, low=-2.0, high=2.0)
    check_forward(ops.pow, np.power, [x, y], rtol=2e-5)
    check_grad(ops.pow, [x, y])


@pytest.mark.parametrize("exponent", [2, 3.0, -0.5, 0.5])
def test_pow_scalar_exponent_forward_and_grad(exponent):
    x = rand(3, 4, seed=5, low=0.2, high=2.0)
    check_forward(lambda t: t ** exponent, lambda a: a ** exponent, [x], rtol=2e-5)
    check_grad(lambda t: ops.pow(t, exponent), [x])
    assert (Tensor(x) ** exponent).dtype == ms.float32


def test_pow_scalar_base_and_zero_base_grad():
    x = rand(5, seed=6)
    check_forward(lambda t: 2.0 ** t, lambda a: 2.0 ** a, [x])
    check_grad(lambda t: ops.pow(2.0, t), [x])
    # At x == 0 with y > 0 the y-gradient is 0 (x**y is flat in y there), not NaN.
    zero, y = Tensor(np.zeros(2)), Tensor(np.array([1.5, 2.0]))
    dx, dy = ms.grad(lambda a, b: ops.pow(a, b).sum(), grad_position=(0, 1))(zero, y)
    np.testing.assert_array_equal(dy.asnumpy(), [0.0, 0.0])
    np.testing.assert_array_equal(dx.asnumpy(), [0.0, 0.0])


def test_integer_pow_floordiv_and_mod_keep_python_semantics():
    """MindSpore's values (recorded in tests/conformance): ints stay ints, floor division and
    the remainder round toward -inf, an int tensor to a float power is float32."""
    xi = Tensor(np.array([-3, -1, 3], np.int32))
    for got, want in ((xi ** 2, [9, 1, 9]), (2 ** xi, [0, 0, 8]), (xi ** -1, [0, -1, 0]),
                      (xi // 2, [-2, -1, 1]), (7 // xi, [-3, -7, 2]), (xi % 2, [1, 1, 1]),
                      (ops.floor_mod(xi, -2), [-1, -1, -1])):
        assert got.dtype == ms.int32
        np.testing.assert_array_equal(got.asnumpy(), want)
    assert (xi ** 2.5).dtype == ms.float32
    x = Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    np.testing.assert_allclose((x // 0.3).asnumpy(), [3.0, -7.0, 1.0])
    np.testing.assert_allclose((x % 0.3).asnumpy(), np.mod([1.0, -2.0, 0.5], 0.3), rtol=1e-5)


def test_floor_mod_gradient_is_mindspores():
    """dx = dout, dy = -dout * floor(x / y), checked against finite differences away from the
    jumps."""
    x = Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    y = Tensor(np.array([0.3, 0.7, -0.4], np.float32))
    dx, dy = ops.grad(lambda a, b: ops.floor_mod(a, b).sum(), (0, 1))(x, y)
    np.testing.assert_array_equal(dx.asnumpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(dy.asnumpy(), -np.floor(x.asnumpy() / y.asnumpy()))
    zx, zy = ops.grad(lambda a, b: ops.floor_div(a, b).sum(), (0, 1))(x, y)
    assert not zx.asnumpy().any() and not zy.asnumpy().any()


# -- unary math ----------------------------------------------------------------------------------
UNARY = {
    # name: (op, float64 reference, input range)
    "exp": (ops.exp, np.exp, (-2.0, 2.0)),
    "log": (ops.log, np.log, (0.1, 3.0)),
    "sqrt": (ops.sqrt, np.sqrt, (0.1, 3.0)),
    "rsqrt": (ops.rsqrt, lambda a: 1.0 / np.sqrt(a), (0.1, 3.0)),
    "square": (ops.square, np.square, (-2.0, 2.0)),
    "abs": (ops.abs, np.abs, (-2.0, 2.0)),
    "sin": (ops.sin, np.sin, (-3.0, 3.0)),
    "cos": (ops.cos, np.cos, (-3.0, 3.0)),
    "tan": (ops.tan, np.tan, (-1.2, 1.2)),
    "sinh": (ops.sinh, np.sinh, (-2.0, 2.0)),
    "cosh": (ops.cosh, np.cosh, (-2.0, 2.0)),
    "asin": (ops.asin, np.arcsin, (-0.9, 0.9)),
    "acos": (ops.acos, np.arccos, (-0.9, 0.9)),
    "atan": (ops.atan, np.arctan, (-3.0, 3.0)),
    "floor": (ops.floor, np.floor, (-2.7, 2.7)),
    "ceil": (ops.ceil, np.ceil, (-2.7, 2.7)),
    "sign": (ops.sign, np.sign, (-2.0, 2.0)),
    "reciprocal": (ops.reciprocal, np.reciprocal, (0.5, 3.0)),
    "log1p": (ops.log1p, np.log1p, (-0.5, 3.0)),
    "expm1": (ops.expm1, np.expm1, (-2.0, 2.0)),
    "erf": (ops.erf, lambda a: np.vectorize(math.erf)(a), (-2.0, 2.0)),
    "erfc": (ops.erfc, lambda a: np.vectorize(math.erfc)(a), (-2.0, 2.0)),
    "lgamma": (ops.lgamma, lambda a: np.vectorize(math.lgamma)(a), (0.2, 4.0)),
    "digamma": (ops.digamma, lambda a: _digamma_reference(a), (0.2, 4.0)),
    "erfinv": (ops.erfinv, lambda a: _erfinv_reference(a), (-0.95, 0.95)),
}


def _digamma_reference(a):
    """psi as the central difference of math.lgamma in float64 (error ~1e-10)."""
    h = 1e-5
    return np.vectorize(lambda v: (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h))(a)


def _erfinv_reference(a):
    """erf inverted by bisection in float64."""
    def invert(v):
        lo, hi = -6.0, 6.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if math.erf(mid) < v else (lo, mid)
        return 0.5 * (lo + hi)
    return np.vectorize(invert)(a)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), ()])
def test_unary_forward_and_grad(name, shape):
    op, ref, (low, high) = UNARY[name]
    x = rand(*shape, seed=7, low=low, high=high)
    if name == "abs":
        x = np.where(np.abs(x) < 0.05, 0.5, x).astype(np.float32)  # |x| has a kink at 0
    check_forward(op, ref, [x], rtol=2e-6)
    check_grad(op, [x])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_keeps_float32_after_float64(name):
    op, _, (low, _high) = UNARY[name]
    op(Tensor(np.full(3, low + 0.5)))                  # compiles the float64 loop first
    out = op(Tensor(np.full(3, low + 0.5, np.float32)))
    assert out.dtype == ms.float32 and out.asnumpy().dtype == np.float32


def test_abs_and_square_integers():
    x = np.array([-3, 0, 4], np.int32)
    np.testing.assert_array_equal(ops.abs(Tensor(x)).asnumpy(), np.abs(x))
    assert ops.square(Tensor(x)).asnumpy().dtype == np.int32


def test_unary_float_only_ops_reject_integers():
    with pytest.raises(TypeError, match=r"For 'Exp'.*dtype of 'x'.*Float32.*Int64"):
        ops.exp(Tensor(np.array([1, 2], np.int64)))


# -- comparisons and select ----------------------------------------------------------------------
COMPARE = {
    "equal": (ops.equal, np.equal), "not_equal": (ops.not_equal, np.not_equal),
    "less": (ops.less, np.less), "less_equal": (ops.less_equal, np.less_equal),
    "greater": (ops.greater, np.greater), "greater_equal": (ops.greater_equal, np.greater_equal),
}


@pytest.mark.parametrize("name", sorted(COMPARE))
@pytest.mark.parametrize("sx,sy", BINARY_SHAPES)
def test_compare_forward(name, sx, sy):
    op, ref = COMPARE[name]
    rng = np.random.default_rng(8)
    x = rng.integers(-2, 3, sx).astype(np.float32)   # small integers: ties do happen
    y = rng.integers(-2, 3, sy).astype(np.float32)
    out = op(Tensor(x), Tensor(y))
    assert out.dtype == ms.bool_
    np.testing.assert_array_equal(out.asnumpy(), ref(x, y))


def test_compare_operators_scalars_and_ints():
    x = Tensor(np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal((x >= 2).asnumpy(), [False, True, True])
    np.testing.assert_array_equal((x == 2).asnumpy(), [False, True, False])
    np.testing.assert_array_equal(ops.lt(x, x).asnumpy(), [False] * 3)


def test_compare_mixed_dtypes_promotes():
    out = ops.less(Tensor(np.array([0.5, 2.5], np.float32)), Tensor(np.array([1, 2], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), [True, False])


@pytest.mark.parametrize("sc,sx,sy", [((3, 4), (3, 4), (3, 4)), ((4,), (3, 4), (3, 1)),
                                      ((3, 1), (4,), ()), ((), (2, 3), (2, 3))])
def test_select_forward_and_grad(sc, sx, sy):
    cond = np.random.default_rng(9).random(sc) > 0.5
    x, y = rand(*sx, seed=10), rand(*sy, seed=11)
    check_forward(lambda t, u: ops.select(Tensor(cond), t, u),
                  lambda a, b: np.where(cond, a, b), [x, y])
    check_grad(lambda t, u: ops.select(Tensor(cond), t, u), [x, y])


def test_select_scalar_operand_and_masked_relu_grad():
    x = Tensor(np.array([-1.0, 2.0, -3.0, 4.0], np.float32))
    np.testing.assert_array_equal(ops.select(x > 0, x, 0.0).asnumpy(), [0, 2, 0, 4])
    g = ms.grad(lambda t: ops.select(t > 0, t, 0.0).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [0, 1, 0, 1])


def test_select_bad_cond():
    with pytest.raises(TypeError, match=r"For 'Select'.*'cond' must be Bool.*Float32"):
        ops.select(Tensor(rand(3)), Tensor(rand(3)), Tensor(rand(3)))
    with pytest.raises(ValueError, match=r"For 'Select'.*cond.shape \(2,\).*\(3,\)"):
        ops.select(Tensor(np.ones(2, bool)), Tensor(rand(3)), Tensor(rand(3)))


# -- batch matmul --------------------------------------------------------------------------------
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("batch", [(2,), (2, 3)])
def test_batch_matmul_forward_and_grad(ta, tb, batch):
    a = rand(*batch, *((4, 3) if ta else (3, 4)), seed=12)
    b = rand(*batch, *((5, 4) if tb else (4, 5)), seed=13)

    def ref(x, y):
        return np.matmul(np.swapaxes(x, -1, -2) if ta else x, np.swapaxes(y, -1, -2) if tb else y)

    def op(x, y):
        return ops.batch_matmul(x, y, ta, tb)
    check_forward(op, ref, [a, b])
    check_grad(op, [a, b])


def test_bmm_alias_and_primitive():
    a, b = rand(2, 3, 4, seed=14), rand(2, 4, 2, seed=15)
    check_forward(ops.bmm, np.matmul, [a, b])
    check_forward(ops.BatchMatMul(), np.matmul, [a, b])


def test_batch_matmul_bad_inputs():
    with pytest.raises(ValueError,
                       match=r"For 'BatchMatMul'.*batch dims.*\(2, 3, 4\).*\(3, 4, 5\)"):
        ops.bmm(Tensor(rand(2, 3, 4)), Tensor(rand(3, 4, 5)))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*contracted dims"):
        ops.bmm(Tensor(rand(2, 3, 4)), Tensor(rand(2, 3, 5)))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*at least 3-D"):
        ops.bmm(Tensor(rand(3, 4)), Tensor(rand(4, 5)))


# -- mean / max / min reductions and argmax ------------------------------------------------------
REDUCE = {
    "mean": (ops.reduce_mean, np.mean),
    "max": (ops.reduce_max, np.max),
    "min": (ops.reduce_min, np.min),
}


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis", [None, (), 0, -1, (0, 2), (1, 2), [2, 0]])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_forward_and_grad(name, axis, keep):
    op, ref = REDUCE[name]
    x = rand(2, 3, 4, seed=16)
    np_axis = None if axis in (None, ()) else tuple(axis) if isinstance(axis, list) else axis
    check_forward(lambda t: op(t, axis, keep), lambda a: ref(a, axis=np_axis, keepdims=keep), [x])
    check_grad(lambda t: op(t, axis, keep), [x])


@pytest.mark.parametrize("name", ["max", "min"])
def test_reduce_extremum_ties_share_gradient(name):
    op, _ = REDUCE[name]
    x = Tensor(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], np.float32))
    x = x if name == "max" else -x
    g = ms.grad(lambda t: op(t, 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-6)


def test_reduce_methods_and_aliases():
    x = rand(2, 3, 4, seed=17)
    t = Tensor(x)
    np.testing.assert_allclose(t.mean(axis=1).asnumpy(), x.mean(axis=1), rtol=1e-6)
    np.testing.assert_allclose(t.max(axis=(0, 2), keepdims=True).asnumpy(),
                               x.max(axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(t.min().asnumpy(), x.min())
    np.testing.assert_allclose(ops.sum(t, dim=2, keepdim=True).asnumpy(),
                               x.sum(axis=2, keepdims=True), rtol=1e-6)
    assert ops.sum(t, dtype=ms.float64).dtype == ms.float64
    np.testing.assert_allclose(ops.mean(t, (0, 1), True).asnumpy(),
                               x.mean(axis=(0, 1), keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(ops.amax(t, -1).asnumpy(), x.max(axis=-1))
    np.testing.assert_allclose(ops.amin(t, 0).asnumpy(), x.min(axis=0))
    assert ops.reduce_mean(Tensor(x.astype(np.float64))).dtype == ms.float64


def test_reduce_max_nan_wins_and_empty_axis_error():
    x = Tensor(np.array([[1.0, np.nan, 0.0], [1.0, 2.0, 3.0]], np.float32))
    out = ops.reduce_max(x, 1).asnumpy()
    assert np.isnan(out[0]) and out[1] == 3.0
    with pytest.raises(ValueError, match=r"For 'ReduceMax'.*\(2, 0\).*empty axis 1"):
        ops.reduce_max(Tensor(np.zeros((2, 0), np.float32)), 1)


def test_reduce_mean_bad_axis():
    with pytest.raises(ValueError, match=r"For 'ReduceMean'.*axis.*\[-3, 3\).*3"):
        ops.reduce_mean(Tensor(rand(2, 3, 4)), (0, 3))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmax_primitive(axis):
    x = rand(3, 4, 5, seed=18)
    out = ops.Argmax(axis=axis)(Tensor(x))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.argmax(x, axis=axis))


def test_argmax_functional_flatten_keepdim_and_ties():
    x = rand(3, 4, seed=19)
    t = Tensor(x)
    assert int(ops.argmax(t)) == np.argmax(x) and ops.argmax(t).dtype == ms.int64
    assert ops.argmax(t, 1, keepdim=True).shape == (3, 1)
    np.testing.assert_array_equal(t.argmax(axis=0).asnumpy(), np.argmax(x, axis=0))
    ties = Tensor(np.array([[1.0, 5.0, 5.0], [np.nan, 1.0, np.nan]], np.float32))
    np.testing.assert_array_equal(ops.argmax(ties, -1).asnumpy(), [1, 0])   # first max / NaN
    ints = Tensor(np.array([3, 9, 2], np.int64))
    assert int(ops.argmax(ints)) == 1


def test_argmax_is_not_differentiable_and_bad_axis():
    x = Tensor(rand(2, 3))
    g = ms.grad(lambda t: (t * ops.cast(ops.argmax(t, 1, keepdim=True), ms.float32)).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.broadcast_to(np.argmax(x.asnumpy(), 1)[:, None],
                                                            (2, 3)))
    with pytest.raises(ValueError, match=r"For 'Argmax'.*axis.*\[-2, 2\).*2"):
        ops.Argmax(axis=2)(x)
    with pytest.raises(TypeError, match=r"For 'Argmax'.*output_type"):
        ops.Argmax(output_type=ms.float32)


def test_special_functions_at_their_poles_and_edges():
    """MindSpore 2.7.2's answers at the poles and the ends of erfinv's domain; inside, the
    correctly rounded values (MindSpore's float32 digamma(-0.5) is 0.036489777, the true
    value 0.0364899740 that minispore gives)."""
    x = Tensor(np.array([0.0, -1.0, -0.5, -2.5, 30.0], np.float32))
    np.testing.assert_allclose(ops.lgamma(x).asnumpy(),
                               [np.inf, np.inf, 1.2655121, -0.056243714, 71.257042], rtol=1e-6)
    np.testing.assert_allclose(ops.digamma(x).asnumpy(),
                               [-np.inf, np.nan, 0.036489974, 1.1031566, 3.3844381], rtol=1e-6)
    y = ops.erfinv(Tensor(np.array([1.0, -1.0, 1.5, 0.0, -0.3], np.float32))).asnumpy()
    np.testing.assert_allclose(y, [np.inf, -np.inf, np.nan, 0.0, -0.27246273], rtol=1e-6)
    assert ops.lgamma(Tensor(np.array([3], np.int32))).dtype == ms.float32     # as MindSpore
    with pytest.raises(TypeError, match="Digamma"):
        ops.digamma(Tensor(np.array([1, 2], np.int32)))


def test_mvlgamma_and_the_gamma_cells():
    x = Tensor(np.array([2.5, 3.0], np.float32))
    np.testing.assert_allclose(ops.mvlgamma(x, 3).asnumpy(), [1.8809954, 2.6949248],
                               rtol=1e-6)                       # MindSpore 2.7.2's values
    with pytest.raises(ValueError, match=r"greater than \(p-1\)/2"):
        ops.mvlgamma(Tensor(np.array([0.5], np.float32)), 3)
    np.testing.assert_array_equal(ms.nn.LGamma()(x).asnumpy(), ops.lgamma(x).asnumpy())
    np.testing.assert_array_equal(ms.nn.DiGamma()(x).asnumpy(), ops.digamma(x).asnumpy())


def test_mvlgamma_primitive_dtypes_gradient_and_errors_are_mindspores():
    """MindSpore 2.7.2's outputs on the same inputs (recorded from the CPU wheel)."""
    got = ops.Mvlgamma(p=2)(Tensor(np.array([2.5, 3.0], np.float64))).asnumpy()
    np.testing.assert_allclose(got, [0.85704781, 1.55019499], rtol=1e-8)
    np.testing.assert_allclose(Tensor(np.array([2.5], np.float32)).mvlgamma(2).asnumpy(),
                               [0.8570478], rtol=1e-6)
    # d/dx = sum_j digamma(x - j/2): MindSpore's MvlgammaGrad, and a central difference.
    x = np.array([2.5, 4.0])
    grad = ms.grad(lambda t: ops.mvlgamma(t, 3).sum())(Tensor(x)).asnumpy()
    np.testing.assert_allclose(grad, [1.16243097, 3.28205867], rtol=1e-7)
    h = 1e-6
    numeric = (ops.mvlgamma(Tensor(x + h), 3).asnumpy() -
               ops.mvlgamma(Tensor(x - h), 3).asnumpy()) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6)
    for dtype, name in ((np.float16, "Float16"), (np.int32, "Int32")):
        with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Float32\], "
                                            rf"Tensor\[Float64\]\}}, but got Tensor\[{name}\]"):
            ops.mvlgamma(Tensor(np.array([2], dtype)), 1)
    with pytest.raises(ValueError, match="the 'p' must be int and must > 0, but got '0'"):
        ops.mvlgamma(Tensor(np.array([2.0], np.float32)), 0)


def test_mvlgamma_checks_its_domain_in_a_compiled_graph_every_run():
    class Net(ms.nn.Cell):
        def construct(self, x):
            return ops.mvlgamma(x, 3)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        np.testing.assert_allclose(net(Tensor(np.array([2.5, 4.0], np.float32))).asnumpy(),
                                   [1.8809954, 5.402975], rtol=1e-6)
        with pytest.raises(ValueError, match=r"greater than \(p-1\)/2"):
            net(Tensor(np.array([0.5, 4.0], np.float32)))     # same graph, other values
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
