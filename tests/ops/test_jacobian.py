"""ops.jacrev / ops.jacfwd: Jacobians against closed forms and finite differences, with
MindSpore's nesting (recorded from MindSpore 2.7.2's documented example) and errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

X = np.array([[1, 2], [3, 4]], np.float32)
Y = np.array([[1, 2], [3, 4]], np.float32)
Z = np.ones((2, 2), np.float32)


class Net(nn.Cell):
    def construct(self, x, y, z):
        return x ** 2 + y ** 2 + z ** 2, x * y * z


def _diag_jacobian(values):
    """d(out_ij)/d(in_kl) for an elementwise map with derivative `values`."""
    n = values.size
    return np.diag(values.reshape(-1)).reshape(values.shape + values.shape) if n else values


@pytest.mark.parametrize("jac", [ops.jacfwd, ops.jacrev])
def test_mindspores_documented_example(jac):
    j, aux = jac(Net(), grad_position=0, has_aux=True)(Tensor(X), Tensor(Y), Tensor(Z))
    np.testing.assert_array_equal(j.asnumpy(), _diag_jacobian(2 * X))
    np.testing.assert_array_equal(aux.asnumpy(), X * Y * Z)


@pytest.mark.parametrize("jac", [ops.jacfwd, ops.jacrev])
def test_nesting_is_outputs_then_positions(jac):
    out = jac(Net(), grad_position=(0, 1))(Tensor(X), Tensor(Y), Tensor(Z))
    assert isinstance(out, tuple) and len(out) == 2
    (d1x, d1y), (d2x, d2y) = out
    np.testing.assert_array_equal(d1x.asnumpy(), _diag_jacobian(2 * X))
    np.testing.assert_array_equal(d1y.asnumpy(), _diag_jacobian(2 * Y))
    np.testing.assert_array_equal(d2x.asnumpy(), _diag_jacobian(Y * Z))
    np.testing.assert_array_equal(d2y.asnumpy(), _diag_jacobian(X * Z))
    single = jac(Net(), grad_position=0)(Tensor(X), Tensor(Y), Tensor(Z))
    assert isinstance(single, tuple) and all(isinstance(t, Tensor) for t in single)


def test_dense_jacobian_matches_finite_differences():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 4))
    x = rng.standard_normal(4)

    def f(t):
        return ops.tanh(ops.matmul(Tensor(w), t))
    j = ops.jacrev(f)(Tensor(x)).asnumpy()
    eps = 1e-6
    numeric = np.stack([(np.tanh(w @ (x + eps * e)) - np.tanh(w @ (x - eps * e))) / (2 * eps)
                        for e in np.eye(4)], axis=1)
    assert j.shape == (3, 4)
    np.testing.assert_allclose(j, numeric, rtol=1e-6, atol=1e-9)


def test_scalar_output_gives_the_gradient_shape():
    j = ops.jacrev(lambda a: (a * a).sum())(Tensor(X))
    np.testing.assert_array_equal(j.asnumpy(), 2 * X)


def test_jacobian_compiles_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)

    @ms.jit
    def f(x):
        return ops.jacrev(lambda a: a * a * 3.0)(x)
    np.testing.assert_array_equal(f(Tensor(X)).asnumpy(), _diag_jacobian(6 * X))


def test_errors_are_mindspores():
    with pytest.raises(TypeError, match="The 'has_aux' must be bool type."):
        ops.jacrev(lambda a: a, has_aux=1)
    with pytest.raises(ValueError, match="out of range"):
        ops.jacfwd(Net(), grad_position=5)(Tensor(X), Tensor(Y), Tensor(Z))
    with pytest.raises(ValueError, match="requires more than one outputs"):
        ops.jacrev(lambda a: a * 2, has_aux=True)(Tensor(X))
