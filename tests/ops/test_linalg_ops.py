"""Linear algebra on batches of square matrices (MatrixDeterminant, LogMatrixDeterminant,
MatrixInverse and ops.det / slogdet / logdet / inverse, their Tensor methods): forward vs
float64 numpy, singular inputs as MindSpore 2.7.2 gives them, gradients vs finite
differences, errors, GRAPH mode (ms.jit) vs PYNATIVE, sharding of the batch dims."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.parallel.rules import apply_strategy
from tests.ops.harness import check_forward, check_grad
from tests.parallel.test_rules import check_sharded


def _matrices(*shape, seed=0, dtype=np.float32, shift=0.0):
    """Random (..., n, n) matrices; `shift` * I makes them well conditioned (and, with
    shift > n, of positive determinant)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape) + shift * np.eye(shape[-1])
    return x.astype(dtype)


SHAPES = [(2, 2), (3, 3), (4, 5, 5), (2, 3, 4, 4)]


def _np_slogdet(x):
    s, l = np.linalg.slogdet(x)
    return s, l


def _np_inv_adjoint(x):
    return np.linalg.inv(np.swapaxes(x, -1, -2))


# -- forward vs numpy --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_det_forward(shape, dtype):
    x = _matrices(*shape, seed=1, dtype=dtype, shift=1.0)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    check_forward(ops.MatrixDeterminant(), np.linalg.det, [x], **tol)
    check_forward(ops.det, np.linalg.det, [x], **tol)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_slogdet_forward(shape, dtype):
    x = _matrices(*shape, seed=2, dtype=dtype, shift=0.5)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    check_forward(ops.LogMatrixDeterminant(), _np_slogdet, [x], **tol)
    check_forward(ops.slogdet, _np_slogdet, [x], **tol)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("adjoint", [False, True])
def test_inverse_forward(shape, adjoint):
    x = _matrices(*shape, seed=3, dtype=np.float64, shift=1.5)
    ref = _np_inv_adjoint if adjoint else np.linalg.inv
    check_forward(ops.MatrixInverse(adjoint), ref, [x], rtol=1e-10, atol=1e-12)
    check_forward(ops.MatrixInverse(adjoint), ref, [x.astype(np.float32)], rtol=1e-4,
                  atol=1e-5)


@pytest.mark.parametrize("shape", SHAPES)
def test_logdet_forward_and_signs(shape):
    x = _matrices(*shape, seed=4, dtype=np.float64, shift=0.3)

    def ref(a):
        s, l = np.linalg.slogdet(a)
        return np.where(s < 0, np.nan, l)

    check_forward(ops.logdet, ref, [x], rtol=1e-10, atol=1e-12)


def test_logdet_is_nan_for_a_negative_and_minus_inf_for_a_zero_determinant():
    x = np.array([[[-1., 0.], [0., 2.]], [[1., 2.], [2., 4.]], [[1., 0.], [0., 2.]]])
    out = ops.logdet(Tensor(x)).asnumpy()
    assert np.isnan(out[0]) and out[1] == -np.inf
    np.testing.assert_allclose(out[2], np.log(2.0), rtol=1e-15)


def test_huge_determinant_stays_finite_in_slogdet():
    # det = 1e10^20 overflows float64's product but not the sum of logs.
    x = np.eye(20) * 1e30
    sign, logabs = ops.slogdet(Tensor(x))
    assert float(sign.asnumpy()) == 1.0
    np.testing.assert_allclose(logabs.asnumpy(), 20 * np.log(1e30), rtol=1e-14)


