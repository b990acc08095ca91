"""nn.Adam's use_lazy and use_offload as MindSpore 2.7.2 takes them (recorded): with dense
gradients on a CPU both train exactly as plain Adam (MindSpore's st test expects the third loss
2.2237475 for each); both True, or a non-bool, is refused with MindSpore's error types.
(On the GPU, use_offload warns: tests/gpu/test_device.py.)"""
import numpy as np
import pytest

from minispore import Tensor, nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(16, 10, weight_init=Tensor(np.full((10, 16), 0.01, np.float32)),
                            bias_init="zeros")

    def construct(self, x):
        return self.fc1(ops.reshape(x, (1, -1)))


def _third_loss(**kwargs):
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean")), nn.Adam(net.trainable_params(), 0.01, **kwargs))
    x = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4) * 0.01)
    for _ in range(3):
        loss = step(x, Tensor(np.array([0], np.int32)))
    return float(loss.asnumpy())


@pytest.mark.parametrize("kwargs", [{}, {"use_lazy": True}, {"use_offload": True}])
def test_lazy_and_offload_train_as_adam(kwargs):
    assert _third_loss(**kwargs) == pytest.approx(2.2237475, abs=1e-7)


def test_bad_flags_are_refused():
    params = Net().trainable_params()
    with pytest.raises(ValueError, match="'use_lazy' and 'use_offload' can not both be True"):
        nn.Adam(params, use_lazy=True, use_offload=True)
    with pytest.raises(TypeError, match="the type of 'use_lazy' should be 'bool'"):
        nn.Adam(params, use_lazy=1)

