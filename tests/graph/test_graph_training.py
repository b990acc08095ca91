"""GRAPH-mode training: one compiled graph per step (forward, `differentiate`, optimizer update)
matching PYNATIVE losses and parameters step by step; graph autodiff against the eager tape;
optimizer update primitives in graphs; Model.train in GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.train import Model
from tests.graph.helpers import compile_grad, graph_grads
from tests.nn.test_training import Net as BlobNet, blobs
from tools.bench import MLP, LeNet5

MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


def _steps(mode, make_net, in_shape, make_opt, steps=5, batch=16):
    ms.set_context(mode=mode)
    ms.set_seed(11)
    net = make_net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), make_opt(net.trainable_params()))
    step.set_train()
    rng = np.random.default_rng(5)
    x = Tensor(rng.standard_normal((batch,) + in_shape).astype(np.float32))
    y = Tensor(rng.integers(0, 10, batch).astype(np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in net.get_parameters()], step


OPTIMIZERS = {
    "momentum": lambda p: nn.Momentum(p, learning_rate=0.05, momentum=0.9),
    "sgd": lambda p: nn.SGD(p, learning_rate=0.05, momentum=0.5, weight_decay=1e-3),
    "adam": lambda p: nn.Adam(p, learning_rate=1e-3),
    "adamw": lambda p: nn.AdamWeightDecay(p, learning_rate=1e-3, weight_decay=1e-2),
}


@pytest.mark.parametrize("net_name", ["mlp", "lenet"])
def test_graph_training_matches_pynative_step_by_step(net_name):
    make_net, shape = {"mlp": (MLP, (1, 28, 28)), "lenet": (LeNet5, (1, 32, 32))}[net_name]
    eager, eager_params, _ = _steps(ms.PYNATIVE_MODE, make_net, shape, OPTIMIZERS["momentum"])
    graph, graph_params, step = _steps(ms.GRAPH_MODE, make_net, shape, OPTIMIZERS["momentum"])
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    for g, e in zip(graph_params, eager_params):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    assert step.compile_cache_info() == {"compiles": 1, "hits": 4, "entries": 1}
    assert eager[-1] < eager[0]


@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
def test_optimizer_updates_in_graph(opt_name):
    """ApplyMomentum / SGD / Adam / AdamWeightDecay and the global_step Assign, in one graph."""
    make_net = lambda: BlobNet(16)  # noqa: E731
    eager, eager_params, _ = _steps(ms.PYNATIVE_MODE, make_net, (1, 28, 28),
                                    OPTIMIZERS[opt_name], steps=3)
    graph, graph_params, step = _steps(ms.GRAPH_MODE, make_net, (1, 28, 28),
                                       OPTIMIZERS[opt_name], steps=3)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    for g, e in zip(graph_params, eager_params):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    executable = next(iter(step._graph_cache.entries.values()))
    names = [n.prim.name for n in executable.graph.nodes]
    assert "Assign" in names and sum(n.side_effect for n in executable.graph.nodes) >= 3
    assert int(step.optimizer.global_step.asnumpy()[0]) == 3


@pytest.mark.parametrize("mode", sorted(MODES))
def test_mlp_learns_blobs_in_both_modes(mode):
    """tests/nn/test_training.py's end-to-end run, in PYNATIVE and in GRAPH mode."""
    ms.set_context(mode=MODES[mode])
    ms.set_seed(0)
    net = BlobNet()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    train_step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    train_step.set_train()
    x, y = blobs(1024, 1)
    losses = []
    for _ in range(3):
        for i in range(0, len(x), 32):
            losses.append(float(train_step(Tensor(x[i:i + 32]), Tensor(y[i:i + 32])).asnumpy()))
    assert np.isfinite(losses).all() and np.mean(losses[-8:]) < 0.5 * losses[0]
    xt, yt = blobs(500, 2)
    net.set_train(False)
    assert (net(Tensor(xt)).asnumpy().argmax(-1) == yt).mean() > 0.95
    if mode == "graph":
        assert train_step.compile_cache_info()["compiles"] == 1


def test_model_train_in_graph_mode_matches_pynative():
    import minispore.dataset as ds
    x, y = blobs(64, 4)
    params = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(2)
        net = BlobNet(16)
        model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                      nn.Momentum(net.trainable_params(), 0.05, 0.9))
        data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(16)
        model.train(2, data)
        params[mode] = [p.asnumpy().copy() for p in net.get_parameters()]
    for g, e in zip(params[ms.GRAPH_MODE], params[ms.PYNATIVE_MODE]):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, pad_mode="same")
        self.pool = nn.AvgPool2d(2, 2)
        self.norm = nn.LayerNorm((12,), begin_norm_axis=-1, begin_params_axis=-1)
        self.fc = nn.Dense(12, 5, activation="tanh")

    def construct(self, x):
        h = self.pool(ops.gelu(self.conv(x)))
        h = self.norm(ops.reshape(h, (x.shape[0], -1)))
        return ops.log_softmax(self.fc(h), -1)


@pytest.mark.parametrize("net_name", ["mlp", "lenet", "convnet"])
def test_graph_autodiff_matches_eager_tape(net_name):
    net, shape = {"mlp": (MLP(), (1, 28, 28)), "lenet": (LeNet5(), (1, 32, 32)),
                  "convnet": (ConvNet(), (2, 4, 4))}[net_name]
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((4,) + shape).astype(np.float32))
    w = Tensor(rng.standard_normal((4, 10 if net_name != "convnet" else 5)).astype(np.float32))
    params = net.trainable_params()

    def loss(x):
        return (net(x) * w).sum()
    eager = ms.grad(loss, grad_position=None, weights=params)(x)
    eager_x = ms.grad(loss)(x)
    # Gradients w.r.t. x come from its input Value, w.r.t. the weights from their parameter
    # Values; sens=2 scales them all.
    from minispore.graph.tracer import trace
    graph, tracer = trace(loss, [x], "loss")
    executable = compile_grad(graph, [graph.inputs[0]] + [tracer.param_value(p) for p in params],
                              2.0)
    out, grads = executable.run([x.asnumpy()])
    np.testing.assert_allclose(out.asnumpy(), loss(x).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(grads[0].asnumpy(), 2 * eager_x.asnumpy(), rtol=1e-5, atol=1e-6)
    for g, e, p in zip(grads[1:], eager, params):
        np.testing.assert_allclose(g.asnumpy(), 2 * e.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=p.name)


def test_deferred_gradients_are_not_computed_for_inputs_without_grad():
    """MatMul's input gradient is deferred: with only the weight wanted, no MatMul computes
    dx (the only backward MatMul is the one producing dW)."""
    net = nn.Dense(4, 3)
    x = Tensor(np.ones((2, 4), np.float32))
    from minispore.graph.tracer import trace
    graph, tracer = trace(lambda x: net(x).sum(), [x], "f")
    executable = compile_grad(graph, [tracer.param_value(net.weight)])
    assert [n.prim.name for n in executable.graph.nodes].count("MatMul") == 2
    _, grads = executable.run([x.asnumpy()])
    np.testing.assert_allclose(grads[0].asnumpy(), np.full((3, 4), 2.0), rtol=1e-6)


def test_graph_grads_helper_matches_tape_for_inputs():
    x = Tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32))
    y = Tensor(np.linspace(0.5, 2, 6).reshape(2, 3).astype(np.float32))

    def f(a, b):
        return (ops.sigmoid(a) * ops.sqrt(b) / (b + 1.0)).sum()
    _, got, _ = graph_grads(f, [x, y], [0, 1])
    want = ms.grad(f, grad_position=(0, 1))(x, y)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6)
