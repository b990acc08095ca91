"""nn.CellDict: cells by name, as MindSpore 2.7.2 behaves (key order, parameter names, errors)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn


def test_cell_dict_keeps_insertion_order_and_names_parameters_by_key():
    d = nn.CellDict({"conv": nn.Conv2d(1, 2, 3), "relu": nn.ReLU()})
    assert (len(d), list(d.keys()), "conv" in d) == (2, ["conv", "relu"], True)
    assert [p.name for p in d.get_parameters()] == ["conv.weight"]
    d["pool"] = nn.MaxPool2d(2)
    assert type(d.pop("relu")).__name__ == "ReLU"
    d.update([("a", nn.ReLU())])
    assert list(d) == ["conv", "pool", "a"]
    assert [type(v).__name__ for v in d.values()] == ["Conv2d", "MaxPool2d", "ReLU"]
    del d["a"]
    assert [k for k, _ in d.items()] == ["conv", "pool"]
    d.clear()
    assert len(d) == 0


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellDict({"d1": nn.Dense(2, 3), "d2": nn.Dense(3, 1)})

    def construct(self, x):
        return self.layers["d2"](self.layers["d1"](x))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_cells_held_by_name_train_in_both_modes(mode):
    ms.set_context(mode=mode)
    try:
        net = _Net()
        assert [p.name for p in net.trainable_params()] == [
            "layers.d1.weight", "layers.d1.bias", "layers.d2.weight", "layers.d2.bias"]
        x = Tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
        w1, b1, w2, b2 = (p.asnumpy().astype(np.float64) for p in net.trainable_params())
        want = (x.asnumpy() @ w1.T + b1) @ w2.T + b2
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("make,err,words", [
    (lambda: nn.CellDict({"a": 1}), TypeError, "type of cell should be Cell, but got int"),
    (lambda: nn.CellDict({1: nn.ReLU()}), TypeError, "type of key should be string"),
    (lambda: nn.CellDict({"a.b": nn.ReLU()}), KeyError, "can not contain"),
    (lambda: nn.CellDict({"": nn.ReLU()}), KeyError, "can not be empty"),
    (lambda: nn.CellDict([nn.ReLU()]), TypeError, "element #0 should be Iterable"),
    (lambda: nn.CellDict()["zz"], KeyError, "zz"),
    (lambda: nn.CellDict()(1), NotImplementedError, "no construct"),
])
def test_cell_dict_errors_are_mindspores(make, err, words):
    with pytest.raises(err, match=words):
        make()
