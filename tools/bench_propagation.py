"""Automatic strategies on 8 ranks, batch 256 (full_batch), one MPI job:

- sharding propagation: compile time of the plan (the propagation pass alone and the whole step
  compile), and the plan's predicted bytes per step beside the measured ones, for the MLP
  784-512-512-10 with only its first MatMul sharded ((2, 1), (1, 4));
- strategy search (recursive_programming, dynamic_programming) with no shard call, on the MLP
  and the tutorial's LeNet-5: the search pass's time, the step compile, predicted and measured
  bytes per step, beside the data-parallel default (semi-auto parallel, nothing sharded).

Usage: python tools/bench_propagation.py          (launches 8 ranks, prints the tables)
       python -m minispore.run -n 8 tools/bench_propagation.py --job
"""
import json
import os
import sys
import time
from collections import Counter
from contextlib import contextmanager

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, run_job  # noqa: E402

MARK = "BENCH_PROPAGATION "
BATCH = 256
SEARCHES = ("recursive_programming", "dynamic_programming")


def _mlp(shard_first):
    import minispore as ms
    from minispore import Parameter, nn, ops
    from minispore.common.initializer import initializer

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            dims = (784, 512, 512, 10)
            self.w = [Parameter(initializer("normal", [a, b], ms.float32), name=f"w{i}")
                      for i, (a, b) in enumerate(zip(dims, dims[1:]))]
            for i, w in enumerate(self.w):
                setattr(self, f"w{i}", w)
            self.matmuls = [ops.MatMul() for _ in self.w]
            if shard_first:
                self.matmuls[0].shard(((2, 1), (1, 4)))
            self.relu = ops.ReLU()

        def construct(self, x):
            for i, (mm, w) in enumerate(zip(self.matmuls, self.w)):
                x = mm(x, w)
                if i < len(self.w) - 1:
                    x = self.relu(x)
            return x

    return MLP()


def _lenet():
    from examples.lenet.train import LeNet
    return LeNet()


NETS = {"MLP 784-512-512-10": (lambda: _mlp(False), (784,)),
        "LeNet-5": (_lenet, (1, 32, 32))}


@contextmanager
def _timed(name, spent):
    """Time every call of the pass function `name` that step_parallel_begin calls."""
    import minispore.parallel.partition as partition
    real = getattr(partition, name)

    def timed(*args):
        t0 = time.perf_counter()
        out = real(*args)
        spent.append(time.perf_counter() - t0)
        return out
    setattr(partition, name, timed)
    try:
        yield
    finally:
        setattr(partition, name, real)


def _run(make_net, x_shape, pass_name, n, **context):
    """Compile (describe_plan, then the step's own compile) and run one step of make_net()
    under `context` on every rank: the figures of one table row."""
    import minispore as ms
    from minispore import Tensor, nn
    from minispore.parallel import comm_stats, describe_plan, reset_comm_stats
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(device_num=n, full_batch=True, **context)
    ms.set_seed(1)
    net = make_net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(True)),
                               nn.SGD(net.trainable_params(), 1e-3))
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((BATCH,) + x_shape).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH).astype(np.int32))
    spent = []
    with _timed(pass_name, spent):
        t0 = time.perf_counter()
        plan = describe_plan(step, x, y)
        describe_s = time.perf_counter() - t0
        step(x, y)                  # compiles the step (planning once more), then runs
    reset_comm_stats()
    step(x, y)
    return {"pass_s": min(spent) if spent else None, "describe_s": describe_s,
            "compile_s": step._graph_cache.compile_seconds, "predicted": plan.predicted(),
            "measured": comm_stats(),
            "origins": dict(Counter(op.origin for op in plan.operators))}


def measure():
    import minispore as ms
    from minispore.communication import get_group_size, get_rank, init
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    auto = ms.ParallelMode.AUTO_PARALLEL
    figures = {"ranks": n, "propagation": _run(lambda: _mlp(True), (784,),
                                                 "propagate_strategies", n, parallel_mode=auto,
                                                 search_mode="sharding_propagation")}
    search = {}
    for net, (make, shape) in NETS.items():
        search[f"{net}|data-parallel default"] = _run(
            make, shape, "search_strategies", n,
            parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
        for mode in SEARCHES:
            search[f"{net}|{mode}"] = _run(make, shape, "search_strategies", n,
                                           parallel_mode=auto, search_mode=mode)
    figures["search"] = search
    if rank == 0:
        print(MARK + json.dumps(figures), flush=True)


def _bytes(stats):
    return sum(entry["bytes"] for entry in stats.values())


def _propagation_table(r):
    t = Table("Sharding propagation, MLP 784-512-512-10, batch 256 (full_batch), 8 ranks, "
              "MatMul 1 sharded ((2,1),(1,4)), the rest propagated",
              ["what", "value"])
    t.add("operators propagated", r["origins"].get("propagated", 0))
    t.add("propagation pass (s)", r["pass_s"])
    t.add("describe_plan: trace + every pass (s)", r["describe_s"])
    t.add("step compile (s)", r["compile_s"])
    for kind in sorted(set(r["predicted"]) | set(r["measured"])):
        p = r["predicted"].get(kind, {"count": 0, "bytes": 0})
        m = r["measured"].get(kind, {"count": 0, "bytes": 0})
        t.add(f"{kind} predicted / measured", f"{p['count']} x {p['bytes']} B / "
                                              f"{m['count']} x {m['bytes']} B")
    return t


def _search_table(rows):
    t = Table("Strategy search, batch 256 (full_batch), 8 ranks, no shard call: search pass, "
              "step compile, bytes per step per rank",
              ["net", "strategies", "search pass (s)", "step compile (s)",
               "predicted B / step", "measured B / step"])
    for key, r in rows.items():
        net, mode = key.split("|")
        t.add(net, mode, "-" if r["pass_s"] is None else r["pass_s"], r["compile_s"],
              str(_bytes(r["predicted"])), str(_bytes(r["measured"])))
    return t


def propagation_tables(timeout=900):
    figures = run_job(__file__, 8, MARK, timeout)
    return [_propagation_table(figures["propagation"]), _search_table(figures["search"])]


if __name__ == "__main__":
    if "--job" in sys.argv:
        measure()
    else:
        for table in propagation_tables():
            print(table.markdown())
