"""A compiled call whose graph cannot be built because an operator's output shape depends on
values (MaskedSelect, Unique, a boolean-mask index, bincount) runs op by op for that input
signature, with one warning naming the call and the operator: the values and gradients are
PYNATIVE's (MindSpore compiles a dynamic shape there; its tests/st dynamic-shape nets build
their inputs this way). It is not traced again on the next call."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops

X = np.array([1.0, 2.0, 2.0, 3.0, -1.0], np.float32)


class UniqueSin(nn.Cell):
    def __init__(self):
        super().__init__()
        self.unique = ops.Unique()

    def construct(self, x):
        values, _ = self.unique(x)
        return ops.sin(values) * 2


def test_a_graph_mode_cell_runs_op_by_op_once_warned(caplog):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = UniqueSin()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        first, second = net(Tensor(X)), net(Tensor(X))
    expected = np.sin(np.array([1.0, 2.0, 3.0, -1.0])) * 2
    for out in (first, second):
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    assert caplog.text.count("'UniqueSin' runs op by op") == 1
    assert "For 'MaskedSelect' (in UniqueSin)" in caplog.text
    assert net.compile_cache_info() == {"compiles": 0, "hits": 0, "entries": 1}


class MaskedSquares(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

    def construct(self, x, mask):
        return (ops.masked_select(x * self.w, mask) ** 2).sum()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_a_training_step_updates_as_in_pynative(mode):
    ms.set_context(mode=mode)
    net = MaskedSquares()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
    x, mask = np.array([1.0, 2.0, 3.0], np.float32), np.array([True, False, True])
    loss = step(Tensor(x), Tensor(mask))
    assert loss.asnumpy() == pytest.approx(10.0)
    # d/dw sum((x w)^2) over the kept entries = 2 x^2 w
    np.testing.assert_allclose(net.w.asnumpy(), [1 - 0.1 * 2, 1.0, 1 - 0.1 * 18], rtol=1e-6)


def test_a_jit_function_with_a_boolean_mask_index():
    ms.set_context(mode=ms.GRAPH_MODE)
    f = ms.jit(lambda t: t[t > 1.0] + 1)
    assert f(Tensor(X)).asnumpy().tolist() == [3.0, 3.0, 4.0]
    assert f.compile_cache_info()["compiles"] == 0


def test_a_static_signature_of_the_same_cell_still_compiles():
    """Only the signature whose trace met the operator runs op by op: an ops.select net next
    to it compiles as before."""
    ms.set_context(mode=ms.GRAPH_MODE)

    class Clamp(nn.Cell):
        def construct(self, x):
            return ops.select(x > 1.0, x, ops.zeros_like(x))
    net = Clamp()
    assert net(Tensor(X)).asnumpy().tolist() == [0.0, 2.0, 2.0, 3.0, 0.0]
    assert net.compile_cache_info()["compiles"] == 1
