"""`make bench-gpu`: the CUDA kernels and device_target='GPU' training on a real GPU.

Three tables, written into the "## GPU" section of BENCHMARKS.md (the rest of the file is
`make bench`'s and stays as it is):
- GEMM GFLOP/s against cuBLAS (through CuPy or PyTorch, whichever imports);
- each memory-bound kernel's achieved bandwidth against the card's device-to-device copy
  bandwidth measured in the same run;
- MLP and LeNet training-step times, PYNATIVE and GRAPH with device_target='GPU', against
  PyTorch CUDA eager.

Needs a CUDA GPU with numba-cuda installed (`pip install -e '.[cuda]'`); under the simulator
(NUMBA_ENABLE_CUDASIM=1) or without a device it says so and exits 0 without timing anything,
since simulated timings mean nothing. `--smoke` runs every table on tiny sizes under the
simulator (NUMBA_ENABLE_CUDASIM=1) to check the script itself; it prints, never writes.
Kernel times are CUDA-event medians over repeated launches on preallocated operands (no
allocation or transfer inside the timed region); training steps are wall-clock medians of
interleaved rounds, each step followed by a device synchronise.
"""
import argparse
import datetime
import os
import statistics
import sys
import time

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.dirname(TOOLS))

NEEDS_GPU = ("bench-gpu needs a CUDA GPU: {why}. Run it on a machine with an NVIDIA GPU and "
             "numba-cuda installed (make install adds the 'cuda' extra), with "
             "NUMBA_ENABLE_CUDASIM unset; `--smoke` checks the script on the simulator.")
SECTION = "## GPU (make bench-gpu)"


def _simulated():
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def _gpu_or_reason():
    if _simulated():
        return "NUMBA_ENABLE_CUDASIM is set (simulated kernels cannot be timed)"
    try:
        from numba import cuda
    except ImportError as exc:
        return f"numba.cuda does not import ({exc})"
    if not cuda.is_available():
        return "numba.cuda.is_available() is False (no device or driver)"
    return None


def event_time(fn, reps, inner=5):
    """Median milliseconds per fn() call: `inner` back-to-back calls between two CUDA events on
    the legacy default stream (which numba, CuPy and PyTorch all launch on by default), so the
    queue stays full and host launch overhead hides behind the previous kernel. On the
    simulator (--smoke) one wall-clock call."""
    from numba import cuda
    fn()
    cuda.synchronize()
    if _simulated():
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3
    times = []
    for _ in range(reps):
        start, stop = cuda.event(), cuda.event()
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / inner)
    return statistics.median(times)


def cublas_candidates(n):
    """{name: fn} for the cuBLAS paths that import here, on fresh n x n operands."""
    out = {}
    try:
        import cupy
        a, b = cupy.random.rand(n, n, dtype=cupy.float32), cupy.random.rand(n, n,
                                                                             dtype=cupy.float32)
        c = cupy.empty((n, n), dtype=cupy.float32)
        out["cupy"] = lambda: cupy.matmul(a, b, out=c)
    except ImportError:
        pass
    torch = _torch_cuda()
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False   # fp32 against fp32, not TF32
        ta, tb = torch.rand(n, n, device="cuda"), torch.rand(n, n, device="cuda")
        tc = torch.empty(n, n, device="cuda")
        out["torch"] = lambda: torch.matmul(ta, tb, out=tc)
    return out


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def bench_gemm(sizes, reps):
    from benchlib import Table
    from numba import cuda

    from minispore.kernels.cuda.matmul import gemm3, pick_tile

    t = Table("GEMM fp32 (GFLOP/s)", ["n", "tile", "minispore", "cuBLAS (via)", "ratio"])
    rng = np.random.default_rng(0)
    for n in sizes:
        a = cuda.to_device(rng.random((1, n, n), dtype=np.float32))
        b = cuda.to_device(rng.random((1, n, n), dtype=np.float32))
        c = cuda.device_array((1, n, n), dtype=np.float32)
        flops = 2.0 * n ** 3
        ours = flops / event_time(lambda: gemm3(a, b, c, False, False), reps) / 1e6
        got = c.copy_to_host()[0, :4, :4]
        want = a.copy_to_host()[0, :4] @ b.copy_to_host()[0, :, :4]
        assert np.allclose(got, want, rtol=1e-3), "GEMM result wrong: timings meaningless"
        best = None
        for name, fn in cublas_candidates(n).items():
            g = flops / event_time(fn, reps) / 1e6
            if best is None or g > best[1]:
                best = (name, g)
        t.add(str(n), str(pick_tile(n, n)[:2]), ours,
              f"{best[1]:.0f} ({best[0]})" if best else "n/a (no CuPy/PyTorch)",
              f"{ours / best[1]:.2f}" if best else "n/a")
    return t


