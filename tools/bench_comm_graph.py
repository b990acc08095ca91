"""The compiled step's communication passes on 8 ranks (semi-auto, GRAPH):

- communication fusion off / on: collectives per step by kind, bytes, and the median step of
  the MLP 784-512-512-10 with optimizer parallel (threshold 0: AllGathers of the sliced
  weights, ReduceScatters of their gradients, AllReduces of the rest), batch 256 full_batch;
- communication subgraph reuse (MS_COMM_COMPILER_OPT) off / on: the compile time of the first
  step and the median step of a 32-layer MLP (Dense 64x64, each MatMul cut along the reduced
  dim, so every layer ends in an AllReduce of one shape), batch 64 full_batch; the settings
  compiled in turn 4 times, medians of the last 3.

Usage: python tools/bench_comm_graph.py       (launches the 8-rank job, prints both tables)
       python -m minispore.run -n 8 tools/bench_comm_graph.py --job
"""
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, run_job  # noqa: E402

MARK = "BENCH_COMM_GRAPH "
RANKS, WARMUP, STEPS = 8, 2, 10
DEEP_LAYERS, DEEP_WIDTH = 32, 64


def _steps(step, x, y):
    """(first call seconds: the compile, median of the next STEPS, last step's comm_stats)."""
    from minispore.parallel import comm_stats, reset_comm_stats
    t0 = time.perf_counter()
    step(x, y)
    first = time.perf_counter() - t0
    times = []
    for i in range(WARMUP + STEPS):
        reset_comm_stats()
        t0 = time.perf_counter()
        step(x, y)
        if i >= WARMUP:
            times.append(time.perf_counter() - t0)
    return first, float(np.median(times)), comm_stats()


def _context(n, **extra):
    import minispore as ms
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=n,
                                 full_batch=True, **extra)
    ms.set_seed(1)


def _fusion_run(n, fused):
    from minispore import Tensor, nn
    _context(n, enable_parallel_optimizer=True,
             parallel_optimizer_config={"parallel_optimizer_threshold": 0},
             comm_fusion={"openstate": fused})
    net = nn.SequentialCell(nn.Dense(784, 512, activation="relu"),
                            nn.Dense(512, 512, activation="relu"), nn.Dense(512, 10))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((256, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, 256).astype(np.int32))
    _, median, stats = _steps(step, x, y)
    return {"step_s": median, "stats": stats}


def _reuse_run(n, reuse):
    from minispore import Tensor, nn
    if reuse:
        os.environ["MS_COMM_COMPILER_OPT"] = "-1"
    else:
        os.environ.pop("MS_COMM_COMPILER_OPT", None)
    _context(n)
    layers = []
    for _ in range(DEEP_LAYERS):
        layer = nn.Dense(DEEP_WIDTH, DEEP_WIDTH, activation="relu")
        layer.matmul.shard(((1, n), (1, n)))
        layers.append(layer)
    net = nn.SequentialCell(layers)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.01))
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((64, DEEP_WIDTH)).astype(np.float32))
    y = Tensor(np.zeros((64, DEEP_WIDTH), np.float32))
    first, median, _ = _steps(step, x, y)
    graph = next(iter(step._graph_cache.entries.values())).graph
    calls = [node for node in graph.nodes if "comm_subgraph" in node.annotations]
    comm = [node for node in graph.nodes if getattr(node.prim, "communication", False)]
    os.environ.pop("MS_COMM_COMPILER_OPT", None)
    return {"compile_s": first, "step_s": median, "comm_nodes": len(comm),
            "calls": len(calls),
            "subgraphs": len({node.prim.subgraph.name for node in calls})}


def measure():
    import minispore as ms
    from minispore.communication import get_group_size, get_rank, init
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    n = get_group_size()
    result = {"ranks": n,
              "fusion": {str(fused): _fusion_run(n, fused) for fused in (False, True)},
              "reuse": {}}
    # off, on in turn, 4 times: the first compile of the process pays for warming caches, so
    # each setting keeps the median of its last 3
    runs = {False: [], True: []}
    for _ in range(4):
        for reuse in (False, True):
            runs[reuse].append(_reuse_run(n, reuse))
    for reuse, got in runs.items():
        kept = got[1:]
        result["reuse"][str(reuse)] = dict(
            kept[-1], compile_s=float(np.median([g["compile_s"] for g in kept])),
            step_s=float(np.median([g["step_s"] for g in kept])))
    if get_rank() == 0:
        print(MARK + json.dumps(result), flush=True)


def comm_graph_tables(timeout=900):
    r = run_job(__file__, RANKS, MARK, timeout)
    fusion = Table(f"Communication fusion, semi-auto MLP 784-512-512-10 + optimizer parallel, "
                   f"batch 256, {r['ranks']} ranks: collectives per step (count x, bytes sent "
                   f"per rank) and median step of {STEPS}",
                   ["fusion", "AllGather", "ReduceScatter", "AllReduce", "step (ms)"])
    for fused in ("False", "True"):
        got = r["fusion"][fused]
        cells = [f"{got['stats'].get(k, {}).get('count', 0)} x, "
                 f"{got['stats'].get(k, {}).get('bytes', 0) / 1024:.0f} KiB"
                 for k in ("AllGather", "ReduceScatter", "AllReduce")]
        fusion.add("on (default ids)" if fused == "True" else "off (openstate False)", *cells,
                   got["step_s"] * 1e3)
    reuse = Table(f"Communication subgraph reuse (MS_COMM_COMPILER_OPT), {DEEP_LAYERS}-layer MLP "
                  f"{DEEP_WIDTH} wide, each MatMul cut {r['ranks']} ways, batch 64, "
                  f"{r['ranks']} ranks: first step (compile) and median step of {STEPS}",
                  ["MS_COMM_COMPILER_OPT", "communication nodes", "calls of shared subgraphs",
                   "subgraphs", "first step (s)", "step (ms)"])
    for flag, label in (("False", "unset"), ("True", "-1")):
        got = r["reuse"][flag]
        reuse.add(label, str(got["comm_nodes"]), str(got["calls"]), str(got["subgraphs"]),
                  got["compile_s"], got["step_s"] * 1e3)
    return [fusion, reuse]


if __name__ == "__main__":
    if "--job" in sys.argv:
        measure()
    else:
        for table in comm_graph_tables():
            print(table.markdown())
