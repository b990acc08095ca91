"""nn.Jvp, nn.Vjp and nn.ParameterUpdate: the values MindSpore 2.7.2 prints for its
documentation's nets (tests/nn/oracle_product_cells.py), in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn

X = Tensor(np.array([[1, 2], [3, 4]], np.float32))
Y = Tensor(np.array([[1, 2], [3, 4]], np.float32))   # X's values, another input (as MindSpore's)
V = Tensor(np.ones((2, 2), np.float32))


class Cube(nn.Cell):
    def construct(self, x):
        return x ** 3


class CubePlus(nn.Cell):
    def construct(self, x, y):
        return x ** 3 + y


class Two(nn.Cell):
    def construct(self, x, y):
        return x * y, x + y


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_jvp_is_mindspores(mode):
    out, jvp = nn.Jvp(CubePlus())(X, Y, (V, V))
    np.testing.assert_array_equal(out.asnumpy(), [[2, 10], [30, 68]])
    np.testing.assert_array_equal(jvp.asnumpy(), [[4, 13], [28, 49]])
    out, jvp = nn.Jvp(Cube())(X, V)
    np.testing.assert_array_equal(jvp.asnumpy(), [[3, 12], [27, 48]])
    (p, s), (jp, js) = nn.Jvp(Two())(X, Y, (V, V))
    np.testing.assert_array_equal(jp.asnumpy(), [[2, 4], [6, 8]])
    np.testing.assert_array_equal(js.asnumpy(), [[2, 2], [2, 2]])


def test_vjp_is_mindspores(mode):
    out, (gx, gy) = nn.Vjp(CubePlus())(X, Y, V)
    np.testing.assert_array_equal(out.asnumpy(), [[2, 10], [30, 68]])
    np.testing.assert_array_equal(gx.asnumpy(), [[3, 12], [27, 48]])
    np.testing.assert_array_equal(gy.asnumpy(), [[1, 1], [1, 1]])
    out, g = nn.Vjp(Cube())(X, V)            # one input: the gradient itself, not a 1-tuple
    np.testing.assert_array_equal(g.asnumpy(), [[3, 12], [27, 48]])
    _, (gx, gy) = nn.Vjp(Two())(X, Y, (V, V))
    np.testing.assert_array_equal(gx.asnumpy(), [[2, 3], [4, 5]])


def test_jvp_equals_the_jacobian_times_the_tangent():
    """A nonlinear map with a non-trivial tangent, against central differences in float64."""
    x = Tensor(np.array([[0.3, -0.7], [1.1, 0.4]]))
    t = Tensor(np.array([[0.5, 2.0], [-1.0, 0.25]]))

    def f(a):
        return ms.ops.tanh(a) * a.sum(axis=0) + ms.ops.sin(a)
    _, got = nn.Jvp(f)(x, t)
    eps = 1e-6
    want = (f(x + eps * t).asnumpy() - f(x - eps * t).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-8)


def test_parameter_update_assigns(mode):
    w = Parameter(Tensor(np.ones(2, np.float32)), name="w")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.update = nn.ParameterUpdate(w)

        def construct(self, t):
            return self.update(t)
    out = Net()(Tensor(np.array([3.0, 4.0], np.float32)))
    assert out.asnumpy().tolist() == [3.0, 4.0] and w.asnumpy().tolist() == [3.0, 4.0]


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="For 'ParameterUpdate', 'param' must be 'Parameter'"):
        nn.ParameterUpdate(Tensor(1.0))
    with pytest.raises(ValueError, match="For 'Jvp', 'v' holds 1 tangents for 2 inputs"):
        nn.Jvp(CubePlus())(X, Y, (V,))
    with pytest.raises(TypeError, match="For 'Vjp', 'fn' must be a Cell or a function"):
        nn.Vjp(3)
