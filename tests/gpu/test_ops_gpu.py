"""Operators on GPU equal the same operators on CPU: forward values and input gradients, on tiny
shapes (the simulator pays per thread). The CUDA kernels themselves are compared with the CPU
kernels in tests/kernels/cuda; this checks what the operators add around them: allocation on
the device, reshapes, transposed and broadcast copies, padding and cropping, scalars."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.ops.operations import PSROIPooling
from minispore.ops.operations._grad_ops import BiasAddGrad
from tests.gpu.conftest import on_both

RNG = np.random.default_rng(0)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def pos32(*shape):
    return (RNG.random(shape) + 0.5).astype(np.float32)


IDX = np.array([[2, 0], [1, 2]], np.int32)
LABELS = np.array([1, 0, 2], np.int32)
W1D, W2T, B2 = f32(2, 2, 3), f32(2, 2, 2, 2), f32(2)
MASK = RNG.random((3, 4)) < 0.5


def _written(x, v):
    """Tensor.__setitem__ with a slice, bool masks and an index Tensor."""
    y = x * 1.0
    y[1:, ::2] = v[:2]
    y[Tensor(MASK)] = v[3]
    y[Tensor(MASK)] = y[Tensor(MASK)] * 3.0 - x[Tensor(MASK)]    # one value per element
    y[Tensor(np.array([2, 0]))] = v
    return y * x

# name -> (fn of Tensors, host inputs, whether to check gradients w.r.t. every float input)
CASES = {
    "add_broadcast": (lambda x, y: x + y, [f32(2, 3), f32(3)], True),
    "mul_sub_scalar": (lambda x: (x * 2.0 - 1.0) / 3.0, [f32(2, 3)], True),
    "pow_exp_log_sqrt": (lambda x: ops.sqrt(ops.exp(ops.log(x) * 0.5)) + x ** 2.0,
                         [pos32(3, 2)], True),
    "maximum_select": (lambda x, y: ops.select(x > y, ops.maximum(x, y), y * 3.0),
                       [f32(2, 3), f32(2, 3)], True),
    "matmul_transposed": (lambda x, y: ops.matmul(x, y.T), [f32(3, 4), f32(2, 4)], True),
    "batch_matmul": (lambda x, y: ops.bmm(x, y), [f32(2, 3, 4), f32(2, 4, 2)], True),
    # (2, 1) against (1, 2): x's batch is materialised, y's read as z % 2 with no copy.
    "batch_matmul_broadcast": (lambda x, y: ops.BatchMatMul(transpose_b=True)(x, y),
                               [f32(2, 1, 2, 3), f32(1, 2, 2, 3)], True),
    "matmul_numpy_rules": (lambda x, y, v: ops.matmul(x, y) + ops.matmul(y, v)[:, :2],
                           [f32(2, 3), f32(2, 3, 2), f32(2)], True),
    "einsum_attention": (lambda q, k: ops.einsum("bqd,bkd->bqk", q, k),
                         [f32(2, 2, 3), f32(2, 2, 3)], True),
    "reduce_noncontiguous_axes": (lambda x: ops.reduce_mean(x, (0, 2), keep_dims=True)
                                  + ops.reduce_sum(x, 1, keep_dims=True),
                                  [f32(2, 3, 4)], True),
    "reduce_max_argmax": (lambda x: (ops.reduce_max(x, 1), ops.argmax(x, 1)), [f32(3, 4)],
                          False),
    "reduce_max_grad": (lambda x: ops.reduce_max(x, (0, 2)), [f32(2, 3, 2)], True),
    "layout_ops": (lambda x: ops.reshape(ops.transpose(x, (2, 0, 1)), (4, 6))[1:3, ::2]
                   + ops.broadcast_to(ops.expand_dims(x[0, 0], 0), (2, 4))[:, :3].sum(),
                   [f32(2, 3, 4)], True),
    "concat_split_tile": (lambda x, y: ops.tile(ops.split(ops.concat((x, y), 1), 2, 1)[1],
                                                (2, 1)), [f32(2, 3), f32(2, 1)], True),
    "gather_segment": (lambda x: ops.gather(x, Tensor(IDX), 0) * 2.0, [f32(3, 2)], True),
    "one_hot_cast_fill": (lambda i: (ops.one_hot(i, 3, 1.0, 0.0),
                                     ops.cast(i, ms.float32) + ops.fill(ms.float32, (2, 2), 0.5),
                                     ops.zeros_like(ops.cast(i, ms.float64))),
                          [IDX], False),
    "softmax_family": (lambda x: ops.softmax(x, 1) * ops.log_softmax(x, 0), [f32(3, 4)], True),
    "activations": (lambda x, b: ops.gelu(ops.tanh(ops.sigmoid(ops.relu(ops.bias_add(x, b))))),
                    [f32(2, 3, 2), f32(3)], True),
    "cross_entropy": (lambda x: ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                   reduction="mean")(
                          x, Tensor(LABELS))
                      + ms.nn.SoftmaxCrossEntropyWithLogits(reduction="sum")(
                          x, ops.softmax(x * 0.5, 1)),
                      [f32(3, 4)], True),
    "conv_pad_pool": (lambda x, w: ops.avg_pool2d(ops.max_pool2d(
                          ops.conv2d(x, w, pad_mode="pad", padding=1), 2, 1), 2, 1),
                      [f32(1, 2, 4, 4), f32(2, 2, 3, 3)], True),
    "conv1d_layer": (lambda x: nn.Conv1d(2, 2, 3, stride=2, pad_mode="pad", padding=1,
                                         has_bias=True, weight_init=Tensor(W1D),
                                         bias_init=Tensor(B2))(x), [f32(1, 2, 5)], True),
    "conv2d_transpose": (lambda d, w: ops.Conv2DTranspose(2, 3, pad_mode="pad", pad=1,
                                                          stride=2)(d, w, (1, 2, 4, 4)),
                         [f32(1, 2, 2, 2), f32(2, 2, 3, 3)], True),
    "conv2d_transpose_layer": (lambda x: nn.Conv2dTranspose(
                                   2, 2, 2, stride=2, pad_mode="pad", padding=(0, 1, 1, 0),
                                   output_padding=1, has_bias=True, weight_init=Tensor(W2T),
                                   bias_init=Tensor(B2))(x), [f32(1, 2, 2, 2)], True),
    "layer_norm": (lambda x, g, b: ops.layer_norm(x, (3,), g, b), [f32(2, 3), f32(3), f32(3)],
                   True),
    "batch_norm_train": (lambda x, g, b: ops.BatchNorm(True)(x, g, b, ops.zeros_like(g),
                                                           ops.ones_like(g))[0],
                         [f32(3, 2, 2), pos32(2), f32(2)], True),
    "setitem": (lambda x, v: _written(x, v), [f32(3, 4), f32(4)], True),
    "mask_getitem": (lambda x: (x[x > 0.0] * 2.0, x[Tensor(np.array([True, False, True]))]),
                     [f32(3, 4)], False),
    "mask_getitem_grad": (lambda x: x[Tensor(MASK)] * x[Tensor(MASK)], [f32(3, 4)], True),
    "batch_norm_infer": (lambda x, g, b: ops.BatchNorm()(x, g, b, g * 0.5, b * b + 1.0)[0],
                         [f32(3, 2), pos32(2), f32(2)], True),
    # integer products wrap in their type (int8: 200 ones sum to -56), as on the CPU
    "int8_batch_matmul_wraps": (lambda x, y: ops.bmm(x, y),
                                [np.ones((2, 3, 200), np.int8), np.ones((2, 200, 2), np.int8)],
                                False),
    "int_bias_add_and_grad": (lambda x, b: (ops.bias_add(x, b), BiasAddGrad()(x)),
                              [np.full((2, 3, 10, 10), 3, np.int8), np.full(3, 100, np.int8)],
                              False),
    "uint64_bias_add_grad": (lambda x: BiasAddGrad("NHWC")(x),
                             [np.full((2, 5, 3), 2 ** 62, np.uint64)], False),
    "ps_roi_pooling": (lambda x: PSROIPooling(1.0 / 16, 2, 2)(x, Tensor(np.array(
        [[[0], [16.0], [20.0], [40.0], [70.0]]], np.float32))), [f32(1, 8, 6, 5)], True),
    "int32_matmul": (lambda x, y: ops.matmul(x, y.T),
                     [IDX * 1000000, np.array([[7, -3], [2, 5]], np.int32) * 1000], False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_equals_cpu(name):
    fn, inputs, _ = CASES[name]
    cpu, gpu = on_both(fn, *inputs)
    if not isinstance(cpu, tuple):
        cpu, gpu = (cpu,), (gpu,)
    for c, g in zip(cpu, gpu):
        assert g.dtype == c.dtype and g.shape == c.shape
        np.testing.assert_allclose(g, c, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if case[2]))
def test_gradients_equal_cpu(name):
    fn, inputs, _ = CASES[name]
    positions = tuple(range(len(inputs)))
    cotangent = None

    def loss(*xs):
        out = fn(*xs)
        return (out * Tensor(cotangent)).sum()

    results = []
    for target in ("CPU", "GPU"):
        ms.set_context(device_target=target)
        args = [Tensor(a) for a in inputs]
        if cotangent is None:
            cotangent = RNG.standard_normal(fn(*args).shape).astype(np.float32)
        grads = ms.grad(loss, grad_position=positions)(*args)
        grads = grads if isinstance(grads, tuple) else (grads,)
        results.append([g.asnumpy() for g in grads])
    for c, g in zip(*results):
        np.testing.assert_allclose(g, c, rtol=2e-5, atol=2e-6)


def test_dropout_masks_match_cpu_under_one_seed():
    x = f32(4, 5)
    outs = []
    for target in ("CPU", "GPU"):
        ms.set_context(device_target=target)
        ms.set_seed(3)
        outs.append(ops.dropout(Tensor(x), p=0.5).asnumpy())
    np.testing.assert_array_equal(outs[1], outs[0])
    assert (outs[0] == 0).any() and (outs[0] != 0).any()


def test_deterministic_on_gives_gathers_gradient_equal_to_cpu_bit_for_bit():
    """set_context(deterministic="ON") makes Gather's gradient (a segment sum, atomic adds on
    the GPU) add in the CPU's order: the GPU gradient is the CPU one bit for bit."""
    table = (f32(5, 3) * 100).astype(np.float32)
    ids = RNG.integers(0, 5, (6, 7)).astype(np.int32)
    from minispore.device.strict_simulator import observe_launches
    grads, launched = [], []
    stop = observe_launches(lambda kernel, args: launched.append(kernel.fn.__name__))
    ms.set_context(deterministic="ON")
    try:
        for target in ("CPU", "GPU", "GPU_OFF"):
            if target == "GPU_OFF":
                ms.set_context(deterministic="OFF")
            ms.set_context(device_target=target[:3])
            cot = Tensor(np.linspace(-3, 3, 6 * 7 * 3, dtype=np.float32).reshape(6, 7, 3) ** 3)
            grads.append(ms.grad(lambda t: (ops.gather(t, Tensor(ids), 0) * cot).sum())(
                Tensor(table)).asnumpy())
            launched.append(target)
    finally:
        stop()
        ms.set_context(deterministic="OFF")
    np.testing.assert_array_equal(grads[1], grads[0])
    on = launched[launched.index("CPU"):launched.index("GPU")]
    off = launched[launched.index("GPU"):]
    assert "_segment_sum_in_order_kernel" in on and "_segment_sum_kernel" not in on
    assert "_segment_sum_kernel" in off and "_segment_sum_in_order_kernel" not in off
    with pytest.raises(ValueError, match=r"'deterministic' must be one of \['ON', 'OFF'\]"):
        ms.set_context(deterministic=True)


def test_embedding_lookup_on_the_device_target_equals_cpu_and_the_host_target_is_refused(gpu):
    """target='DEVICE' looks up on the GPU; target='CPU' (a host table beside device
    tensors) is not built and says so."""
    ids = np.array([[1, 2], [3, 9]], np.int32)
    gpu.set_seed(1)
    table = nn.EmbeddingLookup(10, 4, target="DEVICE")
    out = table(gpu.Tensor(ids))
    np.testing.assert_array_equal(out.asnumpy(), table.embedding_table.asnumpy()[ids])
    with pytest.raises(NotImplementedError, match="primitive_target 'CPU' with device_target"):
        nn.EmbeddingLookup(10, 4)(gpu.Tensor(ids))
