"""``ms.Profiler``: where a run's time goes, per rank.

``Profiler(output_path="./data")`` starts recording (``start_profile=False`` waits for
``start()``); ``stop()`` ends it; ``analyse()`` writes, under ``<output_path>/profiler/``:

- ``timeline_display_<rank>.json``: a Chrome trace (opens in Perfetto or chrome://tracing) with
  one complete event per kernel call, eager or compiled (category "kernel", or "communication"
  for a communication primitive), and per MPI call, collective, point-to-point or wait
  (category "mpi", with its bytes), on the rank's own process row;
- ``op_statistic_<rank>.csv``: per operator type and category, the calls, total and mean
  microseconds, and the share of the recorded wall time,

and returns that table's rows. A collective's span is its whole call, its wait for the other
ranks included: a long AllReduce on one rank and a short one on another is a straggler.
"""
import csv
import json
import os

from minispore.common import profiling

__all__ = ["Profiler"]

# MindSpore's keyword arguments whose defaults describe what this profiler does anyway.
_ACCEPTED_DEFAULTS = {"profile_communication": (False, True), "op_time": (True,),
                      "profile_memory": (False,), "parallel_strategy": (False, True),
                      "data_process": (False, True), "timeline_limit": (500,)}


def _rank():
    from minispore.communication._comm import STATE
    return STATE.world.rank if STATE.inited else 0


class Profiler:
    """MindSpore's Profiler, for the kernels and collectives of this process (see the module
    docstring).

    Raises:
        TypeError: output_path is not a str.
        NotImplementedError: a MindSpore option this profiler does not implement
            (profile_memory=True, hardware counters, ...), naming it.
    """

    def __init__(self, output_path="./data", start_profile=True, **kwargs):
        if not isinstance(output_path, str):
            raise TypeError(f"For 'Profiler', 'output_path' must be a str, but got "
                            f"{type(output_path).__name__}.")
        for key, value in kwargs.items():
            if key not in _ACCEPTED_DEFAULTS or value not in _ACCEPTED_DEFAULTS[key]:
                raise NotImplementedError(
                    f"For 'Profiler', {key}={value!r} is not implemented in minispore: it "
                    f"records every kernel and collective call's time and bytes (use "
                    f"minispore.graph.memory.track_memory() for memory).")
        self.output_path = os.path.abspath(output_path)
        self.recorder = profiling.Recorder()
        self.rank = _rank()
        if start_profile:
            self.start()

    def start(self):
        profiling.start(self.recorder)

    def stop(self):
        if profiling.active() is self.recorder:
            profiling.stop()

    def op_statistic(self):
        """[(op type, category, calls, total us, mean us, share of the recorded wall time)],
        largest total first. Categories nest (an "mpi" span lies inside the "communication"
        primitive that made it, or stands alone for gradient buckets), so shares do not add
        up to 1 across categories."""
        totals = {}
        first, last = None, None
        for name, category, start, duration, _, _ in self.recorder.spans:
            calls, ns = totals.get((name, category), (0, 0))
            totals[(name, category)] = (calls + 1, ns + duration)
            first = start if first is None else min(first, start)
            last = start + duration if last is None else max(last, start + duration)
        wall = (last - first) if totals and last > first else 1
        rows = [(name, category, calls, ns / 1e3, ns / 1e3 / calls, ns / wall)
                for (name, category), (calls, ns) in totals.items()]
        return sorted(rows, key=lambda r: -r[3])

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync"):
        """Stop recording and write this rank's timeline and operator table; the table's rows."""
        if offline_path is not None or step_list is not None:
            raise NotImplementedError("For 'Profiler.analyse', offline_path and step_list are "
                                      "not implemented in minispore.")
        self.stop()
        folder = os.path.join(self.output_path, "profiler")
        os.makedirs(folder, exist_ok=True)
        events = [{"name": name, "cat": category, "ph": "X", "ts": start / 1e3,
                   "dur": duration / 1e3, "pid": self.rank, "tid": thread % 100000,
                   "args": {"bytes": nbytes}}
                  for name, category, start, duration, nbytes, thread in self.recorder.spans]
        events.append({"name": "process_name", "ph": "M", "pid": self.rank,
                       "args": {"name": f"rank {self.rank}"}})
        with open(os.path.join(folder, f"timeline_display_{self.rank}.json"), "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f,
                      indent=1 if pretty else None)
        rows = self.op_statistic()
        with open(os.path.join(folder, f"op_statistic_{self.rank}.csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["op_type", "category", "calls", "total_us", "mean_us", "share"])
            for name, category, calls, total, mean, share in rows:
                writer.writerow([name, category, calls, f"{total:.3f}", f"{mean:.3f}",
                                 f"{share:.4f}"])
        return rows
