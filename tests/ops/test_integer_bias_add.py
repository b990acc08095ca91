"""BiasAdd and BiasAddGrad on integers, as MindSpore 2.7.2 computes them (recorded): every
integer type, the sums wrapping in their type (600 threes of int8 or uint8 give 88; 100 + 100
in int8 gives -56); bool is refused."""
import numpy as np
import pytest

from minispore import Tensor, ops
from minispore.ops.operations._grad_ops import BiasAddGrad

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INTS)
def test_bias_add_grad_sums_in_the_element_type(dtype):
    wrapped = 88 if np.dtype(dtype).itemsize == 1 else 600
    for data_format, shape in (("NCHW", (2, 3, 10, 10)), ("NHWC", (2, 10, 10, 3))):
        out = BiasAddGrad(data_format)(Tensor(np.full(shape, 3, dtype)))
        assert out.asnumpy().dtype == dtype
        assert out.asnumpy().tolist() == [wrapped] * 3


def test_bias_add_grad_wraps_at_64_bits():
    x = np.full((4, 3), 2 ** 62, np.uint64)
    assert BiasAddGrad("NHWC")(Tensor(x)).asnumpy().tolist() == [0, 0, 0]   # 4 * 2**62 = 2**64


@pytest.mark.parametrize("dtype", INTS)
def test_bias_add_wraps_in_the_element_type(dtype):
    out = ops.BiasAdd()(Tensor(np.full((2, 3), 100, dtype)), Tensor(np.full(3, 100, dtype)))
    assert out.asnumpy().tolist() == [[-56 if dtype == np.int8 else 200] * 3] * 2


def test_bool_is_refused():
    with pytest.raises(TypeError, match="the dtype of 'dout' must be one of"):
        BiasAddGrad()(Tensor(np.full((2, 3), True)))