def bench_bandwidth(n, reps):
    """Memory-bound kernels on n float32 elements: GB/s from the bytes each must move (read
    once, written once) over its time, and that as a fraction of the device copy."""
    from benchlib import Table
    from numba import cuda

    from minispore.kernels.cuda import activation, array, elementwise, optim, reduce, softmax

    side = int(round(n ** 0.5))
    n = side * side
    rng = np.random.default_rng(0)
    dev = lambda shape, dt=np.float32: cuda.to_device(  # noqa: E731
        rng.standard_normal(shape).astype(dt))
    x, y, out = dev(n), dev(n), cuda.device_array(n, np.float32)
    x3, out3 = x.reshape(side, side, 1), out.reshape(side, side, 1)
    wide = cuda.device_array(n, np.float64)
    bias = dev(side)
    p, m, g = dev(n), dev(n), dev(n)
    v = cuda.to_device(np.abs(rng.standard_normal(n)).astype(np.float32))
    sums = cuda.device_array((side, 1), np.float32)
    shape = np.array([side, side], np.int64)
    f4 = np.float32
    cases = [
        ("copy (device to device)", 8 * n, lambda: out.copy_to_device(x)),
        ("add", 12 * n, lambda: elementwise.add(x, y, out=out)),
        ("relu", 8 * n, lambda: elementwise.relu(x, out=out)),
        ("bias_add (N, C, K)", 8 * n, lambda: activation.bias_add(x3, bias, out3)),
        ("cast f32 -> f64", 12 * n, lambda: array.cast(x, wide)),
        ("transpose (strided copy)", 8 * n,
         lambda: array.strided_copy(x, 0, out, 0, shape, np.array([1, side]),
                                    np.array([side, 1]))),
        ("sum over rows", 4 * n, lambda: reduce.sum_middle(x3, sums)),
        ("softmax over rows", 8 * n, lambda: softmax.softmax(x3, out3)),
        ("adam update", 28 * n, lambda: optim.adam(p, m, v, g, f4(1e-3), f4(0.9), f4(0.999),
                                                   f4(1e-8), f4(0), f4(1), False)),
    ]
    t = Table(f"Memory-bound kernels on {n:.3g} float32 (GB/s)",
              ["kernel", "bytes moved", "ms", "GB/s", "of copy"])
    copy_gbs = None
    for name, nbytes, fn in cases:
        ms = event_time(fn, reps)
        gbs = nbytes / ms / 1e6
        copy_gbs = copy_gbs or gbs
        t.add(name, f"{nbytes / 1e6:.0f} MB", ms, gbs, f"{gbs / copy_gbs:.2f}")
    return t


def _nets(smoke):
    """(name, minispore net class, torch net factory, input shape) per benchmarked net."""
    if smoke:
        # The simulator needs toy nets: the ones the GPU training tests use.
        from tests.gpu.test_training_gpu import MLP as ToyMLP, TinyLeNet
        return (("toy MLP 12-8-3", ToyMLP, None, (12,)),
                ("toy LeNet 1x8x8", TinyLeNet, None, (1, 8, 8)))
    from bench import LeNet5, MLP, torch_lenet, torch_mlp
    return (("MLP 784-512-512-10", MLP, torch_mlp, (1, 28, 28)),
            ("LeNet-5", LeNet5, torch_lenet, (1, 32, 32)))


