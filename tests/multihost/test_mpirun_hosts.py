"""MPICH's mpirun across two namespace hosts, as on a cluster: a hostfile of node0 and node1,
Hydra reaching node1 through ssh_to_host where it would use ssh, started from node0 with
`-iface eth0`.

A 4-rank data-parallel job (2 ranks per host) ends with the losses and parameters of the same
job on one host, and listens only on each host's job address (Hydra's own port excepted); a
2-rank AllReduce of a large buffer moves at least its bytes through each host's link (veth
byte counters), which shows the ranks really talk over the network.
"""
import pytest

from tests.launch.harness import JOB, MPIRUN, PYTHON, assert_same_training, clean_env, \
    results, run_script
from tests.multihost.hosts import IFACE, JOB_ENV

SSH_TO_HOST = __file__.rsplit("/", 1)[0] + "/ssh_to_host"
TIMEOUT_S = 240

ALLREDUCE = """
import sys
import numpy as np
from minispore import Tensor, ops
from minispore.communication import init, get_rank
init()
x = Tensor(np.full(int(sys.argv[1]), get_rank() + 1, np.float32))
for _ in range(int(sys.argv[2])):
    y = ops.AllReduce()(x)
assert (y.asnumpy() == 3).all(), y
print("rank", get_rank(), "allreduced", flush=True)
"""


def mpirun_across(hosts, folder, slots, *argv, **env):
    """(status, output) of `mpirun -f HOSTFILE -n sum(slots) argv` started on node0, Hydra's
    proxies reaching each host through ssh_to_host, the ranks' netmods on IFACE; `env` adds
    to the job's environment."""
    hostfile = folder / "hostfile"
    hostfile.write_text("".join(f"{h.name}:{n}\n" for h, n in zip(hosts, slots)))
    command = [MPIRUN, "-f", hostfile, "-n", sum(slots), "-launcher", "ssh",
               "-launcher-exec", SSH_TO_HOST, "-iface", IFACE, *argv]
    env = clean_env(MULTIHOST_MAP=hosts.write_map(), **JOB_ENV, **env)
    return run_script(hosts[0].command(command), env, folder, TIMEOUT_S)


@pytest.fixture(scope="module")
def data_parallel(hosts):
    """(status, output, folder, listeners seen) of data_parallel_job.py on 2 + 2 ranks."""
    folder = hosts.job_folder("mpirun_data_parallel")
    try:
        with hosts.watching_listeners() as seen:
            status, output = mpirun_across(hosts, folder, (2, 2), PYTHON, "-m", "minispore",
                                           JOB, folder)
    finally:
        hosts.kill_jobs()
    return status, output, folder, seen


def test_allreduce_across_hosts_crosses_the_link(hosts, job_folder):
    script = job_folder / "allreduce.py"
    script.write_text(ALLREDUCE)
    elements, calls = 1 << 20, 3
    before = [h.link_bytes() for h in hosts]
    status, output = mpirun_across(hosts, job_folder, (1, 1), PYTHON, "-m", "minispore",
                                   script, elements, calls)
    assert status == 0, output[-3000:]
    assert output.count("allreduced") == 2, output
    # Each rank needs the other's 4 MiB (or the sum) for every call: at least that much came
    # in through each host's link, and went out through the other's.
    least = elements * 4 * calls
    for host, (rx0, tx0) in zip(hosts, before):
        rx, tx = host.link_bytes()
        assert rx - rx0 >= least and tx - tx0 >= least, (host.name, rx - rx0, tx - tx0, least)


def test_mpirun_with_a_hostfile_of_two_hosts_trains_as_on_one(data_parallel,
                                                              one_host_training):
    status, output, folder, _ = data_parallel
    assert status == 0, output[-3000:]
    assert_same_training(results(folder, 4), one_host_training(4))


def test_mpirun_across_hosts_listens_on_the_job_interface_only(hosts, data_parallel):
    status, output, _, seen = data_parallel
    assert status == 0, output[-3000:]
    assert hosts.listeners_off_the_job_interface(seen, hydra=True) == {}, seen
    # Each rank's netmod and its watchdog beacon listened on its host's address: 2 ranks on
    # each host.
    for host in hosts:
        ranks = [k for k, names in seen[host.name].items() if names == {"python"}]
        assert len(ranks) == 2 * 2, (host.name, seen)
