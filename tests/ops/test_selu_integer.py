"""SeLU on integers, as MindSpore 2.7.2 computes it (recorded): int8 and int32 give max(x, 0)
(its kernel works in the integer type, where the constants truncate to 1 and expm1 of a
negative integer to 0); other integer types are refused."""
import numpy as np
import pytest

from minispore import Tensor, ops
from minispore.common import dtype as mstype


@pytest.mark.parametrize("dtype", [np.int8, np.int32])
def test_integer_selu_keeps_the_positive_part(dtype):
    x = Tensor(np.array([-3, -2, -1, 0, 1, 2, 3, 100], dtype))
    for out in (ops.SeLU()(x), ops.selu(x)):
        assert out.dtype == mstype.to_type(np.dtype(dtype))
        assert out.asnumpy().tolist() == [0, 0, 0, 0, 1, 2, 3, 100]


def test_other_integer_types_are_refused():
    with pytest.raises(TypeError, match="'selu', 'input_x' must be a float, int8 or int32"):
        ops.SeLU()(Tensor(np.array([1], np.int16)))
