"""Functional ops composed of existing primitives (ops/function/math_compose_func.py,
array_compose_func.py, composite_prims.py): float64 references, finite-difference gradients
and MindSpore's edge rules (round half to even, fmod's sign, signbit of -0.0)."""
import numpy as np
import pytest

from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

X = np.array([[-3.5, -2.5, -1.5, -0.5, 0.0, 0.5], [1.5, 2.5, 2.0, -25.0, 30.0, 0.7]])
Y = np.array([[2.0, -1.5, 0.7, -0.3, 1.0, -2.0], [0.4, -0.6, 3.0, 0.5, 2.0, -7.0]])


@pytest.mark.parametrize("op,ref,arrays", [
    (ops.acosh, np.arccosh, [np.abs(X) + 1.5]),
    (ops.asinh, np.arcsinh, [X]),
    (ops.atanh, np.arctanh, [np.tanh(X / 10)]),
    (ops.logaddexp, np.logaddexp, [X, Y]),
    (ops.logaddexp2, np.logaddexp2, [X, Y]),
    (ops.xlogy, lambda a, b: np.where(a == 0, 0, a * np.log(np.abs(b))),
     [X, np.abs(Y)]),
    (ops.sinc, np.sinc, [X]),
    (lambda a, b: ops.lerp(a, b, 0.3), lambda a, b: a + 0.3 * (b - a), [X, Y]),
    (lambda a: ops.logsumexp(a, 1), lambda a: np.log(np.exp(a).sum(1)), [X / 10]),
    (lambda a: ops.std(a, 1, 1), lambda a: a.std(1, ddof=1), [X]),
    (lambda a: ops.vector_norm(a, 3.0), lambda a: (np.abs(a) ** 3).sum() ** (1 / 3), [X]),
    (lambda a: ops.matrix_norm(a, 1), lambda a: np.linalg.norm(a, 1), [X]),
    (lambda a, b: ops.cross(a, b, 1), lambda a, b: np.cross(a, b, axis=1),
     [X[:, :3], Y[:, :3]]),
    (lambda a, b: ops.kron(a, b), np.kron, [X[:, :3], Y[:1, :2]]),
    (lambda a, b: ops.inner(a, b), np.inner, [X, Y]),
    (lambda a: ops.diagonal(a, 1), lambda a: np.diagonal(a, 1), [X]),
    (lambda a: ops.diagflat(a[0, :2], -1), lambda a: np.diagflat(a[0, :2], -1), [X]),
    (lambda a: ops.diag(a), lambda a: np.diag(a.ravel()).reshape(a.shape * 2), [X[:, :2]]),
    (lambda a: ops.tril(a, -1), lambda a: np.tril(a, -1), [X]),
    (lambda a: ops.triu(a, 2), lambda a: np.triu(a, 2), [X]),
    (lambda a: ops.diff(a, 2, 1), lambda a: np.diff(a, 2, 1), [X]),
    (lambda a: ops.pad(a, (1, -2, 2, 0), value=7.0),
     lambda a: np.pad(a[:, :-2], ((2, 0), (1, 0)), constant_values=7.0), [X]),
    (lambda a: ops.pixel_shuffle(ops.pixel_unshuffle(a, 2), 2), lambda a: a,
     [rand(1, 2, 4, 4, seed=3)]),
])
def test_compositions_forward_and_grad(op, ref, arrays):
    arrays = [np.asarray(a, np.float64) for a in arrays]
    check_forward(op, ref, arrays, rtol=1e-6, atol=1e-9)
    check_grad(op, arrays, rtol=1e-4, atol=1e-6)


