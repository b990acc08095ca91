"""ops.histc and ops.bincount against MindSpore 2.7.2's recorded answers and numpy."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

X = np.array([0.5, 0.2, 0.8, 0.3, 0.9, 0.1, 0.5, 1.0, -0.2], np.float32)


@pytest.mark.parametrize("kwargs, expected", [      # MindSpore 2.7.2's outputs
    (dict(bins=4, min=0.0, max=1.0), [2.0, 1.0, 2.0, 3.0]),
    (dict(bins=4), [1.0, 3.0, 2.0, 3.0]),              # min == max: the data's range
    (dict(bins=3, min=0.5, max=0.5), [3.0, 3.0, 3.0]),  # 0.2 falls below its edge in float32
])
def test_histc_matches_mindspore(kwargs, expected):
    out = ops.histc(Tensor(X), **kwargs)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_histc_integers_random_data_and_graph_mode():
    out = ops.histc(Tensor(np.array([1, 2, 1], np.int32)), bins=4, min=0, max=3)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [0, 2, 1, 0]
    x = np.random.default_rng(0).uniform(-1, 1, 1000).astype(np.float32)
    expected, _ = np.histogram(x, bins=10, range=(-0.5, 0.5))
    got = ops.histc(Tensor(x), bins=10, min=-0.5, max=0.5).asnumpy()
    assert got.sum() == expected.sum() and np.abs(got - expected).max() <= 1   # edge rounding
    ms.set_context(mode=ms.GRAPH_MODE)
    compiled = ms.jit(lambda t: ops.histc(t, bins=4, min=0.0, max=1.0))
    np.testing.assert_array_equal(compiled(Tensor(X)).asnumpy(), [2.0, 1.0, 2.0, 3.0])


def test_histc_errors():
    with pytest.raises(ValueError, match="'bins' must be int and must > 0, but got '0'"):
        ops.histc(Tensor(X), bins=0)
    with pytest.raises(ValueError, match=r"'min' should be <= max: 0.0, but got 1.0"):
        ops.histc(Tensor(X), bins=3, min=1.0, max=0.0)


def test_bincount_matches_mindspore():
    v = Tensor(np.array([1, 3, 3, 0], np.int32))
    assert ops.bincount(v).asnumpy().tolist() == [1.0, 1.0, 0.0, 2.0]
    assert v.bincount().asnumpy().tolist() == [1.0, 1.0, 0.0, 2.0]
    assert Tensor(X).histc(4, 0.0, 1.0).asnumpy().tolist() == [2.0, 1.0, 2.0, 3.0]
    assert ops.bincount(v, minlength=6).asnumpy().tolist() == [1.0, 1.0, 0.0, 2.0, 0.0, 0.0]
    w = Tensor(np.array([0.5, 1.0, 2.0, 1.5], np.float32))
    assert ops.bincount(v, weights=w).asnumpy().tolist() == [1.5, 0.5, 0.0, 3.0]
    assert ops.bincount(Tensor(np.array([-1, 2], np.int32))).asnumpy().tolist() == [0, 0, 1]
    x = np.random.default_rng(2).integers(0, 30, 400)
    np.testing.assert_array_equal(ops.bincount(Tensor(x)).asnumpy(), np.bincount(x))
    with pytest.raises(ValueError, match="1-D integer"):
        ops.bincount(Tensor(X))
    ms.set_context(mode=ms.GRAPH_MODE)     # its length depends on values: runs op by op
    compiled = ms.jit(lambda t: ops.bincount(t))
    assert compiled(v).asnumpy().tolist() == ops.bincount(v).asnumpy().tolist()
    assert compiled.compile_cache_info()["compiles"] == 0


def test_histogram_primitive_and_float16_match_mindspore():
    """MindSpore 2.7.2 (recorded): ops.Histogram is histc with its attributes; Float16
    inputs count in Float16 (UnsortedSegmentSum sums float16 in float32, rounded once)."""
    got = ops.Histogram(bins=4, min=0.0, max=3.0)(
        Tensor(np.array([1, 2, 1, 0.5, 3.2], np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [1.0, 2.0, 1.0, 0.0])
    ints = ops.Histogram()(Tensor(np.array([1, 2, 1], np.int32))).asnumpy()
    assert ints.shape == (100,) and ints[0] == 2 and ints[-1] == 1 and ints.sum() == 3
    half = ops.Histogram(bins=3)(Tensor(np.array([1.0, 2, 1], np.float16)))
    assert half.dtype == ms.float16
    np.testing.assert_array_equal(half.asnumpy(), [2.0, 0.0, 1.0])


def test_unsorted_segment_sum_takes_float16():
    x = Tensor(np.array([[1.0, 2], [3, 4], [5, 6]], np.float16))
    ids = Tensor(np.array([0, 1, 0], np.int32))
    out = ops.unsorted_segment_sum(x, ids, 2)
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), [[6, 8], [3, 4]])        # MindSpore's
    grad = ms.grad(lambda t: ops.unsorted_segment_sum(t, ids, 2).sum())(x)
    np.testing.assert_array_equal(grad.asnumpy(), np.ones((3, 2)))
