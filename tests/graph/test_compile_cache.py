"""Compile cache and entry points: ms.jit forms (function, decorator, Cell method), GRAPH-mode
Cell.__call__, cache hits on repeated signatures, new compilations on new shapes, MS_JIT=0."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.graph import cache_info


def _x(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return ops.relu(self.fc(x))

    @ms.jit
    def doubled(self, x):
        return self.fc(x) * 2.0


def test_jit_function_forms_agree_with_eager():
    def f(x, y):
        return ops.exp(x) * y - 1.0
    x, y = _x(2, 3), _x(2, 3, seed=1)
    want = f(x, y).asnumpy()

    @ms.jit
    def g(x, y):
        return f(x, y)

    @ms.jit(jit_config=None)
    def h(x, y):
        return f(x, y)
    for fn in (ms.jit(f), g, h):
        np.testing.assert_allclose(fn(x, y).asnumpy(), want, rtol=1e-6)
        assert fn.compile_cache_info() == {"compiles": 1, "hits": 0, "entries": 1}


def test_jit_cache_hits_and_new_shapes():
    f = ms.jit(lambda x: x * 3.0)
    before = cache_info()
    for _ in range(3):
        f(_x(2, 3))
    f(_x(5, 3))
    f(_x(5, 3))
    f(_x(2, 3))
    assert f.compile_cache_info() == {"compiles": 2, "hits": 4, "entries": 2}
    after = cache_info()
    assert after["compiles"] - before["compiles"] == 2 and after["hits"] - before["hits"] == 4


def test_non_tensor_arguments_key_the_cache():
    f = ms.jit(lambda x, axis: ops.reduce_sum(x, axis))
    x = _x(2, 3)
    np.testing.assert_allclose(f(x, 0).asnumpy(), x.asnumpy().sum(0), rtol=1e-6)
    np.testing.assert_allclose(f(x, 1).asnumpy(), x.asnumpy().sum(1), rtol=1e-6)
    assert f.compile_cache_info()["compiles"] == 2


def test_jit_on_cell_method():
    net = Net()
    x = _x(2, 4)
    want = (net.fc(x) * 2.0).asnumpy()
    np.testing.assert_allclose(net.doubled(x).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(net.doubled(x).asnumpy(), want, rtol=1e-6)


def test_graph_mode_cell_compiles_per_shape():
    net = Net()
    x2, x5 = _x(2, 4), _x(5, 4)
    want2, want5 = net(x2).asnumpy(), net(x5).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(2):
        np.testing.assert_allclose(net(x2).asnumpy(), want2, rtol=1e-6)
    np.testing.assert_allclose(net(x5).asnumpy(), want5, rtol=1e-6)
    np.testing.assert_allclose(net(x2).asnumpy(), want2, rtol=1e-6)
    assert net.compile_cache_info() == {"compiles": 2, "hits": 2, "entries": 2}


def test_graph_mode_train_flag_is_part_of_the_key():
    net = nn.SequentialCell([nn.Dense(4, 4), nn.Dropout(p=0.5)])
    ms.set_context(mode=ms.GRAPH_MODE)
    x = _x(64, 4)
    net.set_train(False)
    a = net(x)
    net.set_train(True)
    b = net(x)
    assert net.compile_cache_info()["compiles"] == 2
    assert (b.asnumpy() == 0).mean() > 0.2 and (a.asnumpy() == 0).mean() < 0.2


def test_ms_jit_0_forces_eager(monkeypatch):
    monkeypatch.setenv("MS_JIT", "0")
    f = ms.jit(lambda x: x + 1.0)
    f(_x(3))
    assert f.compile_cache_info()["compiles"] == 0

    class Branchy(nn.Cell):
        def construct(self, x):      # data-dependent: only works eagerly
            return x if float(x.sum()) > 0 else -x
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Branchy()
    x = _x(3).asnumpy()
    np.testing.assert_allclose(net(_x(3)).asnumpy(), x if x.sum() > 0 else -x, rtol=1e-6)
    assert net.compile_cache_info()["compiles"] == 0


def test_unhashable_static_argument_is_a_clear_error():
    f = ms.jit(lambda x, d: x * d["k"])
    with pytest.raises(TypeError, match="neither a Tensor nor hashable"):
        f(_x(3), {"k": 2.0})


def test_nested_jit_inlines():
    inner = ms.jit(lambda x: x * 2.0)
    outer = ms.jit(lambda x: inner(x) + 1.0)
    x = _x(3)
    np.testing.assert_allclose(outer(x).asnumpy(), x.asnumpy() * 2 + 1, rtol=1e-6)
    assert inner.compile_cache_info()["compiles"] == 0


def test_symbolic_inputs_compile_once():
    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    net.set_inputs(Tensor(shape=[ms.Symbol(divisor=2), 4], dtype=ms.float32))
    for b in (2, 4, 6, 8):
        x = _x(b, 4, seed=b)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = net(x).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    assert net.compile_cache_info() == {"compiles": 1, "hits": 3, "entries": 1}
    with pytest.raises(ValueError, match="divisor"):
        net(_x(3, 4))


def test_jit_input_signature_compiles_once_for_functions_and_methods():
    sig = Tensor(shape=[None, 4], dtype=ms.float32)
    f = ms.jit(lambda x: ops.reduce_sum(x * 2.0, 0), input_signature=sig)
    for b in (1, 3, 7):
        x = _x(b, 4, seed=b)
        np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy().sum(0) * 2, rtol=1e-5)
    assert f.compile_cache_info() == {"compiles": 1, "hits": 2, "entries": 1}

    class Scaled(nn.Cell):
        @ms.jit(input_signature=(Tensor(shape=[None, 4], dtype=ms.float32),))
        def run(self, x):
            return x * 3.0
    net = Scaled()
    for b in (2, 5):
        np.testing.assert_allclose(net.run(_x(b, 4)).asnumpy(), _x(b, 4).asnumpy() * 3,
                                   rtol=1e-6)
    assert Scaled.run.compile_cache_info()["compiles"] == 1
