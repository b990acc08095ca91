"""A PYNATIVE shard region's step time on 2 ranks: the tutorial's network (shard_function_
parallel: Dense 784->128, three blocks 128-256-128 with GELU, Dense 128->10; batch 32,
full_batch) trained with value_and_grad + SGD, with block1 sharded as the tutorial does
(in_strategy ((1, 2),), dense2.weight (2, 1)) against the same loop with no region.

Usage: python tools/bench_shard.py          (launches 2 ranks, prints the table)
       python -m minispore.run -n 2 tools/bench_shard.py --job
"""
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)
from benchlib import Table, run_job  # noqa: E402

MARK = "BENCH_SHARD "
BATCH, WARMUP, STEPS = 32, 3, 20


def _step_times(sharded, n):
    import minispore as ms
    from minispore import Tensor, nn
    from minispore.parallel import comm_stats, reset_comm_stats
    ms.set_seed(1)

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense1 = nn.Dense(128, 256)
            self.gelu = nn.GELU()
            self.dense2 = nn.Dense(256, 128)

        def construct(self, x):
            return self.dense2(self.gelu(self.dense1(x)))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer1 = nn.Dense(784, 128)
            self.blocks = nn.SequentialCell([Block() for _ in range(3)])
            self.layer2 = nn.Dense(128, 10)
            self.sharded = sharded
            if sharded:
                self.block0_shard = self.blocks[0].shard(
                    in_strategy=((1, n),), parameter_plan={"blocks.0.dense2.weight": (n, 1)})

        def construct(self, x):
            x = self.layer1(x)
            x = self.block0_shard(x) if self.sharded else self.blocks[0](x)
            return self.layer2(self.blocks[2](self.blocks[1](x)))

    net = Net()
    opt = nn.SGD(net.trainable_params(), 1e-1)
    loss_fn = nn.CrossEntropyLoss()

    def forward_fn(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params())
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((BATCH, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, BATCH).astype(np.int32))
    times = []
    for i in range(WARMUP + STEPS):
        reset_comm_stats()
        t0 = time.perf_counter()
        _, grads = grad_fn(x, y)
        opt(grads)
        if i >= WARMUP:
            times.append(time.perf_counter() - t0)
    return float(np.median(times)), comm_stats()


def measure():
    import minispore as ms
    from minispore.communication import get_group_size, get_rank, init
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.AUTO_PARALLEL,
                                 search_mode="sharding_propagation",
                                 dataset_strategy="full_batch")
    init()
    n = get_group_size()
    plain_s, _ = _step_times(False, n)
    sharded_s, stats = _step_times(True, n)
    if get_rank() == 0:
        print(MARK + json.dumps({"ranks": n, "plain_s": plain_s, "sharded_s": sharded_s,
                                 "stats": stats}), flush=True)


def shard_table(timeout=600):
    r = run_job(__file__, 2, MARK, timeout)
    t = Table(f"PYNATIVE shard region, the tutorial's network, batch {BATCH} (full_batch), "
              f"{r['ranks']} ranks: median step (value_and_grad + SGD) over {STEPS} steps",
              ["run", "step (ms)", "collectives per step"])
    t.add("no region (every rank computes everything)", r["plain_s"] * 1e3, "-")
    comm = ", ".join(f"{k} {v['count']} x ({v['bytes']} B)" for k, v in
                     sorted(r["stats"].items()))
    t.add("block1 as a shard region", r["sharded_s"] * 1e3, comm)
    t.add("ratio sharded / no region", r["sharded_s"] / r["plain_s"], "")
    return t


if __name__ == "__main__":
    if "--job" in sys.argv:
        measure()
    else:
        print(shard_table().markdown())
