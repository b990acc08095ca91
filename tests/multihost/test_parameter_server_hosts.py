"""The parameter server across two namespace hosts: the scheduler on node0, one server and one
worker on each host (MindSpore's parameter_server/run.sh, split over two machines), training
tests/launch/ps_job.py synchronously. The workers end with the losses and parameters of the
same script trained alone on the global batch on one host (as the one-host PS test holds it),
and each server serves its share from its own host.
"""
import re

import numpy as np

from tests.launch.harness import PYTHON
from tests.launch.test_parameter_server import JOB as PS_JOB
from tests.multihost.test_dynamic_cluster_hosts import PORT, job_env, run_on_hosts

STEPS = 4


def test_synchronous_ps_with_a_server_on_each_host_equals_one_process_training(hosts,
                                                                                job_folder):
    argv = [PYTHON, "-m", "minispore", PS_JOB, job_folder]
    env = job_env(hosts, job_folder, MS_SCHED_HOST=hosts[0].address, MS_SCHED_PORT=PORT,
                  MS_WORKER_NUM=2, MS_SERVER_NUM=2, MS_TOPO_TIMEOUT=120, PS_JOB_MODE="sync",
                  PS_JOB_STEPS=STEPS)
    launches = [("sched", hosts[0], argv, {"MS_ROLE": "MS_SCHED"})]
    for host in hosts:
        launches += [(f"server_{host.name}", host, argv, {"MS_ROLE": "MS_PSERVER"}),
                     (f"worker_{host.name}", host, argv, {"MS_ROLE": "MS_WORKER"})]
    status, logs, _ = run_on_hosts(hosts, job_folder, launches, env)
    assert set(status.values()) == {0}, {k: logs[k][-1500:] for k, v in status.items() if v}

    single = job_folder / "single"
    single.mkdir()
    alone = [("single", hosts[0], [PYTHON, "-m", "minispore", PS_JOB, single],
              {"PS_JOB_MODE": "single", "PS_JOB_WORKERS": "2", "PS_JOB_STEPS": str(STEPS)})]
    status, single_logs, _ = run_on_hosts(hosts, single, alone, job_env(hosts, job_folder))
    assert status == {"single": 0}, single_logs
    want = dict(np.load(single / "rank_0.npz"))

    got = [dict(np.load(job_folder / f"rank_{r}.npz")) for r in range(2)]
    np.testing.assert_allclose(np.mean([g["losses"] for g in got], axis=0), want["losses"],
                               rtol=1e-5)
    for g in got:
        for name in ("0.weight", "0.bias", "2.weight", "2.bias"):
            np.testing.assert_allclose(g[name], want[name], rtol=1e-5, atol=1e-7, err_msg=name)
    for host in hosts:
        server = logs[f"server_{host.name}"]
        assert len(re.findall(r"step \d+: 2 pushes in, update applied, 2 pulls out",
                              server)) == STEPS, server
    assert "Job finished: all 2 workers and 2 parameter servers finished" in logs["sched"]
