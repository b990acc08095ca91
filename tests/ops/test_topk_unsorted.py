"""TopK(sorted=False) with k the whole last dim keeps the input order, as MindSpore 2.7.2's CPU
kernel does (recorded: [[3, 1, 2, 5]] -> values [[3, 1, 2, 5]], indices [[0, 1, 2, 3]])."""
import numpy as np

import minispore as ms
from minispore import Tensor, ops

X = np.array([[3.0, 1.0, 2.0, 5.0], [0.5, 4.0, -1.0, 2.0]], np.float32)


def test_topk_unsorted_full_width_keeps_input_order():
    for values, indices in (ops.TopK(sorted=False)(Tensor(X), 4),
                            ops.topk(Tensor(X), 4, sorted=False)):
        np.testing.assert_array_equal(values.asnumpy(), X)
        np.testing.assert_array_equal(indices.asnumpy(), [[0, 1, 2, 3]] * 2)
        assert indices.dtype == ms.int32


def test_topk_unsorted_full_width_gradient_is_dout():
    g = ms.grad(lambda a: (ops.TopK(sorted=False)(a, 4)[0] * Tensor(X)).sum())(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), X)


def test_topk_sorted_still_sorts():
    values, indices = ops.TopK()(Tensor(X), 4)
    np.testing.assert_array_equal(indices.asnumpy(), [[3, 0, 2, 1], [1, 3, 0, 2]])
