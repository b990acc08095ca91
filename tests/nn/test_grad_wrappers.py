"""nn.ForwardValueAndGrad and nn.WithGradCell: MindSpore 2.7.2's recorded loss and gradients,
the same in GRAPH mode, and the argument errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import ParameterTuple, Tensor, nn

X = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
Y = Tensor(np.array([[0.4, 0.7], [0.9, 0.1]], np.float32))
W_GRAD = [[-0.597, -0.9525, -0.6075], [0.19, 0.3685, 0.1615]]
B_GRAD = [-1.56, 0.53]


def _net():
    net = nn.Dense(3, 2)
    for p in net.get_parameters():
        n = int(np.prod(p.shape))
        p.set_data(Tensor(np.linspace(-0.5, 0.5, n).reshape(p.shape).astype(np.float32)))
    return net


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_forward_value_and_grad_equals_mindspore(mode):
    net = _net()
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    weights = ParameterTuple(net.trainable_params())
    loss, (gw, gb) = nn.ForwardValueAndGrad(loss_net, weights, get_by_list=True)(X, Y)
    np.testing.assert_allclose(float(loss.asnumpy()), 1.4178998, rtol=1e-6)
    np.testing.assert_allclose(gw.asnumpy(), W_GRAD, rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), B_GRAD, rtol=1e-5)
    loss, (gw, gb) = nn.ForwardValueAndGrad(loss_net, weights, get_by_list=True,
                                            sens_param=True)(X, Y, Tensor(2.0))
    np.testing.assert_allclose(float(loss.asnumpy()), 1.4178998, rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), [2 * b for b in B_GRAD], rtol=1e-5)
    _, (gx, gy) = nn.ForwardValueAndGrad(loss_net, get_all=True)(X, Y)
    np.testing.assert_allclose(gx.asnumpy(), [[0.338, 0.24, 0.142], [0.495, 0.387, 0.279]],
                               rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), [[0.645, -0.155], [0.915, -0.375]], rtol=1e-5)


def test_with_grad_cell_equals_mindspore(mode):
    net = _net()
    for cell in (nn.WithGradCell(net, nn.MSELoss()),
                 nn.WithGradCell(nn.WithLossCell(net, nn.MSELoss()))):
        gw, gb = cell(X, Y)
        np.testing.assert_allclose(gw.asnumpy(), W_GRAD, rtol=1e-5)
        np.testing.assert_allclose(gb.asnumpy(), B_GRAD, rtol=1e-5)


def test_get_by_list_needs_weights():
    loss_net = nn.WithLossCell(_net(), nn.MSELoss())
    with pytest.raises(TypeError, match="'weights' must be Parameters array"):
        nn.ForwardValueAndGrad(loss_net, get_by_list=True)
