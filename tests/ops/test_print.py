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
    # MindSpore 2.7.2's own output, commas and all.
    assert out == "Print Tensor x:\nTensor(shape=[2, 1], dtype=Int32, value=\n[[1],\n [2]])\n"


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
    assert "value= [ 2.00000000e+00,  2.00000000e+00]" in printed
    assert "value= [ 6.00000000e+00,  6.00000000e+00]" in printed
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


@pytest.fixture
def print_file(tmp_path):
    return tmp_path / "print.log"     # tests/conftest.py restores print_file_path afterwards


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_print_file_path_receives_the_prints(capfd, print_file, mode):
    ms.set_context(print_file_path=str(print_file))
    assert ms.get_context("print_file_path") == str(print_file)

    @ms.jit
    def step(x):
        ops.Print()("x is", x)
        return x + 1

    ms.set_context(mode=mode)
    try:
        ops.Print()("Print Tensor x:", _X)
        step(Tensor(np.array([5.0], np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert capfd.readouterr().out == ""
    assert print_file.read_text() == ("Print Tensor x:\nTensor(shape=[2, 1], dtype=Int32, value=\n"
                                      "[[1],\n [2]])\nx is\nTensor(shape=[1], dtype=Float32, "
                                      "value= [ 5.00000000e+00])\n")


def test_print_file_path_never_appends_to_an_existing_file(print_file, tmp_path):
    # MindSpore's set_print_file_path: an existing file gets a ".<seconds>" suffix; a directory
    # raises
    print_file.write_text("earlier run\n")
    ms.set_context(print_file_path=str(print_file))
    used = ms.get_context("print_file_path")
    assert used.startswith(str(print_file) + ".") and used[len(str(print_file)) + 1:].isdigit()
    ops.Print()("now")
    assert print_file.read_text() == "earlier run\n"
    with open(used) as f:
        assert f.read() == "now\n"
    with pytest.raises(OSError, match="should be file path, but got directory"):
        ms.set_context(print_file_path=str(tmp_path))
