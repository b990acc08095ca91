"""The dynamic cluster across two namespace hosts, without mpirun: msrun's two-node mode (one
invocation per host, --master_addr = node0's address) and MindSpore's MS_ROLE launch (the
scheduler on node0, workers on node0 and node1). Each 4-worker job ends with the losses and
parameters of `mpirun -n 4` on one host, the workers of each host numbered as MindSpore numbers
them, and the scheduler only on node0.
"""
import re

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
    """Start each (name, host, argv, extra env) on its host, wait for all: {name: status}, and
    the logs by name."""
    procs = Processes(folder / "logs")
    try:
        started = [procs.start(name, host.command(argv), dict(env, **extra))
                   for name, host, argv, extra in launches]
        status = procs.wait(started, TIMEOUT_S)
        return status, {p.name: procs.log(p.name) for p in started}
    finally:
        procs.close()


def test_msrun_on_two_hosts_trains_as_one_host_does(hosts, job_folder, one_host_training):
    out = job_folder / "out"
    out.mkdir()

    def msrun(node):
        return [PYTHON, "-m", "minispore.msrun", "--worker_num=4", "--local_worker_num=2",
                f"--master_addr={hosts[0].address}", f"--master_port={PORT}",
                f"--node_rank={node}", f"--log_dir={job_folder / f'node{node}'}",
                "--join=True", "--cluster_time_out=120", JOB, out]
    status, logs = run_on_hosts(hosts, job_folder,
                                [(f"msrun_{i}", hosts[i], msrun(i), {}) for i in (0, 1)],
                                job_env(hosts, job_folder))
    assert status == {"msrun_0": 0, "msrun_1": 0}, logs
    assert_same_training(results(out, 4), one_host_training(4))
    assert sorted(p.name for p in (job_folder / "node0").iterdir()) == \
        ["scheduler.log", "worker_0.log", "worker_1.log"]
    assert sorted(p.name for p in (job_folder / "node1").iterdir()) == \
        ["worker_2.log", "worker_3.log"]
    assert "Global rank id 3." in (job_folder / "node1" / "worker_3.log").read_text()


def test_ms_role_scheduler_on_one_host_workers_on_both_train_as_one_host_does(
        hosts, job_folder, one_host_training):
    out = job_folder / "out"
    out.mkdir()
    argv = [PYTHON, "-m", "minispore", JOB, out]
    env = job_env(hosts, job_folder, MS_SCHED_HOST=hosts[0].address, MS_SCHED_PORT=PORT,
                  MS_WORKER_NUM=4, MS_TOPO_TIMEOUT=120)
    launches = [("scheduler", hosts[0], argv, {"MS_ROLE": "MS_SCHED"})]
    launches += [(f"worker_{i}", hosts[i // 2], argv, {"MS_ROLE": "MS_WORKER",
                                                       "MS_NODE_ID": str(i)}) for i in range(4)]
    status, logs = run_on_hosts(hosts, job_folder, launches, env)
    assert set(status.values()) == {0}, logs
    assert_same_training(results(out, 4), one_host_training(4))
    assert "Job finished: all 4 workers finished their script." in logs["scheduler"]
    for i in range(4):
        assert re.search(rf"Global rank id {i}\.", logs[f"worker_{i}"]), logs[f"worker_{i}"]
