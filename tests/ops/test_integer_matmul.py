"""MatMul and BatchMatMul on integers, as MindSpore 2.7.2 computes them (recorded): the product
sums in the element type and wraps, as numpy's matmul does; MatMul takes int8-int64 and
uint8, BatchMatMul uint32 and uint64 too; the other dtypes are refused."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops


@pytest.mark.parametrize("a, b, expected", [
    (np.ones((2, 1, 200), np.int8), np.ones((2, 200, 1), np.int8), [[[-56]], [[-56]]]),
    (np.full((1, 1, 3), 100, np.int8), np.full((1, 3, 1), 3, np.int8), [[[-124]]]),
    (np.full((1, 2, 3), 2 ** 30, np.int32), np.full((1, 3, 1), 3, np.int32),
     [[[1073741824], [1073741824]]]),
    (np.full((1, 2, 3), 200, np.uint8), np.full((1, 3, 1), 2, np.uint8), [[[176], [176]]]),
])
def test_integer_products_wrap_as_mindspore(a, b, expected):
    out = ops.matmul(Tensor(a), Tensor(b))
    assert out.asnumpy().dtype == a.dtype
    assert out.asnumpy().tolist() == expected
    np.testing.assert_array_equal(out.asnumpy(), np.matmul(a, b))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32,
                                   np.uint64])
@pytest.mark.parametrize("transpose_a, transpose_b", [(False, False), (True, False),
                                                      (False, True), (True, True)])
def test_batch_matmul_equals_numpy_for_every_integer_dtype(dtype, transpose_a, transpose_b):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 50, (3, 4, 5)).astype(dtype)
    b = rng.integers(0, 50, (1, 5, 2)).astype(dtype)    # broadcast over the batch
    x = np.swapaxes(a, 1, 2).copy() if transpose_a else a
    y = np.swapaxes(b, 1, 2).copy() if transpose_b else b
    out = ops.BatchMatMul(transpose_a, transpose_b)(Tensor(x), Tensor(y))
    assert out.asnumpy().dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.matmul(a, b))


def test_matmul_in_graph_mode_and_with_transposes():
    ms.set_context(mode=ms.GRAPH_MODE)
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    f = ms.jit(lambda a, b: ops.MatMul(transpose_b=True)(a, b))
    assert f(Tensor(x), Tensor(x)).asnumpy().tolist() == [[5, 14], [14, 50]]


@pytest.mark.parametrize("op, dtype", [(ops.MatMul(), np.uint16), (ops.MatMul(), np.uint32),
                                       (ops.MatMul(), np.bool_), (ops.BatchMatMul(), np.uint16)])
def test_dtypes_mindspore_refuses_are_refused(op, dtype):
    shape = (2, 2) if isinstance(op, ops.MatMul) else (1, 2, 2)
    with pytest.raises(TypeError, match="the dtype of 'x' must be one of"):
        op(Tensor(np.ones(shape, dtype)), Tensor(np.ones(shape, dtype)))
