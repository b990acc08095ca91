"""THOR (nn.thor, the THOR layers, ConvertNetUtils, ConvertModelUtils / ModelThor): each
statistic and a whole optimizer step against a float64 numpy reference, the block-diagonal
inverse of a layer wider than 128, the stored inverses reused while the flags are off, ModelThor's
alternation in sink mode, GRAPH equal to PYNATIVE. MindSpore's THOR does not run on a CPU (its
optimizer stops in a Gather), so there is no recorded MindSpore output to compare."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.dataset import NumpySlicesDataset
from minispore.train import ConvertModelUtils, ConvertNetUtils


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


def _grad_step(cell, x, loss=lambda y: (y ** 2).sum() / 2):
    """Forward and backward of loss(cell(x)) (the layers record A and G)."""
    return ms.grad(lambda t: loss(cell(t)), None, cell.trainable_params())(x)


def test_dense_thor_records_input_and_output_gradient_second_moments(mode):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    dense = nn.DenseThor(4, 3, weight_init=Tensor(rng.standard_normal((3, 4)).astype(
        np.float32)), bias_init=Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
    _grad_step(dense, Tensor(x))
    x64 = x.astype(np.float64)
    dy = x64 @ dense.weight.asnumpy().astype(np.float64).T + dense.bias.asnumpy()
    np.testing.assert_allclose(dense.matrix_a.asnumpy(), x64.T @ x64 / 5, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dense.matrix_g.asnumpy(), dy.T @ dy / 5, rtol=1e-5, atol=1e-6)


def _patches(x, kernel, stride, pads):
    """float64 patch matrix (N·L, C·k·k) of a padded NCHW input."""
    top, bottom, left, right = pads
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, c, h, w = x.shape
    rows = []
    for b in range(n):
        for i in range(0, h - kernel + 1, stride):
            for j in range(0, w - kernel + 1, stride):
                rows.append(x[b, :, i:i + kernel, j:j + kernel].reshape(-1))
    return np.array(rows)


@pytest.mark.parametrize("pad_mode, padding, pads", [("same", 0, (1, 1, 1, 1)),
                                                     ("valid", 0, (0, 0, 0, 0)),
                                                     ("pad", (2, 0, 1, 1), (2, 0, 1, 1))])
def test_conv2d_thor_records_patch_and_output_gradient_second_moments(mode, pad_mode, padding,
                                                                     pads):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 5, 5)).astype(np.float32)
    conv = nn.Conv2dThor(2, 3, 3, stride=2, pad_mode=pad_mode, padding=padding,
                         has_bias=True, bias_init="ones")
    _grad_step(conv, Tensor(x))
    patches = _patches(x.astype(np.float64), 3, 2, pads)
    count = patches.shape[0]
    out = patches @ conv.weight.asnumpy().reshape(3, -1).T.astype(np.float64) + 1.0
    np.testing.assert_allclose(conv.matrix_a_cov.asnumpy(), patches.T @ patches / count,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(conv.matrix_g_cov.asnumpy(), out.T @ out / count, rtol=1e-5,
                               atol=1e-5)
    assert conv.a_normalizer.asnumpy().tolist() == [count]
    assert conv.g_normalizer.asnumpy().tolist() == [count]


def test_embedding_thor_counts_ids_and_keeps_the_rows_gradient_moment(mode):
    table = np.arange(18, dtype=np.float32).reshape(6, 3) / 10
    embedding = nn.EmbeddingThor(6, 3, embedding_table=Tensor(table))
    ids = np.array([[1, 2], [2, 5]], np.int32)
    _grad_step(embedding, Tensor(ids))
    assert embedding.matrix_a.asnumpy().tolist() == [0, 1, 2, 0, 0, 1]
    rows = table[ids.reshape(-1)].astype(np.float64)
    np.testing.assert_allclose(embedding.matrix_g.asnumpy(), rows.T @ rows / 4, rtol=1e-6)


def test_embedding_lookup_thor_keeps_statistics_only_on_the_device_target():
    ids = Tensor(np.array([[0, 3, 3]], np.int32))
    on_host = nn.EmbeddingLookupThor(4, 2, target="CPU")
    on_device = nn.EmbeddingLookupThor(4, 2, target="DEVICE")
    assert on_device.embedding_table.dtype == ms.float16    # as MindSpore keeps it
    for lookup in (on_host, on_device):
        _grad_step(lookup, ids, loss=lambda y: y.astype(ms.float32).sum())
    assert on_host.matrix_a.asnumpy().tolist() == [0, 0, 0, 0]
    assert on_device.matrix_a.asnumpy().tolist() == [1, 0, 0, 2]
    # every looked-up row's gradient is ones: G = 3 rows of [1, 1] / indices.shape[0] (1)
    np.testing.assert_array_equal(on_device.matrix_g.asnumpy(), np.full((2, 2), 3.0))


class _Mlp(nn.Cell):
    def __init__(self, hidden, rng):
        super().__init__()
        self.fc1 = nn.Dense(hidden, 5, weight_init=Tensor(
            (rng.standard_normal((5, hidden)) / np.sqrt(hidden)).astype(np.float32)))
        self.ln = nn.LayerNorm((5,))
        self.fc2 = nn.Dense(5, 3, weight_init=Tensor(rng.standard_normal((3, 5)).astype(
            np.float32)))

    def construct(self, x):
        return self.fc2(self.ln(nn.ReLU()(self.fc1(x))))


def _inverse_blocks(matrix, damping):
    """float64 inverse of matrix + damping·I, block by block (blocks of 128)."""
    out = np.zeros_like(matrix)
    for start in range(0, matrix.shape[0], 128):
        block = slice(start, start + 128)
        part = matrix[block, block]
        out[block, block] = np.linalg.inv(part + damping * np.eye(part.shape[0]))
    return out


def _reference_step(net, x, labels, lr, damping, batch_size, momentum, weight_decay):
    """The float64 weights after one THOR step from zero moments (the module docstring's
    formula), gradients of the mean softmax cross-entropy by hand."""
    w1, b1 = (net.fc1.weight.asnumpy().astype(np.float64), net.fc1.bias.asnumpy())
    gamma, beta = net.ln.gamma.asnumpy(), net.ln.beta.asnumpy()
    w2, b2 = net.fc2.weight.asnumpy().astype(np.float64), net.fc2.bias.asnumpy()
    n = x.shape[0]
    h = np.maximum(x @ w1.T + b1, 0)
    mean, var = h.mean(1, keepdims=True), h.var(1, keepdims=True)
    norm = (h - mean) / np.sqrt(var + 1e-7)
    z = norm * gamma + beta
    logits = z @ w2.T + b2
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dlogits = (p - np.eye(3)[labels]) / n
    dz = dlogits @ w2
    dnorm = dz * gamma
    dh = (dnorm - dnorm.mean(1, keepdims=True)
          - norm * (dnorm * norm).mean(1, keepdims=True)) / np.sqrt(var + 1e-7)
    dpre = dh * (h > 0)
    grads = {"fc1.weight": dpre.T @ x, "fc1.bias": dpre.sum(0), "ln.gamma": (dz * norm).sum(0),
             "ln.beta": dz.sum(0), "fc2.weight": dlogits.T @ z, "fc2.bias": dlogits.sum(0)}
    root = np.sqrt(damping)
    stats = {"fc1.weight": (x, dpre), "fc2.weight": (z, dlogits)}
    new = {}
    for name, grad in grads.items():
        param = net.parameters_dict()[name].asnumpy().astype(np.float64)
        if name in stats:
            inputs, dout = stats[name]
            a = inputs.T @ inputs / n
            g = dout.T @ dout / n * batch_size ** 2
            grad = _inverse_blocks(g, root) @ grad @ _inverse_blocks(a, root)
        elif name.startswith("ln."):
            grad = grad / (grad ** 2 / batch_size + root)
        grad = grad + weight_decay * param
        new[name] = param - lr * grad      # momentum's first step: v = g
    return new


@pytest.mark.parametrize("hidden", [4, 130], ids=["one-block", "two-blocks"])
def test_one_thor_step_equals_the_float64_formula(mode, hidden):
    rng = np.random.default_rng(2)
    net = _Mlp(hidden, rng)
    x = rng.standard_normal((6, hidden)).astype(np.float32)
    labels = rng.integers(0, 3, 6).astype(np.int32)
    lr, damping, batch_size, weight_decay = 0.1, 0.05, 6, 1e-3
    expected = _reference_step(net, x.astype(np.float64), labels, lr, damping, batch_size,
                               0.9, weight_decay)
    optimizer = nn.thor(net, Tensor(np.float32(lr)), Tensor(np.full(3, damping, np.float32)),
                        0.9, weight_decay, 1.0, batch_size)
    assert isinstance(net.fc1, nn.DenseThor) and isinstance(net.fc2, nn.DenseThor)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    nn.TrainOneStepCell(nn.WithLossCell(net, loss), optimizer)(Tensor(x), Tensor(labels))
    for name, value in expected.items():
        np.testing.assert_allclose(net.parameters_dict()[name].asnumpy(), value, rtol=2e-4,
                                   atol=2e-5, err_msg=name)
    count_w = 1 if hidden <= 128 else 2
    assert optimizer.matrix_a[0].shape == (1, count_w, min(hidden, 128), min(hidden, 128))
    assert optimizer.matrix_g[0].shape == (1, 5, 5)


def _thor_training(steps, sink, seed=3):
    """(the loss of each step, the fc1 statistic A after each step) of ModelThor training
    with frequency 3 on a fixed batch stream."""
    ms.set_seed(seed)       # the biases' initializers draw from it
    rng = np.random.default_rng(seed)
    net = _Mlp(4, rng)
    optimizer = nn.thor(net, Tensor(np.float32(0.05)), Tensor(np.geomspace(
        0.5, 0.05, steps).astype(np.float32)), 0.9, 0.0, 1.0, 4, frequency=3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, optimizer)
    model = ConvertModelUtils.convert_to_thor_model(model, net, loss_fn=loss,
                                                    optimizer=optimizer)
    data = NumpySlicesDataset({"x": rng.standard_normal((4 * steps, 4)).astype(np.float32),
                               "y": rng.integers(0, 3, 4 * steps).astype(np.int32)},
                              shuffle=False).batch(4)
    losses, statistics = [], []

    class Record(ms.train.Callback):
        def on_train_step_end(self, run_context):
            losses.append(float(run_context.original_args().net_outputs.asnumpy()))
            statistics.append(net.fc1.matrix_a.asnumpy().copy())
    model.train(1, data, callbacks=[Record()], dataset_sink_mode=sink)
    return losses, statistics, model


def test_model_thor_updates_the_inverses_every_frequency_steps_in_sink_mode(mode):
    losses, statistics, model = _thor_training(7, sink=True)
    assert type(model).__name__ == "ModelThor"
    changed = [not np.array_equal(statistics[i], statistics[i - 1]) for i in range(1, 7)]
    # THOR steps 0, 3, 6 record A; the steps between keep it (and reuse the inverses)
    assert changed == [False, False, True, False, False, True]
    assert losses[-1] < losses[0]
    if mode == ms.GRAPH_MODE:     # one graph per flag setting ('train0', 'train1')
        assert model.train_network.compile_cache_info()["entries"] == 2


def test_model_thor_without_sink_mode_updates_every_step():
    _, statistics, _ = _thor_training(4, sink=False)
    assert all(not np.array_equal(statistics[i], statistics[i - 1]) for i in range(1, 4))


def test_graph_mode_trains_as_pynative():
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        runs.append(_thor_training(6, sink=True)[0])
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-5)


def test_stored_inverses_are_reused_while_the_flag_is_off():
    rng = np.random.default_rng(4)
    net = _Mlp(4, rng)
    optimizer = nn.thor(net, Tensor(np.float32(0.1)), Tensor(np.full(4, 0.1, np.float32)),
                        0.0, 0.0, 1.0, 4)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean")), optimizer)
    x, y = Tensor(rng.standard_normal((4, 4)).astype(np.float32)), \
        Tensor(rng.integers(0, 3, 4).astype(np.int32))
    step(x, y)
    a_inv, g_inv = optimizer.matrix_a[1].asnumpy().copy(), optimizer.matrix_g[1].asnumpy().copy()
    statistic = net.fc2.matrix_a.asnumpy().copy()
    step.add_flags_recursive(thor=False)
    weight = net.fc2.weight.asnumpy().astype(np.float64)
    grads = ms.grad(lambda a, b: step.network(a, b), None, net.trainable_params())(x, y)
    step(x, y)
    assert np.array_equal(net.fc2.matrix_a.asnumpy(), statistic)
    assert np.array_equal(optimizer.matrix_a[1].asnumpy(), a_inv)
    expected = weight - 0.1 * (g_inv[0] @ grads[4].asnumpy() @ a_inv[0, 0])
    np.testing.assert_allclose(net.fc2.weight.asnumpy(), expected, rtol=1e-5, atol=1e-6)


class _Mixed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(5, 3)
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1, dilation=1, has_bias=True,
                              bias_init="normal")
        self.dense = nn.Dense(2, 2, activation="tanh")
        self.frozen = nn.Dense(2, 2)
        self.frozen.weight.requires_grad = False

    def construct(self, ids, image):
        features = self.conv(image).mean((2, 3)) + self.embedding(ids).sum(1)[:, :2]
        return self.frozen(self.dense(features))


def test_convert_net_utils_swaps_the_trainable_layers_keeping_their_parameters():
    net = _Mixed()
    ids = Tensor(np.array([[1, 4], [0, 2]], np.int32))
    image = Tensor(np.random.default_rng(5).standard_normal((2, 1, 4, 4)).astype(np.float32))
    before = net(ids, image).asnumpy()
    names = [p.name for p in net.trainable_params()]
    conv_bias, table = net.conv.bias, net.embedding.embedding_table
    ConvertNetUtils().convert_to_thor_net(net)
    assert [type(c).__name__ for c in net.cells()] == ["EmbeddingThor", "Conv2dThor",
                                                       "DenseThor", "Dense"]
    assert net.conv.bias is conv_bias and net.embedding.embedding_table is table
    assert [p.name for p in net.trainable_params()] == names
    assert [p.name for p in net.conv.untrainable_params()] == [   # MindSpore's names
        "conv.a_normalizer", "conv.g_normalizer", "conv.matrix_a_cov", "conv.matrix_g_cov"]
    np.testing.assert_allclose(net(ids, image).asnumpy(), before, rtol=1e-6)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(momentum=1), TypeError, "'momentum' must be a float"),
    (dict(momentum=-0.5), ValueError, "at least 0.0"),
    (dict(frequency=1), ValueError, "'frequency' must be at least 2"),
    (dict(damping=Tensor(np.float32(0.1))), ValueError, "1-D Tensor with one damping per step"),
    (dict(learning_rate=0.1), TypeError, "'learning rate' must be a Tensor"),
])
def test_thor_refuses_bad_arguments_naming_them(kwargs, error, words):
    args = dict(learning_rate=Tensor(np.float32(0.1)), damping=Tensor(np.ones(2, np.float32)),
                momentum=0.9)
    args.update(kwargs)
    with pytest.raises(error, match=words):
        nn.thor(_Mlp(4, np.random.default_rng(0)), **args)


def test_a_grouped_conv2d_thor_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="Conv2dThor.*group=2"):
        nn.Conv2dThor(2, 2, 3, group=2)


def test_a_loss_scaled_step_equals_the_unscaled_step():
    """The backward of a loss scaled by s gives G·s² and gradients ·s; THOR's loss_scale=s
    takes both out again."""
    weights = []
    for scale in (1.0, 128.0):
        rng = np.random.default_rng(6)
        ms.set_seed(6)
        net = _Mlp(4, rng)
        optimizer = nn.thor(net, Tensor(np.float32(0.1)), Tensor(np.full(2, 0.05, np.float32)),
                            0.9, 0.0, scale, 4)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), optimizer, sens=scale)
        step(Tensor(rng.standard_normal((4, 4)).astype(np.float32)),
             Tensor(rng.integers(0, 3, 4).astype(np.int32)))
        weights.append([p.asnumpy() for p in net.trainable_params()])
    for unscaled, scaled in zip(*weights):
        np.testing.assert_allclose(scaled, unscaled, rtol=1e-4, atol=1e-6)
