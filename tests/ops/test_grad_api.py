"""What ms.grad / ops.grad / value_and_grad return for each grad_position form (shapes of the
result as MindSpore 2.7.2 returns them: a one-element tuple acts as the int)."""
import numpy as np

import minispore as ms
from minispore import Parameter, Tensor, ops

X = np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32)


def square_sum(a):
    return (a * a).sum()


def test_grad_of_one_position_is_a_tensor_for_an_int_or_a_one_tuple():
    for position in (0, (0,), [0]):
        g = ops.grad(square_sum, position)(Tensor(X))
        assert isinstance(g, Tensor)
        np.testing.assert_allclose(g.asnumpy(), 2 * X)
    _, g = ms.value_and_grad(square_sum, (0,))(Tensor(X))
    assert isinstance(g, Tensor)


def test_grad_of_several_positions_is_a_tuple():
    gx, gy = ms.grad(lambda a, b: (a * b).sum(), (0, 1))(Tensor(X), Tensor(2 * X))
    np.testing.assert_allclose(gx.asnumpy(), 2 * X)
    np.testing.assert_allclose(gy.asnumpy(), X)


def test_one_tuple_with_weights_and_ids_reads_as_the_int():
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    fn = lambda a: (a * w).sum()  # noqa: E731
    gx, (gw,) = ms.grad(fn, (0,), [w])(Tensor(X))
    assert isinstance(gx, Tensor) and gw.shape == (3,)
    pos, g = ms.grad(fn, (0,), return_ids=True)(Tensor(X))
    assert pos == 0 and isinstance(g, Tensor)


def test_grad_of_non_tensor_and_nested_outputs():
    """A Python-number output (ops.Size) contributes no gradient (MindSpore gives zeros), and a
    nested output such as LSTM's (y, (h, c)) is differentiated at every Tensor leaf."""
    from minispore.ops import operations as P
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(ms.grad(lambda a: P.Size()(a))(x).asnumpy(), np.zeros((2, 3)))
    g = ms.grad(lambda a: (P.Size()(a), a * 2))(x)
    np.testing.assert_array_equal(g.asnumpy(), np.full((2, 3), 2.0))
    g = ms.grad(lambda a: (a * 2, (a * a, [a * 3])))(x)
    np.testing.assert_allclose(g.asnumpy(), 2 + 2 * x.asnumpy() + 3)
