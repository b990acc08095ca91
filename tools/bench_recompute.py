"""Recompute's memory and time: one training step (TrainOneStepCell, Momentum) with and without
recompute, on an MLP and LeNet-5 at batch 256 with their layers grouped into recomputed cells,
on a deeper MLP, and on MindSpore's recompute sample's network with its two ReLU primitives
marked (GRAPH only: Primitive.recompute is a GRAPH_MODE feature).

GRAPH rows: the peaks of the executor's own accounting (minispore.graph.memory.track_memory:
the arrays the compiled schedule holds, activations apart from all live intermediates, the
caller's inputs and parameters excluded). PYNATIVE rows: the peak of the numpy allocations
traced by tracemalloc during the step (above what was live before it). Step times are medians
of ROUNDS rounds timing the runs with and without recompute in turn, without any accounting.
"max |Δ param|" compares the parameters after the same WARMUP steps with and without
recompute (0: bit-identical).

The second table runs one training step per process of a wide MLP (8 Dense(1024)+ReLU in four
recomputed blocks, batch 4096) with and without recompute in both modes, and reports the
process's peak RSS (ru_maxrss) and, in GRAPH mode, the bytes of the static memory plan's
buffers (the arena, minispore/graph/arena.py).

Usage: python tools/bench_recompute.py
"""
import json
import os
import resource
import subprocess
import sys
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, compare  # noqa: E402

import minispore as ms  # noqa: E402
from minispore import Tensor, nn, ops  # noqa: E402
from minispore.graph.memory import track_memory  # noqa: E402

WARMUP, ROUNDS = 3, 5
MIB = 1 << 20


class MLP(nn.Cell):
    """784-512-512-10 with its two hidden layers in one cell (recompute reruns the first)."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.hidden = nn.SequentialCell(nn.Dense(784, 512, activation="relu"),
                                        nn.Dense(512, 512, activation="relu"))
        self.out = nn.Dense(512, 10)

    def mark_recompute(self):
        self.hidden.recompute()

    def construct(self, x):
        return self.out(self.hidden(self.flatten(x)))


class SampleNetwork(nn.Cell):
    """The network of MindSpore's recompute sample, whose relu1 and relu2 are marked."""

    graph_only = True

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.layer1 = nn.Dense(28 * 28, 512)
        self.relu1 = ops.ReLU()
        self.layer2 = nn.Dense(512, 512)
        self.relu2 = ops.ReLU()
        self.layer3 = nn.Dense(512, 10)

    def mark_recompute(self):
        self.relu1.recompute()
        self.relu2.recompute()

    def construct(self, x):
        x = self.relu1(self.layer1(self.flatten(x)))
        return self.layer3(self.relu2(self.layer2(x)))


class LeNet5(nn.Cell):
    """LeNet-5 with each conv, ReLU and pooling in a cell (recompute reruns conv and ReLU)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.SequentialCell(nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.ReLU(),
                                       nn.MaxPool2d(kernel_size=2, stride=2))
        self.conv2 = nn.SequentialCell(nn.Conv2d(6, 16, 5, pad_mode="valid"), nn.ReLU(),
                                       nn.MaxPool2d(kernel_size=2, stride=2))
        self.flatten = nn.Flatten()
        self.fc = nn.SequentialCell(nn.Dense(400, 120, activation="relu"),
                                    nn.Dense(120, 84, activation="relu"), nn.Dense(84, 10))

    def mark_recompute(self):
        self.conv1.recompute()
        self.conv2.recompute()

    def construct(self, x):
        return self.fc(self.flatten(self.conv2(self.conv1(x))))


class DeepMLP(nn.Cell):
    """8 blocks of two Dense(256)+ReLU (each block recomputed) and a 10-way head."""

    def __init__(self, width=256, depth=8):
        super().__init__()
        self.width = width
        self.body = nn.SequentialCell([
            nn.SequentialCell(nn.Dense(width, width, activation="relu"),
                              nn.Dense(width, width, activation="relu"))
            for _ in range(depth)])
        self.out = nn.Dense(width, 10)

    def mark_recompute(self):
        for block in self.body:
            block.recompute()

    def construct(self, x):
        return self.out(self.body(x))


NETS = (("MLP 784-512-512-10", MLP, (1, 28, 28), 256),
        ("recompute sample's net, 2 ReLUs marked", SampleNetwork, (1, 28, 28), 256),
        ("LeNet-5", LeNet5, (1, 32, 32), 256),
        ("deep MLP 8x2 Dense(256)", DeepMLP, (256,), 256),
        ("deep MLP 8x2 Dense(256)", DeepMLP, (256,), 1024))


def _step_cell(make_net, recompute):
    ms.set_seed(1)
    net = make_net()
    if recompute:
        net.mark_recompute()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    return net, step


def _peaks(mode, step, x, y):
    """(peak activation bytes or None, peak bytes) of one step."""
    if mode == ms.GRAPH_MODE:
        with track_memory() as tracker:
            step(x, y)
        return tracker.peak_activation_bytes, tracker.peak_bytes
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    step(x, y)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return None, peak


def measure(mode, make_net, shape, batch):
    """{"off"/"on": (peak activation bytes or None, peak bytes, median step seconds,
    parameters after WARMUP steps)}; the two runs' steps are timed in interleaved rounds."""
    ms.set_context(mode=mode)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((batch,) + shape).astype(np.float32))
    y = Tensor(rng.integers(0, 10, batch).astype(np.int32))
    runs = {"off": _step_cell(make_net, False), "on": _step_cell(make_net, True)}
    params = {}
    for run, (net, step) in runs.items():
        for _ in range(WARMUP):
            step(x, y)
        params[run] = [p.asnumpy().copy() for p in net.get_parameters()]
    seconds = compare({run: (lambda step=step: step(x, y)) for run, (_, step) in runs.items()},
                      rounds=ROUNDS, min_time=0.05)
    return {run: _peaks(mode, step, x, y) + (seconds[run], params[run])
            for run, (_, step) in runs.items()}


