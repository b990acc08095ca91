"""GRAPH mode with set_inputs: one compilation for every batch size that fits, checks before
anything runs, and the same numbers as PYNATIVE."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Symbol, Tensor, nn, ops
from minispore import dataset as ds
from minispore.common.initializer import initializer
from minispore.ops.operations.matmul_ops import MatMul

BATCHES = list(range(8, 257, 8))


class Network(nn.Cell):
    """The tutorial's single-device feed-forward network (parallel_support_dynamic_shape)."""

    def __init__(self, hidden=64):
        super().__init__()
        self.fc1_weight = Parameter(initializer("normal", [28 * 28, hidden], ms.float32))
        self.fc2_weight = Parameter(initializer("normal", [hidden, hidden], ms.float32))
        self.fc3_weight = Parameter(initializer("normal", [hidden, 10], ms.float32))
        self.matmul1, self.relu1 = ops.MatMul(), ops.ReLU()
        self.matmul2, self.relu2 = ops.MatMul(), ops.ReLU()
        self.matmul3 = ops.MatMul()

    def construct(self, x):
        x = ops.reshape(x, (-1, 784))
        x = self.relu1(self.matmul1(x, self.fc1_weight))
        x = self.relu2(self.matmul2(x, self.fc2_weight))
        return self.matmul3(x, self.fc3_weight)


class FlattenByShape(nn.Cell):
    """Reshape computed from the traced shape: the executor substitutes the batch each call."""

    def construct(self, x):
        y = x.reshape(x.shape[0], -1)
        return ops.reduce_mean(y * 2.0, 1)


def images(b, seed=0):
    return Tensor(np.random.default_rng(seed + b).random((b, 1, 28, 28), np.float32))


def labels(b, seed=0):
    return Tensor(np.random.default_rng(seed + b).integers(0, 10, b).astype(np.int32))


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def eager(fn, *args):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


@pytest.mark.parametrize("batch_dim", [Symbol(divisor=8), None], ids=["Symbol", "None"])
def test_forward_sweep_compiles_once(graph_mode, batch_dim):
    net = Network()
    net.set_inputs(Tensor(shape=[batch_dim, 1, 28, 28], dtype=ms.float32))
    for b in BATCHES:
        out = net(images(b))
        assert out.shape == (b, 10)
    assert net.compile_cache_info() == {"compiles": 1, "hits": len(BATCHES) - 1, "entries": 1}
    x = images(40)
    np.testing.assert_allclose(net(x).asnumpy(), eager(net, x).asnumpy(), rtol=1e-6, atol=1e-6)


def test_without_set_inputs_each_shape_compiles_and_stays_cached(graph_mode):
    net = Network()
    for b in (8, 16, 8, 16):
        net(images(b))
    assert net.compile_cache_info() == {"compiles": 2, "hits": 2, "entries": 2}


def test_a_placeholder_of_any_rank_compiles_per_shape_and_says_so(graph_mode, caplog):
    # MindSpore 2.7.2: Tensor(dtype=...) is a placeholder of shape (-2,), any rank
    placeholder = Tensor(dtype=ms.float32)
    assert placeholder.shape == (-2,) and placeholder.is_dynamic_rank
    net = nn.Dense(3, 2)
    net.set_inputs(placeholder)
    shapes = [(4, 3), (5, 3), (4, 3), (2, 4, 3)]
    for shape in shapes:
        x = Tensor(np.ones(shape, np.float32))
        np.testing.assert_allclose(net(x).asnumpy(), eager(net, x).asnumpy(), rtol=1e-6)
    assert net.compile_cache_info() == {"compiles": 3, "hits": 1, "entries": 3}
    assert caplog.text.count("placeholder of any rank") == 1
    with pytest.raises(ValueError, match="the dtype Int32 must be Float32"):
        net(Tensor(np.ones((4, 3), np.int32)))
    with pytest.raises(TypeError, match="'input_data' should be one of"):
        Tensor(None)


class _TileScaled(nn.Cell):
    def construct(self, x, k, multiples):
        return ops.tile(x, multiples) * k


def test_set_inputs_takes_constants_compiled_per_value(graph_mode):
    # MindSpore's set_inputs takes numbers and tuples of them beside placeholders
    net = _TileScaled()
    net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32), 3, (2, 1))
    for rows, k, multiples in [(3, 3, (2, 1)), (5, 3, (2, 1)), (4, 2, (1, 2))]:
        x = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
        np.testing.assert_array_equal(net(Tensor(x), k, multiples).asnumpy(),
                                      np.tile(x, multiples) * k)
    assert net.compile_cache_info() == {"compiles": 2, "hits": 1, "entries": 2}
    with pytest.raises(TypeError, match="set_inputs declared the constant 3, but got a Tensor"):
        net(Tensor(np.ones((2, 2), np.float32)), Tensor(3.0), (2, 1))
    with pytest.raises(TypeError, match="or a constant .* but got str"):
        net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32), "3", (2, 1))


