"""ops.gumbel_softmax: MindSpore 2.7.2's computation, checks and error messages (recorded from
its CPU wheel), and the distribution it promises: the argmax of a sample falls on class i with
probability softmax(logits)_i (the Gumbel-max property); the hard sample is the one-hot of the
soft one's argmax and has its gradient (straight-through)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

LOGITS = np.array([[-0.1, 0.3, 3.6], [0.4, 0.5, -3.2]], np.float32)


def test_argmax_frequencies_are_the_softmax_probabilities():
    ms.set_seed(7)
    logits = np.array([1.0, 0.0, -1.0, 2.0], np.float32)
    rows = 20000
    sample = ops.gumbel_softmax(Tensor(np.tile(logits, (rows, 1))), 1.0, False, -1).asnumpy()
    np.testing.assert_allclose(sample.sum(-1), 1.0, rtol=1e-5)
    freq = np.bincount(sample.argmax(-1), minlength=4) / rows
    want = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(freq, want, atol=0.012)    # 4 sd of a 20000-row frequency


def test_hard_sample_is_one_hot_with_the_soft_gradient():
    weights = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def grad_of(hard):
        ms.set_seed(11)
        return ms.grad(lambda x: (ops.gumbel_softmax(x, 0.5, hard) * weights).sum())(
            Tensor(LOGITS)).asnumpy()

    ms.set_seed(11)
    soft = ops.gumbel_softmax(Tensor(LOGITS), 0.5, False).asnumpy()
    ms.set_seed(11)
    hard = ops.gumbel_softmax(Tensor(LOGITS), 0.5, True).asnumpy()
    np.testing.assert_array_equal(hard, np.eye(3, dtype=np.float32)[soft.argmax(-1)])
    np.testing.assert_allclose(grad_of(True), grad_of(False), rtol=1e-6, atol=1e-7)
    assert np.abs(grad_of(True)).max() > 1e-3


def test_dim_float16_and_mindspores_hard_dim_range():
    out = ops.gumbel_softmax(Tensor(LOGITS), 1.0, False, 0).asnumpy()
    np.testing.assert_allclose(out.sum(0), 1.0, rtol=1e-5)
    half = ops.gumbel_softmax(Tensor(np.array([1.0, 2.0], np.float16)), 0.5, True)
    assert half.dtype == ms.float16 and sorted(half.asnumpy().tolist()) == [0.0, 1.0]
    column = ops.gumbel_softmax(Tensor(np.array([[1.0, 2.0]], np.float32)), 1.0, True, 1)
    assert sorted(column.asnumpy().ravel().tolist()) == [0.0, 1.0]


@pytest.mark.parametrize("args, exc, message", [
    ((1, False, -1), TypeError, "the type of 'tau' should be 'float', but got type 'int'"),
    ((-1.0, False, -1), ValueError, "the 'tau' must be float and must > 0, but got '-1.0'"),
    ((1.0, 1, -1), TypeError, "the type of 'hard' should be 'bool', but got type 'int'"),
    ((1.0, False, 2), ValueError, r"the 'dim' must be in range of \[-2, 2\), but got 2"),
    ((1.0, True, -2), ValueError, r"the 'dim' must be in range of \[-1, 2\), but got -2"),
    ((1.0, False, -3), ValueError, r"the 'dim' must be in range of \[-2, 2\), but got -3"),
])
def test_errors_are_mindspores(args, exc, message):
    with pytest.raises(exc, match=message):
        ops.gumbel_softmax(Tensor(LOGITS), *args)


def test_input_errors_are_mindspores():
    with pytest.raises(TypeError, match=r"the 'logits' should be one of \[mindspore.float16, "
                                        r"mindspore.float32\], but got 'mindspore.float64'"):
        ops.gumbel_softmax(Tensor(np.array([1.0, 2.0], np.float64)))
    with pytest.raises(TypeError, match="The input logits must be tensor"):
        ops.gumbel_softmax(np.array([1.0, 2.0]))


def test_one_hot_takes_float16_values():
    """MindSpore 2.7.2: Float16 on/off values give a Float16 one-hot (the Numba kernel has no
    float16: it fills float32 and rounds back)."""
    out = ops.one_hot(Tensor(np.array([0, 2], np.int32)), 3, Tensor(np.float16(1)),
                      Tensor(np.float16(0)))
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), [[1, 0, 0], [0, 0, 1]])
