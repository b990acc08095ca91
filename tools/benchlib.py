"""Timing helpers for `make bench`: interleaved rounds, medians, a markdown table writer, and
the launch of a tool's multi-rank job."""
import json
import os
import statistics
import subprocess
import sys
import time


def time_call(fn, min_time=0.05, max_reps=10000):
    """Seconds per call of fn(), from enough repetitions to fill `min_time`."""
    fn()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time or reps >= max_reps:
            return dt / reps
        reps = min(max_reps, reps * max(2, int(min_time / max(dt, 1e-9))))


def compare(candidates, rounds=5, min_time=0.05):
    """Median seconds per call for each named fn, measured in interleaved rounds so machine
    drift hits every candidate alike."""
    samples = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            samples[name].append(time_call(fn, min_time))
    return {name: statistics.median(v) for name, v in samples.items()}


class Table:
    """Rows of results, printed as they come and rendered as markdown at the end."""

    def __init__(self, title, columns):
        self.title = title
        self.columns = columns
        self.rows = []
        print(f"\n## {title}\n" + " | ".join(columns), flush=True)

    def add(self, *values):
        row = [v if isinstance(v, str) else f"{v:.3g}" for v in values]
        self.rows.append(row)
        print(" | ".join(row), flush=True)

    def markdown(self):
        lines = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |",
                 "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines) + "\n"


def run_job(script, ranks, mark, timeout, env=None):
    """Run ``script --job`` on `ranks` ranks (minispore.run), in `env` (default: this
    process's environment), and return the JSON its rank 0 printed after `mark`."""
    cmd = [sys.executable, "-m", "minispore.run", "-n", str(ranks), os.path.abspath(script),
           "--job"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=root,
                          env=env, stdin=subprocess.DEVNULL)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.split(mark)[-1].strip().splitlines()[0])


def median_step(step, args, warmup, steps):
    """Median seconds of `steps` calls ``step(*args)`` after `warmup` untimed ones."""
    for _ in range(warmup):
        step(*args)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def timed_after_barrier(fn, reps, barrier):
    """Seconds per call of `fn` over `reps` calls, started together on every rank."""
    barrier()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps
