"""Which TCP ports a single-host job listens on, read from /proc while it runs (no iproute2
needed): a 2-rank ``minispore.run`` job, a dynamic cluster (scheduler + 2 workers) and a
parameter-server job (scheduler + server + 2 workers) each listen on loopback only, every
process of the job included (the launchers too: before forker.py, Hydra's mpirun and each
worker's ``mpiexec -n 1`` listened on 0.0.0.0, and the ranks inherited that socket).

Each job is sampled every SAMPLE_S from its start to its end, so a listener opened at any
moment counts; each runs under a hard timeout and is killed when the test ends.
"""
import ipaddress
import os
import signal
import socket
import subprocess
import time

import pytest

from minispore.communication.cluster import listen
from tests.launch.harness import PYTHON, clean_env, cluster_env, free_port, needs_own_launch

pytestmark = needs_own_launch

HARD_TIMEOUT_S = 150
SAMPLE_S = 0.1
HOLD = """
import os, time
from mindspore.communication import init, get_rank
init()
print("rank", get_rank(), "joined", flush=True)
while not os.path.exists(os.environ["RELEASE"]):
    time.sleep(0.05)
"""
PS_JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ps_job.py")


def _descendants(roots):
    """`roots` and every live process below them (from /proc)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found = {pid for pid in roots if pid in parent}
    while True:
        more = {pid for pid, ppid in parent.items() if ppid in found} - found
        if not more:
            return found
        found |= more


def _address(hex_address):
    """/proc/net/tcp{,6}'s hex address (32-bit words in host order, little-endian here)."""
    raw = bytes.fromhex(hex_address)
    return ipaddress.ip_address(b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)))


def listening_sockets():
    """{socket inode: (address, port)} of every TCP socket in LISTEN state in this network
    namespace."""
    found = {}
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                rows = f.read().splitlines()[1:]
        except FileNotFoundError:
            continue                    # no IPv6
        for row in rows:
            fields = row.split()
            if fields[3] == "0A":       # TCP_LISTEN
                address, port = fields[1].split(":")
                found[int(fields[9])] = (_address(address), int(port, 16))
    return found


def listeners(roots):
    """{(address, port): {(pid, command name)}} of the listening sockets that `roots` or a
    process below them holds."""
    sockets = listening_sockets()
    held = {}
    for pid in _descendants(roots):
        try:
            with open(f"/proc/{pid}/comm") as f:
                name = f.read().strip()
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue                    # it ended meanwhile
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inode = int(target[len("socket:["):-1])
                if inode in sockets:
                    held.setdefault(sockets[inode], set()).add((pid, name))
    return held


def watch_until_done(procs, log, done=lambda text: False, release=None):
    """Sample the listeners of `procs`' trees every SAMPLE_S until every one has ended:
    (the union of what was seen, {pid: exit status}). `done(log())` true touches `release`
    (after one more sample). Fails the test, killing the processes, after HARD_TIMEOUT_S."""
    seen = {}
    give_up = time.monotonic() + HARD_TIMEOUT_S
    roots = [p.pid for p in procs]
    while any(p.poll() is None for p in procs):
        if time.monotonic() > give_up:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
            pytest.fail(f"the job did not end within {HARD_TIMEOUT_S} s:\n{log()[-3000:]}")
        for key, owners in listeners(roots).items():
            seen.setdefault(key, set()).update(owners)
        if release is not None and not release.exists() and done(log()):
            release.touch()
        time.sleep(SAMPLE_S)
    return seen, {p.pid: p.wait() for p in procs}


