"""The recompute pass (minispore/graph/recompute.py): a training step with recompute gives the
same losses, gradients and parameters, bit for bit, as without; the recomputed nodes show in
save_graphs as duplicated backward nodes; the activations die earlier, which the executor's own
accounting measures (minispore/graph/memory.py)."""
import glob
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.graph.memory import track_memory


class Block(nn.Cell):
    def __init__(self, width, dropout=False):
        super().__init__()
        self.dense1 = nn.Dense(width, width, activation="relu")
        self.dropout = nn.Dropout(p=0.25) if dropout else None
        self.dense2 = nn.Dense(width, width, activation="relu")

    def construct(self, x):
        h = self.dense1(x)
        if self.dropout is not None:
            h = self.dropout(h)
        return self.dense2(h)


class DeepMLP(nn.Cell):
    """`depth` blocks of two Dense+ReLU and a 10-way head; `recompute` blocks recomputed."""

    def __init__(self, width=32, depth=3, recompute=False, dropout=False):
        super().__init__()
        self.blocks = nn.SequentialCell([Block(width, dropout) for _ in range(depth)])
        self.head = nn.Dense(width, 10)
        if recompute:
            for block in self.blocks:
                block.recompute()

    def construct(self, x):
        return self.head(self.blocks(x))


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)


def _data(batch=16, width=32, seed=0):
    rng = np.random.default_rng(seed)
    return (Tensor(rng.standard_normal((batch, width)).astype(np.float32)),
            Tensor(rng.integers(0, 10, batch).astype(np.int32)))


def _train(net_fn, steps=3, batch=16, width=32, configure=None):
    """Losses, parameters after `steps` TrainOneStepCell steps, the last step's MemoryTracker
    and the compiled graph."""
    ms.set_seed(7)
    net = net_fn()
    if configure is not None:
        configure(net)
    net.set_train()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.Momentum(net.trainable_params(), 0.05, 0.9))
    x, y = _data(batch, width)
    losses = [float(step(x, y).asnumpy()) for _ in range(steps - 1)]
    with track_memory() as tracker:
        losses.append(float(step(x, y).asnumpy()))
    executable, = step._graph_cache.entries.values()
    return losses, [p.asnumpy() for p in net.get_parameters()], tracker, executable


def _duplicated(graph):
    return [n for n in graph.nodes if n.annotations.get("duplicated")]


def test_cell_recompute_trains_bit_for_bit_like_without():
    plain = _train(lambda: DeepMLP())
    recomputed = _train(lambda: DeepMLP(recompute=True))
    assert recomputed[0] == plain[0]
    for got, want in zip(recomputed[1], plain[1]):
        np.testing.assert_array_equal(got, want)
    assert not _duplicated(plain[3].graph) and _duplicated(recomputed[3].graph)


def test_recompute_lowers_peak_activation_memory_measured_and_planned():
    """Three blocks at batch 256: without recompute every hidden activation lives until the
    backward reaches it; with it only the blocks' outputs do (plus one block's recomputed
    activations at a time). At this size the activations dominate, so the step's peak of all
    live bytes drops too."""
    plain = _train(lambda: DeepMLP(width=64), steps=2, batch=256, width=64)
    recomputed = _train(lambda: DeepMLP(width=64, recompute=True), steps=2, batch=256,
                        width=64)
    activation = 256 * 64 * 4
    measured = [r[2].peak_activation_bytes for r in (plain, recomputed)]
    assert measured[0] >= 6 * activation and measured[1] <= 4.5 * activation, measured
    assert recomputed[2].peak_bytes < plain[2].peak_bytes
    for result in (plain, recomputed):
        plan = result[3].memory_plan()
        assert plan.peak_activation_bytes == result[2].peak_activation_bytes
    assert recomputed[0] == plain[0]


def test_recompute_shrinks_the_arena_by_every_dropped_activation():
    """The static memory plan (graph/arena.py) of a training step of four recomputed blocks:
    each block's first activation is dropped after the forward and made again in the backward,
    so the recomputed copies take the slots the forward copies left and the arena shrinks by
    four activations' bytes (before the recompute pass ran each recomputed chain ahead of the
    gradient nodes that free nothing, a block's input gradient sat beside the recomputed
    pre-activation and the arena shrank by three). Losses, updated parameters and gradients
    are those of the run without recompute, bit for bit."""
    batch, width, depth = 256, 64, 4
    plain = _train(lambda: DeepMLP(width, depth), steps=2, batch=batch, width=width)
    recomputed = _train(lambda: DeepMLP(width, depth, recompute=True), steps=2, batch=batch,
                        width=width)
    arena = [r[3].plan.nbytes() for r in (plain, recomputed)]
    activation = batch * width * 4
    assert arena[0] - arena[1] >= depth * activation, arena
    assert recomputed[0] == plain[0]
    for got, want in zip(recomputed[1], plain[1]):
        np.testing.assert_array_equal(got, want)

    def grads_of(recompute):
        ms.set_seed(7)
        net = DeepMLP(width, depth, recompute=recompute)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = ms.jit(ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None,
                                        net.trainable_params()))
        loss, grads = step(*_data(batch, width))
        return float(loss.asnumpy()), [g.asnumpy() for g in grads]

    (loss, grads), (loss_again, grads_again) = grads_of(False), grads_of(True)
    assert loss_again == loss
    for got, want in zip(grads_again, grads):
        np.testing.assert_array_equal(got, want)


