"""ms.Profiler on 2 data-parallel ranks: each rank's timeline holds its MPI calls (category
"mpi") with the bytes they moved — per step exactly the gradients' bytes — besides its kernels.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_profiler_mpi.py
"""
import json

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn

pytestmark = pytest.mark.mpi(min_size=2)

STEPS = 2


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_gradient_all_reduces_are_spans_with_their_bytes(world, tmp_path_factory, mode):
    rank = ms.communication.get_rank()
    ms.set_context(mode=mode)
    ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(8, 16, activation="relu"), nn.Dense(16, 4))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    x = Tensor(np.full((4, 8), rank + 1.0, np.float32))
    y = Tensor(np.zeros((4, 4), np.float32))
    step(x, y)                                # compile outside the profiled steps
    out = tmp_path_factory.mktemp(f"rank{rank}")   # each rank its own folder (no shared tmp)
    profiler = ms.Profiler(output_path=str(out))
    for _ in range(STEPS):
        step(x, y)
    profiler.analyse()
    with open(out / "profiler" / f"timeline_display_{rank}.json") as f:
        events = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
    mpi = [e for e in events if e["cat"] == "mpi"]
    started = [e for e in mpi if e["name"] in ("AllReduce", "Iallreduce")]
    grad_bytes = sum(p.asnumpy().nbytes for p in net.trainable_params())
    assert sum(e["args"]["bytes"] for e in started) == STEPS * grad_bytes
    assert all(e["pid"] == rank for e in events)
    if mode == ms.GRAPH_MODE:   # the compiled graph's communication nodes hold the MPI calls
        nodes = [e for e in events if e["cat"] == "communication"]
        assert nodes and all(any(n["ts"] <= e["ts"] and e["ts"] + e["dur"] <= n["ts"] + n["dur"]
                                 for n in nodes) for e in started)
    assert any(e["cat"] == "kernel" and e["name"] == "MatMul" for e in events)
