"""The cost of the collective watchdog and its default desync check for `make bench`: AllReduce
at 4 KB and 1 MB and the data-parallel MLP step on 2 ranks, with the watch's hot path on and
off in the same job (interleaved rounds, so machine drift hits both alike), beside raw mpi4py,
the rejected alternative (a status word exchanged before every call) and the full check.

Usage: python -m minispore.run -n 2 tools/bench_watchdog.py      (prints rank 0's table)
From bench.py: ``watchdog_table()`` launches that job, and a one-rank run for the hot path's
own cost (``--hot-path``: no second rank spinning in MPI beside the timing), and returns a
Table.

Every rank runs the same fixed number of calls per round and switches the hot path at the
same points (the call numbers of a group stay equal on all ranks).
"""
import ast
import os
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table  # noqa: E402

SIZES = (4 << 10, 1 << 20)
ROUNDS = 11
COLUMNS = ("raw", "off", "on", "status word", "full check")


def _timed(fn, reps, barrier):
    barrier()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def _hot_path_ns():
    """ns per enter + leave pair of the watch, on this rank's world group."""
    from minispore.communication import _comm
    from minispore.communication.watchdog import WATCH
    world = _comm.STATE.world

    def pair():
        WATCH.enter(world, 0, 4096)
        WATCH.leave()

    def nothing():
        pass
    n = 100_000
    return (min(timeit.repeat(pair, number=n, repeat=5)) -
            min(timeit.repeat(nothing, number=n, repeat=5))) / n * 1e9


def allreduce_rows():
    """Under MPI: {size: {column: seconds per call}} for AllReduce(SUM) on float32."""
    from minispore import Tensor, ops
    from minispore.communication import _comm, watchdog
    world = _comm.STATE.world.comm
    side = world.Dup()     # where a status-word exchange would run
    MPI = _comm.mpi()
    allreduce = ops.AllReduce()
    status, status_out = np.zeros(2, np.int64), np.empty(2, np.int64)
    rows = {}
    for nbytes in SIZES:
        x = np.ones(nbytes // 4, np.float32)
        t, out = Tensor(x), np.empty_like(x)
        reps = 2000 if nbytes < 1 << 16 else 100

        def with_status_word():
            side.Allreduce(status, status_out, MPI.MAX)
            allreduce(t)
        cases = {"raw": (lambda: world.Allreduce(x, out, MPI.SUM), True, False),
                 "off": (lambda: allreduce(t), False, False),
                 "on": (lambda: allreduce(t), True, False),
                 "status word": (with_status_word, True, False),
                 "full check": (lambda: allreduce(t), True, True)}
        samples = {name: [] for name in cases}
        for _ in range(ROUNDS):
            for name, (fn, watched, check) in cases.items():
                watchdog.set_hot_path(watched)
                _comm.STATE.check = check
                samples[name].append(_timed(fn, reps, world.Barrier))
        watchdog.set_hot_path(True)
        _comm.STATE.check = False
        rows[nbytes] = {name: statistics.median(v) for name, v in samples.items()}
    side.Free()
    return rows


def dp_step_rows(steps=10):
    """Under MPI: {"off": s, "on": s} per data-parallel MLP step (tools/bench_dp.py's net)."""
    import bench_dp
    from minispore.communication import watchdog
    from minispore.communication.management import get_group_size, get_rank
    step, barrier = bench_dp._minispore_dp_step(get_rank(), get_group_size())
    for _ in range(3):
        step()
    samples = {"off": [], "on": []}
    for _ in range(ROUNDS):
        for name in samples:
            watchdog.set_hot_path(name == "on")
            samples[name].append(_timed(step, steps, barrier))
    watchdog.set_hot_path(True)
    return {name: statistics.median(v) for name, v in samples.items()}




def _label(nbytes):
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"


def overhead_table(rows, dp, hot_ns, load):
    t = Table(f"Collective watchdog and default desync check on 2 ranks (goal: on vs off "
              f"<= 5 %; load average {load:.1f} on {os.cpu_count()} cores while measured, "
              f"so not an idle machine; hot path: {hot_ns:.0f} ns per call)",
              ["workload", "raw mpi4py", "watch off", "watch on (default)", "overhead",
               "status word per call (rejected)", "full check (debug)"])
    for nbytes, r in rows.items():
        t.add(f"AllReduce {_label(nbytes)}, µs", r["raw"] * 1e6, r["off"] * 1e6,
              r["on"] * 1e6, f"{(r['on'] / r['off'] - 1) * 100:+.1f} %",
              f"{r['status word'] * 1e6:.3g} ({(r['status word'] / r['off'] - 1) * 100:+.0f} %)",
              f"{r['full check'] * 1e6:.3g} ({(r['full check'] / r['off'] - 1) * 100:+.0f} %)")
    t.add("data-parallel MLP step, ms", "-", dp["off"] * 1e3, dp["on"] * 1e3,
          f"{(dp['on'] / dp['off'] - 1) * 100:+.1f} %", "-", "-")
    return t


def _run(cmd, timeout):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return ast.literal_eval(proc.stdout.split("<!-- watchdog -->", 1)[1])


def watchdog_table(timeout=600):
    """Run this file on 2 ranks through ``python -m minispore.run`` and alone for the hot
    path, and return the Table (rebuilt here from the numbers the runs print)."""
    me = os.path.abspath(__file__)
    rows, dp, load = _run([sys.executable, "-m", "minispore.run", "-n", "2", me,
                           "--numbers"], timeout)
    hot_ns = _run([sys.executable, me, "--hot-path"], timeout)
    return overhead_table(rows, dp, hot_ns, load)


def main(argv):
    from minispore.communication import get_rank, init
    init()
    if "--hot-path" in argv:
        print("<!-- watchdog -->" + repr(_hot_path_ns()), flush=True)
        return
    rows, dp = allreduce_rows(), dp_step_rows()
    load = os.getloadavg()[0]
    if get_rank() == 0:
        if "--numbers" in argv:
            print("<!-- watchdog -->" + repr((rows, dp, load)), flush=True)
        else:
            print(overhead_table(rows, dp, _hot_path_ns(), load).markdown(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