def test_violation_raises_before_any_kernel_runs(graph_mode, monkeypatch):
    calls = []
    impl = MatMul.impl
    monkeypatch.setattr(MatMul, "impl",
                        lambda self, *a, **out: calls.append(1) or impl(self, *a, **out))
    net = Network()
    net.set_inputs(Tensor(shape=[Symbol(divisor=8), 1, 28, 28], dtype=ms.float32))
    net(images(8))
    ran = len(calls)
    assert ran == 3
    with pytest.raises(ValueError, match=r"For 'Network' input 0 axis 0: 12 does not satisfy "
                                         r"Symbol\(divisor=8\): 12 is not of the form 8\*N"):
        net(images(12))
    with pytest.raises(ValueError, match=r"input 0 axis 2: 27 must equal the static dim 28"):
        net(Tensor(np.zeros((8, 1, 27, 28), np.float32)))
    with pytest.raises(ValueError, match=r"input 0: the dtype Float64 must be Float32"):
        net(Tensor(np.zeros((8, 1, 28, 28), np.float64)))
    with pytest.raises(ValueError, match=r"the number of inputs \(2\)"):
        net(images(8), images(8))
    assert len(calls) == ran
    assert net.compile_cache_info()["compiles"] == 1


def test_executor_substitutes_symbolic_constants(graph_mode):
    net = FlattenByShape()
    net.set_inputs(Tensor(shape=[None, 3, 4], dtype=ms.float32))
    for b in (1, 5, 9):
        x = Tensor(np.arange(b * 12, dtype=np.float32).reshape(b, 3, 4))
        np.testing.assert_allclose(net(x).asnumpy(), eager(net, x).asnumpy(), rtol=1e-6)
    assert net.compile_cache_info()["compiles"] == 1


def _train_net(seed_net=None):
    ms.set_seed(1)
    net = Network()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, loss_fn, nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                             nn.SGD(net.trainable_params(), 0.1))


def test_training_sweep_compiles_once_and_matches_pynative(graph_mode):
    s0 = Symbol(divisor=8)
    input_dyn = Tensor(shape=[s0, 1, 28, 28], dtype=ms.float32)
    label_dyn = Tensor(shape=[s0], dtype=ms.int32)
    _, _, train = _train_net()
    train.set_inputs(input_dyn, label_dyn)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    _, _, reference = _train_net()
    ms.set_context(mode=ms.GRAPH_MODE)
    sweep = BATCHES[::3]
    for b in sweep:
        loss = train(images(b), labels(b))
        want = eager(reference, images(b), labels(b))
        np.testing.assert_allclose(loss.asnumpy(), want.asnumpy(), rtol=1e-5)
    assert train.compile_cache_info() == {"compiles": 1, "hits": len(sweep) - 1, "entries": 1}
    # The labels' Symbol is its own variable (unique=False), linked to the batch by the loss:
    # a mismatch is caught before the step runs.
    with pytest.raises(ValueError, match=r"input 1 axis 0: 16 must equal s0 = 8"):
        train(images(8), labels(16))


def test_tutorial_model_train_with_placeholders(graph_mode):
    """The tutorial's main.py: set_inputs on the net and (dummy first slot) on the loss;
    Model concatenates them for the train network, which compiles once for every batch."""
    ms.set_seed(3)
    net = Network()
    s0 = Symbol(divisor=8)
    input_dyn = Tensor(shape=[s0, 1, 28, 28], dtype=ms.float32)
    label_dyn = Tensor(shape=[s0], dtype=ms.int32)
    net.set_inputs(input_dyn)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(True, reduction="mean")
    loss_fn.set_inputs(input_dyn, label_dyn)
    optimizer = nn.SGD(net.trainable_params(), 1e-2)
    model = ms.Model(net, loss_fn, optimizer)
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"image": rng.random((40, 1, 28, 28), np.float32),
                                  "label": rng.integers(0, 10, 40).astype(np.int32)},
                                 shuffle=False).batch(16)          # batches of 16, 16 and 8
    model.train(2, data, dataset_sink_mode=False)
    train_net = model._train_network
    assert train_net.get_inputs() == (input_dyn, label_dyn)
    info = train_net.compile_cache_info()
    assert info["compiles"] == 1 and info["hits"] == 5


def test_a_returned_shape_expression_takes_the_run_s_sizes():
    """ops.Size of an input with a dynamic dim is s0 * 3 while compiling; the value returned
    by each run is the number (MindSpore's test_size_op.py::test_size_dynamic)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        class SizeAndShape(nn.Cell):
            def construct(self, x):
                return ops.Size()(x), x.shape, x * 2

        net = SizeAndShape()
        net.set_inputs(Tensor(shape=[3, None], dtype=ms.float32))
        for n in (4, 7):
            size, shape, y = net(Tensor(np.ones((3, n), np.float32)))
            assert size == 3 * n and type(size) is int and tuple(shape) == (3, n)
            assert y.shape == (3, n)
        assert net.compile_cache_info()["compiles"] == 1
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