def test_round_trunc_fmod_rules():
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997], np.float32)
    assert ops.round(Tensor(a)).asnumpy().tolist() == np.round(a).tolist()
    assert ops.trunc(Tensor(a)).asnumpy().tolist() == np.trunc(a).tolist()
    x, y = np.float32([0.9, -0.9, 7.5]), np.float32([0.1, 0.4, -2.0])
    np.testing.assert_allclose(ops.fmod(Tensor(x), Tensor(y)).asnumpy(), np.fmod(x, y))
    xi, yi = np.int32([-7, -6, 5, 7]), np.int32([2, -4, -3, 3])
    assert ops.truncate_div(Tensor(xi), Tensor(yi)).asnumpy().tolist() == \
        np.trunc(xi / yi).astype(int).tolist()
    assert ops.truncate_mod(Tensor(xi), Tensor(yi)).asnumpy().tolist() == \
        np.fmod(xi, yi).tolist()
    assert ops.signbit(Tensor(np.float32([-0.0, -1.0, 2.0]))).asnumpy().tolist() == \
        [False, True, False]


def test_reductions_and_predicates():
    x = Tensor(np.float32([[0.0, 1.0, -2.0], [3.0, 0.0, 4.0]]))
    assert ops.all(x).asnumpy().item() is False
    assert ops.any(x, 1).asnumpy().tolist() == [True, True]
    assert ops.count_nonzero(x, 1).asnumpy().tolist() == [2, 2]
    assert ops.ReduceAll(True)(x, 0).shape == (1, 3)
    nan = Tensor(np.float32([[np.nan, 1.0], [2.0, 4.0]]))
    assert ops.nanmean(nan, 1).asnumpy().tolist() == [1.0, 3.0]
    assert ops.nan_to_num(Tensor(np.float32([np.nan, np.inf]))).asnumpy()[1] == \
        np.finfo(np.float32).max
    np.testing.assert_array_equal(ops.argwhere(x).asnumpy(), np.argwhere(x.asnumpy()))
    std, mean = ops.ReduceStd(1)(x)
    np.testing.assert_allclose(std.asnumpy(), x.asnumpy().std(1, ddof=1), rtol=1e-6)
    assert ops.Rank()(x) == 2 and ops.Shape()(x) == (2, 3) and ops.Size()(x) == 6


