"""Data parallel across two hosts, on a clean link and on a slow, lossy one: the median eager
training step of the MLP 784-256-10 (batch 32 per rank, SGD, gradients all-reduced) on one
rank per host, with the hosts of tests/multihost/hosts.py (network namespaces joined by a
bridge; needs root), launched by `mpirun` with a hostfile; the impaired link adds 50 ms and
drops 1% of the frames each host sends (tc netem, or the harness's user-space cable where the
kernel lacks netem). Also each host's link bytes per step.

Usage: python tools/bench_multihost.py     (prints the table; a row says why when it cannot
create the hosts)
"""
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, median_step  # noqa: E402

MARK = "BENCH_MULTIHOST "
BATCH, WARMUP, STEPS, ROUNDS = 32, 3, 15, 2
DELAY_MS, LOSS = 50, 0.01


def job():
    """One rank: time the steps; rank 0 prints the result."""
    import minispore as ms
    from minispore import Tensor, nn
    from minispore.communication import get_rank, init
    ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
    init()
    ms.set_seed(1)
    net = nn.SequentialCell(nn.Dense(784, 256, activation="relu"), nn.Dense(256, 10))
    optimizer = nn.SGD(net.trainable_params(), 0.01)
    loss_fn = nn.CrossEntropyLoss()
    reducer = nn.DistributedGradReducer(optimizer.parameters)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(reducer(grads))
        return loss

    rng = np.random.default_rng(get_rank())
    x = Tensor(rng.standard_normal((BATCH, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH).astype(np.int32))
    median = median_step(train_step, (x, y), WARMUP, STEPS)
    if get_rank() == 0:
        print(MARK + json.dumps({"step": median}), flush=True)


def _launch(hosts, timeout):
    """One job on node0 + node1: (median step, link bytes per step on node1)."""
    from tests.launch.harness import MPIRUN, clean_env
    from tests.multihost.hosts import IFACE, JOB_ENV
    folder = hosts.folder
    (folder / "hostfile").write_text("".join(f"{h.name}:1\n" for h in hosts))
    ssh = os.path.join(ROOT, "tests", "multihost", "ssh_to_host")
    command = [MPIRUN, "-f", folder / "hostfile", "-n", 2, "-launcher", "ssh",
               "-launcher-exec", ssh, "-iface", IFACE, sys.executable,
               os.path.abspath(__file__), "--job"]
    env = clean_env(MULTIHOST_MAP=hosts.write_map(), **JOB_ENV)
    before = sum(hosts[1].link_bytes())
    proc = subprocess.run(hosts[0].command(command), env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    if proc.returncode:
        raise RuntimeError(f"the job failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    moved = sum(hosts[1].link_bytes()) - before
    step = json.loads(proc.stdout.split(MARK)[-1].splitlines()[0])["step"]
    return step, moved / (WARMUP + STEPS)


def multihost_table(timeout=300, rounds=ROUNDS):
    from tests.multihost.hosts import Hosts, why_hosts_are_unavailable
    t = Table(f"Data parallel across two hosts (network namespaces, mpirun with a hostfile, "
              f"1 rank per host), eager step of the MLP 784-256-10, batch {BATCH} per rank: "
              f"median of {STEPS} steps (median of {rounds} interleaved launches) on a clean "
              f"link and with {DELAY_MS} ms delay + {LOSS:.0%} loss on what each host sends",
              ["link", "step (ms)", "slowdown", "node1 link bytes / step (KB, whole job)"])
    reason = why_hosts_are_unavailable()
    if reason:
        t.add(f"skipped: {reason}", "-", "-", "-")
        return t
    runs = {"clean": [], "impaired": []}
    with Hosts(2) as hosts:
        for _ in range(rounds):
            runs["clean"].append(_launch(hosts, timeout))
            with hosts.impaired(DELAY_MS, LOSS):
                runs["impaired"].append(_launch(hosts, timeout))
    step = {k: float(np.median([r[0] for r in v])) for k, v in runs.items()}
    for name in ("clean", "impaired"):
        t.add(name, step[name] * 1e3, step[name] / step["clean"], runs[name][-1][1] / 1e3)
    return t


if __name__ == "__main__":
    if "--job" in sys.argv:
        job()
    else:
        print(multihost_table().markdown())
