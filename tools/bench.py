"""`make bench`: kernel and training-step speed vs numpy (and PyTorch when installed), kept in
BENCHMARKS.md. Medians of interleaved rounds; ratios within one run are what to read."""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Table, compare  # noqa: E402

import minispore as ms  # noqa: E402
from minispore import Tensor, nn, ops  # noqa: E402
from minispore.ops.kernel_registry import kernel  # noqa: E402

try:
    import torch
    torch.set_num_threads(os.cpu_count() or 1)
except ImportError:
    torch = None

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def bench_gemm(sizes):
    t = Table("GEMM fp32 (GFLOP/s)", ["n", "minispore kernel", "numpy", "ratio", "torch"])
    mm = kernel("matmul", "matmul")
    for n in sizes:
        a, b = randn(n, n), randn(n, n)
        cands = {"ms": lambda: mm(a, b, False, False), "np": lambda: a @ b}
        if torch is not None:
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            cands["torch"] = lambda: ta @ tb
        r = compare(cands, rounds=3, min_time=0.1)
        gf = {k: 2 * n ** 3 / v / 1e9 for k, v in r.items()}
        t.add(str(n), gf["ms"], gf["np"], f"{gf['ms'] / gf['np']:.2f}",
              f"{gf['torch']:.3g}" if "torch" in gf else "-")
    return t


def _mlp_gemms(batch):
    """The eight GEMMs of an MLP 784-512-512-10 training step at `batch`: (a, b, ta, tb, out)."""
    shapes = [((batch, 784), (784, 512), False, False), ((batch, 512), (512, 512), False, False),
              ((batch, 512), (512, 10), False, False), ((batch, 512), (batch, 10), True, False),
              ((batch, 10), (512, 10), False, True), ((batch, 512), (batch, 512), True, False),
              ((batch, 512), (512, 512), False, True), ((batch, 784), (batch, 512), True, False)]
    gemms = []
    for sa, sb, ta, tb in shapes:
        m = sa[1] if ta else sa[0]
        n = sb[0] if tb else sb[1]
        gemms.append((randn(*sa), randn(*sb), ta, tb, np.empty((m, n), np.float32)))
    return gemms


def bench_gemm_libraries(batches=(32, 256)):
    """The MLP step's eight GEMMs on one thread through each BLAS in the process: Numba's np.dot
    (scipy's bundled OpenBLAS, what the MatMul kernel called before kernels/cpu/blas.py), the
    MatMul kernel (numpy's bundled OpenBLAS by address) and numpy's matmul (the same library)."""
    from numba import njit
    from threadpoolctl import threadpool_limits

    @njit
    def numba_dot(a, b, out):
        np.dot(a, b, out)

    mm = kernel("matmul", "matmul_into")
    t = Table("The eight GEMMs of an MLP 784-512-512-10 training step, 1 thread (us, lower is "
              "better)", ["batch", "Numba np.dot (scipy's OpenBLAS)", "MatMul kernel (numpy's "
                          "OpenBLAS)", "numpy matmul", "kernel / np.dot"])
    for batch in batches:
        gemms = _mlp_gemms(batch)
        # np.dot in Numba wants C or F operands: pass the transposes as F views, as it did.
        views = [(a.T if ta else a, b.T if tb else b, out) for a, b, ta, tb, out in gemms]

        def run_dot():
            for a, b, out in views:
                numba_dot(a, b, out)

        def run_kernel():
            for a, b, ta, tb, out in gemms:
                mm(a, b, ta, tb, out)

        def run_numpy():
            for a, b, out in views:
                np.matmul(a, b, out=out)
        with threadpool_limits(limits=1, user_api="blas"):
            r = compare({"dot": run_dot, "kernel": run_kernel, "numpy": run_numpy}, rounds=7,
                        min_time=0.1)
        t.add(str(batch), r["dot"] * 1e6, r["kernel"] * 1e6, r["numpy"] * 1e6,
              f"{r['kernel'] / r['dot']:.2f}")
    return t


