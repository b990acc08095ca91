"""Fixtures of the multi-host tests: one set of namespace hosts for the whole session (every
test restores the links it changes), and the one-host runs the multi-host launches must equal.

The tests start their own jobs, so they run in the single-process suite; under a launcher
(PMI_RANK set) they are skipped, and the MPI runs (-m mpi) deselect them anyway.
"""
import os

import pytest

from tests.launch.harness import JOB, MPIRUN, PYTHON, clean_env, results, run_script
from tests.multihost.hosts import Hosts, why_hosts_are_unavailable

HOST_COUNT = 2


def pytest_collection_modifyitems(items):
    for item in items:
        if "multihost" in item.nodeid.split("::")[0]:
            item.add_marker(pytest.mark.skipif("PMI_RANK" in os.environ,
                                               reason="starts its own hosts and jobs; runs in "
                                                      "the single-process suite"))


@pytest.fixture(scope="session")
def hosts():
    """HOST_COUNT hosts (node0 = 10.200.0.1, node1 = 10.200.0.2, ...), removed at the end."""
    reason = why_hosts_are_unavailable()
    if reason:
        pytest.skip(reason)
    with Hosts(HOST_COUNT) as made:
        yield made


@pytest.fixture
def job_folder(hosts, request):
    """A folder every host sees (the hosts' shared file system), one per test; whatever the
    test started on the hosts is killed when it ends."""
    yield hosts.job_folder(request.node.name.replace("/", "_")[:80])
    hosts.kill_jobs()


@pytest.fixture(scope="session")
def one_host_training(hosts):
    """one_host_training(n): data_parallel_job.py's results under `mpirun -n n` on node0 alone
    (run once per n): what every launch across hosts must reproduce."""
    done = {}

    def run(ranks):
        if ranks not in done:
            out = hosts.job_folder(f"one_host_{ranks}")
            status, output = run_script(hosts[0].command([MPIRUN, "-n", ranks, PYTHON, "-m",
                                                          "minispore", JOB, out]),
                                        clean_env(), out, timeout=300)
            assert status == 0, output[-3000:]
            done[ranks] = results(out, ranks)
        return done[ranks]
    return run
