"""The static memory plan (minispore/graph/arena.py): kernels of a compiled graph write into
buffers assigned once from the Values' lifetimes, so a steady-state training step allocates no
intermediate array, and nothing a caller holds is ever overwritten."""

import numpy as np
import pytest

import minispore as ms
from minispore import Symbol, Tensor, nn, ops
from minispore.graph.memory import track_memory
from tests.graph.helpers import CopyOut, compile_fn


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class SmallLeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 3, pad_mode="valid")
        self.conv2 = nn.Conv2d(3, 4, 3, pad_mode="same")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 2 * 2, 5)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(self.flatten(x))


class SmallMLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(12, 16, activation="relu")
        self.fc2 = nn.Dense(16, 16, activation="relu")
        self.fc3 = nn.Dense(16, 5)

    def construct(self, x):
        return self.fc3(self.fc2(self.fc1(x)))


NETS = {"mlp": (SmallMLP, (6, 12)), "lenet": (SmallLeNet, (6, 1, 10, 10))}


def _train(net_name, steps, plan, monkeypatch):
    monkeypatch.setenv("MINISPORE_MEMORY_PLAN", "1" if plan else "0")
    cls, shape = NETS[net_name]
    ms.set_seed(5)
    net = cls()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal(shape).astype(np.float32))
    y = Tensor(rng.integers(0, 5, shape[0]).astype(np.int32))
    losses, reports = [], []
    for _ in range(steps):
        with track_memory() as tracker:
            losses.append(step(x, y).asnumpy())
        reports.append(tracker.reports[0])
    params = [p.asnumpy().copy() for p in net.trainable_params()]
    return losses, params, reports, list(step._graph_cache.entries.values())[0]


@pytest.mark.parametrize("net_name", sorted(NETS))
def test_training_step_allocates_no_intermediate(graph_mode, net_name, monkeypatch):
    losses, params, reports, executable = _train(net_name, 3, True, monkeypatch)
    ref_losses, ref_params, ref_reports, _ = _train(net_name, 3, False, monkeypatch)
    # The same kernels on the same values: bitwise equal to the unplanned schedule.
    np.testing.assert_array_equal(losses, ref_losses)
    for p, r in zip(params, ref_params):
        np.testing.assert_array_equal(p, r)
    assert ref_reports[-1].allocations > 10
    assert [r.allocations for r in reports] == [0, 0, 0], (
        "unplanned nodes: " + ", ".join(n.prim.name for k, n in enumerate(executable.graph.nodes)
                                        if k not in executable.plan.planned_nodes))
    plan = executable.plan
    # Buffers are shared between Values whose lifetimes do not overlap.
    assert plan.n_slots < sum(len(executable.graph.nodes[k].outputs)
                              for k in plan.planned_nodes)


def test_returned_values_and_their_views_are_never_reused(graph_mode):
    def fn(x):
        a = ops.relu(x * 2.0)
        b = ops.reshape(a + 1.0, (-1,))        # a view of a planned-capable result
        c = ops.exp(a) - 1.0
        return b, c * 3.0

    x1 = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
    executable = compile_fn(fn, [x1])
    assert executable.plan.planned_nodes
    b1, c1 = executable.run([x1.asnumpy()])
    kept = b1.asnumpy().copy(), c1.asnumpy().copy()
    executable.run([np.full((2, 3), 7.0, np.float32)])
    np.testing.assert_array_equal(b1.asnumpy(), kept[0])
    np.testing.assert_array_equal(c1.asnumpy(), kept[1])
    np.testing.assert_allclose(kept[0], (np.maximum(x1.asnumpy() * 2, 0) + 1).ravel())


def test_a_held_buffer_is_replaced_not_overwritten():
    def fn(x):
        return CopyOut()(ops.exp(x) + 1.0)

    executable = compile_fn(fn, [Tensor(np.zeros(4, np.float32))])
    assert executable.plan.n_slots >= 1
    executable.run([np.zeros(4, np.float32)])
    held = executable.plan.buffers()[0]
    before = held.copy()
    out = executable.run([np.ones(4, np.float32)])
    np.testing.assert_array_equal(held, before)
    assert executable.plan.buffers()[0] is not held
    np.testing.assert_allclose(out.asnumpy(), np.exp(1.0) + 1.0, rtol=1e-6)


def test_symbolic_shapes_size_the_buffers_per_binding(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            return ops.reduce_sum(ops.relu(x * 2.0) + 1.0, 1)

    net = Net()
    net.set_inputs(Tensor(shape=[Symbol(divisor=2), 3], dtype=ms.float32))
    for b in (2, 6, 4, 6):
        x = np.random.default_rng(b).standard_normal((b, 3)).astype(np.float32)
        np.testing.assert_allclose(net(Tensor(x)).asnumpy(),
                                   (np.maximum(x * 2, 0) + 1).sum(1), rtol=1e-6)
    executable = list(net._graph_cache.entries.values())[0]
    assert net.compile_cache_info()["compiles"] == 1
    held = executable.plan._buffers[1]
    assert held and all(buf.shape[0] == 6 for buf in held)


def test_planning_off_plans_nothing(monkeypatch):
    monkeypatch.setenv("MINISPORE_MEMORY_PLAN", "0")
    executable = compile_fn(lambda x: CopyOut()(ops.exp(x) + 1.0),
                            [Tensor(np.zeros(4, np.float32))])
    assert executable.plan.n_slots == 0 and not executable.plan.planned_nodes
    assert "# memory plan: 0 of" in executable.source


def test_a_run_in_another_thread_gets_buffers_of_its_own():
    """While one run holds the plan's buffers, a concurrent run (a dataset worker thread
    calling the same compiled function) must not share them."""
    import threading
    inside = threading.Event()
    release = threading.Event()

    class Wait(CopyOut):
        def impl(self, x):
            if threading.current_thread() is not threading.main_thread():
                inside.set()
                release.wait(10)
            return x.copy()

    def fn(x):
        return CopyOut()(Wait()(ops.exp(x) + 1.0) * 2.0)

    executable = compile_fn(fn, [Tensor(np.zeros(4, np.float32))])
    executable.plan.buffers()
    allocations = []
    allocate = executable.plan.allocate
    executable.plan.allocate = lambda b=None: allocations.append(1) or allocate(b)
    results = {}
    worker = threading.Thread(target=lambda: results.update(
        worker=executable.run([np.ones(4, np.float32)]).asnumpy()))
    worker.start()
    assert inside.wait(10)
    results["main"] = executable.run([np.zeros(4, np.float32)]).asnumpy()
    release.set()
    worker.join(10)
    np.testing.assert_allclose(results["main"], 4.0)
    np.testing.assert_allclose(results["worker"], (np.exp(1.0) + 1.0) * 2.0, rtol=1e-6)
    assert allocations == [1]       # the main thread's run, while the worker held the plan's
