"""ms.Profiler: every kernel call of an eager or compiled run becomes a span in this rank's
Chrome-trace timeline and a row of the operator table; options it does not implement are
refused by name. (Collectives on several ranks: tests/parallel/test_profiler_mpi.py.)"""
import csv
import json

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.common import profiling


def _step(mode):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    x = Tensor(np.ones((2, 4), np.float32))
    y = Tensor(np.zeros((2, 3), np.float32))
    return lambda: step(x, y)


def _trace(tmp_path, rank=0):
    with open(tmp_path / "profiler" / f"timeline_display_{rank}.json") as f:
        return json.load(f)["traceEvents"]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_each_kernel_call_of_a_step_is_a_span(tmp_path, mode):
    run = _step(mode)
    run()                                   # compiled (GRAPH) before profiling starts
    profiler = ms.Profiler(output_path=str(tmp_path))
    run()
    run()
    rows = profiler.analyse()
    assert profiling.active() is None       # analyse stopped it
    events = [e for e in _trace(tmp_path) if e["ph"] == "X"]
    names = [e["name"] for e in events]
    # per step: the forward MatMul and the weight gradient's; one SGD update per parameter
    assert names.count("MatMul") == 2 * 2 and names.count("SGD") == 2 * 2
    assert names.count("BiasAddGrad") == 2
    assert all(e["cat"] == "kernel" and e["dur"] >= 0 and e["pid"] == 0 for e in events)
    starts = [e["ts"] for e in events]
    assert starts == sorted(starts)         # recorded in call order
    table = {r[0]: r for r in rows}
    assert table["MatMul"][2] == names.count("MatMul")
    with open(tmp_path / "profiler" / "op_statistic_0.csv") as f:
        lines = list(csv.DictReader(f))
    assert {line["op_type"] for line in lines} == set(names)
    assert sum(int(line["calls"]) for line in lines) == len(events)


def test_spans_carry_the_bytes_the_kernel_was_given(tmp_path):
    profiler = ms.Profiler(output_path=str(tmp_path))
    ops.matmul(Tensor(np.ones((8, 16), np.float32)), Tensor(np.ones((16, 2), np.float32)))
    profiler.analyse()
    (event,) = [e for e in _trace(tmp_path) if e["ph"] == "X"]
    assert event["name"] == "MatMul" and event["args"]["bytes"] == (8 * 16 + 16 * 2) * 4


def test_nothing_is_recorded_before_start_or_after_stop(tmp_path):
    profiler = ms.Profiler(output_path=str(tmp_path), start_profile=False)
    x = Tensor(np.ones(3, np.float32))
    ops.exp(x)
    profiler.start()
    ops.log(x)
    profiler.stop()
    ops.sqrt(x)
    assert [s[0] for s in profiler.recorder.spans] == ["Log"]


def test_unimplemented_options_are_refused_by_name(tmp_path):
    with pytest.raises(NotImplementedError, match="profile_memory"):
        ms.Profiler(output_path=str(tmp_path), profile_memory=True)
    with pytest.raises(NotImplementedError, match="aic_metrics"):
        ms.Profiler(output_path=str(tmp_path), aic_metrics="PipeUtilization")
    with pytest.raises(TypeError, match="output_path"):
        ms.Profiler(output_path=3)
    assert profiling.active() is None
