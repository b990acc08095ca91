"""The executor's allocation accounting (minispore/graph/memory.py): an accounted run returns
what a plain run does and counts each buffer once while a Value holds it -- views of a buffer
and the caller's inputs cost nothing -- and the plan from the Values' shapes agrees where no
view is involved."""
import numpy as np

import minispore as ms
from minispore import Tensor, ops
from minispore.graph.memory import plan_memory, track_memory
from tests.graph.helpers import compile_fn


def _x(*shape):
    return Tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape).astype(np.float32))


def test_accounted_run_returns_the_same_and_counts_each_value_while_it_lives(monkeypatch):
    monkeypatch.setenv("MINISPORE_FUSION", "0")       # one node per operator, sizes known
    x = _x(4, 8)
    executable = compile_fn(lambda x: ops.exp(ops.relu(x)) + ops.sigmoid(x), [x])
    plain = executable.run([x.asnumpy()])
    with track_memory() as tracker:
        accounted = executable.run([x.asnumpy()])
    np.testing.assert_array_equal(accounted.asnumpy(), plain.asnumpy())
    report, = tracker.reports
    value = 4 * 8 * 4
    # relu, exp (relu's output dies after it), sigmoid, add (exp's and sigmoid's die after it)
    assert report.live == [value, 2 * value, 2 * value, 3 * value]
    assert report.activations == report.live and tracker.peak_bytes == 3 * value
    assert plan_memory(executable.graph).live == report.live


def test_views_and_the_callers_buffers_cost_nothing(monkeypatch):
    monkeypatch.setenv("MINISPORE_FUSION", "0")
    x = _x(4, 8)
    executable = compile_fn(lambda x: ops.reshape(ops.reshape(x, (8, 4)) * 2.0, (32,)), [x])
    with track_memory() as tracker:
        executable.run([x.asnumpy()])
    # the reshape of the input is a view of the caller's buffer, the last one a view of the
    # product: only the product's buffer counts; the plan sizes every Value
    assert tracker.reports[0].live == [0, 128, 128]
    assert plan_memory(executable.graph).live == [128, 256, 256]


def test_tracking_is_scoped_and_per_run():
    x = _x(2, 3)
    f = ms.jit(lambda x: ops.relu(x) * 3.0)
    f(x)
    with track_memory() as outer:
        f(x)
        with track_memory() as inner:
            f(x)
            f(x)
        f(x)
    assert len(inner.reports) == 2 and len(outer.reports) == 2
    f(x)
    assert len(outer.reports) == 2
