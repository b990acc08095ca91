"""The jobs of the no-hang fault tests (test_no_hang.py): ``python fault_jobs.py CASE`` on 2 or
4 ranks. Every rank trains a few AllReduce steps; rank 1 (CASE's faulty rank) misbehaves in
CASE's way and prints ``FAULT_AT <unix time>`` just before, so the test times the job's end
from the fault rather than from a start-up that a busy machine stretches."""
import os
import signal
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from minispore import Tensor, nn, ops  # noqa: E402
from minispore.communication import get_group_size, get_rank, init  # noqa: E402

STEPS = 3
LONG_COMPUTATION_S = 3.5


def fault_at():
    print(f"FAULT_AT {time.time():.3f}", flush=True)


def train(steps=STEPS):
    x = Tensor(np.ones(4, np.float32))
    for _ in range(steps):
        ops.AllReduce()(x)


def finally_collective():
    """The cleanup pattern: rank 1 raises, and its `finally` enters a collective."""
    try:
        train(1)
        if get_rank() == 1:
            fault_at()
            raise ValueError("boom on rank 1")
        train()
    finally:
        ops.Barrier()()


def mismatched_collectives():
    train(1)
    if get_rank() == 1:
        fault_at()
        ops.AllGather()(Tensor(np.ones(4, np.float32)))
    train()


# One AllReduce whose ranks disagree in one respect: rank 0's input, rank 1's, rank 1's op.
MISMATCHES = {
    "elements": ((4,), np.float32, (2,), np.float32, "sum"),
    "dtype": ((4,), np.float32, (4,), np.int32, "sum"),
    "op": ((4,), np.float32, (4,), np.float32, "max"),
    "shape": ((2, 3), np.float32, (3, 2), np.float32, "sum"),
    "width": ((4,), np.float32, (4,), np.float64, "sum"),
}


def mismatched_all_reduce(respect):
    """Both ranks call AllReduce as their 2nd call, disagreeing in `respect`."""
    def case():
        shape0, dtype0, shape1, dtype1, op1 = MISMATCHES[respect]
        train(1)
        if get_rank() == 1:
            fault_at()
            ops.AllReduce(op1)(Tensor(np.ones(shape1, dtype1)))
        else:
            ops.AllReduce()(Tensor(np.ones(shape0, dtype0)))
        train()
    return case


def leave(how):
    def case():
        if how == "sys.exit(0) before training" and get_rank() == 1:
            fault_at()
            sys.exit(0)
        train(1)
        if get_rank() == 1:
            fault_at()
            {"sys.exit(3)": lambda: sys.exit(3), "os._exit(0)": lambda: os._exit(0),
             "end of script": lambda: None}[how]()
            return
        train()
    return case


def stall():
    train(1)
    if get_rank() == 1:
        fault_at()
        time.sleep(1000)
    train()


def long_computation():
    """Slower than the stall warning, faster than the deadline: must complete."""
    train(1)
    if get_rank() == 1:
        time.sleep(LONG_COMPUTATION_S)
    train()


def collective_in_except():
    """Both ranks handle an exception with an AllReduce in the ``except`` block, rank 1 after
    a long computation (seconds: COMPUTE_S, default LONG_COMPUTATION_S): legal, must
    complete."""
    train(1)
    try:
        raise ValueError(f"handled on rank {get_rank()}")
    except ValueError:
        if get_rank() == 1:
            time.sleep(float(os.environ.get("COMPUTE_S", LONG_COMPUTATION_S)))
        total = ops.AllReduce()(Tensor(np.full(4, get_rank() + 1, np.float32)))
        print(f"rank {get_rank()} reduced {total.asnumpy().tolist()}", flush=True)
    train()


def sigkill():
    train(1)
    if get_rank() == 1:
        fault_at()
        os.kill(os.getpid(), signal.SIGKILL)
    train()


def spin_for_sigterm():
    """Ranks busy (rank 1 spinning in Python, the others waiting in a collective) when the
    test sends SIGTERM to the launcher."""
    train(1)
    print(f"READY {os.getpid()}", flush=True)
    if get_rank() == 1:
        while True:
            pass
    train()


def data_parallel_finally():
    """The data-parallel training step wrapped in try/finally, the last rank failing."""
    import minispore as ms
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    net = nn.Dense(8, 2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
    x, y = Tensor(np.ones((4, 8), np.float32)), Tensor(np.zeros((4, 2), np.float32))
    try:
        for i in range(STEPS):
            if i == 1 and get_rank() == get_group_size() - 1:
                fault_at()
                raise ValueError("boom in the training loop")
            step(x, y)
    finally:
        ops.Barrier()()


def different_strategies():
    """Ranks compiling different strategies for the same network (semi-auto, GRAPH mode)."""
    from tests.parallel.semi_auto_net import train as train_semi_auto
    mine = (((2, 1), (1, 1)), ((2, 1),), ((2, 1), (1, 1)), ((2, 1),)) if get_rank() == 0 \
        else (((1, 2), (2, 1)), ((1, 1),), ((1, 2), (2, 1)), ((1, 1),))
    fault_at()
    train_semi_auto(mine, steps=1, batch=8, dims=(16, 8, 8, 4), rank=get_rank(), n=2)


CASES = {"finally": finally_collective, "mismatch": mismatched_collectives, "stall": stall,
         "long": long_computation, "except": collective_in_except, "sigkill": sigkill,
         "sigterm": spin_for_sigterm,
         "data_parallel_finally": data_parallel_finally, "strategies": different_strategies,
         **{f"mismatched {respect}": mismatched_all_reduce(respect) for respect in MISMATCHES},
         **{how: leave(how) for how in ("sys.exit(0) before training", "sys.exit(3)",
                                        "os._exit(0)", "end of script")}}

if __name__ == "__main__":
    init()
    CASES[sys.argv[1]]()
    print(f"rank {get_rank()} finished", flush=True)