# -- singular matrices: MindSpore 2.7.2's values (from the oracle) ----------------------------
SINGULAR = [
    # matrix, MindSpore's inverse (its FullPivLU: the unknowns of zero pivots set to 0)
    ([[1., 2.], [2., 4.]], [[0., 0.], [0., 0.25]]),
    ([[0., 0.], [0., 0.]], [[0., 0.], [0., 0.]]),
    ([[2., 4.], [1., 2.]], [[0., 0.], [0.25, 0.]]),
    ([[0., 1.], [0., 1.]], [[0., 0.], [1., 0.]]),
    ([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]],
     [[-0.75, 0., 0.25], [0., 0., 0.], [0.5833333333333333, 0., -0.0833333333333333]]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("matrix,want", SINGULAR)
def test_singular_inverse_is_mindspores_finite_one(matrix, want, dtype):
    got = ops.inverse(Tensor(np.array(matrix, dtype))).asnumpy()
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_singular_determinants(dtype):
    x = np.array([m for m, _ in SINGULAR[:4]], dtype)
    np.testing.assert_array_equal(ops.det(Tensor(x)).asnumpy(), np.zeros(4))
    sign, logabs = ops.slogdet(Tensor(x))
    np.testing.assert_array_equal(sign.asnumpy(), np.zeros(4))
    np.testing.assert_array_equal(logabs.asnumpy(), np.full(4, -np.inf))
    # MindSpore's -0.0: the product of U's diagonal after an odd number of row swaps.
    assert np.signbit(ops.det(Tensor(x[0])).asnumpy())


def test_det_of_the_nearly_singular_3x3_is_mindspores_lu_rounding():
    # MindSpore 2.7.2 (LU of A with partial pivoting) gives 6.661338147750939e-16 in float64
    # and sign 1, log|det| -34.945 from slogdet; its inverse treats the matrix as rank 2.
    x = Tensor(np.array(SINGULAR[4][0]))
    assert float(ops.det(x).asnumpy()) == 6.661338147750939e-16
    sign, logabs = ops.slogdet(x)
    assert float(sign.asnumpy()) == 1.0
    np.testing.assert_allclose(logabs.asnumpy(), np.log(6.661338147750939e-16), rtol=1e-12)


def test_empty_batch_gives_empty_outputs():
    x = Tensor(np.zeros((0, 3, 3), np.float32))
    assert ops.det(x).shape == (0,)
    assert [t.shape for t in ops.slogdet(x)] == [(0,), (0,)]
    assert ops.inverse(x).shape == (0, 3, 3)


def test_float16_runs_through_float32_for_the_determinants():
    x = _matrices(3, 3, 3, seed=5, dtype=np.float16, shift=1.0)
    out = ops.det(Tensor(x))
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), np.linalg.det(x.astype(np.float64)), rtol=2e-3)
    sign, logabs = ops.slogdet(Tensor(x))
    assert sign.dtype == logabs.dtype == ms.float16


# -- errors (MindSpore's types) --------------------------------------------------------------
@pytest.mark.parametrize("fn,name", [(ops.det, "MatrixDeterminant"),
                                     (ops.slogdet, "LogMatrixDeterminant"),
                                     (ops.inverse, "MatrixInverse")])
def test_errors_name_the_operator(fn, name):
    with pytest.raises(ValueError, match=f"For '{name}'.*rank must be greater than or equal "
                                         f"to 2, but got 1"):
        fn(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match=rf"For '{name}'.*square.*\(2, 3\)"):
        fn(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match=f"For '{name}'.*row size must be greater than or "
                                         f"equal to 2, but got 1"):
        fn(Tensor(np.ones((4, 1, 1), np.float32)))
    with pytest.raises(TypeError, match=f"For '{name}'.*Int32"):
        fn(Tensor(np.ones((2, 2), np.int32)))


def test_inverse_refuses_float16_and_a_non_bool_adjoint():
    with pytest.raises(TypeError, match="For 'MatrixInverse'.*Float16"):
        ops.inverse(Tensor(np.eye(2, dtype=np.float16)))
    with pytest.raises(TypeError, match="'adjoint' should be 'bool', but got type 'int'"):
        ops.MatrixInverse(adjoint=1)


# -- gradients vs finite differences (float64) ---------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_det_grad(shape):
    check_grad(ops.det, [_matrices(*shape, seed=6, dtype=np.float64, shift=0.5)])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_slogdet_grad(shape):
    x = _matrices(*shape, seed=7, dtype=np.float64, shift=0.5)
    check_grad(ops.LogMatrixDeterminant(), [x], out_index=1)


