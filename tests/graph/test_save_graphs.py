"""save_graphs: one IR file per pass (MindSpore-like names), every node with its scope, shapes
and annotations, a DOT of the final graph, and the generated schedule."""
import glob
import os

import numpy as np

import minispore as ms
from minispore import Tensor, nn
from minispore.parallel.compiler import PASSES as PIPELINE


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8, activation="relu")
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def _train_step():
    net = nn.WithLossCell(Net(), nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                   reduction="mean"))
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return nn.TrainOneStepCell(net, opt)


def test_save_graphs_writes_every_pass(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    step = _train_step()
    x = Tensor(np.ones((2, 4), np.float32))
    y = Tensor(np.array([0, 2], np.int32))
    step(x, y)
    folders = glob.glob(os.path.join(tmp_path, "TrainOneStepCell_*"))
    assert len(folders) == 1
    names = sorted(os.listdir(folders[0]))
    assert names[0] == "00_trace.ir"
    for seq, graph_pass in enumerate(PIPELINE, 1):
        assert f"{seq:02d}_{graph_pass.__name__}.ir" in names
    for suffix in ("_validate.ir", "_step_parallel_begin.ir", "_step_parallel_end.ir",
                   "_differentiate.ir", "_fuse_elementwise.ir", ".dot", "_schedule.py"):
        assert any(n.endswith(suffix) for n in names), suffix

    final = open(os.path.join(folders[0], [n for n in names
                                           if n.endswith("_validate.ir")][0])).read()
    for scope in ("WithLossCell._backbone.fc1.matmul", "WithLossCell._backbone.fc2.bias_add",
                  "Gradients.WithLossCell._backbone.fc1.matmul", "ApplyMomentum", "Assign"):
        assert scope in final, scope
    # Every node listed: one "# k: scope=" line per node, numbered 0..n-1.
    lines = [ln for ln in final.splitlines() if ln.strip().startswith("# ") and "scope=" in ln]
    assert [int(ln.strip()[2:].split(":")[0]) for ln in lines] == list(range(len(lines)))
    head = final.splitlines()[0]
    assert head == f"# IR after pass 'validate': {len(lines)} nodes"
    assert "side_effect" in final and "<Float32, [2, 8]>" in final
    dot = open(os.path.join(folders[0], [n for n in names if n.endswith(".dot")][0])).read()
    assert dot.startswith('digraph "TrainOneStepCell"') and dot.count("shape=box") == len(lines)
    schedule = open(os.path.join(folders[0], [n for n in names
                                              if n.endswith("_schedule.py")][0])).read()
    head = schedule.splitlines()[:2]
    assert head[0].startswith("# memory plan: ") and " nodes write into " in head[0], head
    assert head[1].startswith("# peak live intermediates: ") and " bytes at node " in head[1]
    trace_ir = open(os.path.join(folders[0], "00_trace.ir")).read()
    assert "Gradients." not in trace_ir       # the backward is added by `differentiate`


def test_save_graphs_off_writes_nothing(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=False, save_graphs_path=str(tmp_path))
    Net()(Tensor(np.ones((2, 4), np.float32)))
    assert os.listdir(tmp_path) == []
