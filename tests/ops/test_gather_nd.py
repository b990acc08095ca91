"""ops.gather_nd / GatherNd / Tensor.gather_nd against numpy fancy indexing and MindSpore 2.7.2's
recorded answers (values, shapes, errors), its gradient by finite differences, GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_grad

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("indices", [
    np.array([[0, 1], [1, 2]], np.int32),          # MindSpore: [[4 5 6 7] [20 21 22 23]]
    np.array([[0, 1, 3], [1, 2, 0]], np.int64),    # [7 20]
    np.array([[[1]], [[0]]], np.int32),            # shape (2, 1, 3, 4)
    np.array([1, 2], np.int32),                    # [20 21 22 23]
])
def test_gather_nd_is_numpy_fancy_indexing(indices):
    expected = X[tuple(np.moveaxis(indices, -1, 0))]
    x, i = Tensor(X), Tensor(indices)
    for out in (ops.gather_nd(x, i), ops.GatherNd()(x, i), x.gather_nd(i)):
        assert out.shape == expected.shape and out.dtype == ms.float32
        np.testing.assert_array_equal(out.asnumpy(), expected)


def test_gradient_adds_repeated_rows_and_graph_mode():
    idx = Tensor(np.array([[0, 1], [0, 1], [1, 0]], np.int32))
    check_grad(lambda t: ops.gather_nd(t, idx) * 2.0, [X.astype(np.float64)])
    g = ms.grad(lambda t: (ops.gather_nd(t, idx) * 2).sum())(Tensor(X)).asnumpy()
    assert g[0, 1].tolist() == [4.0] * 4 and g[1, 0].tolist() == [2.0] * 4 and g.sum() == 24
    ms.set_context(mode=ms.GRAPH_MODE)
    f = ms.jit(lambda t, i: ops.gather_nd(t, i))
    np.testing.assert_array_equal(f(Tensor(X), idx).asnumpy(), X[[0, 0, 1], [1, 1, 0]])


def test_errors_are_mindspores():
    for bad in ([[-1, 0]], [[2, 0]]):
        with pytest.raises(RuntimeError, match=r"does not index into input_shape: \[2, 3, 4\]"):
            ops.gather_nd(Tensor(X), Tensor(np.array(bad, np.int32)))
    with pytest.raises(ValueError, match="must be greater than or equal to 4, but got 3"):
        ops.gather_nd(Tensor(X), Tensor(np.zeros((1, 4), np.int32)))
    with pytest.raises(TypeError, match="int32 or int64"):
        ops.gather_nd(Tensor(X), Tensor(np.zeros((1, 2), np.float32)))
