"""Elementwise fusion: golden node counts on known chains, unchanged numbers (fused vs unfused,
forward and backward, the MLP/LeNet training graphs), broadcasting kinds and dtypes, side-effect
order, symbolic shapes compiling once, and the generated kernel being a cached @njit function
of a real module that a second process loads from Numba's cache."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

import minispore as ms
from minispore import Parameter, Symbol, Tensor, nn, ops
from minispore.graph import fused_kernels
from minispore.graph.fusion import FusedElementwise
from tests.graph.helpers import compile_fn, graph_grads
from tools.bench import MLP, LeNet5


def _t(*shape, seed=0, dtype=np.float32):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _fused(executable):
    return [n for n in executable.graph.nodes if isinstance(n.prim, FusedElementwise)]


def _both(fn, tensors, monkeypatch):
    """(fused executable, its result, unfused result) of fn on tensors."""
    fused = compile_fn(fn, tensors)
    got = fused.run([t.asnumpy() for t in tensors])
    monkeypatch.setenv("MINISPORE_FUSION", "0")
    plain = compile_fn(fn, tensors)
    monkeypatch.delenv("MINISPORE_FUSION")
    assert not _fused(plain)
    return fused, got, plain.run([t.asnumpy() for t in tensors])


def _same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6, atol=1e-7)


def test_golden_mul_add_relu_becomes_one_node(monkeypatch):
    x, y, z = _t(4, 5), _t(4, 5, seed=1), _t(4, 5, seed=2)
    fused, got, want = _both(lambda a, b, c: ops.relu(a * b + c), [x, y, z], monkeypatch)
    assert [n.prim.name for n in fused.graph.nodes] == ["FusedElementwise"]
    assert fused.graph.nodes[0].prim.attrs["ops"] == "Mul+Add+ReLU"
    _same(got, want)
    np.testing.assert_array_equal(
        got.asnumpy(), np.maximum(x.asnumpy() * y.asnumpy() + z.asnumpy(), np.float32(0)))


def test_kernel_is_cached_njit_from_a_real_module():
    fused = compile_fn(lambda a, b: ops.tanh(a - b) * 3.0, [_t(8), _t(8, seed=1)])
    module = _fused(fused)[0].prim.kernel_module
    assert isinstance(module.kernel, CPUDispatcher)
    assert module.kernel._cache.__class__.__name__ == "FunctionCache"    # cache=True, usable
    assert sys.modules[module.__name__] is module
    assert os.path.dirname(module.__file__) == fused_kernels.kernel_dir()
    with open(module.__file__) as f:
        assert "@njit(cache=True, error_model=\"numpy\")" in f.read()


_SECOND_PROCESS = textwrap.dedent("""
    import numpy as np, minispore as ms
    from minispore import Tensor, ops
    from tests.graph.helpers import compile_fn
    from minispore.graph.fusion import FusedElementwise
    x = Tensor(np.arange(6, dtype=np.float32))
    ex = compile_fn(lambda a: ops.sigmoid(a * 0.123 + 4.5) - 0.5, [x])
    node, = [n for n in ex.graph.nodes if isinstance(n.prim, FusedElementwise)]
    ex.run([x.asnumpy()])
    stats = node.prim.kernel_module.kernel.stats
    print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
