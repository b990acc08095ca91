"""Pipeline parallel on this machine: step time, the measured bubble beside the analytic
(S-1)/(m+S-1), and stage 0's activation peak, for S = 2 and 4 stages (one rank each) and
m = 1, 2, 4, 8 micro-batches under 1F1B and GPipe; against the same network and micro-batches
on one process.

The network is a deep MLP (8 Dense 256->256 + ReLU, then 256->10, batch 64, full_batch),
cut into S equal stages; TrainOneStepCell(PipelineCell(WithLossCell)) with Momentum. The bubble
is each stage's idle time (its receives and sends waiting) over its step time
(minispore/parallel/pipeline/stats.py), averaged over the stages and the timed steps.

Usage: python tools/bench_pipeline.py          (launches 2- and 4-rank jobs, prints the table)
       python -m minispore.run -n S tools/bench_pipeline.py --job
"""
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, median_step, run_job  # noqa: E402

MARK = "BENCH_PIPELINE "
LAYERS, WIDTH, BATCH = 8, 256, 64
MICRO = (1, 2, 4, 8)
WARMUP, STEPS = 2, 10


def _network(stages):
    from minispore import nn

    class DeepMLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.hidden = nn.CellList([nn.Dense(WIDTH, WIDTH, activation="relu")
                                       for _ in range(LAYERS)])
            self.head = nn.Dense(WIDTH, 10)
            for i, layer in enumerate(self.hidden):
                layer.pipeline_stage = i * stages // LAYERS
            self.head.pipeline_stage = stages - 1

        def construct(self, x):
            for layer in self.hidden:
                x = layer(x)
            return self.head(x)

    return DeepMLP()


def _run(stages, micro, scheduler=None):
    """(median step seconds, this rank's mean bubble, stage activation peak bytes)."""
    import minispore as ms
    from minispore import Tensor, nn
    from minispore.graph.memory import track_memory
    from minispore.parallel.pipeline.stats import step_history
    ms.reset_auto_parallel_context()
    if scheduler is not None:
        from minispore.communication import get_group_size
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                     device_num=get_group_size(), pipeline_stages=stages,
                                     full_batch=True,
                                     pipeline_config={"pipeline_scheduler": scheduler})
    ms.set_seed(1)
    net = _network(stages)
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    step = nn.TrainOneStepCell(nn.PipelineCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                                               micro), opt)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH).astype(np.int32))
    median = median_step(step, (x, y), WARMUP, STEPS)
    with track_memory() as tracker:
        step(x, y)
    bubbles = [s.bubble for s in step_history()[-STEPS - 1:-1]] if scheduler else [0.0]
    ms.reset_auto_parallel_context()
    return median, float(np.mean(bubbles)), tracker.peak_activation_bytes


def measure():
    import minispore as ms
    from minispore.communication import get_group_size, get_rank, init
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    stages = get_group_size()
    from mpi4py import MPI
    results = []
    for scheduler in ("1f1b", "gpipe"):
        for micro in MICRO:
            seconds, bubble, peak = _run(stages, micro, scheduler)
            bubbles = MPI.COMM_WORLD.allgather(bubble)
            results.append({"scheduler": scheduler, "micro": micro, "step_s": seconds,
                            "bubble": float(np.mean(bubbles)), "stage_bubbles": bubbles,
                            "peak0": peak})
    if get_rank() == 0:
        print(MARK + json.dumps({"stages": stages, "results": results}), flush=True)


def pipeline_table(timeout=900):
    import minispore as ms
    ms.set_context(mode=ms.GRAPH_MODE)
    single = {m: _run(1, m)[0] for m in MICRO}
    jobs = [run_job(__file__, stages, MARK, timeout) for stages in (2, 4)]
    t = Table(f"Pipeline parallel, deep MLP ({LAYERS} x Dense {WIDTH} + head), batch {BATCH}, "
              f"one rank per stage: median step of {STEPS}, bubble = idle / step time averaged "
              f"over the stages",
              ["stages", "schedule", "micro-batches", "step (ms)", "1 process (ms)",
               "speed-up", "bubble measured", "bubble analytic", "stage 0 activations (KiB)"])
    for job in jobs:
        s = job["stages"]
        for r in job["results"]:
            m = r["micro"]
            t.add(str(s), r["scheduler"], str(m), r["step_s"] * 1e3, single[m] * 1e3,
                  single[m] / r["step_s"], f"{r['bubble']:.0%}", f"{(s - 1) / (m + s - 1):.0%}",
                  r["peak0"] / 1024)
    return t


if __name__ == "__main__":
    if "--job" in sys.argv:
        measure()
    else:
        print(pipeline_table().markdown())
