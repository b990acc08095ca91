"""Semi-auto-parallel bench for `make bench`: the dynamic-shape tutorial's network (MatMul+ReLU+
MatMul+ReLU+MatMul, 784-512-512-10, SGD) trained in GRAPH mode on a logical batch of 256 on 1,
2 and 8 ranks: step time (median of 5 rounds of 5 steps, best of 3 launches), the collectives
and bytes this rank sends in one step (minispore.parallel.comm_stats, reset before the step),
and the time to compile the graph (the cell's compile cache) and to run the first step.

Usage: python -m minispore.run -n 8 tools/bench_semi_auto.py --job   (prints rank 0's figures)
From bench.py: ``semi_auto_table()`` launches those jobs and returns the table.
"""
import json
import os
import statistics
import subprocess
import sys
import time
import types

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table  # noqa: E402
from minispore.communication.threads import THREAD_VARS  # noqa: E402

BATCH = 256         # the logical batch: the tutorial's 32 per rank on 8 ranks
# Shard strategies of (matmul1, relu1, matmul2, relu2) per rank count; matmul3 has none (data
# parallel). 8 ranks: the tutorial's. 2 ranks: the least-communication layout (Megatron's):
# fc1 split by columns, fc2 by rows, one AllReduce of the hidden activations each way; it sends
# 1.5 MB per rank per step where the tutorial's pattern cut in two ((1,2),(2,1) on both MatMuls,
# ReLUs by batch) sent 3.0 MB and ran 5.13 ms against this one's 4.69 ms.
STRATEGIES = {
    8: (((2, 4), (4, 1)), ((4, 1),), ((1, 8), (8, 1)), ((8, 1),)),
    2: (((1, 1), (1, 2)), ((1, 2),), ((1, 2), (2, 1)), ((1, 1),)),
}
MARK = "<!-- semi_auto -->"


def _launch_size():
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE"):
        if var in os.environ:
            return int(os.environ[var])
    return 1


