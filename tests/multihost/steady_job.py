"""A job that keeps its ranks in step for a while, for the link-fault tests: STEPS AllReduces
of a small tensor, STEP_S seconds apart, each rank printing `rank R host H step S` as it goes,
so a test can break the link or kill a host mid-job: `python -m minispore steady_job.py STEPS
STEP_S`."""
import socket
import sys
import time

import numpy as np

from minispore import Tensor, ops
from minispore.communication import get_rank, init

init()
steps, step_s = int(sys.argv[1]), float(sys.argv[2])
x = Tensor(np.ones(256, np.float32))
for step in range(steps):
    y = ops.AllReduce()(x)
    print(f"rank {get_rank()} host {socket.gethostname()} step {step}", flush=True)
    time.sleep(step_s)
print(f"rank {get_rank()} done, sum {float(y.asnumpy()[0])}", flush=True)
