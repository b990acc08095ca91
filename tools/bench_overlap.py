"""Overlap of the gradient all-reduces with the backward in compiled data-parallel steps
(minispore/parallel/comm/overlap.py), on 2 ranks: the median GRAPH training step of the MLP
784-512-512-10 (global batch 256, Momentum) with the overlap pass off (each bucket's blocking
AllReduce after the whole backward) and on (each bucket started when its gradients exist,
waited by the optimizer), with one 64 MB bucket (MindSpore's default: nothing to overlap) and
1 MB buckets, each with MPICH's progress thread off and on (MPIR_CVAR_ASYNC_PROGRESS=1).

Usage: python tools/bench_overlap.py        (launches the 2-rank jobs, prints the table)
       python -m minispore.run -n 2 tools/bench_overlap.py --job
"""
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, median_step, run_job  # noqa: E402

MARK = "BENCH_OVERLAP "
GLOBAL_BATCH, WARMUP, STEPS, ROUNDS = 256, 3, 15, 3


def _median_step(overlap, bucket_mb):
    import minispore as ms
    from minispore import Tensor, nn
    from minispore.common.registry import REGISTRY
    from minispore.parallel import compiler
    from minispore.parallel.comm.overlap import overlap_communication
    passes = [p for p in compiler.PASSES if overlap or p is not overlap_communication]
    REGISTRY.plug("graph.passes", tuple(passes))
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True,
                                 comm_fusion={"allreduce": {"mode": "size",
                                                            "config": bucket_mb}})
    from minispore.communication import get_group_size
    ms.set_seed(1)
    net = nn.SequentialCell(nn.Dense(784, 512, activation="relu"),
                            nn.Dense(512, 512, activation="relu"), nn.Dense(512, 10))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(0)
    local = GLOBAL_BATCH // get_group_size()
    x = Tensor(rng.standard_normal((local, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, local).astype(np.int32))
    median = median_step(step, (x, y), WARMUP, STEPS)
    REGISTRY.plug("graph.passes", tuple(compiler.PASSES))
    return median


def measure():
    import minispore as ms
    from minispore.communication import get_rank, init
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    configs = [(overlap, mb) for mb in (64, 1) for overlap in (False, True)]
    samples = {f"{o},{mb}": [] for o, mb in configs}
    for _ in range(ROUNDS):         # interleaved rounds: drift hits every configuration alike
        for overlap, mb in configs:
            samples[f"{overlap},{mb}"].append(_median_step(overlap, mb))
    if get_rank() == 0:
        print(MARK + json.dumps({k: float(np.median(v)) for k, v in samples.items()}),
              flush=True)


def _job(async_progress, timeout):
    env = dict(os.environ)
    env.pop("MPIR_CVAR_ASYNC_PROGRESS", None)
    if async_progress:
        env["MPIR_CVAR_ASYNC_PROGRESS"] = "1"
    return run_job(__file__, 2, MARK, timeout, env)


def overlap_table(timeout=900):
    t = Table(f"Gradient all-reduce overlap, data-parallel GRAPH step, MLP 784-512-512-10, "
              f"global batch {GLOBAL_BATCH}, 2 ranks: median step (ms) of {STEPS}, median of "
              f"{ROUNDS} interleaved rounds",
              ["buckets", "MPICH progress thread", "overlap off", "overlap on", "on / off"])
    for async_progress in (False, True):
        r = _job(async_progress, timeout)
        for mb, label in ((64, "one (64 MB)"), (1, "1 MB each")):
            off, on = r[f"False,{mb}"], r[f"True,{mb}"]
            t.add(label, "on" if async_progress else "off", off * 1e3, on * 1e3, on / off)
    return t


if __name__ == "__main__":
    if "--job" in sys.argv:
        measure()
    else:
        print(overlap_table().markdown())
