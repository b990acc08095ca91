"""Sharding propagation on 8 ranks: compile time of the plan (the propagation pass alone and the
whole step compile), and the plan's predicted bytes per step beside the measured ones, for the
MLP 784-512-512-10 with only its first MatMul sharded ((2, 1), (1, 4)).

Usage: python tools/bench_propagation.py          (launches 8 ranks, prints the table)
       python -m minispore.run -n 8 tools/bench_propagation.py --job
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table  # noqa: E402

MARK = "BENCH_PROPAGATION "
BATCH = 256


def measure():
    import minispore as ms
    from minispore import Parameter, Tensor, nn, ops
    from minispore.common.initializer import initializer
    from minispore.communication import get_group_size, get_rank, init
    from minispore.parallel import comm_stats, describe_plan, propagation, reset_comm_stats
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.AUTO_PARALLEL,
                                 search_mode="sharding_propagation", full_batch=True)
    init()
    rank, n = get_rank(), get_group_size()
    ms.set_seed(1)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            dims = (784, 512, 512, 10)
            self.w = [Parameter(initializer("normal", [a, b], ms.float32), name=f"w{i}")
                      for i, (a, b) in enumerate(zip(dims, dims[1:]))]
            for i, w in enumerate(self.w):
                setattr(self, f"w{i}", w)
            self.matmuls = [ops.MatMul() for _ in self.w]
            self.matmuls[0].shard(((2, 1), (1, 4)))
            self.relu = ops.ReLU()

        def construct(self, x):
            for i, (mm, w) in enumerate(zip(self.matmuls, self.w)):
                x = mm(x, w)
                if i < len(self.w) - 1:
                    x = self.relu(x)
            return x

    net = MLP()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(True)),
                               nn.SGD(net.trainable_params(), 1e-3))
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((BATCH, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH).astype(np.int32))
    spent = []
    real = propagation.propagate_strategies

    def timed(*args):
        t0 = time.perf_counter()
        out = real(*args)
        spent.append(time.perf_counter() - t0)
        return out
    propagation.propagate_strategies = timed
    import minispore.parallel.partition as partition
    partition.propagate_strategies = timed
    t0 = time.perf_counter()
    plan = describe_plan(step, x, y)
    describe_s = time.perf_counter() - t0
    step(x, y)                      # compiles the step (and propagates) once more, then runs
    reset_comm_stats()
    step(x, y)
    figures = {"ranks": n, "propagate_s": min(spent), "describe_s": describe_s,
               "compile_s": step._graph_cache.compile_seconds, "predicted": plan.predicted(),
               "measured": comm_stats(),
               "propagated": sum(op.origin == "propagated" for op in plan.operators)}
    if rank == 0:
        print(MARK + json.dumps(figures), flush=True)


def propagation_table(timeout=600):
    cmd = [sys.executable, "-m", "minispore.run", "-n", "8", os.path.abspath(__file__), "--job"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          stdin=subprocess.DEVNULL)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    r = json.loads(proc.stdout.split(MARK)[-1].strip().splitlines()[0])
    t = Table("Sharding propagation, MLP 784-512-512-10, batch 256 (full_batch), 8 ranks, "
              "MatMul 1 sharded ((2,1),(1,4)), the rest propagated",
              ["what", "value"])
    t.add("operators propagated", r["propagated"])
    t.add("propagation pass (s)", r["propagate_s"])
    t.add("describe_plan: trace + every pass (s)", r["describe_s"])
    t.add("step compile (s)", r["compile_s"])
    for kind in sorted(set(r["predicted"]) | set(r["measured"])):
        p = r["predicted"].get(kind, {"count": 0, "bytes": 0})
        m = r["measured"].get(kind, {"count": 0, "bytes": 0})
        t.add(f"{kind} predicted / measured", f"{p['count']} x {p['bytes']} B / "
                                              f"{m['count']} x {m['bytes']} B")
    return t


if __name__ == "__main__":
    if "--job" in sys.argv:
        measure()
    else:
        print(propagation_table().markdown())
