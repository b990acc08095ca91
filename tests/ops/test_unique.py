"""ops.unique and ops.unique_consecutive against MindSpore 2.7.2's outputs (recorded from the oracle) and a
numpy reference, and its PYNATIVE-only nature."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

X = np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int32)
M = np.array([[1, 1], [1, 1], [2, 3], [2, 3], [1, 1]], np.float32)


def _values(out):
    return [(t.dtype, t.asnumpy().tolist()) for t in out]


def test_flattened_with_inverse_and_counts():
    assert _values(ops.unique_consecutive(Tensor(X), True, True)) == [
        (ms.int32, [1, 2, 3, 1, 2]), (ms.int64, [0, 0, 1, 1, 2, 3, 3, 4]),
        (ms.int64, [2, 2, 1, 2, 1])]
    assert ops.unique_consecutive(Tensor(X)).asnumpy().tolist() == [1, 2, 3, 1, 2]
    assert Tensor(X).unique_consecutive().asnumpy().tolist() == [1, 2, 3, 1, 2]
    assert ops.unique_consecutive(Tensor(np.array([True, True, False]))).asnumpy().tolist() == \
        [True, False]
    assert _values(ops.unique_consecutive(Tensor(M), False, True)) == [
        (ms.float32, [1.0, 2.0, 3.0, 2.0, 3.0, 1.0]), (ms.int64, [4, 1, 1, 1, 1, 2])]


@pytest.mark.parametrize("dim, expected", [
    (0, [(ms.float32, [[1.0, 1.0], [2.0, 3.0], [1.0, 1.0]]), (ms.int64, [0, 0, 1, 1, 2]),
         (ms.int64, [2, 2, 1])]),
    (1, [(ms.float32, M.tolist()), (ms.int64, [0, 1]), (ms.int64, [1, 1])]),
    (-1, [(ms.float32, M.tolist()), (ms.int64, [0, 1]), (ms.int64, [1, 1])]),
])
def test_along_a_dimension(dim, expected):
    assert _values(ops.unique_consecutive(Tensor(M), True, True, dim=dim)) == expected


def test_matches_a_numpy_reference_on_random_runs():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, 200)
    keep = np.concatenate([[True], x[1:] != x[:-1]])
    starts = np.flatnonzero(keep)
    out, inverse, counts = ops.unique_consecutive(Tensor(x), True, True)
    np.testing.assert_array_equal(out.asnumpy(), x[keep])
    np.testing.assert_array_equal(inverse.asnumpy(), np.cumsum(keep) - 1)
    np.testing.assert_array_equal(counts.asnumpy(), np.diff(np.append(starts, x.size)))


def test_errors_and_graph_mode():
    with pytest.raises(ValueError, match=r"'dim' should be in \[-2, 2\), but got 2"):
        ops.unique_consecutive(Tensor(M), dim=2)
    with pytest.raises(TypeError, match="'dim' must be an int or None"):
        ops.unique_consecutive(Tensor(M), dim=1.0)
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        ops.unique_consecutive(np.ones(3))
    ms.set_context(mode=ms.GRAPH_MODE)     # its length depends on values: runs op by op
    compiled = ms.jit(lambda t: ops.unique_consecutive(t))
    np.testing.assert_array_equal(compiled(Tensor(X)).asnumpy(),
                                  ops.unique_consecutive(Tensor(X)).asnumpy())
    assert compiled.compile_cache_info()["compiles"] == 0


def test_unique_keeps_first_appearance_order():
    out, idx = ops.unique(Tensor(np.array([3, 1, 3, 2, 1, 5], np.int32)))
    assert _values((out, idx)) == [(ms.int32, [3, 1, 2, 5]), (ms.int32, [0, 1, 0, 2, 1, 3])]
    out, idx = ops.Unique()(Tensor(np.array([[3.0, 1.0], [3.0, 2.0]], np.float32)))
    assert _values((out, idx)) == [(ms.float32, [3.0, 1.0, 2.0]), (ms.int32, [[0, 1], [0, 2]])]
    assert ops.unique(Tensor(np.array([3, 1], np.int64)))[1].dtype == ms.int64   # MindSpore's
    rng = np.random.default_rng(1)
    x = rng.integers(0, 40, 500)
    out, idx = ops.unique(Tensor(x))
    _, first = np.unique(x, return_index=True)
    expected = x[np.sort(first)]
    np.testing.assert_array_equal(out.asnumpy(), expected)
    np.testing.assert_array_equal(out.asnumpy()[idx.asnumpy()], x)


def test_unique_consecutive_inverse_has_the_input_shape_and_the_primitive_returns_three():
    """MindSpore 2.7.2 (recorded): with dim None the inverse indices take the input's shape;
    ops.UniqueConsecutive always returns (output, inverse, counts)."""
    x = Tensor(np.array([[1, 1], [2, 2]], np.float32))
    out, inverse, counts = ops.unique_consecutive(x, True, True, None)
    assert out.asnumpy().tolist() == [1.0, 2.0]
    assert inverse.shape == (2, 2) and inverse.asnumpy().tolist() == [[0, 0], [1, 1]]
    assert counts.asnumpy().tolist() == [2, 2]
    out, inverse, counts = ops.UniqueConsecutive(False, True)(
        Tensor(np.array([1, 1, 2], np.int32)))
    assert out.asnumpy().tolist() == [1, 2] and counts.asnumpy().tolist() == [2, 1]
    assert inverse.shape == () and inverse.dtype == ms.int64        # the placeholder
    out, inverse, counts = ops.UniqueConsecutive(True, True, 0)(
        Tensor(np.array([[1, 2], [1, 2], [3, 4]], np.int32)))
    assert out.asnumpy().tolist() == [[1, 2], [3, 4]]
    assert inverse.asnumpy().tolist() == [0, 0, 1] and counts.asnumpy().tolist() == [2, 1]
