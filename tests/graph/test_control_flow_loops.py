"""`while` on a Tensor condition (with break), early `return` inside an `if` on a Tensor, `for`
over a Tensor, conditional expressions and and/or/not in GRAPH mode and under ms.jit: values and
gradients equal PYNATIVE for every path taken, float64 finite differences, one compile per input
signature whatever the trip count, the IR dump, and the errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.graph.control_flow import If, While


class _Loop(nn.Cell):
    """Doubles y until its sum passes 10 (6 trips at most), counting them in a Python int."""

    def __init__(self, dtype=np.float32):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.5, 0.5, -0.25], dtype)), name="w")

    def construct(self, x):
        y = x * self.w
        n = 0
        while y.sum() < 10.0 and n < 6:     # bounded: training may turn y.sum() negative
            y = y * 2.0 + self.w
            n += 1
        return y * x, n


class _Break(nn.Cell):
    def construct(self, x):
        y = x
        while y.sum() < 100.0:
            y = y * 2.0
            if y.max() > 10.0:
                break
            y = y + 1.0
        return y * y


class _EarlyReturn(nn.Cell):
    def __init__(self, dtype=np.float32):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, -2.0, 3.0], dtype)), name="w")

    def construct(self, x):
        y = x * self.w
        if y.sum() > 0:
            return ops.sin(y) * x
        z = y * y
        if z.sum() > 20:
            return z
        return z * x + 1.0


class _ForOver(nn.Cell):
    def construct(self, x):
        acc = x[0] * 0.0
        for row in x:
            if row.sum() > 0:
                acc = acc + row * row
            else:
                acc = acc - row
        return acc


class _Expressions(nn.Cell):
    def construct(self, x):
        s = x.sum()
        y = x * 2.0 if s > 0 and x.max() < 5 else -x
        if not (s > 1) or x.min() < -1:
            y = y + 1.0
        return y


LOOP_INPUTS = [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0], [8.0, 8.0, 1.0], [0.6, 0.2, 0.1]]
RETURN_INPUTS = [[1.0, -1.0, 1.0], [1.0, 2.0, 0.0], [0.5, 0.5, 0.1]]


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _run(net, inputs, dtype, mode):
    """Per input: the outputs and the gradients (input, parameters) of their first output."""
    ms.set_context(mode=mode)
    try:
        weights = net.trainable_params()
        grad = ms.grad(lambda t: _first(net(t)).sum(), grad_position=0,
                       weights=weights or None)
        results = []
        for x in inputs:
            x = Tensor(np.array(x, dtype))
            out = net(x)
            g = grad(x)
            gx, gw = (g if weights else (g, ()))
            leaves = list(out) if isinstance(out, tuple) else [out]
            results.append(([np.asarray(o.asnumpy() if isinstance(o, Tensor) else o)
                             for o in leaves], gx.asnumpy(), [w.asnumpy() for w in gw]))
        return results, grad
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("make,inputs", [
    (_Loop, LOOP_INPUTS), (_Break, LOOP_INPUTS), (_EarlyReturn, RETURN_INPUTS),
    (_ForOver, [[[1.0, 2.0], [-1.0, 0.5], [3.0, -4.0]], [[-1.0, -2.0], [1.0, 1.0], [0.0, 0.0]]]),
    (_Expressions, [[1.0, 2.0], [-1.0, -3.0], [0.2, 0.3], [7.0, 1.0]]),
])
def test_graph_equals_pynative_in_values_and_gradients_and_compiles_once(make, inputs):
    net = make()
    eager, _ = _run(net, inputs, np.float32, ms.PYNATIVE_MODE)
    graph, grad = _run(net, inputs, np.float32, ms.GRAPH_MODE)
    for (eo, egx, egw), (go, ggx, ggw) in zip(eager, graph):
        for a, b in zip(eo, go):
            np.testing.assert_allclose(b, a, rtol=1e-5)
        np.testing.assert_allclose(ggx, egx, rtol=1e-5)
        for a, b in zip(egw, ggw):
            np.testing.assert_allclose(b, a, rtol=1e-5)
    # every path and trip count ran through the graphs compiled for the first input
    assert net.compile_cache_info()["compiles"] == 1
    assert grad.compile_cache_info()["compiles"] == 1


def test_while_trip_count_and_python_counter(graph_mode):
    out, n = _Loop()(Tensor(np.array([1.0, 1.0, 1.0], np.float32)))
    assert int(n.asnumpy()) == 2            # sums 1.75, 5.25, 12.25 before trips 1, 2, 3
    out, n = _Loop()(Tensor(np.array([20.0, 1.0, 1.0], np.float32)))
    assert int(n.asnumpy()) == 0


@pytest.mark.parametrize("make,inputs", [(_Loop, LOOP_INPUTS), (_EarlyReturn, RETURN_INPUTS),
                                         (_Break, LOOP_INPUTS)])
def test_gradients_match_finite_differences_in_float64(graph_mode, make, inputs):
    net = make(np.float64) if make is not _Break else make()
    grad = ms.grad(lambda t: _first(net(t)).sum(), grad_position=0)
    for x in inputs:
        x = np.array(x)
        gx = grad(Tensor(x)).asnumpy()
        eps, fd = 1e-6, np.zeros_like(x)
        for i in range(x.size):
            e = np.zeros_like(x)
            e[i] = eps
            fd[i] = (_first(net(Tensor(x + e))).asnumpy().sum() -
                     _first(net(Tensor(x - e))).asnumpy().sum()) / (2 * eps)
        np.testing.assert_allclose(gx, fd, rtol=1e-6, atol=1e-7)


@ms.jit
def _halve_until_small(x, limit):
    while (x * x).sum() > limit:
        x = x * 0.5
    return x


def test_jit_while_runs_every_trip_count_from_one_compile():
    before = _halve_until_small.compile_cache_info()["compiles"]
    for v, want in (([0.1, 0.1], [0.1, 0.1]), ([4.0, 0.0], [1.0, 0.0]),
                    ([64.0, 64.0], [0.5, 0.5])):
        out = _halve_until_small(Tensor(np.array(v, np.float32)), Tensor(1.0))
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    assert _halve_until_small.compile_cache_info()["compiles"] - before == 1


def test_train_one_step_through_a_while_and_an_early_return_equals_pynative():
    def run(mode, make):
        ms.set_context(mode=mode)
        try:
            net = make()
            loss = nn.WithLossCell(_FirstOut(net), nn.MSELoss())
            step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 1e-4))
            inputs = LOOP_INPUTS if make is _Loop else RETURN_INPUTS
            losses = [float(step(Tensor(np.array(x, np.float32)),
                                 Tensor(np.zeros(3, np.float32))).asnumpy())
                      for x in inputs * 2]
            return losses, net.w.asnumpy()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for make in (_Loop, _EarlyReturn):
        (le, we), (lg, wg) = run(ms.PYNATIVE_MODE, make), run(ms.GRAPH_MODE, make)
        assert np.isfinite(le).all() and len(set(le)) > 3
        np.testing.assert_allclose(lg, le, rtol=1e-5)
        np.testing.assert_allclose(wg, we, rtol=1e-5)


class _FirstOut(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        out = self.net(x)
        return out[0] if isinstance(out, tuple) else out


def test_the_graph_holds_one_while_node_and_the_dump_shows_its_subgraphs(graph_mode):
    from minispore.graph.autograph import convert
    from minispore.graph.tracer import trace
    graph, _ = trace(convert(_halve_until_small.__wrapped__),
                     [Tensor(np.ones(2, np.float32)), Tensor(1.0)], "halve")
    loops = [n for n in graph.nodes if isinstance(n.prim, While)]
    assert len(loops) == 1
    text = graph.dump()
    assert "Prim[While]" in text and "While), condition:" in text and "While), body:" in text
    assert "graph halve.body(" in text and "graph halve.cond(" in text


def test_early_return_is_one_if_whose_value_is_returned():
    from minispore.graph.autograph import convert
    from minispore.graph.tracer import trace

    def f(x):
        if x.sum() > 0:
            return x * 2.0
        return -x
    graph, _ = trace(convert(f), [Tensor(np.ones(2, np.float32))], "f")
    assert [n.prim.name for n in graph.nodes if isinstance(n.prim, If)] == ["If"]
    assert ms.jit(f)(Tensor(np.array([1.0, -3.0], np.float32))).asnumpy().tolist() == [-1.0, 3.0]


def test_a_while_carry_that_changes_shape_is_refused_naming_it(graph_mode):
    class Grows(nn.Cell):
        def construct(self, x):
            while x.sum() < 10:
                x = ops.concat((x, x))
            return x
    with pytest.raises(ValueError, match=r"'x' changes shape or dtype in the body of the "
                                         r"`while`.*\[2\] Float32 before the body, \[4\]"):
        Grows()(Tensor(np.ones(2, np.float32)))


def test_a_multi_element_condition_is_refused(graph_mode):
    class Ambiguous(nn.Cell):
        def construct(self, x):
            if x > 0:
                x = x + 1
            return x
    with pytest.raises(ValueError, match=r"must have one element.*shape \[2\]"):
        Ambiguous()(Tensor(np.ones(2, np.float32)))


def test_attribute_assignment_in_a_tensor_branch_is_refused(graph_mode):
    class Sets(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                self.seen = 1
            return x
    with pytest.raises(NotImplementedError, match="assigns an attribute or an item"):
        Sets()(Tensor(np.ones(2, np.float32)))


def test_code_without_source_runs_op_by_op_naming_the_reason(caplog):
    namespace = {}
    exec("def f(x):\n    if x.sum() > 0:\n        x = x + 1\n    return x\n", namespace)
    out = ms.jit(namespace["f"])(Tensor(np.ones(2, np.float32)))
    assert out.asnumpy().tolist() == [2.0, 2.0]
    assert "runs op by op" in caplog.text and "its source code is not available" in caplog.text
    # what the tracer alone says
    with pytest.raises(ms.common.parameter.TraceError,
                       match="could not be converted for GRAPH_MODE: its source code is not "
                             "available"):
        from minispore.graph.autograph import convert
        from minispore.graph.tracer import trace
        trace(convert(namespace["f"]), [Tensor(np.ones(2, np.float32))], "f")


def test_python_conditions_are_unrolled_as_before():
    @ms.jit
    def f(x, n):
        i = 0
        while i < n:
            if i % 2 == 0:
                x = x + 1.0
            else:
                x = x * 2.0
            i += 1
        return x
    out = f(Tensor(np.zeros(1, np.float32)), 3)
    assert out.asnumpy().tolist() == [3.0]      # ((0 + 1) * 2) + 1, three nodes, no While
    from minispore.graph.autograph import convert
    from minispore.graph.tracer import trace
    graph, _ = trace(convert(f.__wrapped__), [Tensor(np.zeros(1, np.float32)), 3], "f")
    assert [n.prim.name for n in graph.nodes] == ["Add", "Mul", "Add"]


def test_a_semi_auto_parallel_compile_refuses_the_control_flow_node():
    from minispore.graph.ir import Graph
    from minispore.parallel.partition import refuse_control_flow
    from minispore.graph.autograph import convert
    from minispore.graph.tracer import trace
    graph, _ = trace(convert(_halve_until_small.__wrapped__),
                     [Tensor(np.ones(2, np.float32)), Tensor(1.0)], "halve")
    with pytest.raises(NotImplementedError, match="control flow node While .* in a "
                                                  "semi_auto_parallel graph"):
        refuse_control_flow(graph, "a semi_auto_parallel graph")
    refuse_control_flow(Graph("empty"), "a semi_auto_parallel graph")


class _Base(nn.Cell):
    def construct(self, x):
        return x + 1.0


class _Nested(_Base):
    """super(), a private attribute, del in a branch, a while inside an if, an if inside it."""

    def __init__(self):
        super().__init__()
        self.__k = 3.0

    def construct(self, x):
        y = super().construct(x)
        if y.sum() > 0:
            tmp = 1
            del tmp
            while y.sum() < 50:
                if y.max() > 4:
                    y = y * self.__k
                else:
                    y = y + 1.0
        else:
            y = -y
        return y


def test_nested_control_flow_in_a_subclass_construct_equals_pynative():
    net = _Nested()
    inputs = [[1.0, 2.0], [-5.0, -6.0], [0.5, 0.1]]
    eager, _ = _run(net, inputs, np.float32, ms.PYNATIVE_MODE)
    graph, _ = _run(net, inputs, np.float32, ms.GRAPH_MODE)
    for (eo, egx, _), (go, ggx, _) in zip(eager, graph):
        np.testing.assert_allclose(go[0], eo[0], rtol=1e-6)
        np.testing.assert_allclose(ggx, egx, rtol=1e-6)
    np.testing.assert_allclose(graph[0][0][0], [36.0, 45.0])    # (2, 3) -> +1 -> x3 -> x3
    assert net.compile_cache_info()["compiles"] == 1


def test_save_graphs_writes_the_loop_and_its_backward_subgraphs(tmp_path):
    import glob
    import os
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        net = _Loop()
        step = nn.TrainOneStepCell(nn.WithLossCell(_FirstOut(net), nn.MSELoss()),
                                   nn.SGD(net.trainable_params(), 1e-4))
        step(Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    folder, = glob.glob(os.path.join(tmp_path, "TrainOneStepCell_*"))
    final = sorted(f for f in os.listdir(folder) if f.endswith(".ir"))[-1]
    text = open(os.path.join(folder, final)).read()
    for words in ("Prim[While]", "While), condition:", "While), body:", "Prim[WhileGrad]",
                  "WhileGrad), body backward:"):
        assert words in text


class _ForBreak(nn.Cell):
    def construct(self, x):
        acc = x[0] * 0.0
        for row in x:
            if row.sum() < 0:
                continue
            acc = acc + row * row
            if acc.sum() > 10:
                break
        return acc


def test_break_and_continue_in_a_for_over_a_tensor_equal_pynative():
    net = _ForBreak()
    inputs = [[[1.0, 2.0], [-1.0, 0.5], [3.0, -4.0], [1.0, 1.0]],
              [[-1.0, -2.0], [1.0, 1.0], [0.5, 0.5], [2.0, 2.0]],
              [[4.0, 0.0], [1.0, 1.0], [5.0, 5.0], [1.0, 0.0]]]
    eager, _ = _run(net, inputs, np.float32, ms.PYNATIVE_MODE)
    graph, _ = _run(net, inputs, np.float32, ms.GRAPH_MODE)
    for (eo, egx, _), (go, ggx, _) in zip(eager, graph):
        np.testing.assert_allclose(go[0], eo[0], rtol=1e-6)
        np.testing.assert_allclose(ggx, egx, rtol=1e-6)
    np.testing.assert_allclose(graph[0][0][0], [2.0, 5.0])     # rows 1, 2 continue
    np.testing.assert_allclose(graph[2][0][0], [16.0, 0.0])    # breaks after row 0
    assert net.compile_cache_info()["compiles"] == 1


def test_a_python_break_in_a_for_stops_at_once():
    seen = []

    def items():
        for i in range(5):
            seen.append(i)
            yield i

    @ms.jit
    def f(x):
        for i in items():
            if i == 2:
                break
            x = x + 1.0
        return x
    assert f(Tensor(np.zeros(1, np.float32))).asnumpy().tolist() == [2.0]
    assert seen == [0, 1, 2]        # the iterator is not advanced past the break