def bench_ops():
    """Single operators through the public API (dispatch included) vs the best numpy form."""
    t = Table("Operators, eager, µs per call (lower is better)",
              ["operator", "shape", "minispore", "numpy", "ms/np", "torch"])

    def row(name, shape, ms_fn, np_fn, torch_fn=None):
        cands = {"ms": ms_fn, "np": np_fn}
        if torch_fn is not None and torch is not None:
            cands["torch"] = torch_fn
        r = compare(cands, rounds=5, min_time=0.03)
        t.add(name, shape, r["ms"] * 1e6, r["np"] * 1e6, f"{r['ms'] / r['np']:.2f}",
              f"{r['torch'] * 1e6:.3g}" if "torch" in r else "-")

    # conv2d, LeNet's second layer at batch 32: (32, 6, 14, 14) * (16, 6, 5, 5)
    x, w = randn(32, 6, 14, 14), randn(16, 6, 5, 5)
    conv = ops.Conv2D(16, 5)
    xt, wt = Tensor(x), Tensor(w)

    def np_conv():
        cols = np.lib.stride_tricks.sliding_window_view(x, (5, 5), axis=(2, 3))
        return np.einsum("nchwij,ocij->nohw", cols, w, optimize=True)

    tx = torch.from_numpy(x) if torch else None
    tw = torch.from_numpy(w) if torch else None
    row("Conv2D 6->16 k5", "32x6x14x14", lambda: conv(xt, wt), np_conv,
        (lambda: torch.nn.functional.conv2d(tx, tw)) if torch else None)

    # fused bias + relu on an MLP hidden layer
    h, b = randn(256, 512), randn(512)
    ht, bt = Tensor(h), Tensor(b)
    fused = getattr(ops, "bias_add_relu", None)
    if fused is not None:
        row("bias_add+relu (fused)", "256x512", lambda: fused(ht, bt),
            lambda: np.maximum(h + b, 0),
            (lambda: torch.relu(torch.from_numpy(h) + torch.from_numpy(b))) if torch else None)
    row("bias_add then relu (2 ops)", "256x512", lambda: ops.relu(ops.bias_add(ht, bt)),
        lambda: np.maximum(h + b, 0))

    # softmax cross-entropy, fused loss + gradient
    logits, labels = randn(256, 10), RNG.integers(0, 10, 256).astype(np.int32)
    lt, yt = Tensor(logits), Tensor(labels)
    sce = ops.SparseSoftmaxCrossEntropyWithLogits()

    def np_sce():
        z = logits - logits.max(1, keepdims=True)
        lse = np.log(np.exp(z).sum(1))
        return (lse - z[np.arange(256), labels]).mean()

    row("SparseSoftmaxCE", "256x10", lambda: sce(lt, yt), np_sce,
        (lambda: torch.nn.functional.cross_entropy(torch.from_numpy(logits),
                                                   torch.from_numpy(labels).long()))
        if torch else None)

    # gather and its scatter-add backward (embedding-style)
    table, idx = randn(50000, 128), RNG.integers(0, 50000, 4096).astype(np.int32)
    tt, it = Tensor(table), Tensor(idx)
    gather = ops.Gather()
    row("Gather rows", "50000x128[4096]", lambda: gather(tt, it, 0), lambda: table[idx],
        (lambda: torch.from_numpy(table)[torch.from_numpy(idx).long()]) if torch else None)
    # Gather's backward: UnsortedSegmentSum's kernel zeroes the table then scatter-adds rows;
    # numpy and torch do the same two steps.
    dout = randn(4096, 128)
    scatter = kernel("indexing", "unsorted_segment_sum")
    acc = np.empty_like(table)

    def np_scatter():
        acc[...] = 0
        np.add.at(acc, idx, dout)

    tdout, tidx = (torch.from_numpy(dout), torch.from_numpy(idx).long()) if torch else (None,) * 2
    row("scatter-add rows (Gather bprop)", "4096x128->50000",
        lambda: scatter(dout.reshape(1, 4096, 128), idx, acc.reshape(1, 50000, 128)),
        np_scatter,
        (lambda: torch.zeros(50000, 128).index_add_(0, tidx, tdout)) if torch else None)
    return t


