"""nn.LSTM, nn.GRU and nn.MultiheadAttention on GPU equal the same layers on CPU (forward),
on tiny shapes: the layers are compositions of primitives that have CUDA twins, and the
simulator pays per thread."""
import numpy as np

import minispore as ms
from minispore import Tensor, device, nn

RNG = np.random.default_rng(0)


def _run(target, make, call, *inputs):
    ms.set_context(device_target=target)
    ms.set_seed(5)
    net = make()
    out = call(net, *[Tensor(a) for a in inputs])
    assert all(device.is_device_array(o._data) == (target == "GPU") for o in out)
    ms.set_context(device_target="CPU")
    return [o.asnumpy() for o in out]


def _both(make, call, *inputs):
    cpu, gpu = _run("CPU", make, call, *inputs), _run("GPU", make, call, *inputs)
    for c, g in zip(cpu, gpu):
        assert g.shape == c.shape and g.dtype == c.dtype
        np.testing.assert_allclose(g, c, rtol=2e-5, atol=2e-6)


def test_lstm_and_gru_forward_equal_cpu():
    x = RNG.standard_normal((2, 2, 3)).astype(np.float32)

    def lstm(net, t):
        out, (h, c) = net(t)
        return out, h, c

    _both(lambda: nn.LSTM(3, 2, bidirectional=True), lstm, x)
    _both(lambda: nn.GRU(3, 2, batch_first=True), lambda net, t: net(t), x)


def test_multihead_attention_forward_equals_cpu():
    q = RNG.standard_normal((2, 1, 4)).astype(np.float32)
    mask = np.array([[False, True]])
    _both(lambda: nn.MultiheadAttention(4, 2),
          lambda net, t, m: net(t, t, t, key_padding_mask=m), q, mask)