""")


def test_second_process_loads_the_kernel_from_the_cache(tmp_path):
    env = dict(os.environ, MINISPORE_FUSED_DIR=str(tmp_path / "fused"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=os.getcwd())
    runs = [subprocess.run([sys.executable, "-c", _SECOND_PROCESS], env=env, check=True,
                           capture_output=True, text=True).stdout.split() for _ in range(2)]
    assert runs[0] == ["0", "1"]            # cold: compiled
    assert runs[1] == ["1", "0"]            # warm: loaded from the on-disk cache
    assert len(list((tmp_path / "fused").glob("minispore_fused_*.py"))) == 1


def test_long_chain_fuses_into_one_kernel(monkeypatch):
    def chain(x):
        for _ in range(50):
            x = x * 0.5 + 0.25
        return x
    fused, got, want = _both(chain, [_t(16)], monkeypatch)
    assert fused.n_nodes == 1
    _same(got, want)


def test_value_read_outside_the_chain_is_not_fused_away(monkeypatch):
    def f(x, y, z):
        a = x * y
        return ops.relu(a + z), ops.exp(a)
    fused, got, want = _both(f, [_t(3, 4), _t(3, 4, seed=1), _t(3, 4, seed=2)], monkeypatch)
    names = [n.prim.name for n in fused.graph.nodes]
    assert names.count("Mul") == 1 and len(names) == 3    # a stays; each reader fuses nothing
    _same(got, want)


@pytest.mark.parametrize("case", ["scalar", "row", "broadcast", "zero_d", "float64", "int32",
                                  "compare_select", "cast", "activations"])
def test_broadcast_kinds_and_dtypes(case, monkeypatch):
    cases = {
        "scalar": (lambda x, s: ops.exp(x * s) + 1.0, [_t(5, 6), _t()]),
        "row": (lambda x, b: ops.sigmoid(x + b) * b, [_t(7, 3, 4), _t(3, 4, seed=1)]),
        "broadcast": (lambda x, y: ops.abs(x - y) * 2.0, [_t(5, 1), _t(1, 6, seed=1)]),
        "zero_d": (lambda x, y: ops.sqrt(ops.square(x) + y * y), [_t(), _t(seed=1)]),
        "float64": (lambda x, y: ops.tanh(x / (ops.abs(y) + 1.0)), [_t(9, dtype=np.float64),
                                                                   _t(9, seed=1,
                                                                      dtype=np.float64)]),
        "int32": (lambda x, y: ops.maximum(x * y - 3, x),
                  [Tensor(np.arange(12, dtype=np.int32)), Tensor(np.arange(12, dtype=np.int32)
                                                                 % 5)]),
        "compare_select": (lambda x, y: ops.select(x > y, x * 2.0, y - 1.0),
                           [_t(4, 4), _t(4, 4, seed=1)]),
        "cast": (lambda x: ops.cast(ops.cast(x * 10.0, ms.int32), ms.float32) + 0.5, [_t(10)]),
        "activations": (lambda x: ops.gelu(ops.tanh(x) * 2.0) - ops.relu(x),
                        [_t(6, 8)]),
    }
    fn, tensors = cases[case]
    fused, got, want = _both(fn, tensors, monkeypatch)
    assert _fused(fused), case
    _same(got, want)


def test_backward_chains_fuse_and_match(monkeypatch):
    a, b = _t(6, 5), _t(6, 5, seed=1)

    def loss(x, y):
        return ops.reduce_sum(ops.sigmoid(x * y + 1.0) * ops.gelu(y, approximate="tanh"))
    _, fused_grads, ex = graph_grads(loss, [a, b], [0, 1])
    ops_fused = "+".join(n.prim.attrs["ops"] for n in _fused(ex))
    assert "SigmoidGrad" in ops_fused and "GeLUGrad" in ops_fused
    monkeypatch.setenv("MINISPORE_FUSION", "0")
    _, plain_grads, plain = graph_grads(loss, [a, b], [0, 1])
    assert len(ex.graph.nodes) < len(plain.graph.nodes)
    _same(tuple(fused_grads), tuple(plain_grads))


def test_in_place_write_between_read_and_root_keeps_order(monkeypatch):
    p = Parameter(Tensor(np.full(4, 3.0, np.float32)), name="p")

    @ms.jit
    def f(x):
        old = p * 2.0           # reads p before the Assign below overwrites it
        ops.assign(p, x)
        return old + 1.0
    out = f(Tensor(np.zeros(4, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.full(4, 7.0, np.float32))
    np.testing.assert_array_equal(p.asnumpy(), np.zeros(4, np.float32))


def _train_losses(make_net, shape, batch, steps=3):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ms.set_seed(7)
        net = make_net()
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                   nn.Momentum(net.trainable_params(), 0.05, 0.9))
        step.set_train()
        rng = np.random.default_rng(3)
        x = Tensor(rng.standard_normal((batch,) + shape).astype(np.float32))
        y = Tensor(rng.integers(0, 10, batch).astype(np.int32))
        losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
        graph = next(iter(step._graph_cache.entries.values())).graph
        return losses, graph, [p.asnumpy().copy() for p in net.get_parameters()]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("net_name", ["mlp", "lenet"])
def test_training_graphs_equal_with_fusion_on_and_off(net_name, monkeypatch):
    make_net, shape = {"mlp": (MLP, (1, 28, 28)), "lenet": (LeNet5, (1, 32, 32))}[net_name]
    fused_losses, fused_graph, fused_params = _train_losses(make_net, shape, 16)
    monkeypatch.setenv("MINISPORE_FUSION", "0")
    plain_losses, plain_graph, plain_params = _train_losses(make_net, shape, 16)
    np.testing.assert_allclose(fused_losses, plain_losses, rtol=1e-6)
    for f, p in zip(fused_params, plain_params):
        np.testing.assert_allclose(f, p, rtol=1e-6, atol=1e-7)
    # The loss mean's backward (Fill, RealDiv, Reshape, BroadcastTo, Reshape, Mul): 6 -> 1.
    ops_ = [n.prim.attrs.get("ops") for n in fused_graph.nodes
            if isinstance(n.prim, FusedElementwise)]
    assert ops_ == ["Fill+RealDiv+Reshape+BroadcastTo+Reshape+Mul"]
    assert len(plain_graph.nodes) - len(fused_graph.nodes) == 5


class _BiasSigmoid(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = Parameter(Tensor(np.linspace(-1, 1, 3).astype(np.float32)), name="b")

    def construct(self, x):
        return ops.sigmoid(x + self.b) * 2.0 - ops.exp(self.b) / 4.0


def test_symbolic_shapes_compile_once_with_fused_kernels():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _BiasSigmoid()
        net.set_inputs(Tensor(shape=[Symbol(divisor=2), 3], dtype=ms.float32))
        b = net.b.asnumpy()
        for n in (2, 4, 10):
            x = _t(n, 3)
            want = 1 / (1 + np.exp(-(x.asnumpy() + b))) * 2 - np.exp(b) / 4
            np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6, atol=1e-6)
        assert net.compile_cache_info() == {"compiles": 1, "hits": 2, "entries": 1}
        graph = next(iter(net._graph_cache.entries.values())).graph
        assert [n.prim.name for n in graph.nodes] == ["FusedElementwise"]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