def _train_step(k):
    """(TrainOneStepCell of the tutorial network, barrier, rank); semi-auto parallel if k > 1."""
    import minispore as ms
    from minispore import Parameter, Symbol, Tensor, nn, ops
    from minispore.common.initializer import initializer
    ms.set_context(mode=ms.GRAPH_MODE)
    rank, barrier = 0, (lambda: None)
    if k > 1:
        from minispore.communication import get_rank, init
        from minispore.communication.collectives import barrier
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
        init()
        rank = get_rank()
    ms.set_seed(1)
    s1, s2, s3, s4 = STRATEGIES.get(k, (None,) * 4)

    def op(prim, strategy):
        return prim.shard(strategy) if strategy is not None else prim

    class Network(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1_weight = Parameter(initializer("normal", [28 * 28, 512], ms.float32))
            self.fc2_weight = Parameter(initializer("normal", [512, 512], ms.float32))
            self.fc3_weight = Parameter(initializer("normal", [512, 10], ms.float32))
            self.matmul1 = op(ops.MatMul(), s1)
            self.relu1 = op(ops.ReLU(), s2)
            self.matmul2 = op(ops.MatMul(), s3)
            self.relu2 = op(ops.ReLU(), s4)
            self.matmul3 = ops.MatMul()

        def construct(self, x):
            x = ops.reshape(x, (-1, 784))
            x = self.matmul1(x, self.fc1_weight)
            x = self.relu1(x)
            x = self.matmul2(x, self.fc2_weight)
            x = self.relu2(x)
            return self.matmul3(x, self.fc3_weight)

    net = Network()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(True)),
                               nn.SGD(net.trainable_params(), 1e-3))
    s0 = Symbol(divisor=8)
    step.set_inputs(Tensor(shape=[s0, 1, 28, 28], dtype=ms.float32),
                    Tensor(shape=[s0], dtype=ms.int32))
    rng = np.random.default_rng(rank)
    x = Tensor(rng.standard_normal((BATCH // k, 1, 28, 28)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH // k).astype(np.int32))
    return (lambda: step(x, y)), step, barrier, rank


def measure(steps=5, rounds=5):
    """Under the launcher: this rank's figures (every rank runs the same steps)."""
    from minispore.parallel import comm_stats, reset_comm_stats
    k = _launch_size()
    run, cell, barrier, rank = _train_step(k)
    barrier()
    t0 = time.perf_counter()
    run()
    first = time.perf_counter() - t0
    compile_s = cell._graph_cache.compile_seconds
    for _ in range(2):
        run()
    reset_comm_stats()
    run()
    stats = comm_stats()
    samples = []
    for _ in range(rounds):
        barrier()
        t0 = time.perf_counter()
        for _ in range(steps):
            run()
        samples.append((time.perf_counter() - t0) / steps)
    return rank, {"ranks": k, "step_s": statistics.median(samples), "first_s": first,
                  "compile_s": compile_s, "compiles": cell.compile_cache_info()["compiles"],
                  "comm": stats}


def _launch(k, timeout, launcher="minispore.run", threads=None, user_env=None):
    """Run the job on k ranks: through our launcher, or with plain mpirun as the tutorials do
    (then init() sizes the thread pools, unless `threads` pins every pool to that size the way
    a user's environment variables would, or `user_env` sets some of them)."""
    script = [os.path.abspath(__file__), "--job"]
    env = {key: v for key, v in os.environ.items() if key not in THREAD_VARS}
    if launcher == "minispore.run":
        cmd = [sys.executable, "-m", "minispore.run", "-n", str(k)] + script
    else:
        cmd = [os.path.join(os.path.dirname(sys.executable), "mpirun"), "-n", str(k),
               sys.executable] + script
        if threads is not None:
            env.update({var: str(threads) for var in THREAD_VARS})
        env.update(user_env or {})
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          stdin=subprocess.DEVNULL, env=env)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.split(MARK)[-1].strip().splitlines()[0])


def _comm_summary(stats):
    if not stats:
        return "-"
    return ", ".join(f"{kind} x{v['count']}" for kind, v in sorted(stats.items()))


NOTE = ("Bytes are what rank 0 sends in one training step, priced per collective as "
        "minispore.parallel.comm_stats does (bandwidth-optimal algorithms); compile is the time "
        "the cell's compile cache spent tracing the step and running every graph pass, the "
        "parallel one included. On a 2-core machine 8 ranks oversubscribe the cores (4 "
        "single-threaded processes per core), so the 8-rank row measures the cost of the "
        "partitioned graph (1/8-size kernels, collectives through shared memory, the "
        "scheduler) rather than a speed-up, and its compile time is 8 processes compiling at "
        "once; the 2-rank row, one rank per core, is the one where sharding can pay.\n")


def semi_auto_table(ranks=(1, 2, 8), rounds=3, timeout=300):
    """Launch the job on each rank count (cores // ranks threads each), `rounds` interleaved
    times, and tabulate rank 0's best times (a shared machine only ever slows a run down).
    Returns the Table with NOTE below it (an object with .markdown())."""
    t = Table(f"Semi-auto parallel, dynamic-shape tutorial net 784-512-512-10, logical batch "
              f"{BATCH}, Symbol(divisor=8), GRAPH, best of {rounds} (rank 0; 8 ranks: the "
              f"tutorial's strategies; 2 ranks: matmul1 ((1,1),(1,2)), relu1 ((1,2),), "
              f"matmul2 ((1,2),(2,1)), relu2 ((1,1),))",
              ["ranks", "ms / step", "samples/s", "collectives per step",
               "KiB sent per step per rank", "compile (s)", "first step (s)"])
    best = {}
    for _ in range(rounds):
        for k in ranks:
            r = _launch(k, timeout)
            if k in best:
                for key in ("step_s", "compile_s", "first_s"):
                    r[key] = min(r[key], best[k][key])
            best[k] = r
    for k in ranks:
        r = best[k]
        sent = sum(v["bytes"] for v in r["comm"].values())
        t.add(str(k), r["step_s"] * 1e3, BATCH / r["step_s"], _comm_summary(r["comm"]),
              sent / 1024, r["compile_s"], r["first_s"])
    return types.SimpleNamespace(markdown=lambda: t.markdown() + "\n" + NOTE)


def launch_table(k=8, rounds=3, timeout=300):
    """The same k-rank job started four ways: our launcher, plain mpirun (the tutorials'
    way; init() gives each rank cores // local ranks threads), plain mpirun with the usual
    cluster setting OMP_NUM_THREADS=1 (BLAS pinned by the user, Numba still sized by init()),
    and plain mpirun with every pool pinned to all cores (what plain mpirun gave before
    init() sized the pools)."""
    from minispore.communication.threads import host_cores
    cores = host_cores()
    ways = [("python -m minispore.run -n %d" % k, dict(launcher="minispore.run")),
            ("mpirun -n %d (threads from init())" % k, dict(launcher="mpirun")),
            ("mpirun -n %d, OMP_NUM_THREADS=1 (Numba threads from init())" % k,
             dict(launcher="mpirun", user_env={"OMP_NUM_THREADS": "1"})),
            ("mpirun -n %d, NUMBA/OMP/BLAS threads = %d" % (k, cores),
             dict(launcher="mpirun", threads=cores))]
    t = Table(f"Launching the semi-auto tutorial net on {k} ranks ({cores} cores), best of "
              f"{rounds}", ["launch", "ms / step", "first step (s)"])
    best = {}
    for _ in range(rounds):
        for name, how in ways:
            r = _launch(k, timeout, **how)
            best[name] = min(best.get(name, (r["step_s"], r["first_s"])),
                             (r["step_s"], r["first_s"]))
    for name, _ in ways:
        t.add(name, best[name][0] * 1e3, best[name][1])
    return t


def main(argv):
    if "--job" not in argv:
        print(semi_auto_table().markdown())
        print(launch_table().markdown())
        return
    rank, figures = measure()
    if rank == 0:
        print(MARK + json.dumps(figures), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
