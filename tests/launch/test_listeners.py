"""Which TCP ports a single-host job listens on, read with ``ss -ltnp`` while it runs: the
scheduler and every rank's MPI netmod on loopback only. Hydra's own proxy port (mpirun's, and
each dynamic-cluster worker's ``mpiexec -n 1``) is bound to all interfaces by hydra itself,
which has no option to bind it elsewhere (minispore/run.py), so it is named, not checked."""
import ipaddress
import os
import re
import shutil
import subprocess
import time

import pytest

from tests.launch.harness import PYTHON, clean_env, cluster_env, free_port, needs_own_launch

pytestmark = [needs_own_launch,
              pytest.mark.skipif(shutil.which("ss") is None, reason="needs ss (iproute2)")]

HOLD = """
import os, time
from mindspore.communication import init, get_rank
init()
print("rank", get_rank(), "joined", flush=True)
while not os.path.exists(os.environ["RELEASE"]):
    time.sleep(0.1)
"""
HYDRA = ("mpirun", "mpiexec", "mpiexec.hydra", "hydra_pmi_proxy")


def _descendants(roots):
    """`roots` and every process below them (from /proc)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found = set(roots)
    while True:
        more = {pid for pid, ppid in parent.items() if ppid in found} - found
        if not more:
            return found
        found |= more


def listeners(roots):
    """[(address, port, owner names)] of the TCP listeners held by `roots` or their
    descendants."""
    pids = _descendants(roots)
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        owners = re.findall(r'\("([^"]+)",pid=(\d+)', line)
        if any(int(pid) in pids for _, pid in owners):
            address, port = line.split()[3].rsplit(":", 1)
            found.append((address.strip("[]"), int(port), {name for name, _ in owners}))
    return found


def beyond_loopback(found):
    return [(a, p, o) for a, p, o in found if not o & set(HYDRA)
            and not ipaddress.ip_address(a.split("%")[0]).is_loopback]


def test_a_single_host_dynamic_cluster_listens_on_loopback_only(tmp_path, processes):
    script = tmp_path / "hold.py"
    script.write_text(HOLD)
    release = tmp_path / "release"
    env = cluster_env(free_port(), 2, tmp_path, MS_CLUSTER_TOKEN="t", RELEASE=release)
    procs = [processes.start(name, [PYTHON, "-m", "minispore", script], dict(env, MS_ROLE=role))
             for name, role in (("scheduler", "MS_SCHED"), ("worker_0", "MS_WORKER"),
                                ("worker_1", "MS_WORKER"))]
    give_up = time.monotonic() + 120
    while not all("joined" in processes.log(f"worker_{i}") for i in range(2)):
        assert time.monotonic() < give_up, "the job did not form"
        time.sleep(0.2)
    found = listeners([p.pid for p in procs])
    release.touch()
    assert processes.wait(procs, timeout=60) == {"scheduler": 0, "worker_0": 0, "worker_1": 0}
    port = int(env["MS_SCHED_PORT"])
    assert ("127.0.0.1", port, {"python"}) in found, found        # the scheduler's socket
    assert sum(1 for a, _, o in found if o == {"python"} and a == "127.0.0.1") >= 3, found
    assert beyond_loopback(found) == [], found


def test_a_two_rank_job_listens_on_loopback_only(tmp_path):
    script = tmp_path / "hold.py"
    script.write_text(HOLD.replace("from mindspore.", "from minispore."))
    release = tmp_path / "release"
    env = clean_env(RELEASE=release)
    job = subprocess.Popen([PYTHON, "-m", "minispore.run", "-n", "2", str(script)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           start_new_session=True)
    try:
        seen = ""
        while seen.count("joined") < 2:
            line = job.stdout.readline()
            assert line, f"the job ended early:\n{seen}"
            seen += line
        found = listeners([job.pid])
        release.touch()
        assert job.wait(timeout=60) == 0
    finally:
        if job.poll() is None:
            os.killpg(job.pid, 9)
            job.wait()
    assert sum(1 for a, _, o in found if o == {"python"} and a == "127.0.0.1") >= 2, found
    assert beyond_loopback(found) == [], found
