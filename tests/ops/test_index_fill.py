"""ops.index_fill / Tensor.index_fill against a float64 numpy reference, MindSpore 2.7.2's
recorded answers, gradients (x: dout with the filled positions zeroed; value: zero) and
errors, finite-difference gradients, GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

X = np.arange(6).reshape(2, 3).astype(np.float32)


def _reference(x, axis, index, value):
    out = np.array(x, copy=True)
    sel = [slice(None)] * x.ndim
    sel[axis] = np.asarray(index).reshape(-1)
    out[tuple(sel)] = value
    return out


@pytest.mark.parametrize("axis, index", [(0, [2, 0, 2]), (1, [-1, 3, 1]), (-1, [1, -2]),
                                         (2, 1)])
def test_forward_and_gradient_match_numpy(axis, index):
    index = np.array(index, np.int32)
    x = rand(3, 4, 2, dtype=np.float64, seed=1)
    check_forward(lambda t, i: ops.index_fill(t, axis, i, -2.5),
                  lambda t, i: _reference(t, axis, i, -2.5), [x, index], rtol=0, atol=0)
    check_grad(lambda t, i: ops.index_fill(t, axis, i, 0.5), [x, index])


def test_mindspore_recorded_values_and_gradients():
    x = Tensor(X)
    i = Tensor(np.array([0, 2, 0], np.int32))
    assert ops.index_fill(x, 1, i, -1.0).asnumpy().tolist() == [[-1, 1, -1], [-1, 4, -1]]
    assert ops.index_fill(x, 1, Tensor(np.array([0, -1], np.int32)), -1.0).asnumpy().tolist() \
        == [[-1, 1, -1], [-1, 4, -1]]
    assert x.index_fill(0, Tensor(np.array([1], np.int32)), 5.0).asnumpy().tolist() == \
        [[0, 1, 2], [5, 5, 5]]
    ints = ops.index_fill(Tensor(np.array([1, 2, 3], np.int32)), 0,
                          Tensor(np.array([1], np.int32)), 5)
    assert ints.dtype == ms.int32 and ints.asnumpy().tolist() == [1, 5, 3]
    assert ops.IndexFill()(x, 1, i, Tensor(-1.0)).asnumpy().tolist() == \
        [[-1, 1, -1], [-1, 4, -1]]
    w = Tensor(X)
    gx, gv = ms.grad(lambda a, v: (ops.index_fill(a, 1, i, v) * w).sum(), (0, 1))(
        x, Tensor(2.0))
    assert gx.asnumpy().tolist() == [[0, 1, 0], [0, 4, 0]] and float(gv) == 0.0


def test_errors():
    x = Tensor(X)
    with pytest.raises(TypeError, match=r"argument\[value\] must be Tensor but got float"):
        ops.IndexFill()(x, 1, Tensor(np.array([0], np.int32)), -1.0)
    with pytest.raises(RuntimeError, match=r"'index' out of range \(expected to be in range "
                                           r"of \[-3, 2\], but got 3\)"):
        ops.index_fill(x, 1, Tensor(np.array([3], np.int32)), -1.0)
    with pytest.raises(RuntimeError, match=r"'dim' out of range .*\[-2, 1\], but got 2"):
        ops.index_fill(x, 2, Tensor(np.array([1], np.int32)), 5.0)
    with pytest.raises(TypeError, match="'index' must be an int32 Tensor, but got Int64"):
        ops.index_fill(x, 1, Tensor(np.array([1], np.int64)), Tensor(5.0))
    with pytest.raises(ValueError, match=r"rank of 'index' must be in \[0,1\], but got 2"):
        ops.index_fill(x, 1, Tensor(np.array([[1]], np.int32)), 5.0)


def test_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        f = ms.jit(lambda t, i: ops.index_fill(t, 0, i, 9.0) * 2)
        i = np.array([1], np.int32)
        np.testing.assert_array_equal(f(Tensor(X), Tensor(i)).asnumpy(),
                                      2 * _reference(X, 0, i, 9.0))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
