"""Optimizer parallel's memory and time: the bytes each rank stores for the parameters and the
optimizer state (Adam's two moments) of the semi-auto MLP 784-512-512-10, with and without
enable_parallel_optimizer (threshold 0: every parameter whose dim 0 the ranks divide is
sliced), and the median training step (TrainOneStepCell, batch 256 full_batch, GRAPH).

Usage: python tools/bench_optimizer_parallel.py      (launches 2 and 8 ranks, prints the table)
       python -m minispore.run -n N tools/bench_optimizer_parallel.py --job
"""
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, median_step, run_job  # noqa: E402

MARK = "BENCH_OPTIMIZER_PARALLEL "
BATCH, WARMUP, STEPS = 256, 2, 10


def _run(n, sharded):
    import minispore as ms
    from minispore import Tensor, nn
    ms.reset_auto_parallel_context()
    context = {"enable_parallel_optimizer": True,
               "parallel_optimizer_config": {"parallel_optimizer_threshold": 0}} \
        if sharded else {}
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=n,
                                 full_batch=True, **context)
    ms.set_seed(1)
    net = nn.SequentialCell(nn.Dense(784, 512, activation="relu"),
                            nn.Dense(512, 512, activation="relu"), nn.Dense(512, 10))
    opt = nn.Adam(net.trainable_params(), 1e-3)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((BATCH, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH).astype(np.int32))
    median = median_step(step, (x, y), WARMUP, STEPS)
    stored = {id(p): p for p in list(net.get_parameters()) + list(opt.get_parameters())}
    weights = sum(p.asnumpy().nbytes for p in net.trainable_params())
    total = sum(p.asnumpy().nbytes for p in stored.values())
    ms.reset_auto_parallel_context()
    return {"step_s": median, "weights": weights, "state": total - weights}


def measure():
    import minispore as ms
    from minispore.communication import get_group_size, get_rank, init
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    n = get_group_size()
    result = {"ranks": n, "plain": _run(n, False), "sharded": _run(n, True)}
    if get_rank() == 0:
        print(MARK + json.dumps(result), flush=True)


def optimizer_parallel_table(timeout=900):
    t = Table(f"Optimizer parallel, semi-auto MLP 784-512-512-10 + Adam, batch {BATCH} "
              f"(full_batch): bytes stored per rank and median step of {STEPS}",
              ["ranks", "optimizer parallel", "weights (KiB)", "optimizer state (KiB)",
               "total vs off", "step (ms)"])
    for ranks in (2, 8):
        r = run_job(__file__, ranks, MARK, timeout)
        plain = r["plain"]["weights"] + r["plain"]["state"]
        for label in ("plain", "sharded"):
            got = r[label]
            t.add(str(ranks), "on" if label == "sharded" else "off", got["weights"] / 1024,
                  got["state"] / 1024, (got["weights"] + got["state"]) / plain,
                  got["step_s"] * 1e3)
    return t


if __name__ == "__main__":
    if "--job" in sys.argv:
        measure()
    else:
        print(optimizer_parallel_table().markdown())
