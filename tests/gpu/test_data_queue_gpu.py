"""Dataset sink mode with device_target='GPU': GetNext puts each batch on the device, and a
network connected to the queue trains as on the CPU (minispore/train/dataset_helper.py)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, device, nn
from minispore import dataset as ds
from tests.train.test_dataset_helper import sgd_reference

RNG = np.random.default_rng(3)
X = RNG.standard_normal((8, 4)).astype(np.float32)
Y = RNG.standard_normal((8, 1)).astype(np.float32)
W = RNG.standard_normal((1, 4)).astype(np.float32)


def _data():
    return ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(4)


def test_get_next_gives_device_tensors(gpu):
    data = _data()
    helper = ms.DatasetHelper(data, dataset_sink_mode=True)
    get_next = nn.GetNextSingleOp(*helper.types_shapes(), data.__transfer_dataset__.queue_name)
    x, y = get_next()
    assert device.is_device_array(x._data) and device.is_device_array(y._data)
    np.testing.assert_array_equal(x.asnumpy(), X[:4])


def _sink_train(target):
    ms.set_context(device_target=target)
    net = nn.Dense(4, 1, weight_init=Tensor(W), bias_init="zeros")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    helper = ms.DatasetHelper(_data(), dataset_sink_mode=True)
    sink_net = ms.connect_network_with_dataset(step, helper)
    for inputs in helper:
        sink_net(*inputs)
    return net.weight.asnumpy()


def test_sink_training_on_gpu_equals_cpu(gpu):
    np.testing.assert_allclose(_sink_train("GPU"), _sink_train("CPU"), rtol=1e-5, atol=1e-6)


class _Steps(ms.train.Callback):
    def __init__(self):
        self.seen = []

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self.seen.append((cb.cur_epoch_num, cb.cur_step_num))


def _reference(steps):
    return sgd_reference(W, X, Y, steps, lr=0.1, batch=4)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_model_sinks_on_gpu_an_epoch_of_sink_size_steps(gpu, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    net = nn.Dense(4, 1, weight_init=Tensor(W), bias_init="zeros")
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    steps = _Steps()
    # 2 batches a dataset epoch, 3 steps a sink: 3 epochs take 9 steps over 4.5 dataset epochs
    model.train(3, _data(), callbacks=[steps], dataset_sink_mode=True, sink_size=3)
    if mode == "graph":      # one call a sink, its callbacks once
        assert steps.seen == [(1, 3), (2, 6), (3, 9)]
    else:
        assert steps.seen == [(1 + k // 3, k + 1) for k in range(9)]
    np.testing.assert_allclose(net.weight.asnumpy(), _reference(9), rtol=1e-5, atol=1e-6)
