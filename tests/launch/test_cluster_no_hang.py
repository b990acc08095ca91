"""The no-hang guarantees under the dynamic cluster (MS_ROLE scheduler and workers, no
mpirun): a worker that leaves early or enters a collective from a `finally` after an exception
ends the job; every process exits non-zero, and the scheduler's log names the watchdog's
verdict and the rank that reported it. The same jobs as tests/communication/test_no_hang.py."""
import re
import time

import pytest

from tests.communication.test_no_hang import JOB
from tests.launch.harness import PYTHON, cluster_env, free_port, needs_own_launch

pytestmark = needs_own_launch


DEADLINE_S = 30    # the verdicts below come without waiting for it


@pytest.mark.parametrize("case, verdict", [
    ("sys.exit(3)", r"rank 0 failed: minispore watchdog: AllReduce on the world .* rank\(s\) 1 "
                    r"left the script"),
    ("finally", r"rank [01] failed: minispore watchdog: (Barrier|AllReduce) on the world "
                r"\(call #2 there\) at .*: rank [01] made call #2 on the world with another "
                r"collective"),
], ids=["sys.exit(3)", "finally"])
def test_watchdog_verdict_ends_the_dynamic_cluster(processes, tmp_path, case, verdict):
    env = cluster_env(free_port(), 2, tmp_path, MS_COMM_TIMEOUT=DEADLINE_S)
    procs = [processes.start("scheduler", [PYTHON, "-m", "minispore", JOB, case],
                             dict(env, MS_ROLE="MS_SCHED"))]
    procs += [processes.start(f"worker_{i}", [PYTHON, "-m", "minispore", JOB, case],
                              dict(env, MS_ROLE="MS_WORKER", MS_NODE_ID=str(i)))
              for i in range(2)]
    began = time.monotonic()
    exits = processes.wait(procs, timeout=120)
    assert exits["scheduler"] == 1 and exits["worker_0"] != 0 and exits["worker_1"] != 0, exits
    log = processes.log("scheduler")
    assert re.search("Job failed: " + verdict, log), log
    assert time.monotonic() - began < DEADLINE_S
