"""ops.vmap against numpy loops (and MindSpore 2.7.2's answers for the argument errors, recorded
by running the same calls there)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

X = np.arange(6, dtype=np.float32).reshape(3, 2)
Y = np.array([1.0, -2.0, 0.5], np.float32)


def test_in_axes_per_argument_and_out_axes():
    def f(a, b, c):
        return a + b + c
    x = Tensor(np.array([[1, 2], [3, 4], [5, 6]], np.float32))     # [b, a]
    y = Tensor(np.array([[-3, -2, -1], [3, 2, 1]], np.float32))    # [a, b]
    z = Tensor(np.array([0, 3], np.float32))                       # [a]
    out = ops.vmap(f, in_axes=(0, 1, None), out_axes=1)(x, y, z)
    np.testing.assert_array_equal(out.asnumpy(), [[-2, 1, 4], [8, 9, 10]])     # MindSpore's


def test_mapped_reduction_and_negative_axes():
    out = ops.vmap(lambda a: a.sum(), in_axes=-1, out_axes=-1)(Tensor(X))
    np.testing.assert_array_equal(out.asnumpy(), X.sum(axis=0))
    out = ms.vmap(lambda a, b: ops.matmul(a, b), in_axes=(0, None))(
        Tensor(np.ones((4, 2, 3), np.float32)), Tensor(np.ones((3, 5), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.full((4, 2, 5), 3.0))


def test_several_outputs_nested_inputs_and_unmapped_outputs():
    def f(pair, b):
        return pair[0] * pair[1], b
    first, second = ops.vmap(f, in_axes=((0, 0), None), out_axes=(0, None))(
        (Tensor(X), Tensor(X)), Tensor(Y))
    np.testing.assert_array_equal(first.asnumpy(), X * X)
    np.testing.assert_array_equal(second.asnumpy(), Y)
    # an output independent of the mapped inputs broadcasts along an int out_axes
    out = ops.vmap(lambda a, b: b, in_axes=(0, None), out_axes=0)(Tensor(Y), Tensor(X))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(X, (3, 3, 2)))
    with pytest.raises(RuntimeError, match="source is not None and dst is None"):
        ops.vmap(lambda a, b: (a * 2, b * a), in_axes=(0, 0), out_axes=(0, None))(
            Tensor(X), Tensor(Y))


def test_gradient_through_vmap_is_the_per_example_gradient():
    w = Tensor(np.array([0.5, -1.0], np.float32))

    def loss(wt, xs):
        return ops.vmap(lambda row: (row * wt).sum() ** 2, in_axes=0)(xs).sum()
    grad = ms.grad(loss, 0)(w, Tensor(X))
    expected = sum(2 * (row @ w.asnumpy()) * row for row in X.astype(np.float64))
    np.testing.assert_allclose(grad.asnumpy(), expected, rtol=1e-6)


def test_vmap_compiles_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)

    @ms.jit
    def f(x, y):
        return ops.vmap(lambda a, b: a * b, in_axes=(1, 0), out_axes=1)(x, y)
    np.testing.assert_array_equal(f(Tensor(X.T.copy()), Tensor(Y)).asnumpy(), (X * Y[:, None]).T)


def test_cell_list_runs_cell_i_on_slice_i():
    ms.set_seed(0)
    cells = nn.CellList([nn.Dense(2, 1) for _ in range(3)])
    out = ops.vmap(cells, in_axes=0)(Tensor(X))
    expected = np.stack([cells[i](Tensor(X[i:i + 1])).asnumpy()[0] for i in range(3)])
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("in_axes, args, message", [
    ((None, None), (X, Y), r"cannot be all None while 'fn' is not a 'CellList', but got "
                           r"\(None, None\)"),
    ((0, 0), (X, np.ones(4, np.float32)), r"should be equal, but got 3 and 4"),
    ((0,), (X, Y), r"must be equal to the number of arguments of 'fn': 2, but got size: 1"),
    (2, (X,), r"The axis: 2 in 'in_axes' is out of bounds for array of dimension \[-2,2\)"),
    (1.5, (X,), r"can only be of type Int or None"),
])
def test_bad_in_axes_raise_mindspores_errors(in_axes, args, message):
    fn = (lambda a, b: a + b) if len(args) == 2 else (lambda a: a.sum())
    with pytest.raises(RuntimeError, match=message):
        ops.vmap(fn, in_axes=in_axes)(*[Tensor(a) for a in args])


def test_bad_out_axes_raise_mindspores_errors():
    with pytest.raises(RuntimeError, match=r"cannot be a single None"):
        ops.vmap(lambda a: a, in_axes=0, out_axes=None)
    with pytest.raises(RuntimeError, match=r"The axis: 1 in 'out_axes' is out of bounds for "
                                           r"array of dimension \[-1,1\)"):
        ops.vmap(lambda a: a.sum(), in_axes=1, out_axes=1)(Tensor(X))
    with pytest.raises(RuntimeError, match="not a Tensor"):
        ops.vmap(lambda a: a + 1, in_axes=0)(3.0)
