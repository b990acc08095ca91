"""The cost of the collective watchdog and its default desync check for `make bench`: AllReduce
at 4 KB and 1 MB and the data-parallel MLP step on 2 ranks, with the watch's hot path on and
off in the same job (interleaved rounds, so machine drift hits both alike), beside raw mpi4py,
the rejected alternative (a status word exchanged before every call) and the full check.

Usage: python -m minispore.run -n 2 tools/bench_watchdog.py      (prints rank 0's table)
From bench.py: ``watchdog_table()`` runs ``--job`` on 2 ranks, and on 1 rank, where it times
the hot path alone (no second rank spinning in MPI beside the timing), and returns a Table.

Every rank runs the same fixed number of calls per round and switches the hot path at the
same points (the call numbers of a group stay equal on all ranks).
"""
import json
import os
import statistics
import sys
import timeit

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, run_job, timed_after_barrier  # noqa: E402

MARK = "<!-- watchdog -->"
SIZES = (4 << 10, 1 << 20)
ROUNDS = 11
COLUMNS = ("raw", "off", "on", "status word", "full check")


def _hot_path_ns():
    """ns per enter + leave pair of the watch, on this rank's world group, with the default
    mismatch check's signature of a 4 KB float32 AllReduce (compared where the group has
    another member on this host)."""
    from minispore.communication import _comm
    world, watch = _comm.STATE.world, _comm.STATE.watch
    x = np.ones(1024, np.float32)

    def pair():
        watch.enter(world, 0, x.nbytes, x, 0)
        watch.leave()

    def nothing():
        pass
    n = 100_000
    return (min(timeit.repeat(pair, number=n, repeat=5)) -
            min(timeit.repeat(nothing, number=n, repeat=5))) / n * 1e9


def allreduce_rows():
    """Under MPI: {size: {column: seconds per call}} for AllReduce(SUM) on float32."""
    from minispore import Tensor, ops
    from minispore.communication import _comm
    from minispore.communication.watch import watchdog
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
                samples[name].append(timed_after_barrier(fn, reps, world.Barrier))
        watchdog.set_hot_path(True)
        _comm.STATE.check = False
        rows[nbytes] = {name: statistics.median(v) for name, v in samples.items()}
    side.Free()
    return rows


def dp_step_rows(steps=10):
    """Under MPI: {"off": s, "on": s} per data-parallel MLP step (tools/bench_dp.py's net)."""
    import bench_dp
    from minispore.communication.watch import watchdog
    from minispore.communication.management import get_group_size, get_rank
    step, barrier = bench_dp._minispore_dp_step(get_rank(), get_group_size())
    for _ in range(3):
        step()
    samples = {"off": [], "on": []}
    for _ in range(ROUNDS):
        for name in samples:
            watchdog.set_hot_path(name == "on")
            samples[name].append(timed_after_barrier(step, steps, barrier))
    watchdog.set_hot_path(True)
    return {name: statistics.median(v) for name, v in samples.items()}




def _label(nbytes):
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"


def overhead_table(rows, dp, hot_ns, load):
    """`rows`: [(bytes, {column: seconds})]; `dp`: {"off"|"on": seconds per step}."""
    t = Table(f"Collective watchdog and default desync check on 2 ranks (goal: on vs off "
              f"<= 5 %; load average {load:.1f} on {os.cpu_count()} cores while measured, "
              f"so not an idle machine; hot path: {hot_ns:.0f} ns per call)",
              ["workload", "raw mpi4py", "watch off", "watch on (default)", "overhead",
               "status word per call (rejected)", "full check (debug)"])
    for nbytes, r in rows:
        t.add(f"AllReduce {_label(nbytes)}, µs", r["raw"] * 1e6, r["off"] * 1e6,
              r["on"] * 1e6, f"{(r['on'] / r['off'] - 1) * 100:+.1f} %",
              f"{r['status word'] * 1e6:.3g} ({(r['status word'] / r['off'] - 1) * 100:+.0f} %)",
              f"{r['full check'] * 1e6:.3g} ({(r['full check'] / r['off'] - 1) * 100:+.0f} %)")
    t.add("data-parallel MLP step, ms", "-", dp["off"] * 1e3, dp["on"] * 1e3,
          f"{(dp['on'] / dp['off'] - 1) * 100:+.1f} %", "-", "-")
    return t


def watchdog_table(timeout=600):
    """The Table, from this file's job on 2 ranks and on 1 (the hot path)."""
    me = os.path.abspath(__file__)
    measured = run_job(me, 2, MARK, timeout)
    hot_ns = run_job(me, 1, MARK, timeout)["hot_ns"]
    return overhead_table(measured["rows"], measured["dp"], hot_ns, measured["load"])


def job():
    """On 1 rank: {"hot_ns"}; on more: {"rows", "dp", "load"} (printed by rank 0)."""
    from minispore.communication import get_group_size, get_rank, init
    init()
    if get_group_size() == 1:
        return {"hot_ns": _hot_path_ns()}
    rows, dp = allreduce_rows(), dp_step_rows()
    found = {"rows": list(rows.items()), "dp": dp, "load": os.getloadavg()[0]}
    return found if get_rank() == 0 else None


def main(argv):
    found = job()
    if found is None:
        return
    if "--job" in argv:
        print(MARK + json.dumps(found), flush=True)
    elif "rows" in found:
        print(overhead_table(found["rows"], found["dp"], _hot_path_ns(),
                             found["load"]).markdown(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
