"""ops.LogNormalReverse: dtype and shape as MindSpore 2.7.2, seeded reproducibility, the
log-moments of the draws, and MindSpore's argument errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_shape_dtype_and_seeding(dtype):
    x = Tensor(np.ones((2, 3), dtype))
    ms.set_seed(5)
    a = ops.LogNormalReverse()(x)
    ms.set_seed(5)
    b = ops.LogNormalReverse()(x)
    assert a.dtype == x.dtype and a.shape == (2, 3)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_log_of_the_draws_has_the_given_mean_and_std():
    ms.set_seed(0)
    logs = np.log(ops.LogNormalReverse(0.5, 0.25)(Tensor(np.ones(200000, np.float32)))
                  .asnumpy().astype(np.float64))
    # 5 standard errors of the mean and of the standard deviation.
    assert abs(logs.mean() - 0.5) < 5 * 0.25 / np.sqrt(logs.size)
    assert abs(logs.std() - 0.25) < 5 * 0.25 / np.sqrt(2 * logs.size)


@pytest.mark.parametrize("make,words", [
    (lambda: ops.LogNormalReverse(mean=1), "'mean' should be 'float'"),
    (lambda: ops.LogNormalReverse()(Tensor(np.ones(2, np.int32))), "Float16, Float32 or"),
])
def test_errors(make, words):
    with pytest.raises(TypeError, match=words):
        make()
