"""ops.Print / ops.print_: prints at the call in PYNATIVE; in a compiled graph it prints every
time the graph runs, with that run's values (not once while tracing)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

_X = Tensor(np.array([[1], [2]], np.int32))


def test_print_in_pynative(capfd):
    ops.Print()("Print Tensor x:", _X)
    out = capfd.readouterr().out
    assert out == "Print Tensor x:\nTensor(shape=[2, 1], dtype=Int32, value=\n[[1]\n [2]])\n"


def test_print_runs_every_step_in_graph_mode(capfd):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.print = ops.Print()

        def construct(self, x):
            y = x * 2.0
            self.print("y is", y)
            return y + 1.0

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        capfd.readouterr()
        for v in (1.0, 3.0):
            out = net(Tensor(np.full((2,), v, np.float32)))
            np.testing.assert_allclose(out.asnumpy(), [2 * v + 1] * 2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    printed = capfd.readouterr().out
    assert printed.count("y is") == 2
    assert "value= [2. 2.]" in printed and "value= [6. 6.]" in printed
    assert net.compile_cache_info()["compiles"] == 1


def test_print_under_jit_and_print_function(capfd):
    @ms.jit
    def f(x):
        ops.print_("sum", x.sum(), (x, "tail"))
        return x

    f(Tensor(np.ones(3, np.float32)))
    printed = capfd.readouterr().out.splitlines()
    assert printed[0] == "sum" and printed[1].startswith("Tensor(shape=[], dtype=Float32")
    assert printed[-1] == "tail"


def test_print_rejects_other_types():
    with pytest.raises(TypeError, match="For 'Print'.*input 0 must be a Tensor"):
        ops.Print()(object())
