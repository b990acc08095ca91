"""ops.rrelu, nn.RReLU, ops.uniform and ops.sign on integers, against MindSpore 2.7.2 (the
literals are its outputs on the same inputs, recorded from the CPU wheel) and, for the random
draws, against the distribution they promise."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

X = np.array([[-1.0, 4.0], [2.0, -3.0]], np.float32)


def test_rrelu_with_a_fixed_slope_matches_mindspore():
    np.testing.assert_array_equal(ops.rrelu(Tensor(X), 0.5, 0.5).asnumpy(),
                                  [[-0.5, 4.0], [2.0, -1.5]])
    half = ops.rrelu(Tensor(np.array([-1.0, 2], np.float16)), 0.25, 0.25)
    assert half.dtype == ms.float16
    np.testing.assert_array_equal(half.asnumpy(), [-0.25, 2.0])
    np.testing.assert_array_equal(ops.rrelu(Tensor(np.array([-1.0, 2], np.float64)), 1, 1)
                                  .asnumpy(), [-1.0, 2.0])
    # An integer tensor's slopes round to 0: its negative part vanishes.
    ints = ops.rrelu(Tensor(np.array([-1, 2], np.int32)))
    assert ints.dtype == ms.int32
    np.testing.assert_array_equal(ints.asnumpy(), [0, 2])


def test_rrelu_draws_a_slope_per_element_and_call_within_the_bounds():
    ms.set_seed(3)
    x = Tensor(np.full((64, 64), -2.0, np.float32))
    first, second = ops.rrelu(x, 0.1, 0.3).asnumpy(), ops.rrelu(x, 0.1, 0.3).asnumpy()
    for out in (first, second):
        slopes = out / -2.0
        assert slopes.min() >= 0.1 and slopes.max() < 0.3
        assert abs(slopes.mean() - 0.2) < 0.01          # U(0.1, 0.3): mean 0.2, sd 0.058/64
        assert len(np.unique(slopes)) > 1000
    assert not np.array_equal(first, second)
    ms.set_seed(3)
    np.testing.assert_array_equal(ops.rrelu(x, 0.1, 0.3).asnumpy(), first)
    zeros_and_positives = ops.rrelu(Tensor(np.array([0.0, 5.0], np.float32))).asnumpy()
    np.testing.assert_array_equal(zeros_and_positives, [0.0, 5.0])


def test_rrelu_gradient_is_the_slope_and_zero_at_zero():
    want = [[0.25, 1.0], [1.0, 0.25]]      # MindSpore's ms.grad on the same call
    got = ms.grad(lambda x: ops.rrelu(x, 0.25, 0.25).sum())(Tensor(X))
    np.testing.assert_array_equal(got.asnumpy(), want)
    cell = nn.RReLU(0.25, 0.25)
    np.testing.assert_array_equal(ms.grad(lambda x: cell(x).sum())(Tensor(X)).asnumpy(), want)
    at_zero = ms.grad(lambda x: ops.rrelu(x).sum())(Tensor(np.zeros(3, np.float32)))
    np.testing.assert_array_equal(at_zero.asnumpy(), np.zeros(3))


def test_rrelu_errors_are_mindspores():
    with pytest.raises(ValueError, match="the value of 'upper' must be greater than or equal to "
                                         "'lower', but got upper: 0.5, lower: 0.6"):
        ops.rrelu(Tensor(X), 0.6, 0.5)
    with pytest.raises(TypeError, match="'lower' must be an int or a float, but got "
                                        "<class 'str'>"):
        ops.rrelu(Tensor(X), "a", 0.5)
    with pytest.raises(TypeError, match="the 'input' must be a Tensor but got "
                                        "<class 'numpy.ndarray'>"):
        ops.rrelu(X)
    with pytest.raises(ValueError, match="For RReLU, the value of 'upper' must be greater"):
        nn.RReLU(0.4, 0.3)
    with pytest.raises(TypeError, match="For 'RReLU', the type of 'lower' should be one of "
                                        r"'\['float', 'int'\]', but got type 'str'"):
        nn.RReLU("a", 0.3)


def test_rrelu_cell_draws_in_evaluation_too():
    """MindSpore 2.7.2's nn.RReLU samples its slopes whatever set_train says."""
    cell = nn.RReLU(0.1, 0.3)
    cell.set_train(False)
    x = Tensor(np.full((32,), -1.0, np.float32))
    slopes = -cell(x).asnumpy()
    assert slopes.min() >= 0.1 and slopes.max() < 0.3 and len(np.unique(slopes)) > 16


def test_uniform_draws_in_bounds_broadcast_and_shaped_as_mindspore():
    lo, hi = Tensor(1.0, ms.float32), Tensor(2.0, ms.float32)
    out = ops.uniform((200, 50), lo, hi, seed=5)
    assert out.dtype == ms.float32 and out.shape == (200, 50)
    values = out.asnumpy()
    assert values.min() >= 1.0 and values.max() < 2.0 and abs(values.mean() - 1.5) < 0.01
    rows = ops.uniform((500, 2), Tensor([1.0, 10.0], ms.float32),
                       Tensor([2.0, 20.0], ms.float32)).asnumpy()
    assert rows[:, 0].min() >= 1.0 and rows[:, 0].max() < 2.0
    assert rows[:, 1].min() >= 10.0 and rows[:, 1].max() < 20.0
    assert ops.uniform(Tensor(np.array([2, 3], np.int32)), lo, hi).shape == (2, 3)


def test_uniform_errors_are_mindspores():
    lo, hi = Tensor(1.0, ms.float32), Tensor(2.0, ms.float32)
    with pytest.raises(TypeError, match=r"input\[minval\] and input\[maxval\] must be a Tensor"):
        ops.uniform((2, 3), 1.0, hi)
    with pytest.raises(TypeError, match="The 'uniform' doesn't support 'Float64' and expect to "
                                        r"receive \[mindspore.int32, mindspore.float32\]"):
        ops.uniform((2, 3), lo, hi, dtype=ms.float64)
    with pytest.raises(TypeError, match="the value data type 'Float32' is not consistent with "
                                        "assigned tensor data type Float64"):
        ops.uniform((2, 3), Tensor(1.0, ms.float64), Tensor(2.0, ms.float64))
    with pytest.raises(NotImplementedError, match="UniformInt"):
        ops.uniform((2,), Tensor(1, ms.int32), Tensor(3, ms.int32), dtype=ms.int32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sign_takes_integers_as_mindspore_does(dtype):
    out = ops.sign(Tensor(np.array([-3, 0, 5], dtype)))
    assert out.dtype == Tensor(np.array([0], dtype)).dtype
    np.testing.assert_array_equal(out.asnumpy(), [-1, 0, 1])
