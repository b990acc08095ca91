"""Cell.recompute and Primitive.recompute: MindSpore's validation (mindspore_semantics.md §10.2,
§17 #26), and PYNATIVE recompute -- the tape keeps one entry with the cell's inputs and runs the
cell again in backward, with the same gradients and losses, Dropout's draws replayed."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.ops.autodiff import RecomputedBlock, Tape


class Block(nn.Cell):
    def __init__(self, width=8, dropout=False):
        super().__init__()
        self.dense1 = nn.Dense(width, 2 * width, activation="relu")
        self.dropout = nn.Dropout(p=0.3) if dropout else None
        self.dense2 = nn.Dense(2 * width, width)

    def construct(self, x):
        h = self.dense1(x)
        if self.dropout is not None:
            h = self.dropout(h)
        return self.dense2(h) + x


class Net(nn.Cell):
    def __init__(self, recompute=False, dropout=False, depth=3):
        super().__init__()
        self.blocks = nn.SequentialCell([Block(dropout=dropout) for _ in range(depth)])
        self.head = nn.Dense(8, 3)
        if recompute:
            for block in self.blocks:
                block.recompute()

    def construct(self, x):
        return self.head(self.blocks(x))


def _data(batch=6):
    rng = np.random.default_rng(0)
    return (Tensor(rng.standard_normal((batch, 8)).astype(np.float32)),
            Tensor(rng.integers(0, 3, batch).astype(np.int32)))


# -- validation ------------------------------------------------------------------------------
def test_cell_recompute_is_configured_once_per_hierarchy():
    net = Net()
    net.blocks[0].recompute()
    with pytest.raises(RuntimeError, match="only once"):
        net.blocks[0].recompute()
    with pytest.raises(RuntimeError, match="only once"):
        net.recompute()                         # an ancestor after a descendant
    with pytest.raises(RuntimeError, match="only once"):
        net.blocks[0].dense1.recompute()        # a descendant after an ancestor
    net.blocks[1].recompute()                   # a sibling is its own hierarchy


@pytest.mark.parametrize("kwargs, error, match", [
    ({"foo": True}, ValueError, "'foo' is not recognized"),
    ({"mp_comm_recompute": 1}, TypeError, "'mp_comm_recompute' must be bool"),
    ({"parallel_optimizer_comm_recompute": "yes"}, TypeError, "must be bool"),
    ({"recompute_slice_activation": None}, TypeError, "must be bool"),
    ({"recompute_slice_activation": True}, NotImplementedError, "recompute_slice_activation"),
])
def test_cell_recompute_checks_its_keywords(kwargs, error, match):
    block = Block()
    with pytest.raises(error, match=match):
        block.recompute(**kwargs)
    assert block._recompute is None and block._annotations is None     # nothing half-set


def test_cell_recompute_takes_keywords_only():
    with pytest.raises(TypeError):
        Block().recompute(True)


def test_cell_recompute_records_its_settings():
    block = Block()
    assert block.recompute(mp_comm_recompute=False, recompute_slice_activation=False) is None
    config = block._annotations["recompute"]
    assert config is block._recompute
    assert (config.mp_comm_recompute, config.parallel_optimizer_comm_recompute) == (False, False)
    assert repr(config) == ("Block.recompute(mp_comm_recompute=False, "
                            "parallel_optimizer_comm_recompute=False)")


def test_optimizer_comm_recompute_is_ignored_under_pipeline_parallel(caplog, monkeypatch):
    # pipeline_stages > 1 is refused by set_auto_parallel_context until pipeline parallel is
    # built, so the setting is patched in to check MindSpore's rule
    from minispore.common import auto_parallel_context as apc
    real = apc.get_auto_parallel_context
    monkeypatch.setattr(apc, "get_auto_parallel_context",
                        lambda key: 2 if key == "pipeline_stages" else real(key))
    block = Block()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        block.recompute(parallel_optimizer_comm_recompute=True)
    assert "ignored" in caplog.text
    assert block._recompute.parallel_optimizer_comm_recompute is False


def test_primitive_recompute_is_graph_mode_only_and_checks_mode():
    relu = ops.ReLU()
    with pytest.raises(TypeError, match="not supported in PYNATIVE_MODE"):
        relu.recompute()
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match="'mode' must be bool"):
        relu.recompute(1)
    assert relu.recompute() is relu and relu.attrs["recompute"] is True
    assert relu.recompute(False).attrs["recompute"] is False


# -- PYNATIVE --------------------------------------------------------------------------------
def _value_and_grads(recompute, dropout=False, steps=2):
    ms.set_seed(3)
    net = Net(recompute, dropout)
    net.set_train()
    loss_fn = nn.CrossEntropyLoss()
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), 0, net.trainable_params())
    results = []
    for _ in range(steps):
        loss, (dx, dw) = grad_fn(*_data())
        results.append((loss.asnumpy(), dx.asnumpy(), [g.asnumpy() for g in dw]))
    return results


@pytest.mark.parametrize("dropout", [False, True])
def test_pynative_recompute_gives_the_same_gradients(dropout):
    """Bit for bit, Dropout included: the rerun replays the forward's draws, and restores the
    generator afterwards, so the next step draws what it would have drawn."""
    for plain, again in zip(_value_and_grads(False, dropout), _value_and_grads(True, dropout)):
        np.testing.assert_array_equal(again[0], plain[0])
        np.testing.assert_array_equal(again[1], plain[1])
        for got, want in zip(again[2], plain[2]):
            np.testing.assert_array_equal(got, want)


def test_pynative_train_one_step_cell_recomputes():
    def train(recompute):
        ms.set_seed(3)
        net = Net(recompute)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                                   nn.SGD(net.trainable_params(), 0.1))
        losses = [float(step(*_data()).asnumpy()) for _ in range(3)]
        return losses, [p.asnumpy() for p in net.get_parameters()]
    plain, again = train(False), train(True)
    assert again[0] == plain[0]
    for got, want in zip(again[1], plain[1]):
        np.testing.assert_array_equal(got, want)


def _recorded(net, x):
    with Tape() as tape:
        for p in net.trainable_params():
            tape.watch(p)
        net(x)
    return tape.entries


def test_pynative_tape_keeps_only_the_cells_inputs():
    x, _ = _data()
    plain = _recorded(Net(), x)
    entries = _recorded(Net(recompute=True), x)
    blocks = [e for e in entries if isinstance(e[0], RecomputedBlock)]
    # one entry per block (its input and its four parameters; the output it made), then the
    # head; none of the blocks' operators
    assert len(blocks) == 3 and len(entries) == 3 + 2
    assert [len(e[1]) for e in blocks] == [4, 5, 5]      # the first block's x is not watched
    assert len(plain) >= 3 * 5 + 2     # MatMul, BiasAdd+ReLU, MatMul, BiasAdd, Add per block
    kept = [sum(o.asnumpy().nbytes for _, _, outs in recorded
                for o in (outs if isinstance(outs, tuple) else (outs,)))
            for recorded in (plain, entries)]
    assert kept[1] < kept[0] / 3, kept


def test_pynative_recompute_finds_tensors_the_cell_closes_over():
    """A tensor read inside the cell that is no argument nor parameter of it (here another
    cell's parameter) is one of the entry's inputs, so its gradient is not lost."""
    shared = Parameter(Tensor(np.full((8,), 0.5, np.float32)), name="shared")

    class Scaled(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(8, 8)

        def construct(self, x):
            return ops.relu(self.dense(x)) * shared

    def grads(recompute):
        ms.set_seed(1)
        cell = Scaled()
        if recompute:
            cell.recompute()
        params = cell.trainable_params() + [shared]
        return ms.grad(lambda x: cell(x).sum(), None, params)(_data()[0])

    for got, want in zip(grads(True), grads(False)):
        assert np.abs(want.asnumpy()).max() > 0
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_pynative_recompute_without_a_tape_just_runs():
    x, _ = _data()
    ms.set_seed(3)
    plain = Net()(x).asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(Net(recompute=True)(x).asnumpy(), plain)
