"""Where one training step of `make bench`'s networks spends its time: the step's median, each
operator's kernel time per step (ms.Profiler spans), what is left for Python and dispatch, and,
for the MLP, its eight GEMM shapes through minispore's MatMul kernel against torch.mm (the
part of the step neither framework's Python can change).

Usage: python tools/profile_step.py --net mlp|lenet --batch 32 --mode graph|pynative
"""
import argparse
import os
import statistics
import sys
import time
from collections import defaultdict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
import minispore as ms  # noqa: E402
from minispore.common import profiling  # noqa: E402

import bench  # noqa: E402


def step_profile(net, batch, mode, steps=200):
    """(median step seconds, {operator: kernel seconds per step}, {operator: calls per step})."""
    shape = (1, 28, 28) if net == "mlp" else (1, 32, 32)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((batch,) + shape).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, batch).astype(np.int32))
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    step = bench.ms_step(bench.MLP() if net == "mlp" else bench.LeNet5())
    for _ in range(20):
        step(x, y)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step(x, y)
        times.append(time.perf_counter() - t0)
    recorder = profiling.Recorder()
    profiling.start(recorder)
    try:
        for _ in range(steps):
            step(x, y)
    finally:
        profiling.stop()
    seconds, calls = defaultdict(float), defaultdict(int)
    for name, _category, _start, duration, *_ in recorder.spans:
        seconds[name] += duration * 1e-9 / steps
        calls[name] += 1
    return statistics.median(times), dict(seconds), {k: v // steps for k, v in calls.items()}


def mlp_gemms(batch):
    """[(shape of op(a), of op(b), minispore MatMul kernel us, torch.mm us)] for the MLP step's
    eight GEMMs as its MatMuls run them (Dense: y = x @ W.T; dX = dY @ W; dW = dY.T @ x; the
    first layer has no dX), hot operands, each library with its own threads."""
    from minispore.ops.kernel_registry import kernel
    import timeit
    try:
        import torch
    except ImportError:
        torch = None
    gemms = []      # (a's shape, b's shape, transpose_a, transpose_b)
    dims = (784, 512, 512, 10)
    for n_in, n_out in zip(dims[:-1], dims[1:]):
        gemms.append(((batch, n_in), (n_out, n_in), False, True))
    for layer, (n_in, n_out) in reversed(list(enumerate(zip(dims[:-1], dims[1:])))):
        gemms.append(((batch, n_out), (batch, n_in), True, False))
        if layer:
            gemms.append(((batch, n_out), (n_out, n_in), False, False))
    matmul = kernel("matmul", "matmul_into")
    rows = []
    for sa, sb, ta, tb in gemms:
        a = np.random.rand(*sa).astype(np.float32)
        b = np.random.rand(*sb).astype(np.float32)
        m, n = sa[1] if ta else sa[0], sb[0] if tb else sb[1]
        out = np.empty((m, n), np.float32)
        ours = min(timeit.repeat(lambda: matmul(a, b, ta, tb, out), number=100,
                                 repeat=5)) / 100
        theirs = None
        if torch is not None:
            ta_, tb_ = torch.from_numpy(a), torch.from_numpy(b)
            ta_, tb_ = (ta_.t() if ta else ta_), (tb_.t() if tb else tb_)
            theirs = min(timeit.repeat(lambda: torch.mm(ta_, tb_), number=100,
                                       repeat=5)) / 100
        shown_a = sa[::-1] if ta else sa
        shown_b = sb[::-1] if tb else sb
        rows.append((shown_a, shown_b, ours * 1e6, None if theirs is None else theirs * 1e6))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", choices=("mlp", "lenet"), default="mlp")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--mode", choices=("graph", "pynative"), default="graph")
    args = parser.parse_args()
    median, seconds, calls = step_profile(args.net, args.batch, args.mode)
    kernels = sum(seconds.values())
    print(f"{args.net} batch {args.batch} {args.mode}: step {median * 1e3:.3f} ms, kernels "
          f"{kernels * 1e3:.3f} ms, the rest (Python, dispatch) {(median - kernels) * 1e3:.3f} ms")
    for name, s in sorted(seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {name:32s} {s * 1e6:9.1f} us  x{calls[name]}")
    if args.net == "mlp":
        print("GEMMs of the step, hot operands (us): op(a) @ op(b), minispore MatMul, torch.mm")
        total = [0.0, 0.0]
        for sa, sb, ours, theirs in mlp_gemms(args.batch):
            total[0] += ours
            total[1] += theirs or 0.0
            shown = "-" if theirs is None else f"{theirs:.1f}"
            print(f"  {str(sa):>11} @ {str(sb):<11} {ours:9.1f} {shown:>9}")
        print(f"  {'total':25s} {total[0]:9.1f} {total[1]:9.1f}")


if __name__ == "__main__":
    main()