class WideMLP(DeepMLP):
    """8 Dense(1024)+ReLU in four blocks of two (each block recomputed) and a 10-way head."""

    def __init__(self):
        super().__init__(width=1024, depth=4)


RSS_BATCH = 4096


def _rss_child(mode_name, recompute):
    """One training step of WideMLP in this process: prints the JSON {"arena": bytes or None,
    "rss": peak RSS bytes}."""
    mode = getattr(ms, mode_name)
    ms.set_context(mode=mode)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((RSS_BATCH, 1024)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, RSS_BATCH).astype(np.int32))
    _, step = _step_cell(WideMLP, recompute)
    step(x, y)
    arena = None
    if mode == ms.GRAPH_MODE:
        executable, = step._graph_cache.entries.values()
        arena = executable.plan.nbytes()
    print(json.dumps({"arena": arena,
                      "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def rss_table():
    t = Table(f"Recompute and the process: peak RSS and the GRAPH memory plan's arena, one "
              f"training step of 8 Dense(1024)+ReLU in 4 recomputed blocks, batch {RSS_BATCH}, "
              f"one process per row (MiB)",
              ["mode", "recompute", "arena", "peak RSS", "RSS on/off"])
    for mode in ("GRAPH_MODE", "PYNATIVE_MODE"):
        peaks = {}
        for run in ("off", "on"):
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--rss-child",
                                  mode, run], check=True, capture_output=True, text=True,
                                 cwd=ROOT)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            peaks[run] = r["rss"]
            t.add(mode.split("_")[0], run, "-" if r["arena"] is None else r["arena"] / MIB,
                  r["rss"] / MIB, "" if run == "off" else f"{peaks['on'] / peaks['off']:.2f}")
    return t


def recompute_table():
    t = Table(f"Recompute: one training step (TrainOneStepCell + Momentum) with and without, "
              f"peaks in MiB, median step of {ROUNDS} interleaved rounds",
              ["net", "batch", "mode", "recompute", "peak activations", "peak live",
               "step (ms)", "max |Δ param|"])
    for name, make_net, shape, batch in NETS:
        for mode, label in ((ms.GRAPH_MODE, "GRAPH"), (ms.PYNATIVE_MODE, "PYNATIVE")):
            if mode == ms.PYNATIVE_MODE and (batch > 256 or getattr(make_net, "graph_only",
                                                                   False)):
                continue
            results = measure(mode, make_net, shape, batch)
            diff = max(float(np.abs(a - b).max())
                       for a, b in zip(results["on"][3], results["off"][3]))
            for run, r in results.items():
                t.add(name, str(batch), label, run,
                      "-" if r[0] is None else r[0] / MIB, r[1] / MIB, r[2] * 1e3,
                      "" if run == "off" else f"{diff:.3g}")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return t


if __name__ == "__main__":
    if sys.argv[1:2] == ["--rss-child"]:
        _rss_child(sys.argv[2], sys.argv[3] == "on")
    else:
        print(recompute_table().markdown())
        print(rss_table().markdown())
