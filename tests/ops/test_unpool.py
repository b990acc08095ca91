"""MaxUnpool2D / MaxUnpool3D and ops.max_unpool1d/2d/3d, nn.MaxUnpool1d/2d/3d: a float64
reference, MindSpore 2.7.2's recorded outputs, the round trip with the argmax pool, gradients."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 2, 3))
IDX = np.stack([RNG.permutation(20)[:6] for _ in range(6)]).reshape(2, 3, 2, 3).astype(np.int64)


def _reference(x, idx, out_hw):
    out = np.zeros(x.shape[:2] + out_hw)
    flat = out.reshape(x.shape[0] * x.shape[1], -1)
    for r, (vals, pos) in enumerate(zip(x.reshape(len(flat), -1), idx.reshape(len(flat), -1))):
        flat[r, pos] = vals
    return out


def test_max_unpool2d_forward_and_gradient():
    prim = ops.MaxUnpool2D(ksize=2, strides=2, output_shape=(4, 5))
    check_forward(lambda x, i: prim(x, i), lambda x, i: _reference(x, i, (4, 5)), [X, IDX])
    check_grad(lambda x, i: prim(x, i), [X, IDX], positions=[0])


def test_max_unpool3d_forward_and_gradient():
    x = X.reshape(2, 3, 1, 2, 3)
    idx = IDX.reshape(2, 3, 1, 2, 3)
    prim = ops.MaxUnpool3D(ksize=2, strides=2, output_shape=(1, 4, 5))
    check_forward(lambda a, i: prim(a, i), lambda a, i: _reference(a, i, (1, 4, 5)), [x, idx])
    check_grad(lambda a, i: prim(a, i), [x, idx], positions=[0])


def test_round_trip_with_the_argmax_pool_equals_mindspore():
    x = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    out, argmax = ops.max_pool2d(x, 2, 2, return_indices=True)
    back = ops.max_unpool2d(out, argmax, 2, 2)
    assert back.asnumpy().ravel().tolist() == [0, 0, 0, 0, 0, 5, 0, 7, 0, 0, 0, 0, 0, 13, 0, 15]
    assert ops.max_unpool2d(out, argmax, 2, 2, output_size=(1, 1, 5, 5)).shape == (1, 1, 5, 5)
    assert nn.MaxUnpool2d(2, 2)(out[0], argmax[0]).shape == (1, 4, 4)
    weights = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    grad = ms.grad(lambda t: (ops.max_unpool2d(t, argmax, 2, 2) * weights).sum())(out)
    assert grad.asnumpy().ravel().tolist() == [5.0, 7.0, 13.0, 15.0]


def test_repeated_positions_keep_the_last_value_as_mindspore():
    x = Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32))
    got = ops.max_unpool2d(x, Tensor(np.array([[[[0, 0], [3, 3]]]], np.int64)), 2, 2)
    assert got.asnumpy().ravel().tolist()[:4] == [2.0, 0.0, 0.0, 4.0]


def test_1d_and_3d_equal_mindspore():
    got = nn.MaxUnpool1d(2)(Tensor(np.array([[[2.0, 4.0]]], np.float32)),
                            Tensor(np.array([[[1, 3]]], np.int64)))
    assert got.asnumpy().tolist() == [[[0.0, 2.0, 0.0, 4.0]]]
    got = ops.max_unpool3d(Tensor(np.ones((1, 1, 1, 2, 2), np.float32)),
                           Tensor(np.array([0, 3, 5, 7], np.int64).reshape(1, 1, 1, 2, 2)), 2, 2)
    assert got.shape == (1, 1, 2, 4, 4)
    assert np.flatnonzero(got.asnumpy()).tolist() == [0, 3, 5, 7]


@pytest.mark.parametrize("make,err,words", [
    (lambda: ops.max_unpool2d(Tensor(np.ones((1, 1, 2, 2), np.float32)),
                              Tensor(np.array([0, 20, 3, 15], np.int64).reshape(1, 1, 2, 2)), 2,
                              2), RuntimeError, "outside the output plane of 16"),
    (lambda: ops.max_unpool2d(Tensor(np.ones((1, 1, 2, 2), np.float32)),
                              Tensor(np.zeros((1, 1, 2, 2), np.float32)), 2, 2), TypeError,
     "argmax"),
    (lambda: ops.MaxUnpool2D(0), ValueError, "'ksize' must be a positive"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
