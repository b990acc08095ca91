"""ops.tensor_scatter_elements / ops.scatter / TensorScatterElements / Tensor.scatter and
Tensor.scatter_add against a float64 numpy reference, MindSpore 2.7.2's recorded answers and
gradients, finite-difference gradients (repeated positions: the last update stays, or they
accumulate with "add"), errors, GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

I = np.array([[0, 0, -1], [2, 2, 1]], np.int32)
U = np.array([[1., 2, 3], [4, 5, 6]], np.float32)


def _reference(x, index, updates, axis, add):
    """The loop in increasing position: each index element's position along axis replaced."""
    out = np.array(x, copy=True)
    d = axis % x.ndim
    for p in np.ndindex(*index.shape):
        q = list(p)
        q[d] = index[p] % x.shape[d]
        if add:
            out[tuple(q)] += updates[p]
        else:
            out[tuple(q)] = updates[p]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("reduction", ["none", "add"])
@pytest.mark.parametrize("axis, ishape", [(0, (5, 2, 3)), (1, (2, 6, 4)), (-1, (3, 4, 2))])
def test_forward_matches_numpy(dtype, itype, reduction, axis, ishape):
    x = rand(3, 4, 5, dtype=dtype, seed=1)
    size = x.shape[axis]
    index = np.random.default_rng(2).integers(-size, size, ishape).astype(itype)
    updates = rand(*ishape, dtype=dtype, seed=3)
    check_forward(lambda t, i, u: ops.tensor_scatter_elements(t, i, u, axis, reduction),
                  lambda t, i, u: _reference(t, i, u, axis, reduction == "add"),
                  [x, index, updates], rtol=1e-6 if reduction == "add" else 0)


def test_mindspore_recorded_values_and_names():
    x, i, u = Tensor(np.zeros((3, 4), np.float32)), Tensor(I), Tensor(U)
    put = [[2, 0, 0, 3], [0, 6, 5, 0], [0, 0, 0, 0]]      # MindSpore 2.7.2 (CPU: last stays)
    added = [[3, 0, 0, 3], [0, 6, 9, 0], [0, 0, 0, 0]]
    for out in (ops.tensor_scatter_elements(x, i, u, 1), ops.scatter(x, 1, i, u),
                ops.TensorScatterElements(1)(x, i, u), x.scatter(1, i, u)):
        assert out.dtype == ms.float32 and out.asnumpy().tolist() == put
    for out in (ops.tensor_scatter_elements(x, i, u, 1, "add"), x.scatter_add(1, i, u),
                x.scatter(1, i, u, reduce="add"), ops.TensorScatterElements(1, "add")(x, i, u)):
        assert out.asnumpy().tolist() == added
    assert x.scatter(1, i, 2.0).asnumpy().tolist() == [[2, 0, 0, 2], [0, 2, 2, 0], [0] * 4]
    add = ops.TensorScatterElements(0, "add")
    assert add(Tensor(np.array([True, False])), Tensor(np.array([1, 1])),
               Tensor(np.array([True, True]))).asnumpy().tolist() == [True, True]
    assert add(Tensor(np.array([1, 2], np.int64)), Tensor(np.array([1])),
               Tensor(np.array([5], np.int64))).asnumpy().tolist() == [1, 7]
    half = add(Tensor(np.array([1, 2], np.float16)), Tensor(np.array([1])),
               Tensor(np.array([5], np.float16)))
    assert half.dtype == ms.float16 and half.asnumpy().tolist() == [1, 7]


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_gradients(reduction):
    # Distinct positions for "none" (with repeats the surviving update is a choice the
    # finite differences would see; MindSpore's rule is checked on repeats below).
    index = np.array([[0, 3, -3], [2, 1, 0]], np.int64) if reduction == "none" else I
    check_grad(lambda t, i, u: ops.tensor_scatter_elements(t, i, u, 1, reduction),
               [rand(3, 4, seed=5), index, rand(2, 3, seed=6)])
    # MindSpore 2.7.2's gradients of sum(out * w) with the repeated positions of I:
    w = Tensor(np.arange(12).reshape(3, 4).astype(np.float32))
    gx, gu = ms.grad(lambda a, b: (ops.tensor_scatter_elements(a, Tensor(I), b, 1, reduction)
                                   * w).sum(), (0, 1))(Tensor(np.zeros((3, 4), np.float32)),
                                                       Tensor(U))
    assert gu.asnumpy().tolist() == [[0, 0, 3], [6, 6, 5]]
    if reduction == "none":
        assert gx.asnumpy().tolist() == [[0, 1, 2, 0], [4, 0, 0, 7], [8, 9, 10, 11]]
    else:
        assert gx.asnumpy().tolist() == np.arange(12).reshape(3, 4).tolist()


def test_errors():
    x, i, u = Tensor(np.zeros((3, 4), np.float32)), Tensor(I), Tensor(U)
    # MindSpore 2.7.2's CPU kernel drops an out-of-range update silently; minispore refuses it.
    for bad in (4, -5):
        with pytest.raises(RuntimeError, match=rf"must be in \[-4, 4\), but got: {bad}"):
            ops.tensor_scatter_elements(x, Tensor(np.array([[bad]], np.int32)),
                                        Tensor(np.ones((1, 1), np.float32)), 1)
    with pytest.raises(ValueError, match="'reduction' must be 'none' or 'add', but got 'mul'"):
        ops.tensor_scatter_elements(x, i, u, 1, "mul")
    with pytest.raises(ValueError, match="shape of 'indices' and the shape of 'updates'"):
        ops.tensor_scatter_elements(x, i, Tensor(np.ones((2, 2), np.float32)), 1)
    with pytest.raises(TypeError, match=r"dtype of 'input_x' \(Float32\), but got Float64"):
        ops.tensor_scatter_elements(x, i, Tensor(np.ones((2, 3))), 1)
    with pytest.raises(ValueError, match=r"indices.shape\[0\] = 4 must be <= input_x.shape"):
        ops.tensor_scatter_elements(x, Tensor(np.zeros((4, 1), np.int32)),
                                    Tensor(np.ones((4, 1), np.float32)), 1)
    with pytest.raises(NotImplementedError, match="reduce='multiply'"):
        x.scatter(1, i, u, reduce="multiply")


def test_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        f = ms.jit(lambda t, i, u: ops.tensor_scatter_elements(t, i, u, 1, "add") * 2)
        x = rand(3, 4, seed=7)
        np.testing.assert_allclose(f(Tensor(x), Tensor(I), Tensor(U)).asnumpy(),
                                   2 * _reference(x, I, U, 1, True), rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
