"""float16 operators on GPU (the simulator) equal the same operators on CPU: both widen float16
to float32 around the float32 kernel (Primitive.float16_in_float32), so results match to the
float16 rounding of float32 values that agree to ~1e-6 (one float16 ulp at most)."""
import numpy as np

import minispore as ms
from minispore import Tensor, nn, ops
from tests.gpu.conftest import on_both

RNG = np.random.default_rng(3)


def test_float16_mlp_forward_and_gradients_equal_cpu():
    x = RNG.uniform(-1, 1, (3, 4)).astype(np.float16)
    w = RNG.uniform(-1, 1, (4, 2)).astype(np.float16)
    b = RNG.uniform(-1, 1, (2,)).astype(np.float16)

    def fn(x, w, b):
        y = ops.softmax(ops.relu(ops.bias_add(ops.matmul(x, w), b)), -1)
        grads = ms.grad(lambda x, w, b: ops.reduce_sum(ops.sigmoid(ops.bias_add(
            ops.matmul(x, w), b))), (0, 1, 2))(x, w, b)
        return (y,) + tuple(grads)

    cpu, gpu = on_both(fn, x, w, b)
    for c, g in zip(cpu, gpu):
        assert c.dtype == g.dtype == np.float16 and c.shape == g.shape
        np.testing.assert_allclose(g.astype(np.float32), c.astype(np.float32), rtol=1e-3,
                                   atol=1e-3)


def test_float16_conv_pool_forward_and_gradients_equal_cpu():
    x = RNG.uniform(-1, 1, (1, 1, 4, 4)).astype(np.float16)
    w = RNG.uniform(-1, 1, (2, 1, 2, 2)).astype(np.float16)

    def fn(x, w):
        def f(x, w):
            return ops.AvgPool(2, 1)(ops.MaxPool(2, 1)(ops.conv2d(x, w)))
        return (f(x, w),) + tuple(ms.grad(lambda x, w: ops.reduce_sum(f(x, w)), (0, 1))(x, w))

    cpu, gpu = on_both(fn, x, w)
    for c, g in zip(cpu, gpu):
        assert c.dtype == g.dtype == np.float16 and c.shape == g.shape
        np.testing.assert_allclose(g.astype(np.float32), c.astype(np.float32), rtol=1e-3,
                                   atol=1e-3)


def test_loss_scaled_step_skips_overflow_on_gpu(gpu):
    ms.set_seed(0)
    net = ms.amp.auto_mixed_precision(nn.Dense(3, 2), "O3")
    step = nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01),
        nn.DynamicLossScaleUpdateCell(2.0 ** 20, 2, 1000))
    before = net.weight.asnumpy().copy()
    loss, overflow, scale = step(Tensor(np.ones((2, 3), np.float32)),
                                 Tensor(np.full((2, 2), 4.0, np.float32)))
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2.0 ** 20
    np.testing.assert_array_equal(net.weight.asnumpy(), before)
    assert net.weight.dtype == ms.float32 and float(step.scale_sense.asnumpy()) == 2.0 ** 19
