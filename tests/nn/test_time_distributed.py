"""nn.TimeDistributed as MindSpore 2.7.2 computes it (outputs recorded from it): without
reshape_with_axis every time step goes through the layer on its own (a BatchNorm in training
keeps per-step statistics; a Primitive such as Argmax is a layer too); with it, the time axis
is merged next to that axis for one call and split again, the layout left as MindSpore leaves
it."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

X = Tensor(np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) / 7)
DENSE_OUT = [[[0.8571429] * 2, [3.142857] * 2, [5.4285717] * 2],
             [[7.714286] * 2, [10.0] * 2, [12.285714] * 2]]


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


def _dense(n_in):
    return nn.Dense(n_in, 2, weight_init="ones", bias_init="zeros")


@pytest.mark.parametrize("time_axis, with_axis", [(1, 0), (0, 1)])
def test_reshape_with_axis(mode, time_axis, with_axis):
    out = nn.TimeDistributed(_dense(4), time_axis=time_axis, reshape_with_axis=with_axis)(X)
    np.testing.assert_allclose(out.asnumpy(), DENSE_OUT, rtol=1e-6)


def test_shapes_of_a_rank_4_input(mode):
    x = Tensor(np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 11)
    assert nn.TimeDistributed(_dense(5), 2, reshape_with_axis=0)(x).shape == (2, 4, 3, 2)
    assert nn.TimeDistributed(_dense(5), 1)(x).shape == (2, 3, 4, 2)


def test_a_primitive_is_a_layer(mode):
    out = nn.TimeDistributed(ops.Argmax(-1), time_axis=1)(X)
    assert out.asnumpy().tolist() == [[3, 3, 3], [3, 3, 3]]


def test_a_batch_norm_normalises_each_step_on_its_own(mode):
    bn = nn.BatchNorm1d(4)
    bn.set_train(True)
    out = nn.TimeDistributed(bn, time_axis=1)(X).asnumpy()
    # each step holds two samples: normalised, they are -1 and +1 (eps = 1e-5)
    np.testing.assert_allclose(out[0], -0.999993, atol=2e-6)
    np.testing.assert_allclose(out[1], 0.999993, atol=2e-6)
