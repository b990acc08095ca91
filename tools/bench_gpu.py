"""`make bench-gpu`: the CUDA GEMM's GFLOP/s against cuBLAS (through CuPy or PyTorch) on a GPU.

Needs a CUDA GPU with numba-cuda installed (`pip install -e '.[cuda]'`); under the simulator
(NUMBA_ENABLE_CUDASIM=1) or without a device it says so and exits 0 without timing anything,
since simulated timings mean nothing. Times are CUDA-event medians over repeated launches on
preallocated operands (no allocation or transfer inside the timed region), the same clock
for every candidate.
"""
import argparse
import os
import statistics
import sys

import numpy as np

NEEDS_GPU = ("bench-gpu needs a CUDA GPU: {why}. Run it on a machine with an NVIDIA GPU and "
             "numba-cuda installed (make install adds the 'cuda' extra), with "
             "NUMBA_ENABLE_CUDASIM unset.")


def _gpu_or_reason():
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
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
    queue stays full and host launch overhead hides behind the previous kernel."""
    from numba import cuda
    fn()
    cuda.synchronize()
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
    try:
        import torch
        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False   # fp32 against fp32, not TF32
            ta, tb = torch.rand(n, n, device="cuda"), torch.rand(n, n, device="cuda")
            tc = torch.empty(n, n, device="cuda")
            out["torch"] = lambda: torch.matmul(ta, tb, out=tc)
    except ImportError:
        pass
    return out


def bench_gemm(sizes, reps):
    from numba import cuda

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from minispore.kernels.cuda.matmul import gemm3, pick_tile

    name = getattr(cuda.get_current_device(), "name", "?")
    print(f"device: {name.decode() if isinstance(name, bytes) else name}")
    print("| n | tile | minispore GFLOP/s | cuBLAS GFLOP/s (via) | ratio |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in sizes:
        a = cuda.to_device(rng.random((1, n, n), dtype=np.float32))
        b = cuda.to_device(rng.random((1, n, n), dtype=np.float32))
        c = cuda.device_array((1, n, n), dtype=np.float32)
        flops = 2.0 * n ** 3
        ms_ours = event_time(lambda: gemm3(a, b, c, False, False), reps)
        ours = flops / ms_ours / 1e6
        got = c.copy_to_host()[0, :4, :4]
        want = a.copy_to_host()[0, :4] @ b.copy_to_host()[0, :, :4]
        assert np.allclose(got, want, rtol=1e-3), "GEMM result wrong: timings meaningless"
        best = None
        for name, fn in cublas_candidates(n).items():
            g = flops / event_time(fn, reps) / 1e6
            if best is None or g > best[1]:
                best = (name, g)
        ref = f"{best[1]:.0f} ({best[0]})" if best else "n/a (no CuPy/PyTorch)"
        ratio = f"{ours / best[1]:.2f}" if best else "n/a"
        print(f"| {n} | {pick_tile(n, n)[:2]} | {ours:.0f} | {ref} | {ratio} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args()
    why = _gpu_or_reason()
    if why:
        print(NEEDS_GPU.format(why=why))
        return 0
    bench_gemm(args.sizes, args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
