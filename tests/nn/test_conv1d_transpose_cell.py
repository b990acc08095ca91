"""nn.Conv1dTranspose (the cell): MindSpore 2.7.2's outputs (printed by
tests/nn/oracle_conv1d_transpose_sync_bn.py under the oracle venv) for 'same', 'valid' with bias, 'pad' with dilation, a Tensor weight_init; its
4-D weight; the adjoint of Conv1d (the gradient of <Conv1d(y), x> w.r.t. y); bad input."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn

X = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10)


@pytest.mark.parametrize("kwargs,shape,row", [
    (dict(stride=2, pad_mode="same"), (2, 2, 8),
     [1.2, 1.2, 2.7, 1.5, 3.3, 1.8, 3.8999999, 2.1]),
    (dict(stride=2, pad_mode="valid", has_bias=True, bias_init="ones"), (2, 2, 9),
     [2.2, 2.2, 3.7, 2.5, 4.3, 2.8, 4.8999996, 3.1, 3.1]),
    (dict(pad_mode="pad", padding=1, dilation=2), (2, 2, 6), [1.5, 3.0, 3.6, 3.0, 3.6, 1.8]),
])
def test_outputs_are_mindspores(kwargs, shape, row):
    net = nn.Conv1dTranspose(3, 2, 3, weight_init="ones", **kwargs)
    out = net(X)
    assert out.shape == shape
    np.testing.assert_allclose(out.asnumpy()[0, 0], row, rtol=1e-6)
    assert net.weight.shape == (3, 2, 1, 3)


def test_a_tensor_weight_init_is_given_3d():
    w = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4, 1) / 7)
    out = nn.Conv1dTranspose(3, 4, 1, weight_init=w)(X).asnumpy()[1]
    np.testing.assert_allclose(out[2], [4.571429, 4.8285713, 5.0857143, 5.3428574], rtol=1e-6)
    with pytest.raises(ValueError, match="'weight_init' must be 3-D"):
        nn.Conv1dTranspose(3, 4, 1, weight_init=Tensor(np.ones((3, 4), np.float32)))


def test_it_is_the_adjoint_of_conv1d():
    rng = np.random.default_rng(0)
    w = Tensor(rng.standard_normal((3, 2, 3)).astype(np.float32))
    conv = nn.Conv1d(2, 3, 3, stride=2, pad_mode="valid", weight_init=w)
    transposed = nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="valid", weight_init=w)
    y = Tensor(rng.standard_normal((1, 2, 9)).astype(np.float32))
    x = Tensor(rng.standard_normal((1, 3, 4)).astype(np.float32))
    grad = ms.grad(lambda y: (conv(y) * x).sum())(y)
    np.testing.assert_allclose(transposed(x).asnumpy(), grad.asnumpy(), rtol=1e-5, atol=1e-6)


def test_bad_arguments_name_the_cell():
    with pytest.raises(TypeError, match="For 'Conv1dTranspose', 'kernel_size' must be an int"):
        nn.Conv1dTranspose(3, 2, (1, 3))
    with pytest.raises(ValueError, match="'padding' must be 0 when 'pad_mode' is 'same'"):
        nn.Conv1dTranspose(3, 2, 3, padding=1)
    with pytest.raises(ValueError, match=r"For 'Conv1dTranspose', the input must be 3-D"):
        nn.Conv1dTranspose(3, 2, 3)(Tensor(np.ones((2, 3), np.float32)))