# MindSpore 2.7.2 raises these types (its st tests test_rank_op / test_square_sum_all)
@pytest.mark.parametrize("call, exc, message", [
    (lambda: ops.Rank()(1), TypeError, "For 'Rank', 'input_x' must be a Tensor, but got int"),
    (lambda: ops.SquareSumAll()(Tensor(np.float16([1])), Tensor(np.float32([1]))), TypeError,
     "same dtype"),
    (lambda: ops.SquareSumAll()(Tensor(np.float64([1])), Tensor(np.float64([1]))), TypeError,
     "Float16 or Float32, but got Float64"),
    (lambda: ops.SquareSumAll()(Tensor(np.float32([1, 2])), Tensor(np.float32([1]))),
     ValueError, r"same shape, but got \(2,\) and \(1,\)"),
])
def test_rank_and_square_sum_all_refuse_what_mindspore_refuses(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_square_sum_all_values():
    a, b = Tensor(np.float32([1, 2, 4])), Tensor(np.float32([0, 1, -1]))
    assert [t.asnumpy().item() for t in ops.SquareSumAll()(a, b)] == [21.0, 2.0]


def test_splits_and_stacks():
    x = np.arange(14.0).reshape(2, 7)
    for got, want in [(ops.tensor_split(Tensor(x), 3, 1), np.array_split(x, 3, 1)),
                      (ops.chunk(Tensor(x), 3, 1), np.array_split(x, [3, 6], 1)),
                      (ops.unbind(Tensor(x)), list(x))]:
        assert [g.asnumpy().tolist() for g in got] == [w.tolist() for w in want]
    a, b = Tensor(x), Tensor(x + 1)
    assert ops.dstack((a, b)).asnumpy().tolist() == np.dstack((x, x + 1)).tolist()
    assert ops.column_stack((a[0], b[0])).shape == (7, 2)
    assert ops.movedim(Tensor(np.zeros((2, 3, 4))), (0, 1), (2, 0)).shape == (3, 4, 2)


def test_tensor_methods_and_in_place():
    x = Tensor(np.float32([[0.5, -0.2], [0.3, 0.9]]))
    assert x.add(1).asnumpy().tolist() == (x.asnumpy() + 1).tolist()
    assert x.mT.shape == (2, 2) and x.double().dtype == Tensor(np.float64(1)).dtype
    y = x.copy()
    assert y.add_(1) is y
    np.testing.assert_allclose(y.asnumpy(), x.asnumpy() + 1)
    v, i = x.argmin_with_value(1)
    assert i.asnumpy().tolist() == [1, 0]


def test_errors():
    with pytest.raises(ValueError, match="'dim' must be an int in"):
        ops.unsqueeze(Tensor(X), 3)
    with pytest.raises(ValueError, match="'rounding_mode'"):
        ops.divide(Tensor(X), Tensor(Y), rounding_mode="up")
    with pytest.raises(TypeError, match="must be a non-empty tuple or list"):
        ops.addn(Tensor(X))
    with pytest.raises(ValueError, match="must be even"):
        ops.glu(Tensor(X[:, :5]))


@pytest.mark.parametrize("name,args,ref", [
    ("clamp_", (0.0, 0.5), lambda a: np.clip(a, 0.0, 0.5)),
    ("floor_", (), np.floor),
    ("sign_", (), np.sign),
    ("tanh_", (), np.tanh),
    ("sigmoid_", (), lambda a: 1 / (1 + np.exp(-a))),
    ("log_", (), lambda a: np.log(np.abs(a))),
])
def test_unary_in_place_methods_write_self_and_differentiate(name, args, ref):
    import minispore as ms
    base = np.array([[0.5, -0.2, 0.8], [0.3, 0.9, -0.1]])
    data = np.abs(base) if name == "log_" else base
    t = Tensor(data.copy())
    assert getattr(t, name)(*args) is t
    np.testing.assert_allclose(t.asnumpy(), ref(data), rtol=1e-12)
    if name in ("tanh_", "sigmoid_", "log_"):
        grad = ms.grad(lambda a: getattr(a * 1.0, name)().sum())(Tensor(data))
        eps = 1e-6
        fd = (ref(data + eps) - ref(data - eps)) / (2 * eps)
        np.testing.assert_allclose(grad.asnumpy(), fd, rtol=1e-6)


def test_erfinv_in_place_inverts_erf():
    t = Tensor(np.array([-0.5, 0.1, 0.9]))
    t.erfinv_()
    np.testing.assert_allclose(ops.erf(t).asnumpy(), [-0.5, 0.1, 0.9], rtol=1e-12)


def test_a_shape_or_axis_given_as_a_tensor_as_mindspore_takes_it():
    # MindSpore 2.7.2: Reshape(x, Tensor([2, 3])) is (2, 3); ReduceSum(ones(2, 3), Tensor([1]))
    # and ReduceSum(..., Tensor(1)) are [3. 3.]
    import minispore as ms
    x = Tensor(np.arange(6, dtype=np.float32))
    assert ops.Reshape()(x, Tensor(np.array([2, 3], np.int64))).shape == (2, 3)
    assert x.reshape(Tensor(np.array([3, 2], np.int32))).shape == (3, 2)
    ones = Tensor(np.ones((2, 3), np.float32))
    for axis in (Tensor(np.array([1], np.int64)), Tensor(1)):
        assert ops.ReduceSum()(ones, axis).asnumpy().tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="'shape' given as a Tensor must hold integers"):
        ops.Reshape()(x, Tensor(np.array([2.0, 3.0], np.float32)))
    # a graph input read as a shape: the compiled call runs op by op, with the same values
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        reshape = ms.jit(lambda t, shape: ops.reshape(t, shape) * 2)
        out = reshape(x, Tensor(np.array([3, 2], np.int64)))
        np.testing.assert_array_equal(out.asnumpy(), np.arange(6).reshape(3, 2) * 2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
