"""Cell annotations reach every node traced inside the cell -- functional ops included, which
share one primitive instance -- and only those; a primitive's own annotation wins for its node.
The annotations are visible in 00_trace.ir (written before any pass) while the passes that
will consume them still refuse them with a NotImplementedError naming the node (recompute's
pass is built: tests/graph/test_recompute_pass.py); `place`, whose pass is built
(tests/parallel/test_place_*), has no effect before communication.init(), as in MindSpore."""
import glob
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.graph.tracer import trace
from minispore.ops import functional as F


class Block(nn.Cell):
    """Functional ops (F.reshape, F.relu, F.mul) beside a primitive instance."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.full((4, 4), 0.1, np.float32)), name="w")
        self.matmul = ops.MatMul()

    def construct(self, x):
        x = F.reshape(x, (-1, 4))
        return F.mul(F.relu(self.matmul(x, self.w)), 2.0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = ops.MatMul()
        self.v = Parameter(Tensor(np.full((4, 2), 0.5, np.float32)), name="v")

    def construct(self, x):
        y = F.reshape(x, (-1, 4))          # the same functional primitives, outside the block
        return self.head(self.block(y) + F.relu(y), self.v)


@pytest.fixture(autouse=True)
def graph_mode():
    """place and Primitive.recompute are GRAPH_MODE features (MindSpore raises in PYNATIVE)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)


def _x():
    return Tensor(np.linspace(-1, 1, 8).reshape(2, 4).astype(np.float32))


def _nodes_by_scope(graph):
    inside = [n for n in graph.nodes if ".block." in n.scope]
    outside = [n for n in graph.nodes if ".block." not in n.scope]
    assert inside and outside
    return inside, outside


@pytest.mark.parametrize("annotate, key, expected", [
    (lambda b: b.recompute(), "recompute", lambda b: b._recompute),
    (lambda b: b.place("MS_WORKER", 1), "rank_id", lambda b: 1),
    (lambda b: setattr(b, "pipeline_stage", 1), "pipeline_stage", lambda b: 1),
])
def test_cell_annotation_marks_every_node_inside_and_only_those(annotate, key, expected):
    net = Net()
    annotate(net.block)
    value = expected(net.block)
    graph, _ = trace(net, [_x()], "net")
    inside, outside = _nodes_by_scope(graph)
    assert {n.prim.name for n in inside} >= {"Reshape", "MatMul", "ReLU", "Mul"}
    assert all(n.annotations.get(key) == value for n in inside)
    assert all(key not in n.annotations for n in outside)
    # The functional primitives are shared singletons: they stay unmarked.
    assert all(key not in n.prim.attrs for n in graph.nodes)
    if key == "pipeline_stage":
        assert {n.stage for n in inside} == {1} and {n.stage for n in outside} == {None}


def test_primitive_annotation_wins_over_the_cell_frame():
    net = Net()
    net.block.recompute()
    net.block.matmul.recompute(False)
    graph, _ = trace(net, [_x()], "net")
    by_name = {n.prim.name: n for n in graph.nodes if ".block." in n.scope}
    assert by_name["MatMul"].annotations["recompute"] is False
    assert by_name["ReLU"].annotations["recompute"] is net.block._recompute


def test_stages_without_a_pipeline_run_the_whole_network_with_a_warning(tmp_path, caplog):
    """pipeline_stages=1: the stage annotation is kept in the trace dump, and the compile says
    it is ignored (as MindSpore ignores stages outside pipeline parallel)."""
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    net = Net()
    net.block.pipeline_stage = 1
    out = net(_x())
    assert "is in pipeline stage 1, but pipeline_stages is 1: the stages are ignored" in \
        caplog.text
    trace_ir = glob.glob(os.path.join(tmp_path, "Net_*", "00_trace.ir"))
    lines = [ln for ln in open(trace_ir[0]).read().splitlines() if "scope=Net.block." in ln]
    assert lines and all("pipeline_stage=1" in ln for ln in lines)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), Net()(_x()).asnumpy(), rtol=1e-6)


def test_place_without_init_runs_the_whole_network_with_a_warning(tmp_path, caplog):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    net = Net()
    net.block.place("MS_WORKER", 1)
    out = net(_x())
    assert "place is ignored: communication.init() was not called" in caplog.text
    trace_ir = glob.glob(os.path.join(tmp_path, "Net_*", "00_trace.ir"))
    lines = [ln for ln in open(trace_ir[0]).read().splitlines() if "scope=Net.block." in ln]
    assert lines and all("rank_id=1" in ln for ln in lines)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), Net()(_x()).asnumpy(), rtol=1e-6)


def test_a_placed_cell_run_eagerly_raises_runtime_error():
    net = Net()
    net.block.place("MS_WORKER", 0)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(RuntimeError, match="Block is placed on worker 0 .*GRAPH_MODE only"):
        net(_x())


def test_pipeline_stage_zero_is_not_refused():
    net = Net()
    net.block.pipeline_stage = 0
    out = net(_x())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), Net()(_x()).asnumpy(), rtol=1e-6)


def test_a_staged_cell_run_eagerly_under_a_pipeline_refuses():
    net = Net()
    net.block.pipeline_stage = 1
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(pipeline_stages=2)
    try:
        with pytest.raises(RuntimeError, match="Block is in pipeline stage 1 .*GRAPH_MODE only"):
            net(_x())
    finally:
        ms.reset_auto_parallel_context()
