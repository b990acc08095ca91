"""Cell hooks (register_forward_pre_hook, register_forward_hook, register_backward_hook,
register_backward_pre_hook) in
PYNATIVE_MODE with real values and gradients, their handles, and MindSpore's GRAPH_MODE
behaviour (a warning at registration; a clear error when a hooked cell is compiled)."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from tests.ops.harness import numeric_grads


class Scale(nn.Cell):
    """y = tanh(x * w) @ m: a small cell whose input gradient is easy to write in float64."""

    def __init__(self, w, m):
        super().__init__()
        self.w = Parameter(Tensor(w), name="w")
        self.m = Parameter(Tensor(m), name="m")

    def construct(self, x):
        return ops.matmul(ops.tanh(x * self.w), self.m)


def _setup(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 4))
    w = rng.standard_normal(4)
    m = rng.standard_normal((4, 2))
    return x, w, m


def _ref(x, w, m):
    return np.tanh(x * w) @ m


def test_forward_pre_hook_replaces_inputs_and_handle_removes_it():
    x, w, m = _setup()
    net = Scale(w, m)
    calls = []

    def pre(cell, inputs):
        calls.append((cell, len(inputs)))
        return inputs[0] * 2.0          # a single value becomes the one input
    handle = net.register_forward_pre_hook(pre)
    out = net(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), _ref(2 * x, w, m), rtol=1e-12)
    assert calls == [(net, 1)]
    handle.remove()
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), _ref(x, w, m), rtol=1e-12)
    assert len(calls) == 1
    handle.remove()                     # removing twice is harmless


def test_forward_pre_hook_returning_none_keeps_inputs():
    x, w, m = _setup()
    net = Scale(w, m)
    seen = []
    net.register_forward_pre_hook(lambda cell, inputs: seen.append(inputs[0].asnumpy()))
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), _ref(x, w, m), rtol=1e-12)
    np.testing.assert_array_equal(seen[0], x)


def test_forward_hook_sees_inputs_and_output_and_replaces_output():
    x, w, m = _setup()
    net = Scale(w, m)
    seen = {}

    def post(cell, inputs, output):
        seen["inputs"], seen["output"] = inputs, output.asnumpy()
        return output + 1.0
    net.register_forward_hook(post)
    out = net(Tensor(x))
    np.testing.assert_allclose(seen["output"], _ref(x, w, m), rtol=1e-12)
    np.testing.assert_array_equal(seen["inputs"][0].asnumpy(), x)
    np.testing.assert_allclose(out.asnumpy(), _ref(x, w, m) + 1, rtol=1e-12)


def test_hooks_run_in_registration_order_and_forward_hooks_are_differentiable():
    x, w, m = _setup()
    net = Scale(w, m)
    net.register_forward_pre_hook(lambda cell, inputs: (inputs[0] + 1.0,))
    net.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 3.0,))
    net.register_forward_hook(lambda cell, inputs, out: out * out)
    wt = np.random.default_rng(1).standard_normal((3, 2))

    def loss(x):
        return (net(x) * Tensor(wt)).sum()
    got = ms.grad(loss)(Tensor(x)).asnumpy()
    want, = numeric_grads(lambda a: float((_ref((a + 1) * 3, w, m) ** 2 * wt).sum()),
                          [x.copy()], [0])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_backward_hook_sees_cotangents_at_output_and_input():
    x, w, m = _setup()
    net = Scale(w, m)
    seen = {}

    def hook(cell, grad_input, grad_output):
        assert cell is net
        seen["gi"] = [g.asnumpy() for g in grad_input]
        seen["go"] = [g.asnumpy() for g in grad_output]
    net.register_backward_hook(hook)
    wt = np.random.default_rng(1).standard_normal((3, 2))
    got = ms.grad(lambda x: (net(x) * Tensor(wt)).sum())(Tensor(x)).asnumpy()
    want, = numeric_grads(lambda a: float((_ref(a, w, m) * wt).sum()), [x.copy()], [0])
    np.testing.assert_allclose(seen["go"][0], wt, rtol=1e-12)
    np.testing.assert_allclose(seen["gi"][0], want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_backward_hook_replaces_grad_input_upstream_only():
    """The returned grad_input flows to what comes before the cell; the cell's own weights
    get their gradients from grad_output, unchanged."""
    x, w, m = _setup()
    net = Scale(w, m)
    pre = Parameter(Tensor(np.full(4, 0.5)), name="pre")
    wt = np.random.default_rng(1).standard_normal((3, 2))

    def loss(x):
        return (net(x * pre) * Tensor(wt)).sum()
    params = [pre, net.w]
    plain = ms.grad(loss, grad_position=None, weights=params)(Tensor(x))
    handle = net.register_backward_hook(lambda cell, gi, go: (gi[0] * 3.0,))
    hooked = ms.grad(loss, grad_position=None, weights=params)(Tensor(x))
    np.testing.assert_allclose(hooked[0].asnumpy(), 3 * plain[0].asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(hooked[1].asnumpy(), plain[1].asnumpy(), rtol=1e-12)
    handle.remove()
    again = ms.grad(loss, grad_position=None, weights=params)(Tensor(x))
    np.testing.assert_allclose(again[0].asnumpy(), plain[0].asnumpy(), rtol=1e-12)


def test_backward_hook_runs_for_a_first_layer_on_data():
    """Only the weights are differentiated: the hook still gets the input's cotangent."""
    x, w, m = _setup()
    net = Scale(w, m)
    seen = []
    net.register_backward_hook(lambda cell, gi, go: seen.append(gi[0].asnumpy()))
    wt = np.random.default_rng(1).standard_normal((3, 2))
    ms.grad(lambda x: (net(x) * Tensor(wt)).sum(), grad_position=None,
            weights=net.trainable_params())(Tensor(x))
    want, = numeric_grads(lambda a: float((_ref(a, w, m) * wt).sum()), [x.copy()], [0])
    np.testing.assert_allclose(seen[0], want, rtol=1e-6, atol=1e-8)