def test_logdet_grad_where_the_determinant_is_positive():
    check_grad(ops.logdet, [_matrices(2, 3, 3, seed=8, dtype=np.float64, shift=3.0)])


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_inverse_grad(shape, adjoint):
    x = _matrices(*shape, seed=9, dtype=np.float64, shift=1.5)
    check_grad(ops.MatrixInverse(adjoint), [x])


def test_det_grad_is_jacobis_formula():
    x = _matrices(4, 4, seed=10, dtype=np.float64, shift=1.0)
    got = ms.grad(ops.det)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.det(x) * np.linalg.inv(x).T, rtol=1e-12)


# -- Tensor methods, GRAPH mode ------------------------------------------------------------
def test_tensor_methods_match_the_functional_ops():
    x = _matrices(2, 3, 3, seed=11, dtype=np.float64, shift=0.5)
    t = Tensor(x)
    for method, fn in (("det", ops.det), ("matrix_determinant", ops.det),
                       ("logdet", ops.logdet), ("inverse", ops.inverse)):
        np.testing.assert_array_equal(getattr(t, method)().asnumpy(), fn(t).asnumpy())
    for method in ("slogdet", "log_matrix_determinant"):
        for got, want in zip(getattr(t, method)(), ops.slogdet(t)):
            np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    np.testing.assert_array_equal(ops.matrix_determinant(t).asnumpy(), ops.det(t).asnumpy())
    for got, want in zip(ops.log_matrix_determinant(t), ops.slogdet(t)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_graph_mode_equals_pynative_values_and_gradients():
    x = Tensor(_matrices(2, 3, 3, seed=12, dtype=np.float64, shift=3.0))

    def f(t):
        sign, logabs = ops.slogdet(t)
        return ops.det(t), sign, logabs, ops.logdet(t), ops.inverse(t)

    eager = f(x)
    graph = ms.jit(f)(x)
    for g, e in zip(graph, eager):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-12)

    def loss(t):
        return ops.det(t).sum() + ops.logdet(t).sum() + (ops.inverse(t) ** 2).sum()

    grad_fn = ms.grad(loss)
    np.testing.assert_allclose(ms.jit(grad_fn)(x).asnumpy(), grad_fn(x).asnumpy(), rtol=1e-10)


def test_dynamic_batch_and_size_compile_once_and_check_n_when_run():
    class Net(nn.Cell):
        def construct(self, x):
            return ops.det(x), ops.inverse(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    net.set_inputs(Tensor(shape=[None, None, None], dtype=ms.float64))
    for shape in ((2, 3, 3), (4, 2, 2)):
        x = _matrices(*shape, seed=15, dtype=np.float64, shift=1.0)
        det, inv = net(Tensor(x))
        np.testing.assert_allclose(det.asnumpy(), np.linalg.det(x), rtol=1e-12)
        np.testing.assert_allclose(inv.asnumpy(), np.linalg.inv(x), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match=r"For 'MatrixDeterminant'.*row size must be greater "
                                         r"than or equal to 2, but got 1"):
        net(Tensor(np.ones((2, 1, 1))))


# -- sharding: batch dims cut, matrices whole -----------------------------------------------
@pytest.mark.parametrize("prim", [ops.MatrixDeterminant(), ops.LogMatrixDeterminant(),
                                  ops.MatrixInverse(), ops.MatrixInverse(True)])
def test_sharding_cuts_the_batch_dims(prim):
    x = Tensor(_matrices(4, 2, 3, 3, seed=13, dtype=np.float64, shift=1.0))
    check_sharded(prim, (x,), ((2, 2, 1, 1),), 4)


def test_sharding_refuses_to_cut_a_matrix():
    x = Tensor(_matrices(4, 4, 4, seed=14, dtype=np.float64))
    with pytest.raises(RuntimeError, match=r"For 'MatrixInverse'.*cannot be split.*whole "
                                           r"matrix"):
        apply_strategy(ops.MatrixInverse(), (x,), ((1, 2, 1),), 2)
