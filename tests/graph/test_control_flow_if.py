"""`if` / `elif` / `else` on a Tensor value in GRAPH mode and under ms.jit: one If node joins the
branch subgraphs, values and gradients equal PYNATIVE for every branch taken, one compile per
input signature whatever the condition's value, float64 finite differences, and the errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.graph import cache_info
from minispore.graph.control_flow import If

INPUTS = [[1.0, 1.0, 1.0], [1.0, 2.0, 0.0], [3.0, 5.0, 0.0]]     # each takes another branch


class _Net(nn.Cell):
    def __init__(self, dtype=np.float32):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, -2.0, 3.0], dtype)), name="w")

    def construct(self, x):
        y = x * self.w
        if y.sum() > 0:
            out = y * 2.0
            unused = y + 1.0  # noqa: F841 - set in one branch only: undefined after the if
        elif y.sum() > -5:
            out = ops.sin(y) - 1.0
        else:
            out = -y * y
        return out * x


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _value_and_grads(net, x, grad_fn=None):
    out = net(x)
    grad_fn = grad_fn or ms.grad(lambda t: net(t).sum(), grad_position=0,
                                 weights=net.trainable_params())
    gx, (gw,) = grad_fn(x)
    return out.asnumpy(), gx.asnumpy(), gw.asnumpy()


def test_if_elif_else_on_a_tensor_equals_pynative_in_values_and_gradients():
    net = _Net()
    eager = [_value_and_grads(net, Tensor(np.array(x, np.float32))) for x in INPUTS]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        grad_fn = ms.grad(lambda t: net(t).sum(), grad_position=0,
                          weights=net.trainable_params())
        graph = [_value_and_grads(net, Tensor(np.array(INPUTS[0], np.float32)), grad_fn)]
        before = cache_info()["compiles"]
        graph += [_value_and_grads(net, Tensor(np.array(x, np.float32)), grad_fn)
                  for x in INPUTS[1:]]
        compiles = cache_info()["compiles"] - before
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for e, g in zip(eager, graph):
        for a, b in zip(e, g):
            np.testing.assert_allclose(b, a, rtol=1e-6)
    # The graphs compiled for the first input serve the other branches: nothing recompiles.
    assert compiles == 0


def test_gradient_through_the_taken_branch_by_finite_differences(graph_mode):
    net = _Net(np.float64)
    for x in INPUTS:
        x = np.array(x)
        _, gx, _ = _value_and_grads(net, Tensor(x))
        eps, fd = 1e-6, np.zeros_like(x)
        for i in range(3):
            e = np.zeros(3)
            e[i] = eps
            fd[i] = (net(Tensor(x + e)).asnumpy().sum() - net(Tensor(x - e)).asnumpy().sum()) / (2 * eps)
        np.testing.assert_allclose(gx, fd, rtol=1e-6, atol=1e-8)


@ms.jit
def _clipped(x, limit):
    if (x * x).sum() > limit * limit:
        x = x * (limit / ops.sqrt((x * x).sum()))
    return x


def test_jit_function_with_an_if_and_a_python_if_compiles_once():
    before = _clipped.compile_cache_info()["compiles"]
    small = _clipped(Tensor(np.array([0.3, 0.4], np.float32)), Tensor(1.0))
    large = _clipped(Tensor(np.array([3.0, 4.0], np.float32)), Tensor(1.0))
    np.testing.assert_allclose(small.asnumpy(), [0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(large.asnumpy(), [0.6, 0.8], rtol=1e-6)
    assert _clipped.compile_cache_info()["compiles"] - before == 1


def test_train_one_step_through_an_if_equals_pynative():
    def run(mode):
        ms.set_context(mode=mode)
        try:
            net = _Net()
            loss = nn.WithLossCell(net, nn.MSELoss())
            step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 0.05))
            losses = [float(step(Tensor(np.array(x, np.float32)),
                                 Tensor(np.zeros(3, np.float32))).asnumpy())
                      for x in INPUTS * 2]
            return losses, net.w.asnumpy()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    (le, we), (lg, wg) = run(ms.PYNATIVE_MODE), run(ms.GRAPH_MODE)
    np.testing.assert_allclose(lg, le, rtol=1e-5)
    np.testing.assert_allclose(wg, we, rtol=1e-5)


def test_the_graph_holds_one_if_node_with_two_branch_subgraphs():
    from minispore.graph.tracer import trace
    from minispore.graph.autograph import convert
    graph, _ = trace(convert(_clipped.__wrapped__), [Tensor(np.ones(2, np.float32)),
                                                     Tensor(1.0)], "clip")
    ifs = [n for n in graph.nodes if isinstance(n.prim, If)]
    assert len(ifs) == 1
    subgraphs = ifs[0].prim.subgraphs
    true_graph, false_graph = subgraphs["true branch"], subgraphs["false branch"]
    assert [n.prim.name for n in true_graph.nodes].count("Mul") >= 2
    assert false_graph.nodes == []      # the false branch leaves x as it is


class _Mismatch(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            y = x
        else:
            y = x.sum()
        return y


class _PythonValue(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            k = 1
        else:
            k = 2
        return x * k


class _UsesUndefined(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            y = x
        return y + 1


@pytest.mark.parametrize("cell,err,words", [
    (_Mismatch, ValueError, r"'y' gets different shapes or dtypes.*\[3\] Float32 in the then "
                            r"branch, \[\] Float32 in the else branch"),
    (_UsesUndefined, UnboundLocalError, "'y' is assigned in only one branch"),
])
def test_branches_that_disagree_are_refused_naming_the_variable(graph_mode, cell, err, words):
    with pytest.raises(err, match=words):
        cell()(Tensor(np.ones(3, np.float32)))


def test_python_numbers_that_differ_between_branches_become_scalar_tensors(graph_mode):
    # MindSpore 2.7.2 GRAPH_MODE: [1. 1. 1.] and [-2. -2. -2.]
    net = _PythonValue()
    np.testing.assert_array_equal(net(Tensor(np.ones(3, np.float32))).asnumpy(), [1, 1, 1])
    np.testing.assert_array_equal(net(Tensor(-np.ones(3, np.float32))).asnumpy(), [-2, -2, -2])
    assert net.compile_cache_info()["compiles"] == 1


def test_save_graphs_dump_lists_both_branch_subgraphs():
    from minispore.graph.tracer import trace
    from minispore.graph.autograph import convert
    graph, _ = trace(convert(_clipped.__wrapped__), [Tensor(np.ones(2, np.float32)),
                                                     Tensor(1.0)], "clip")
    text = graph.dump()
    assert "Prim[If]" in text
    assert "true branch:" in text and "false branch:" in text
    assert "graph clip.true(" in text and "graph clip.false(" in text


def test_sharding_passes_refuse_the_if_node_naming_it():
    from minispore.parallel.rules import StrategyError, rule_of
    from minispore.graph.tracer import trace
    from minispore.graph.autograph import convert
    graph, _ = trace(convert(_clipped.__wrapped__), [Tensor(np.ones(2, np.float32)),
                                                     Tensor(1.0)], "clip")
    node = next(n for n in graph.nodes if isinstance(n.prim, If))
    with pytest.raises(StrategyError, match="For 'If', the operator declares no sharding_rule"):
        rule_of(node.prim)


class _EarlyReturn(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            return x * 2.0
        y = x - 1.0
        if y.sum() < -10:
            return -y
        return y * 3.0


def test_early_returns_inside_ifs_on_tensors_equal_pynative():
    net = _EarlyReturn()
    starts = [[1.0, 2.0], [-1.0, -2.0], [-10.0, -2.0]]      # each returns at another place
    want = [(net(Tensor(np.array(s, np.float32))).asnumpy(),
             ms.grad(lambda a: net(a).sum())(Tensor(np.array(s, np.float32))).asnumpy())
            for s in starts]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        grad_fn = ms.grad(lambda a: net(a).sum())
        got = []
        for s in starts:
            x = Tensor(np.array(s, np.float32))
            got.append((net(x).asnumpy(), grad_fn(x).asnumpy()))
            if len(got) == 1:
                before = cache_info()["compiles"]
        recompiles = cache_info()["compiles"] - before
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for (v, g), (wv, wg) in zip(got, want):
        np.testing.assert_allclose(v, wv)
        np.testing.assert_allclose(g, wg)
    assert [w[0].tolist() for w in want] == [[2.0, 4.0], [-6.0, -9.0], [11.0, 3.0]]
    assert recompiles == 0
