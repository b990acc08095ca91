"""UniqueWithPad / ops.unique_with_pad / Tensor.unique_with_pad: MindSpore 2.7.2's recorded
outputs, a reference on random ids, compiled graphs, and errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops


def test_equals_mindspore():
    v = Tensor(np.array([1, 1, 5, 5, 4, 4, 3, 3, 2, 2], np.int32))
    y, idx = ops.unique_with_pad(v, 8)
    assert (y.dtype, idx.dtype) == (ms.int32, ms.int32)
    assert y.asnumpy().tolist() == [1, 5, 4, 3, 2, 8, 8, 8, 8, 8]
    assert idx.asnumpy().tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    y, idx = ops.unique_with_pad(Tensor(np.array([3, 1, 3, 2], np.int64)), 0)
    assert (y.dtype, idx.dtype) == (ms.int64, ms.int64)
    assert (y.asnumpy().tolist(), idx.asnumpy().tolist()) == ([3, 1, 2, 0], [0, 1, 0, 2])
    y, idx = v.unique_with_pad(Tensor(7, ms.int32))
    assert y.asnumpy().tolist()[5:] == [7] * 5


def _reference(x, pad):
    order, first = [], {}
    idx = [first.setdefault(v, len(first)) for v in x.tolist()]
    order = list(first)
    return np.array(order + [pad] * (len(x) - len(order)), x.dtype), np.array(idx)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_random_ids_equal_the_reference_eagerly_and_compiled(dtype):
    x = np.random.default_rng(0).integers(0, 20, 200).astype(dtype)
    want_y, want_idx = _reference(x, -1)
    for fn in (ops.unique_with_pad, ms.jit(lambda t, p: ops.unique_with_pad(t, p))):
        y, idx = fn(Tensor(x), -1)
        np.testing.assert_array_equal(y.asnumpy(), want_y)
        np.testing.assert_array_equal(idx.asnumpy(), want_idx)


@pytest.mark.parametrize("make,err,words", [
    (lambda: ops.unique_with_pad(Tensor(np.array([[1, 2]], np.int32)), 0), ValueError,
     "input_shape_size must be equal to 1"),
    (lambda: ops.unique_with_pad(Tensor(np.array([1], np.int8)), 0), TypeError, "Int8"),
    (lambda: ops.unique_with_pad(Tensor(np.array([1], np.int32)), "a"), TypeError, "pad_num"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
