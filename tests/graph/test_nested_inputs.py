"""Tensors inside tuple/list arguments are graph inputs (one compile serves every value, as in
MindSpore), set_inputs takes tuples of placeholders, and ms.mutable returns MindSpore's marked
types."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, mutable, nn, ops


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class PairSum(nn.Cell):
    def construct(self, xs, scale):
        return (xs[0] + xs[1][0]) * scale - xs[1][1]


def f32(*values):
    return Tensor(np.array(values, np.float32))


def test_tensors_in_tuples_are_inputs_not_constants():
    net = PairSum()
    for a, b, c in ((1.0, 2.0, 3.0), (4.0, -1.0, 0.5), (0.0, 7.0, 2.0)):
        out = net((f32(a, a), [f32(b, b), f32(c, c)]), 2.0)
        np.testing.assert_allclose(out.asnumpy(), [(a + b) * 2 - c] * 2)
    assert net.compile_cache_info() == {"compiles": 1, "hits": 2, "entries": 1}
    net((f32(1.0, 1.0), [f32(1.0, 1.0), f32(1.0, 1.0)]), 3.0)      # a new constant: compiles
    net((f32(1.0, 1.0, 1.0), [f32(1.0), f32(1.0)]), 3.0)           # new shapes: compiles
    assert net.compile_cache_info()["compiles"] == 3


def test_set_inputs_with_a_mutable_tuple_of_placeholders():
    net = nn.Cell()
    net.construct = lambda xs: ops.Meshgrid("xy")(xs)
    dyn = Tensor(shape=[None], dtype=ms.float32)
    net.set_inputs(mutable((dyn, dyn)))
    for n, m in ((3, 4), (2, 5)):
        x, y = np.arange(n, dtype=np.float32), np.arange(m, dtype=np.float32)
        gx, gy = net(mutable((Tensor(x), Tensor(y))))
        want = np.meshgrid(x, y, indexing="xy")
        np.testing.assert_array_equal(gx.asnumpy(), want[0])
        np.testing.assert_array_equal(gy.asnumpy(), want[1])
    assert net.compile_cache_info()["compiles"] == 1
    with pytest.raises(TypeError, match="a Tensor \\(placeholder\\), a tuple/list of them, or a "
                                        "constant"):
        net.set_inputs((dyn, 3))


def test_mutable_types_and_errors(caplog):
    t = f32(1.0)
    assert mutable(t) is t and t.__ms_mutable__
    pair = mutable((t, t))
    assert type(pair).__name__ == "_Tuple" and pair == (t, t) and pair.__ms_mutable__
    with caplog.at_level(logging.WARNING, logger="minispore"):
        n = mutable(3)
    assert type(n).__name__ == "_Int" and n == 3 and "per value of a mutable scalar" in caplog.text
    assert type(mutable(2.5)).__name__ == "_Float"
    assert type(mutable(True)).__name__ == "_Bool" and str(mutable(True)) == "True"
    assert type(mutable([t])).__name__ == "_List" and type(mutable({"a": t})).__name__ == "_Dict"
    with pytest.raises(TypeError, match="'input_data' should be one of"):
        mutable("s")
    with pytest.raises(TypeError, match="'dynamic_len' is True the 'input_data' must be"):
        mutable(t, dynamic_len=True)
