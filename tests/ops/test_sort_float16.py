"""Sort on float16, as MindSpore 2.7.2's CPU Sort (values, Int32 indices and the gradient, its
outputs recorded below), through the float32 kernel; TopK keeps refusing float16, since
MindSpore's float16 TopK orders ties differently from its float32 one."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.common import dtype as mstype

X = np.array([[3.5, 1.25, 2.0, 1.25], [0.1, -2.0, 7.0, 0.1]], np.float16)


def test_sort_takes_float16_as_mindspore_does():
    values, indices = ops.Sort(descending=True)(Tensor(X))
    assert values.dtype == mstype.float16 and indices.dtype == mstype.int32
    want = np.array([[3.5, 2.0, 1.25, 1.25], [7.0, 0.1, 0.1, -2.0]], np.float16)
    np.testing.assert_array_equal(values.asnumpy(), want)
    np.testing.assert_array_equal(indices.asnumpy(), [[0, 2, 1, 3], [2, 0, 3, 1]])
    w = Tensor(np.arange(8).reshape(2, 4).astype(np.float16))
    grad = ms.grad(lambda x: (ops.Sort()(x)[0] * w).sum())(Tensor(X))
    assert grad.dtype == mstype.float16
    np.testing.assert_array_equal(grad.asnumpy(), [[3, 0, 2, 1], [5, 4, 7, 6]])


def test_topk_refuses_float16_by_name():
    with pytest.raises(TypeError, match="For 'TopK', the dtype of 'input_x' must be one of"):
        ops.TopK()(Tensor(X), 2)