class Job:
    """The processes of one job, each in its own session, killed (whole session) at close."""

    def __init__(self, folder):
        self.folder, self.procs = folder, []

    def start(self, name, argv, env):
        with open(self.folder / f"{name}.log", "w") as out:
            proc = subprocess.Popen([str(a) for a in argv], env=env, cwd=self.folder,
                                    stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        proc.name = name
        self.procs.append(proc)
        return proc

    def log(self):
        return "\n".join(f"--- {p.name}\n" + (self.folder / f"{p.name}.log").read_text()
                         for p in self.procs)

    def close(self):
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


@pytest.fixture
def job(tmp_path):
    started = Job(tmp_path)
    yield started
    started.close()


def beyond_loopback(seen):
    return {key: owners for key, owners in seen.items() if not key[0].is_loopback}


def test_a_two_rank_run_listens_on_loopback_only(tmp_path, job):
    script = tmp_path / "hold.py"
    script.write_text(HOLD.replace("from mindspore.", "from minispore."))
    release = tmp_path / "release"
    launch = job.start("run", [PYTHON, "-m", "minispore.run", "-n", 2, script],
                       clean_env(RELEASE=release))
    seen, status = watch_until_done([launch], job.log, lambda text: text.count("joined") == 2,
                                    release)
    assert status == {launch.pid: 0}, job.log()
    assert beyond_loopback(seen) == {}, seen
    # One listener per rank (its netmod's); none held by a launcher or shared by processes.
    assert len(seen) >= 2 and all(len(owners) == 1 for owners in seen.values()), seen
    assert {name for owners in seen.values() for _, name in owners} == {"python"}, seen


def test_a_dynamic_cluster_listens_on_loopback_only(tmp_path, job):
    script = tmp_path / "hold.py"
    script.write_text(HOLD)
    release = tmp_path / "release"
    port = free_port()
    env = cluster_env(port, 2, tmp_path, MS_CLUSTER_TOKEN="t", RELEASE=release)
    procs = [job.start(name, [PYTHON, "-m", "minispore", script], dict(env, MS_ROLE=role))
             for name, role in (("scheduler", "MS_SCHED"), ("worker_0", "MS_WORKER"),
                                ("worker_1", "MS_WORKER"))]
    seen, status = watch_until_done(procs, job.log, lambda text: text.count("joined") == 2,
                                    release)
    assert set(status.values()) == {0}, job.log()
    assert beyond_loopback(seen) == {}, seen
    # The scheduler's port alone: the workers' libfabric netmod talks through shared memory
    # on one host (cluster/relaunch.py) and opens none.
    assert list(seen) == [(ipaddress.ip_address("127.0.0.1"), port)], seen


def test_a_parameter_server_job_listens_on_loopback_only(tmp_path, job):
    port = free_port()
    env = cluster_env(port, 2, tmp_path, MS_SERVER_NUM=1, MS_TOPO_TIMEOUT=60,
                      PS_JOB_MODE="sync", PS_JOB_STEPS=4, PS_JOB_SLEEP=0.3)
    argv = [PYTHON, "-m", "minispore", PS_JOB, tmp_path]
    procs = [job.start(name, argv, dict(env, MS_ROLE=role))
             for name, role in (("sched", "MS_SCHED"), ("server_0", "MS_PSERVER"),
                                ("worker_0", "MS_WORKER"), ("worker_1", "MS_WORKER"))]
    seen, status = watch_until_done(procs, job.log)
    assert set(status.values()) == {0}, job.log()
    assert beyond_loopback(seen) == {}, seen
    # The scheduler's port alone (the server's and workers' netmods use shared memory).
    assert list(seen) == [(ipaddress.ip_address("127.0.0.1"), port)], seen


# Where the netmods are told to listen (listen.netmod_environment), without processes.

def test_a_one_host_job_pins_the_netmods_to_loopback_unless_set():
    assert listen.netmod_environment(None, {}) == listen.LOOPBACK_VARS
    for host in ("127.0.0.1", "localhost", "::1"):
        assert listen.netmod_environment(host, {}) == listen.LOOPBACK_VARS
    assert listen.netmod_environment("127.0.0.1", {"UCX_NET_DEVICES": "eth9"}) == \
        {"FI_TCP_IFACE": "lo", "FI_SOCKETS_IFACE": "lo"}
    assert listen.netmod_environment("192.0.2.1", dict.fromkeys(listen.NETMOD_IFACE_VARS,
                                                                "eth9")) == {}


def test_a_job_across_hosts_pins_the_netmods_to_the_interface_toward_the_scheduler():
    own = [(name, address) for _, name in socket.if_nameindex()
           for address in listen._addresses(name) if not address.is_loopback
           and not address.is_link_local]
    if not own:
        pytest.skip("this host has no address outside loopback")
    name, address = own[0]
    assert listen.netmod_environment(str(address), {}) == \
        dict.fromkeys(listen.NETMOD_IFACE_VARS, name)


def test_an_interface_that_cannot_be_found_is_an_error_naming_the_address():
    with pytest.raises(RuntimeError, match=r"cannot find the network interface toward "
                                           r"'no-such-host.invalid' \(the scheduler's address"):
        listen.netmod_environment("no-such-host.invalid", {})


def test_hydras_iface_pins_the_netmods_of_its_ranks():
    """`mpirun -iface eth0` tells the ranks only through ch3's variable, which UCX ignores
    (it listened on loopback too: tests/multihost/test_mpirun_hosts.py saw it)."""
    env = {"PMI_RANK": "0", listen.HYDRA_IFACE_VAR: "eth0", "FI_TCP_IFACE": "eth1"}
    assert listen.pin_netmods_to_launcher_interface(env) == \
        {"UCX_NET_DEVICES": "eth0", "FI_SOCKETS_IFACE": "eth0"}
    assert env["FI_TCP_IFACE"] == "eth1" and env["UCX_NET_DEVICES"] == "eth0"
    assert listen.pin_netmods_to_launcher_interface({"PMI_RANK": "0"}) == {}
    assert listen.pin_netmods_to_launcher_interface({listen.HYDRA_IFACE_VAR: "eth0"}) == {}
