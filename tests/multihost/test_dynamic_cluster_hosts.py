"""The dynamic cluster across two namespace hosts, without mpirun: msrun's two-node mode (one
invocation per host, --master_addr = node0's address) and MindSpore's MS_ROLE launch (the
scheduler on node0, workers on node0 and node1). Each 4-worker job ends with the losses and
parameters of `mpirun -n 4` on one host, the workers of each host numbered as MindSpore numbers
them, and the scheduler only on node0.
"""
import ipaddress
import re

import pytest

from tests.launch.harness import JOB, PYTHON, Processes, assert_same_training, clean_env, \
    results
from tests.multihost.hosts import JOB_ENV

PORT = 8118                 # MindSpore's default: the hosts' namespaces are ours alone
TIMEOUT_S = 240


def job_env(hosts, folder, **extra):
    """The environment of every process of a job across hosts: the token file on the shared
    folder (as nodes sharing a file system see it), UCX on the network (hosts.JOB_ENV)."""
    return clean_env(MS_CLUSTER_TOKEN_FILE=folder / "job.token", **JOB_ENV, **extra)


def run_on_hosts(hosts, folder, launches, env):
    """Start each (name, host, argv, extra env) on its host and wait for all: ({name:
    status}, {name: log}, {host name: listeners seen meanwhile}); leftovers are killed."""
    procs = Processes(folder / "logs")
    try:
        with hosts.watching_listeners() as seen:
            started = [procs.start(name, host.command(argv), dict(env, **extra))
                       for name, host, argv, extra in launches]
            status = procs.wait(started, TIMEOUT_S)
        return status, {p.name: procs.log(p.name) for p in started}, seen
    finally:
        procs.close()
        hosts.kill_jobs()


@pytest.fixture(scope="module")
def msrun_job(hosts):
    """One msrun invocation per host (2 workers each, node0 the master): (status, logs,
    listeners, folder)."""
    folder = hosts.job_folder("msrun")
    (folder / "out").mkdir()

    def msrun(node):
        return [PYTHON, "-m", "minispore.msrun", "--worker_num=4", "--local_worker_num=2",
                f"--master_addr={hosts[0].address}", f"--master_port={PORT}",
                f"--node_rank={node}", f"--log_dir={folder / f'node{node}'}",
                "--join=True", "--cluster_time_out=120", JOB, folder / "out"]
    return (*run_on_hosts(hosts, folder, [(f"msrun_{i}", hosts[i], msrun(i), {})
                                          for i in (0, 1)], job_env(hosts, folder)), folder)


@pytest.fixture(scope="module")
def ms_role_job(hosts):
    """The scheduler on node0, workers 0 and 1 on node0, 2 and 3 on node1, each started with
    its MS_ROLE as MindSpore's run.sh does: (status, logs, listeners, folder)."""
    folder = hosts.job_folder("ms_role")
    (folder / "out").mkdir()
    argv = [PYTHON, "-m", "minispore", JOB, folder / "out"]
    env = job_env(hosts, folder, MS_SCHED_HOST=hosts[0].address, MS_SCHED_PORT=PORT,
                  MS_WORKER_NUM=4, MS_TOPO_TIMEOUT=120)
    launches = [("scheduler", hosts[0], argv, {"MS_ROLE": "MS_SCHED"})]
    launches += [(f"worker_{i}", hosts[i // 2], argv, {"MS_ROLE": "MS_WORKER",
                                                       "MS_NODE_ID": str(i)})
                 for i in range(4)]
    return (*run_on_hosts(hosts, folder, launches, env), folder)


def test_msrun_on_two_hosts_trains_as_one_host_does(msrun_job, one_host_training):
    status, logs, _, folder = msrun_job
    assert status == {"msrun_0": 0, "msrun_1": 0}, logs
    assert_same_training(results(folder / "out", 4), one_host_training(4))
    assert sorted(p.name for p in (folder / "node0").iterdir()) == \
        ["scheduler.log", "worker_0.log", "worker_1.log"]
    assert sorted(p.name for p in (folder / "node1").iterdir()) == \
        ["worker_2.log", "worker_3.log"]
    assert "Global rank id 3." in (folder / "node1" / "worker_3.log").read_text()


def test_ms_role_scheduler_on_one_host_workers_on_both_train_as_one_host_does(
        ms_role_job, one_host_training):
    status, logs, _, folder = ms_role_job
    assert set(status.values()) == {0}, logs
    assert_same_training(results(folder / "out", 4), one_host_training(4))
    assert "Job finished: all 4 workers finished their script." in logs["scheduler"]
    for i in range(4):
        assert re.search(rf"Global rank id {i}\.", logs[f"worker_{i}"]), logs[f"worker_{i}"]


@pytest.mark.parametrize("launch", ["msrun_job", "ms_role_job"])
def test_a_dynamic_cluster_across_hosts_listens_on_the_job_interface_only(hosts, launch,
                                                                         request):
    status, logs, seen, _ = request.getfixturevalue(launch)
    assert set(status.values()) == {0}, logs
    assert hosts.listeners_off_the_job_interface(seen) == {}, seen
    # The scheduler's port on node0; each worker's netmod and watchdog beacon on its own
    # host (2 workers on each).
    assert (ipaddress.ip_address(hosts[0].address), PORT) in seen["node0"], seen
    assert [len(seen[h.name]) for h in hosts] == [1 + 2 * 2, 2 * 2], seen
