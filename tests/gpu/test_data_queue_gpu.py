"""Dataset sink mode with device_target='GPU': GetNext puts each batch on the device, and a
network connected to the queue trains as on the CPU (minispore/train/dataset_helper.py)."""
import numpy as np

import minispore as ms
from minispore import Tensor, device, nn
from minispore import dataset as ds

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