def bench_dispatch():
    """Eager dispatch of one small add (tools/bench_dispatch.py): ops.add and Tensor + Tensor
    against the kernel, numpy and torch (or the reason torch is left out)."""
    import bench_dispatch as dispatch
    return dispatch.dispatch_table()


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(784, 512, activation="relu")
        self.fc2 = nn.Dense(512, 512, activation="relu")
        self.fc3 = nn.Dense(512, 10)

    def construct(self, x):
        return self.fc3(self.fc2(self.fc1(self.flatten(x))))


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(400, 120, activation="relu")
        self.fc2 = nn.Dense(120, 84, activation="relu")
        self.fc3 = nn.Dense(84, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc3(self.fc2(self.fc1(self.flatten(x))))


def torch_mlp():
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 10))


def torch_lenet():
    return torch.nn.Sequential(torch.nn.Conv2d(1, 6, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Flatten(), torch.nn.Linear(400, 120), torch.nn.ReLU(),
                               torch.nn.Linear(120, 84), torch.nn.ReLU(),
                               torch.nn.Linear(84, 10))


def ms_step(net):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def torch_step_fn(model, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = lossf(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def _in_mode(mode, step):
    def call(*args):
        ms.set_context(mode=mode)
        return step(*args)
    return call


def _compile_with(env, call, *args):
    """The first call (which compiles the graph) with the environment variables `env` set: the
    passes read MINISPORE_FUSION and MINISPORE_MEMORY_PLAN when a graph is compiled, so later
    calls run the graph compiled that way."""
    os.environ.update(env)
    try:
        call(*args)
    finally:
        for name in env:
            del os.environ[name]


def bench_training():
    """PYNATIVE, GRAPH (fused, unfused) and torch eager steps, interleaved in one run; and what
    compiling each graph cost (trace + passes + codegen; the first step adds kernel JIT or
    cache loads)."""
    t = Table("Training step, PYNATIVE and GRAPH vs torch eager (ms, lower is better)",
              ["net", "batch", "PYNATIVE", "GRAPH", "GRAPH unfused", "torch eager",
               "PYNATIVE/torch", "GRAPH/torch", "fused/unfused"])
    compiled = []
    for name, ms_net, th_net, in_shape in (("MLP 784-512-512-10", MLP, torch_mlp, (1, 28, 28)),
                                           ("LeNet-5", LeNet5, torch_lenet, (1, 32, 32))):
        for batch in (32, 256):
            x = randn(batch, *in_shape)
            y = RNG.integers(0, 10, batch).astype(np.int32)
            xt, yt = Tensor(x), Tensor(y)
            cells = {k: ms_step(ms_net()) for k in ("py", "graph", "unfused")}
            steps = {"py": _in_mode(ms.PYNATIVE_MODE, cells["py"]),
                     "graph": _in_mode(ms.GRAPH_MODE, cells["graph"]),
                     "unfused": _in_mode(ms.GRAPH_MODE, cells["unfused"])}
            _compile_with({"MINISPORE_FUSION": "0"}, steps["unfused"], xt, yt)
            t0 = time.perf_counter()
            steps["graph"](xt, yt)
            first = time.perf_counter() - t0
            cache = cells["graph"]._graph_cache
            compiled.append((name, str(batch), cache.compile_seconds, first,
                             str(_graph_nodes(cells["unfused"]._graph_cache)),
                             str(_graph_nodes(cache))))
            cands = {k: (lambda f=f: f(xt, yt)) for k, f in steps.items()}
            if torch is not None:
                cands["torch"] = torch_step_fn(th_net(), torch.from_numpy(x),
                                               torch.from_numpy(y).long())
            r = compare(cands, rounds=5, min_time=0.2)
            ms.set_context(mode=ms.PYNATIVE_MODE)
            has_torch = "torch" in r
            t.add(name, str(batch), r["py"] * 1e3, r["graph"] * 1e3, r["unfused"] * 1e3,
                  f"{r['torch'] * 1e3:.3g}" if has_torch else "-",
                  f"{r['py'] / r['torch']:.2f}" if has_torch else "-",
                  f"{r['graph'] / r['torch']:.2f}" if has_torch else "-",
                  f"{r['graph'] / r['unfused']:.2f}")
    c = Table("GRAPH compile of each training graph",
              ["net", "batch", "compile (s)", "first step (s)", "nodes unfused", "nodes fused"])
    for row in compiled:
        c.add(*row)
    return [t, c]


def _without_label_check(step):
    """`step` with its loss's label range check replaced by a pass-through: what the step cost
    before the check existed (in GRAPH mode the graph then has no check node)."""
    step.network._loss_fn.check_labels = lambda labels, num_classes: labels
    return step


def bench_label_check():
    """What the label range check of the sparse loss adds to the MLP training step."""
    t = Table("Label range check in SoftmaxCrossEntropyWithLogits(sparse=True): MLP "
              "784-512-512-10 step (ms)",
              ["mode", "batch", "with check", "without", "cost (%)"])
    for mode, mode_name in ((ms.PYNATIVE_MODE, "PYNATIVE"), (ms.GRAPH_MODE, "GRAPH")):
        for batch in (32, 256):
            xt = Tensor(randn(batch, 1, 28, 28))
            yt = Tensor(RNG.integers(0, 10, batch).astype(np.int32))
            steps = {"with": _in_mode(mode, ms_step(MLP())),
                     "without": _in_mode(mode, _without_label_check(ms_step(MLP())))}
            r = compare({k: (lambda f=f: f(xt, yt)) for k, f in steps.items()}, rounds=7,
                        min_time=0.2)
            ms.set_context(mode=ms.PYNATIVE_MODE)
            t.add(mode_name, str(batch), r["with"] * 1e3, r["without"] * 1e3,
                  f"{(r['with'] / r['without'] - 1) * 100:+.1f}")
    return t


def _graph_nodes(cache):
    return next(iter(cache.entries.values())).n_nodes


def bench_compile_sweep():
    """Compiles for one MLP training run over 32 batch sizes (8, 16, ..., 256): with set_inputs
    and a Symbol batch dim (one graph serves all), and without (one graph per shape)."""
    t = Table("GRAPH compile count, MLP training over 32 batch sizes (8..256)",
              ["inputs", "compiles", "cache hits", "sweep (s)"])
    sizes = range(8, 257, 8)
    for label, dynamic in (("set_inputs(Symbol(divisor=8))", True), ("concrete shapes", False)):
        ms.set_context(mode=ms.GRAPH_MODE)
        step = ms_step(MLP())
        if dynamic:
            s0 = ms.Symbol(divisor=8)
            step.set_inputs(Tensor(shape=[s0, 1, 28, 28], dtype=ms.float32),
                            Tensor(shape=[s0], dtype=ms.int32))
        t0 = time.perf_counter()
        for b in sizes:
            step(Tensor(randn(b, 1, 28, 28)), Tensor(RNG.integers(0, 10, b).astype(np.int32)))
        info = step.compile_cache_info()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        t.add(label, str(info["compiles"]), str(info["hits"]), time.perf_counter() - t0)
    return t


_FIRST_STEP = r"""
import time; t0 = time.perf_counter()
import numpy as np, minispore as ms
from minispore import nn, Tensor
t1 = time.perf_counter()
net = nn.SequentialCell([nn.Flatten(), nn.Dense(784, 64, activation='relu'), nn.Dense(64, 10)])
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
       reduction='mean')), nn.Momentum(net.trainable_params(), 0.01, 0.9))
step(Tensor(np.zeros((8, 1, 28, 28), np.float32)), Tensor(np.zeros(8, np.int32)))
print(t1 - t0, time.perf_counter() - t0)
"""


def bench_startup():
    t = Table("Start-up: import and first MLP training step (s)",
              ["numba cache", "import", "import + first step"])
    with tempfile.TemporaryDirectory() as cold_dir:
        for label, cache in (("cold (empty cache)", cold_dir), ("warm (cache filled)", cold_dir)):
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            out = subprocess.run([sys.executable, "-c", _FIRST_STEP], env=env, check=True,
                                 capture_output=True, text=True).stdout.split()
            t.add(label, float(out[0]), float(out[1]))
    return t


_GRAPH_FIRST_STEPS = r"""
import sys, time
import numpy as np, minispore as ms
from minispore import Tensor
sys.path.insert(0, "tools")
from bench import LeNet5, MLP, ms_step
ms.set_context(mode=ms.GRAPH_MODE)
for net, shape in ((MLP, (32, 1, 28, 28)), (LeNet5, (32, 1, 32, 32))):
    step = ms_step(net())
    t0 = time.perf_counter()
    step(Tensor(np.zeros(shape, np.float32)), Tensor(np.zeros(32, np.int32)))
    print(time.perf_counter() - t0)
"""


def bench_fusion_compile():
    """First GRAPH training step (trace, compile, kernels JIT-compiled or loaded) of the MLP and
    LeNet in a fresh process: fused kernels cold (new kernel folder), warm (same folder again),
    and fusion off; the operator kernels' Numba cache is warm in all three."""
    t = Table("GRAPH first training step in a fresh process, batch 32 (s)",
              ["fused kernels", "MLP", "LeNet-5"])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as fused_dir:
        for label, extra in (("cold (new chain files)", {"MINISPORE_FUSED_DIR": fused_dir}),
                             ("warm (cached)", {"MINISPORE_FUSED_DIR": fused_dir}),
                             ("fusion off", {"MINISPORE_FUSION": "0"})):
            env = dict(os.environ, **extra)
            out = subprocess.run([sys.executable, "-c", _GRAPH_FIRST_STEPS], env=env,
                                 check=True, capture_output=True, text=True, cwd=root)
            t.add(label, *(float(v) for v in out.stdout.split()))
    return t


def bench_memory_plan():
    """Intermediate arrays allocated per steady-state GRAPH training step without and with the
    static memory plan (minispore/graph/arena.py; the executor's accounting counts them), the
    plan's buffers, and the step time of both, interleaved."""
    from minispore.graph.memory import track_memory
    t = Table("GRAPH training step: intermediate allocations per steady-state step without and "
              "with the static memory plan (MINISPORE_MEMORY_PLAN=0 / default), the plan's "
              "buffers, step time (ms)",
              ["net", "batch", "allocations off", "MiB off", "allocations on", "MiB on",
               "planned nodes", "buffers", "buffers MiB", "step off", "step on", "on/off"])
    for name, ms_net, in_shape in (("MLP 784-512-512-10", MLP, (1, 28, 28)),
                                   ("LeNet-5", LeNet5, (1, 32, 32))):
        for batch in (32, 256):
            x = Tensor(randn(batch, *in_shape))
            y = Tensor(RNG.integers(0, 10, batch).astype(np.int32))
            cells, steps, reports = {}, {}, {}
            for key in ("off", "on"):
                cells[key] = ms_step(ms_net())
                steps[key] = _in_mode(ms.GRAPH_MODE, cells[key])
                _compile_with({"MINISPORE_MEMORY_PLAN": "1" if key == "on" else "0"},
                              steps[key], x, y)
                with track_memory() as tracker:
                    steps[key](x, y)
                reports[key] = tracker
            r = compare({k: (lambda f=f: f(x, y)) for k, f in steps.items()}, rounds=5,
                        min_time=0.2)
            ms.set_context(mode=ms.PYNATIVE_MODE)
            plan = list(cells["on"]._graph_cache.entries.values())[0].plan
            t.add(name, str(batch), reports["off"].allocations,
                  f"{reports['off'].allocated_bytes / 2**20:.3g}", reports["on"].allocations,
                  f"{reports['on'].allocated_bytes / 2**20:.3g}",
                  f"{len(plan.planned_nodes)}", str(plan.n_slots),
                  f"{plan.nbytes() / 2**20:.3g}", r["off"] * 1e3, r["on"] * 1e3,
                  f"{r['on'] / r['off']:.2f}")
    return t


def bench_dataset():
    import bench_dataset
    t = Table("Dataset pipeline (tutorial map chain, batch 32)", ["images/s (median of 3)"])
    rates = sorted(bench_dataset.measure_throughput(num_images=20000) for _ in range(3))
    t.add(rates[1])
    return t


def bench_vmap():
    import bench_vmap
    return bench_vmap.table()


def bench_recompute():
    """Peak memory (the executor's accounting; tracemalloc in PYNATIVE) and step time of
    training steps with and without recompute, and the peak RSS and arena of a wide MLP's step
    in a process of its own (tools/bench_recompute.py)."""
    import bench_recompute
    return [bench_recompute.recompute_table(), bench_recompute.rss_table()]


def bench_parallel(quick=False):
    """Multi-process tables, each measured by MPI jobs run as subprocesses: collective latency
    vs raw mpi4py (tools/bench_comm.py), data-parallel throughput (tools/bench_dp.py), the
    semi-auto-parallel tutorial network (tools/bench_semi_auto.py), sharding propagation and
    the strategy searches (tools/bench_propagation.py), a PYNATIVE shard region
    (tools/bench_shard.py), the collective watchdog's cost (tools/bench_watchdog.py),
    pipeline parallel's step time and bubble (tools/bench_pipeline.py), optimizer
    parallel's bytes per rank (tools/bench_optimizer_parallel.py), communication fusion
    and subgraph reuse in compiled steps (tools/bench_comm_graph.py), the overlap of
    gradient all-reduces with the backward (tools/bench_overlap.py), the parameter server
    against data parallel (tools/bench_ps.py) and data parallel across two namespace hosts on
    a clean and an impaired link (tools/bench_multihost.py; needs root)."""
    import types

    import bench_comm
    import bench_comm_graph
    import bench_dp
    import bench_multihost
    import bench_optimizer_parallel
    import bench_overlap
    import bench_pipeline
    import bench_propagation
    import bench_ps
    import bench_semi_auto
    import bench_shard
    import bench_watchdog
    sizes = (4 << 10, 1 << 20) if quick else bench_comm.SIZES
    latency = bench_comm.collective_latency_tables(n=2, sizes=sizes)
    print(latency, flush=True)
    return [types.SimpleNamespace(markdown=lambda: latency), bench_dp.dp_throughput_table(),
            bench_semi_auto.semi_auto_table(), bench_semi_auto.launch_table(),
            *bench_propagation.propagation_tables(), bench_shard.shard_table(),
            bench_watchdog.watchdog_table(), bench_pipeline.pipeline_table(),
            bench_optimizer_parallel.optimizer_parallel_table(),
            *bench_comm_graph.comm_graph_tables(), bench_overlap.overlap_table(),
            bench_ps.ps_table(), bench_multihost.multihost_table()]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--output", default="BENCHMARKS.md")
    args = parser.parse_args()
    started = time.time()
    # The training steps first: after bench_gemm's 2048 x 2048 products (numpy, the kernel and
    # torch), the same process ran the GRAPH MLP step at 3.4-3.7 ms instead of 1.5 ms for the
    # rest of its life (LeNet unaffected; a settle pause between rounds did not help; cause not
    # found). The tables keep their order in BENCHMARKS.md.
    training = [*bench_training(), bench_memory_plan(), bench_label_check(),
                bench_compile_sweep()]
    tables = [bench_gemm((256, 512) if args.quick else (256, 1024, 2048)),
              bench_gemm_libraries(), bench_ops(), bench_dispatch(), *training]
    if not args.quick:
        tables += [bench_startup(), bench_fusion_compile()]
    tables.append(bench_dataset())
    tables.append(bench_vmap())
    tables.extend(bench_recompute())
    tables.extend(bench_parallel(args.quick))
    header = (f"# Benchmarks\n\nWritten by `make bench` ({datetime.date.today()}, "
              f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"numpy {np.__version__}, torch {torch.__version__ if torch else 'not installed'},"
              f" {time.time() - started:.0f} s). Medians of interleaved rounds; absolute "
              f"figures drift 20-30 % on a shared machine, ratios within one run hold.\n\n")
    # The GPU section belongs to `make bench-gpu` (tools/bench_gpu.py): keep it.
    gpu_section = "## GPU (make bench-gpu)"
    kept = ""
    if os.path.exists(args.output):
        old = open(args.output).read()
        if gpu_section in old:
            kept = "\n" + gpu_section + old.split(gpu_section, 1)[1]
    with open(args.output, "w") as f:
        f.write(header + "\n".join(t.markdown() for t in tables) + kept)
    print(f"\nwrote {args.output}")


if __name__ == "__main__":
    main()
