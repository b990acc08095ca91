"""Communication benchmarks for `make bench`: collective latency/bandwidth through minispore's
primitives vs raw mpi4py on the same communicator (this part), and the data-parallel training
throughput (added by the data-parallel work).

Usage: mpirun -n 2 python tools/bench_comm.py        (prints the tables on rank 0)
From bench.py: ``collective_latency_tables(n=2)`` spawns that job and returns the markdown.

Every rank runs the same fixed number of calls per size (adaptive repetition counts would let
the ranks disagree and deadlock); rounds alternate raw and primitive so drift hits both alike.
"""
import os
import statistics
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, timed_after_barrier  # noqa: E402

SIZES = (4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20)


def _reps(nbytes):
    """Calls per timed round: ~20 ms of traffic at ~6 GB/s, at least 3, at most 500."""
    return int(min(500, max(3, 20e-3 * 6e9 / nbytes / 4)))


def collective_latency(sizes=SIZES, rounds=5):
    """Under MPI: rows (collective, bytes, raw µs, raw-fresh µs, minispore µs, ratio, GB/s) for
    AllReduce(SUM) and AllGather on float32 buffers of each size. raw = the same mpi4py
    upper-case call on the same communicator into a preallocated buffer; raw-fresh = into a new
    buffer each call. Between 1 and 32 MB a fresh buffer costs page faults (glibc serves it
    with mmap) unless the ranks run with MALLOC_MMAP_THRESHOLD_ raised. The same on every
    rank; print on rank 0."""
    from minispore import Tensor, ops
    from minispore.communication import _comm, init

    init()
    world = _comm.STATE.world.comm
    MPI = _comm.mpi()
    k = world.Get_size()
    allreduce, allgather = ops.AllReduce(), ops.AllGather()
    rows = []
    for nbytes in sizes:
        x = np.full(nbytes // 4, 1.0, np.float32)
        t = Tensor(x)
        out_r = np.empty_like(x)
        out_g = np.empty(k * x.size, np.float32)
        # "fresh": raw mpi4py into a newly allocated output, as a primitive must return one.
        cases = {
            "AllReduce": (lambda: world.Allreduce(x, out_r, MPI.SUM),
                          lambda: world.Allreduce(x, np.empty_like(x), MPI.SUM),
                          lambda: allreduce(t)),
            "AllGather": (lambda: world.Allgather(x, out_g),
                          lambda: world.Allgather(x, np.empty_like(out_g)),
                          lambda: allgather(t)),
        }
        for name, fns in cases.items():
            reps = _reps(nbytes * (k if name == "AllGather" else 1))
            samples = [[] for _ in fns]
            for fn in fns:
                fn()
            for _ in range(rounds):
                for fn, got in zip(fns, samples):
                    got.append(timed_after_barrier(fn, reps, world.Barrier))
            raw_s, fresh_s, ms_s = (statistics.median(v) for v in samples)
            # Bus bandwidth as nccl-tests define it: what each rank moves per second.
            factor = 2 * (k - 1) / k if name == "AllReduce" else (k - 1) / k * k
            rows.append((name, nbytes, raw_s * 1e6, fresh_s * 1e6, ms_s * 1e6, ms_s / raw_s,
                         factor * nbytes / ms_s / 1e9))
    return rows


def _label(nbytes):
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"


def latency_table(rows, k):
    t = Table(f"Collectives on {k} ranks: minispore primitive vs raw mpi4py (float32, "
              f"goal ratio <= 1.1)",
              ["collective", "size", "raw µs", "raw, fresh output µs", "minispore µs",
               "ratio", "bus GB/s"])
    for name, nbytes, raw_us, fresh_us, ms_us, ratio, gbs in rows:
        t.add(name, _label(nbytes), raw_us, fresh_us, ms_us, f"{ratio:.2f}", gbs)
    return t


def collective_latency_tables(n=2, sizes=SIZES, timeout=300):
    """Run this file on n ranks through ``python -m minispore.run`` (so the ranks get the
    launcher's thread and malloc settings, as users' jobs do) and return rank 0's tables."""
    cmd = [sys.executable, "-m", "minispore.run", "-n", str(n), os.path.abspath(__file__),
           "--markdown", "--sizes", ",".join(str(s) for s in sizes)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout.split("<!-- markdown -->\n", 1)[-1]


def main(argv):
    sizes = SIZES
    if "--sizes" in argv:
        sizes = tuple(int(s) for s in argv[argv.index("--sizes") + 1].split(","))
    from minispore.communication import get_group_size, get_rank
    rows = collective_latency(sizes)
    if get_rank() == 0:
        table = latency_table(rows, get_group_size())
        if "--markdown" in argv:
            print("<!-- markdown -->\n" + table.markdown(), end="", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