def bench_training(batches, rounds, smoke=False):
    """Training-step milliseconds: minispore on the GPU (PYNATIVE, GRAPH) vs torch CUDA eager."""
    import minispore as ms
    from bench import ms_step, torch_step_fn
    from benchlib import Table, compare
    from minispore import Tensor

    from numba import cuda

    torch = _torch_cuda()
    t = Table("Training step on the GPU, minispore vs torch CUDA eager (ms, lower is better)",
              ["net", "batch", "PYNATIVE", "GRAPH", "torch", "PYNATIVE/torch", "GRAPH/torch"])
    ms.set_context(device_target="GPU")
    rng = np.random.default_rng(0)
    for name, ms_net, th_net, in_shape in _nets(smoke):
        for batch in batches:
            x = rng.standard_normal((batch,) + in_shape).astype(np.float32)
            y = rng.integers(0, 3, batch).astype(np.int32)
            xt, yt = Tensor(x), Tensor(y)
            steps = {}
            for label, mode in (("py", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
                step = ms_step(ms_net())

                def run(step=step, mode=mode):
                    ms.set_context(mode=mode)
                    step(xt, yt)
                    cuda.synchronize()
                steps[label] = run
            if torch is not None and th_net is not None:
                th_step = torch_step_fn(th_net().cuda(), torch.from_numpy(x).cuda(),
                                        torch.from_numpy(y).long().cuda())

                def run_torch(th_step=th_step):
                    th_step()
                    torch.cuda.synchronize()
                steps["torch"] = run_torch
            r = compare(steps, rounds=rounds, min_time=0.0 if _simulated() else 0.2)
            ms.set_context(mode=ms.PYNATIVE_MODE)
            has = "torch" in r
            t.add(name, str(batch), r["py"] * 1e3, r["graph"] * 1e3,
                  f"{r['torch'] * 1e3:.3g}" if has else "n/a (no torch CUDA)",
                  f"{r['py'] / r['torch']:.2f}" if has else "-",
                  f"{r['graph'] / r['torch']:.2f}" if has else "-")
    return t


def write_section(path, tables, device_name):
    """Replace (or append) the GPU section of BENCHMARKS.md with these tables."""
    text = open(path).read() if os.path.exists(path) else ""
    head = text.split(SECTION)[0].rstrip("\n")
    body = (f"{SECTION}\n\nWritten by `make bench-gpu` ({datetime.date.today()}, {device_name})."
            f"\n\n" + "\n".join(t.markdown() for t in tables))
    with open(path, "w") as f:
        f.write((head + "\n\n" if head else "") + body)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    p.add_argument("--elements", type=int, default=1 << 24, help="bandwidth table size")
    p.add_argument("--batches", type=int, nargs="+", default=[32, 256])
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--output", default=os.path.join(os.path.dirname(TOOLS), "BENCHMARKS.md"))
    p.add_argument("--smoke", action="store_true",
                   help="tiny sizes on the CUDA simulator: checks the script, times nothing")
    args = p.parse_args()
    if args.smoke:
        if not _simulated():
            print("--smoke runs on the simulator: set NUMBA_ENABLE_CUDASIM=1")
            return 2
        from minispore.device import strict_simulator
        strict_simulator.install()   # the smoke run refuses what a real GPU would refuse
        args.sizes, args.elements, args.batches, args.reps = [16], 64, [1], 1
    else:
        why = _gpu_or_reason()
        if why:
            print(NEEDS_GPU.format(why=why))
            return 0
    from numba import cuda
    name = getattr(cuda.get_current_device(), "name", "?")
    name = name.decode() if isinstance(name, bytes) else str(name)
    print(f"device: {name}")
    tables = [bench_gemm(args.sizes, args.reps), bench_bandwidth(args.elements, args.reps),
              bench_training(args.batches, 1 if args.smoke else 5, args.smoke)]
    if not args.smoke:
        write_section(args.output, tables, name)
        print(f"\nwrote the GPU section of {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