def test_backward_pre_hook_replaces_grad_output_for_the_cell_and_its_backward_hooks():
    x, w, m = _setup()
    net = Scale(w, m)
    seen = {}
    wt = np.random.default_rng(1).standard_normal((3, 2))

    def loss(x):
        return (net(x) * Tensor(wt)).sum()
    plain_x = ms.grad(loss)(Tensor(x)).asnumpy()
    plain_w = ms.grad(loss, grad_position=None, weights=[net.m])(Tensor(x))[0].asnumpy()

    def pre(cell, grad_output):
        seen["pre"] = grad_output[0].asnumpy()
        return grad_output[0] * -2.0
    net.register_backward_pre_hook(pre)
    net.register_backward_hook(lambda cell, gi, go: seen.update(go=go[0].asnumpy()))
    np.testing.assert_allclose(ms.grad(loss)(Tensor(x)).asnumpy(), -2 * plain_x, rtol=1e-12)
    np.testing.assert_allclose(seen["pre"], wt, rtol=1e-12)
    np.testing.assert_allclose(seen["go"], -2 * wt, rtol=1e-12)
    got_w = ms.grad(loss, grad_position=None, weights=[net.m])(Tensor(x))[0].asnumpy()
    np.testing.assert_allclose(got_w, -2 * plain_w, rtol=1e-12)


def test_backward_hook_wrong_return_raises():
    x, w, m = _setup()
    net = Scale(w, m)
    net.register_backward_hook(lambda cell, gi, go: (gi[0], gi[0]))
    with pytest.raises(ValueError, match="1 gradient"):
        ms.grad(lambda x: net(x).sum())(Tensor(x))


def test_hook_fn_must_be_a_function():
    net = Scale(*_setup()[1:])
    with pytest.raises(TypeError, match="must be python function"):
        net.register_forward_hook(3)


def test_graph_mode_registration_warns_and_registers_nothing(caplog):
    x, w, m = _setup()
    net = Scale(w, m)
    ms.set_context(mode=ms.GRAPH_MODE)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        handle = net.register_forward_hook(lambda cell, inputs, out: out * 0.0)
    assert "only supported in pynative mode" in caplog.text
    handle.remove()
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), _ref(x, w, m), rtol=1e-6)


@pytest.mark.parametrize("kind", ["forward_pre_hook", "forward_hook", "backward_hook",
                                  "backward_pre_hook"])
def test_hooked_cell_compiled_in_graph_mode_raises(kind):
    x, w, m = _setup()
    net = Scale(w, m)
    args = {"forward_pre_hook": 2, "forward_hook": 3, "backward_hook": 3,
            "backward_pre_hook": 2}[kind]
    fn = (lambda c, i: None) if args == 2 else (lambda c, i, o: None)
    getattr(net, "register_" + kind)(fn)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="PYNATIVE_MODE only"):
        net(Tensor(x))
    with pytest.raises(RuntimeError, match="PYNATIVE_MODE only"):
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms.jit(lambda x: net(x))(Tensor(x))
