"""`while` on a Tensor condition and `for` over a Tensor in GRAPH mode: values, trip counts and
gradients (inputs and Parameters) equal PYNATIVE, float64 finite differences through a
data-dependent number of trips, one compile for every trip count, and the errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.graph import cache_info

STARTS = [[1.0, 1.0], [3.0, 4.0], [20.0, 0.0]]      # 3, 2 and 0 trips


class _Grow(nn.Cell):
    def __init__(self, dtype=np.float32):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, 1.5], dtype)), name="w")

    def construct(self, x):
        trips = Tensor(0, ms.int32)
        while x.sum() < 10.0:
            x = x * self.w + 1.0
            trips = trips + 1
        return x * 2.0, trips


def _run(net, start, grad_fn):
    out, trips = net(start)
    gx, (gw,) = grad_fn(start)
    return out.asnumpy(), int(trips.asnumpy()), gx.asnumpy(), gw.asnumpy()


def test_while_on_a_tensor_equals_pynative_and_compiles_once():
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = _Grow()
            grad_fn = ms.grad(lambda a: net(a)[0].sum(), grad_position=0,
                              weights=net.trainable_params())
            first = _run(net, Tensor(np.array(STARTS[0], np.float32)), grad_fn)
            before = cache_info()["compiles"]
            rest = [_run(net, Tensor(np.array(s, np.float32)), grad_fn) for s in STARTS[1:]]
            results[mode] = ([first] + rest, cache_info()["compiles"] - before)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    (eager, _), (graph, recompiles) = results[ms.PYNATIVE_MODE], results[ms.GRAPH_MODE]
    assert [r[1] for r in graph] == [3, 2, 0]
    for e, g in zip(eager, graph):
        for a, b in zip(e, g):
            np.testing.assert_allclose(b, a, rtol=1e-6)
    assert recompiles == 0


def test_while_gradient_by_finite_differences():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Grow(np.float64)
        grad_fn = ms.grad(lambda a: net(a)[0].sum())
        # Starts whose trips stay clear of the threshold (the trip count is piecewise constant:
        # at [1, 1] the third trip lands on 10.0 exactly, where the loss jumps).
        for start in ([1.2, 0.7], [2.5, 3.3]):
            x = np.array(start)
            g = grad_fn(Tensor(x)).asnumpy()
            eps, fd = 1e-6, np.zeros(2)
            for i in range(2):
                e = np.zeros(2)
                e[i] = eps
                fd[i] = (net(Tensor(x + e))[0].asnumpy().sum()
                         - net(Tensor(x - e))[0].asnumpy().sum()) / (2 * eps)
            np.testing.assert_allclose(g, fd, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _RowSigns(nn.Cell):
    def construct(self, x):
        acc = ops.zeros_like(x[0])
        for row in x:
            if row.sum() > 0:
                acc = acc + row
            else:
                acc = acc - row * 0.5
        return acc


def test_for_over_a_tensor_with_an_if_inside_equals_pynative():
    x = Tensor(np.array([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]], np.float32))
    net = _RowSigns()
    want = (net(x).asnumpy(), ms.grad(lambda a: net(a).sum())(x).asnumpy())
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = (net(x).asnumpy(), ms.grad(lambda a: net(a).sum())(x).asnumpy())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])
    np.testing.assert_allclose(want[0], [3.0, 2.0])


class _ShapeChange(nn.Cell):
    def construct(self, x):
        while x.sum() < 10.0:
            x = ops.concat([x, x])
        return x


class _PythonCounter(nn.Cell):
    def construct(self, x):
        n = 0
        while x.sum() < 10.0:
            x = x + 1.0
            n = n + 1
        return x * n


def test_a_python_counter_becomes_a_scalar_carry_as_in_mindspore():
    # MindSpore 2.7.2 GRAPH_MODE counts the trips of such a loop in the Python int too
    x = Tensor(np.ones(2, np.float32))
    want = _PythonCounter()(x).asnumpy()          # 4 trips: [5, 5] * 4
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _PythonCounter()(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(want, [20.0, 20.0])


@pytest.mark.parametrize("cell,words", [(_ShapeChange, "must keep its shape and dtype")])
def test_loops_that_cannot_compile_are_refused_naming_the_variable(cell, words):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(Exception, match=words):
            cell()(Tensor(np.ones(2, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
