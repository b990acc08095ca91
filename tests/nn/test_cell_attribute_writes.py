"""What MindSpore 2.7.2 does with a Cell's attributes that its graphs depend on, recorded from
the real thing: ``self.param = tensor`` writes the Parameter (set_data outside a graph, an
Assign inside construct), it never replaces it; and a cell's compiled graphs are keyed by its
``phase``, so a flag construct reads takes effect in GRAPH mode under another phase only (the
way MindSpore's ModelThor switches THOR's flags)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


class Doubler(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.array([1.0], np.float32)), name="p")

    def construct(self, x):
        self.p = x * 2
        return x + 1


def test_assigning_a_tensor_to_a_parameter_attribute_writes_the_parameter():
    cell = Doubler()
    cell.p = Tensor(np.array([2.0], np.float32))
    assert isinstance(cell.p, Parameter)
    assert [p.name for p in cell.get_parameters()] == ["p"]
    assert cell.p.asnumpy().tolist() == [2.0]


def test_assigning_inside_construct_writes_the_parameter(mode):
    # MindSpore 2.7.2, both modes: [6.] Parameter [10.]; grad [1.], p [10.]
    cell = Doubler()
    x = Tensor(np.array([5.0], np.float32))
    assert cell(x).asnumpy().tolist() == [6.0]
    assert isinstance(cell.p, Parameter) and cell.p.asnumpy().tolist() == [10.0]
    cell = Doubler()
    assert ms.grad(cell)(x).asnumpy().tolist() == [1.0]
    assert cell.p.asnumpy().tolist() == [10.0]


class Flagged(nn.Cell):
    def __init__(self):
        super().__init__()
        self.thor = True

    def construct(self, x):
        if self.thor:
            return x + 1
        return x - 1


def test_graphs_are_keyed_by_phase_not_by_the_flags_construct_reads():
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.zeros(2, np.float32))
    cell = Flagged()
    outputs = [cell(x)]
    cell.add_flags_recursive(thor=False)
    outputs.append(cell(x))         # same phase: MindSpore runs the graph it compiled
    cell = Flagged()
    cell.phase = "a"
    outputs.append(cell(x))
    cell.add_flags_recursive(thor=False)
    cell.phase = "b"
    outputs.append(cell(x))
    cell.add_flags_recursive(thor=True)
    cell.phase = "a"
    outputs.append(cell(x))
    assert [o.asnumpy().tolist() for o in outputs] == [[1, 1], [1, 1], [1, 1], [-1, -1],
                                                       [1, 1]]
    assert cell.compile_cache_info()["compiles"] == 2
