"""Parameter-server training against data parallel, 2 workers: the median GRAPH training step of
the MLP 784-512-512-10 (batch 32 per worker, Momentum) with every parameter on 1, 2 or 4
synchronous servers (each worker pushes its gradients and pulls the new values; no all-reduce),
and with no server (data parallel: the workers all-reduce their gradients and each updates its
own copy), plus the bytes a worker pushes and pulls per step.

Each job is a dynamic cluster (a scheduler, the servers and the workers, one thread each)
launched as MindSpore's run.sh launches one; this machine has 2 cores, so the servers share
them with the workers.

Usage: python tools/bench_ps.py        (launches the jobs, prints the table)
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, median_step  # noqa: E402

MARK = "BENCH_PS "
WORKERS, BATCH, WARMUP, STEPS, ROUNDS = 2, 32, 3, 20, 3


def job():
    """One process of the job (its MS_ROLE from the environment); worker 0 prints the result."""
    import minispore as ms
    from minispore import Tensor, nn
    from minispore.communication import get_rank, init
    from minispore.ps import worker
    servers = int(os.environ.get("MS_SERVER_NUM", "0"))
    ms.set_context(mode=ms.GRAPH_MODE)
    if servers:
        ms.set_ps_context(enable_ps=True)
    else:
        ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
    init()
    ms.set_seed(1)
    net = nn.SequentialCell(nn.Dense(784, 512, activation="relu"),
                            nn.Dense(512, 512, activation="relu"), nn.Dense(512, 10))
    if servers:
        net.set_param_ps()
    optimizer = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    loss_fn = nn.CrossEntropyLoss()
    reducer = None if servers else nn.DistributedGradReducer(optimizer.parameters)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)

    @ms.jit
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads if reducer is None else reducer(grads))
        return loss

    rng = np.random.default_rng(get_rank())
    x = Tensor(rng.standard_normal((BATCH, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH).astype(np.int32))
    median = median_step(train_step, (x, y), WARMUP, STEPS)
    steps = WARMUP + STEPS
    if get_rank() == 0:
        print(MARK + json.dumps({"step": median,
                                 "pushed": worker.STATS.pushed_bytes / steps,
                                 "pulled": worker.STATS.pulled_bytes / steps}), flush=True)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(servers, timeout):
    """Run one job; worker 0's result."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MS_", "PMI_", "HYDRA_"))}
    env.update(MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(_free_port()),
               MS_WORKER_NUM=str(WORKERS), MS_SERVER_NUM=str(servers), MS_TOPO_TIMEOUT="120",
               OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1",
               PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        env["MS_CLUSTER_TOKEN_FILE"] = os.path.join(tmp, "job.token")
        argv = [sys.executable, os.path.abspath(__file__), "--job"]
        roles = ["MS_SCHED"] + ["MS_PSERVER"] * servers + ["MS_WORKER"] * WORKERS
        logs = [open(os.path.join(tmp, f"{i}.log"), "w+") for i in range(len(roles))]
        procs = [subprocess.Popen(argv, env=dict(env, MS_ROLE=role), stdout=log,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT)
                 for role, log in zip(roles, logs)]
        try:
            codes = [p.wait(timeout=timeout) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        texts = []
        for log in logs:
            log.seek(0)
            texts.append(log.read())
            log.close()
    if any(codes):
        raise RuntimeError(f"the {servers}-server job failed ({codes}):\n" +
                           "\n".join(t[-2000:] for t in texts))
    found = [t.split(MARK)[-1].splitlines()[0] for t in texts if MARK in t]
    return json.loads(found[0])


def ps_table(timeout=600, rounds=ROUNDS):
    t = Table(f"Parameter server vs data parallel, GRAPH step of the MLP 784-512-512-10, "
              f"{WORKERS} workers x batch {BATCH}, synchronous: median step of {STEPS} on "
              f"worker 0 (median of {rounds} interleaved launches), and bytes per worker per "
              f"step", ["servers", "step (ms)", "vs data parallel", "pushed / step (MB)",
                        "pulled / step (MB)"])
    configs = (0, 1, 2, 4)
    runs = {servers: [] for servers in configs}
    for _ in range(rounds):         # interleaved: drift hits every configuration alike
        for servers in configs:
            runs[servers].append(_launch(servers, timeout))
    step = {servers: statistics.median(r["step"] for r in runs[servers]) for servers in configs}
    for servers in configs:
        last = runs[servers][-1]
        t.add(str(servers) if servers else "none (data parallel)", step[servers] * 1e3,
              step[servers] / step[0], last["pushed"] / 1e6, last["pulled"] / 1e6)
    return t


if __name__ == "__main__":
    if "--job" in sys.argv:
        job()
    else:
        print(ps_table().markdown())
