"""`/` on int and bool tensors is true division to float32, as in MindSpore 2.7.2 (the dtypes
and values below were recorded from it)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

T = Tensor([0, 1, 2, 3], ms.int32)


@pytest.mark.parametrize("fn,want,dtype", [
    (lambda: T / 2, [0, 0.5, 1, 1.5], ms.float32),
    (lambda: 6 / Tensor([1, 2, 3], ms.int32), [6, 3, 2], ms.float32),
    (lambda: T / Tensor([1, 2, 3, 4], ms.int64), [0, 0.5, 2 / 3, 0.75], ms.float32),
    (lambda: Tensor([True, False]) / 2, [0.5, 0], ms.float32),
    (lambda: ops.div(T, 2), [0, 0.5, 1, 1.5], ms.float32),
    (lambda: T / 2.5, [0, 0.4, 0.8, 1.2], ms.float32),
    (lambda: Tensor([1.0], ms.float16) / 2, [0.5], ms.float16),
])
def test_true_division_dtype_and_values(fn, want, dtype):
    out = fn()
    assert out.dtype == dtype
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


def test_int_division_has_a_float_gradient():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    g = ms.grad(lambda a: (a / Tensor([2, 4], ms.int32)).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [0.5, 0.25])
