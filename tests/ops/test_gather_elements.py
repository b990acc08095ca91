"""ops.gather_elements / ops.gather_d / GatherD / Tensor.gather_elements against a float64
numpy reference (np.take_along_axis on index-shaped slices), MindSpore 2.7.2's recorded
answers and errors, the scatter-add gradient by finite differences (repeated positions
accumulate), GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def _reference(x, dim, index):
    """torch.gather's definition: x cut to index's extents on every axis but dim, then
    take_along_axis with the negative indices wrapped."""
    d = dim % x.ndim
    cut = tuple(slice(0, n) if k != d else slice(None) for k, n in enumerate(index.shape))
    return np.take_along_axis(x[cut], np.where(index < 0, index + x.shape[d], index), d)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("dim, ishape", [(0, (5, 2, 3)), (1, (2, 1, 4)), (-1, (3, 4, 6)),
                                         (2, (1, 2, 1))])
def test_forward_matches_numpy(dtype, itype, dim, ishape):
    x = rand(3, 4, 5, dtype=dtype, seed=1)
    size = x.shape[dim]
    index = np.random.default_rng(2).integers(-size, size, ishape).astype(itype)
    check_forward(lambda t, i: ops.gather_elements(t, dim, i),
                  lambda t, i: _reference(t, dim, i), [x, index], rtol=0, atol=0)


def test_mindspore_recorded_values_and_names():
    # MindSpore 2.7.2: [[0, 2], [5, 7]] (-1 counts from the end); (2, 6) along dim 1 is fine.
    i = Tensor(np.array([[0, 2], [1, -1]], np.int32))
    x = Tensor(X)
    for out in (ops.gather_elements(x, 1, i), ops.gather_d(x, 1, i), ops.GatherD()(x, 1, i),
                x.gather_elements(1, i), ops.GatherD()(x, Tensor(1), i)):
        assert out.dtype == ms.float32 and out.asnumpy().tolist() == [[0, 2], [5, 7]]
    wide = ops.gather_elements(x, 1, Tensor(np.zeros((2, 6), np.int32))).asnumpy()
    assert wide.tolist() == [[0] * 6, [4] * 6]
    half = ops.gather_elements(Tensor(np.arange(6).reshape(2, 3).astype(np.float16)), 0,
                               Tensor(np.array([[1, 0, 1]])))
    assert half.dtype == ms.float16 and half.asnumpy().tolist() == [[3, 1, 5]]
    flags = ops.gather_elements(Tensor(np.array([True, False])), 0, Tensor(np.array([1, 1, 0])))
    assert flags.asnumpy().tolist() == [False, False, True]
    assert float(ops.gather_elements(Tensor(np.float32(3)), 0, Tensor(np.int32(0)))) == 3.0
    assert ops.gather_elements(x, 0, Tensor(np.zeros((0, 2), np.int32))).shape == (0, 2)


def test_gradient_scatter_adds_repeated_positions():
    index = np.array([[0, 0, -1], [2, 1, 2]], np.int32)
    check_grad(lambda t, i: ops.gather_elements(t, 1, i), [X.astype(np.float64), index])
    idx3 = np.random.default_rng(3).integers(-3, 3, (5, 2, 3)).astype(np.int64)
    check_grad(lambda t, i: ops.gather_elements(t, 0, i), [rand(3, 4, 5, seed=4), idx3])
    # MindSpore 2.7.2's gradient of sum(gather_elements(x, 1, index) * w):
    w = Tensor(np.array([[1., 2, 3], [4, 5, 6]], np.float32))
    g = ms.grad(lambda a: (ops.gather_elements(a, 1, Tensor(index)) * w).sum())(Tensor(X))
    assert g.asnumpy().tolist() == [[3, 0, 0, 3], [0, 5, 10, 0], [0, 0, 0, 0]]


def test_errors_name_the_operator_and_the_valid_range():
    x = Tensor(X)
    for bad in (4, -5):     # MindSpore: RuntimeError, "must be in [-4, 4), but got: 4"
        with pytest.raises(RuntimeError, match=rf"'GatherD'.*must be in \[-4, 4\), but got: {bad}"):
            ops.gather_elements(x, 1, Tensor(np.array([[0, bad]], np.int32)))
    with pytest.raises(ValueError, match=r"index.shape\[0\] = 4 must be <= x.shape\[0\] = 3"):
        ops.gather_elements(x, 1, Tensor(np.zeros((4, 2), np.int32)))
    with pytest.raises(ValueError, match=r"dim value must be in \[-2, 2\), but got 2"):
        ops.gather_elements(x, 2, Tensor(np.zeros((2, 2), np.int32)))
    with pytest.raises(ValueError, match="rank of 'index' must equal the rank of 'x'"):
        ops.gather_elements(x, 1, Tensor(np.zeros((2,), np.int32)))
    with pytest.raises(TypeError, match="'index' must be one of .*Int32, Int64.*Float32"):
        ops.gather_elements(x, 1, Tensor(np.zeros((2, 2), np.float32)))
    with pytest.raises(TypeError, match="'dim' must be an int, but got float"):
        ops.gather_elements(x, 1.0, Tensor(np.zeros((2, 2), np.int32)))


def test_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        f = ms.jit(lambda t, i: ops.gather_elements(t, 0, i) * 2)
        i = np.array([[2, 0, 1, -3]], np.int64)
        np.testing.assert_array_equal(f(Tensor(X), Tensor(i)).asnumpy(),
                                      2 * _reference(X, 0, i))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