def test_duplicates_are_visible_in_save_graphs(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    _train(lambda: DeepMLP(depth=2, recompute=True), steps=1)
    folder, = glob.glob(os.path.join(tmp_path, "TrainOneStepCell_*"))
    before = open(glob.glob(os.path.join(folder, "*_apply_optimizer_update.ir"))[0]).read()
    after = open(glob.glob(os.path.join(folder, "*_recompute.ir"))[0]).read()
    assert "duplicated=True" not in before
    lines = [line for line in after.splitlines() if "duplicated=True" in line]
    # dense1 of each block (MatMul, BiasAdd+ReLU) runs again; dense2's output leaves the block
    assert len(lines) == 4, lines
    for line in lines:
        assert "phase=backward" in line and "recompute=Block.recompute(" in line
        assert "scope=recompute_" in line and ".dense1." in line


def test_cell_outputs_are_kept_and_a_primitive_mark_wins():
    def configure(net):
        net.blocks[0].dense1.matmul.recompute(False)
    _, _, _, executable = _train(lambda: DeepMLP(depth=2, recompute=True), steps=1,
                                 configure=configure)
    scopes = [n.scope for n in _duplicated(executable.graph)]
    assert not any(".dense2." in s for s in scopes)       # the blocks' outputs
    assert not any(".blocks.0.dense1.matmul" in s for s in scopes)
    assert any(".blocks.0.dense1.bias_add" in s for s in scopes)
    assert any(".blocks.1.dense1.matmul" in s for s in scopes)


def test_primitive_recompute_reruns_that_operator_only():
    """The network of MindSpore's recompute sample (smaller), whose relu1 and relu2 are marked:
    both ReLUs run again in the backward and nothing else. That cannot lower this network's
    peak: a recomputed ReLU keeps its input, the size of the output it drops, and both hidden
    activations are read at the start of the backward anyway (test_recompute_lowers_peak_...
    shows the blocks where it does)."""
    class Network(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer1 = nn.Dense(32, 64)
            self.relu1 = ops.ReLU()
            self.layer2 = nn.Dense(64, 64)
            self.relu2 = ops.ReLU()
            self.layer3 = nn.Dense(64, 10)

        def construct(self, x):
            return self.layer3(self.relu2(self.layer2(self.relu1(self.layer1(x)))))

    def mark(net):
        net.relu1.recompute()
        net.relu2.recompute()
    plain = _train(Network)
    marked = _train(Network, configure=mark)
    assert marked[0] == plain[0]
    for got, want in zip(marked[1], plain[1]):
        np.testing.assert_array_equal(got, want)
    assert sorted(n.scope for n in _duplicated(marked[3].graph)) == [
        "recompute_WithLossCell._backbone.relu1",
        "recompute_WithLossCell._backbone.relu2"]
    # (here the recomputed relu2 coexists with the loss's forward values: a few hundred bytes)
    peaks = [r[2].peak_activation_bytes for r in (plain, marked)]
    assert abs(peaks[1] - peaks[0]) <= 0.1 * peaks[0], peaks


def test_dropout_is_kept_so_recompute_changes_nothing():
    """A recomputed Dropout would draw another mask: its outputs are kept instead."""
    plain = _train(lambda: DeepMLP(depth=2, dropout=True))
    recomputed = _train(lambda: DeepMLP(depth=2, recompute=True, dropout=True))
    assert recomputed[0] == plain[0]
    for got, want in zip(recomputed[1], plain[1]):
        np.testing.assert_array_equal(got, want)
    names = {n.prim.name for n in _duplicated(recomputed[3].graph)}
    assert names and "Dropout" not in names


def test_value_and_grad_in_jit_recomputes_the_traced_backward():
    def grads_of(recompute):
        ms.set_seed(7)
        net = DeepMLP(recompute=recompute)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None,
                                    net.trainable_params())
        step = ms.jit(grad_fn)
        loss, grads = step(*_data())
        return float(loss.asnumpy()), [g.asnumpy() for g in grads]

    plain, recomputed = grads_of(False), grads_of(True)
    assert recomputed[0] == plain[0]
    for got, want in zip(recomputed[1], plain[1]):
        np.testing.assert_array_equal(got, want)


def test_graph_mode_value_and_grad_outside_jit_differentiates_through_cells():
    """In GRAPH_MODE a gradient function runs compiled (as MindSpore's does), so a GRAPH-mode
    cell called inside contributes its gradients (it used to run as an opaque graph the tape
    could not see, giving zeros), and recompute acts on that compiled backward."""
    def grads_of(mode, recompute):
        ms.set_context(mode=mode)
        ms.set_seed(7)
        net = DeepMLP(recompute=recompute)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None,
                                    net.trainable_params())
        loss, grads = grad_fn(*_data())
        return float(loss.asnumpy()), [g.asnumpy() for g in grads]

    eager = grads_of(ms.PYNATIVE_MODE, False)
    for recompute in (False, True):
        loss, grads = grads_of(ms.GRAPH_MODE, recompute)
        np.testing.assert_allclose(loss, eager[0], rtol=1e-6)
        for got, want in zip(grads, eager[1]):
            assert np.abs(want).max() > 0
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_inference_graph_is_left_alone():
    net = DeepMLP(recompute=True)
    x, _ = _data()
    out = net(x)
    executable, = net._graph_cache.entries.values()
    assert not _duplicated(executable.graph)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), net(x).asnumpy(), rtol=1e-6)
