"""Failures in a dynamic cluster end the whole job quickly, every process non-zero, with a
message that says what happened: a worker that never arrives, no scheduler, a worker killed
(or its launcher killed, or an exception) mid-training, strangers and wrong tokens on the
scheduler's port, one worker too many, and a port already in use."""
import json
import os
import signal
import socket
import stat
import time

import pytest

from minispore.communication.cluster import cluster_wire
from tests.launch.harness import PYTHON, cluster_env, free_port, needs_own_launch

pytestmark = needs_own_launch

# Trains "forever" (30 s) in small all-reduce steps; rank 1 says when it is at step 3, and
# raises at step 5 when RAISE_ON_RANK_1 is set.
LOOP = """
import os, time
import numpy as np
import mindspore as ms
from mindspore import Tensor, ops
from mindspore.communication import init, get_rank
init()
for step in range(600):
    ops.AllReduce()(Tensor(np.ones(4, np.float32)))
    if get_rank() == 1 and step == 3:
        print("rank 1 pid", os.getpid(), "at step 3", flush=True)
    if get_rank() == 1 and step == 5 and os.environ.get("RAISE_ON_RANK_1"):
        raise ValueError("boom on rank one")
    time.sleep(0.05)
print("rank", get_rank(), "done", flush=True)
"""
# Joins, holds the job until the file RELEASE names exists (so a later process meets a
# running job; at most 2 minutes) or, without RELEASE, for a second, and ends.
HOLD = """
import os, time
from mindspore.communication import init, get_rank
print("calling init", flush=True)
init()
give_up = time.monotonic() + (120 if os.environ.get("RELEASE") else 1)
while time.monotonic() < give_up and not os.path.exists(os.environ.get("RELEASE", "")):
    time.sleep(0.1)
print("rank", get_rank(), "done", flush=True)
"""


@pytest.fixture
def job(tmp_path, processes):
    """job(script, workers, **env) -> start(name, role, **env): processes of one job."""
    def make(text, workers, **common):
        script = tmp_path / "script.py"
        script.write_text(text)
        env = cluster_env(free_port(), workers, tmp_path, **common)

        def start(name, role, **extra):
            return processes.start(name, [PYTHON, "-m", "minispore", script],
                                   dict(env, MS_ROLE=role, **{k: str(v) for k, v in
                                                              extra.items()}))
        start.env = env
        return start
    return make


def wait_for(predicate, timeout, what):
    give_up = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > give_up:
            pytest.fail(f"{what} did not happen within {timeout} s")
        time.sleep(0.1)


def test_a_missing_worker_ends_the_job_naming_its_rank(job, processes):
    # The workers are up before the scheduler opens its 4 s window (they wait up to 60 s for
    # it), so a slow start on a busy machine cannot make them miss the window too.
    start = job(HOLD, 3, MS_TOPO_TIMEOUT=60)
    workers = [start("worker_0", "MS_WORKER", MS_NODE_ID=0),
               start("worker_2", "MS_WORKER", MS_NODE_ID=2)]
    wait_for(lambda: all("calling init" in processes.log(w.name) for w in workers), 120,
             "the workers reaching init()")
    began = time.monotonic()
    procs = [start("scheduler", "MS_SCHED", MS_TOPO_TIMEOUT=4)] + workers
    exits = processes.wait(procs, timeout=60)
    elapsed = time.monotonic() - began
    assert exits == {"scheduler": 1, "worker_0": 1, "worker_2": 1}, exits
    assert 4 < elapsed < 4 + 20, elapsed   # the window, plus starting the scheduler's Python
    reason = ("the cluster did not form within MS_TOPO_TIMEOUT=4 s: 2 of 3 workers registered "
              "(MS_NODE_ID 0, 2); missing rank(s) 1 (MS_NODE_ID 1, or workers without "
              "MS_NODE_ID)")
    assert f"Job failed: {reason}" in processes.log("scheduler")
    for name in ("worker_0", "worker_2"):
        assert f"minispore dynamic cluster: the job is aborting: {reason}; exiting with " \
               f"status 1." in processes.log(name), processes.log(name)


def test_a_worker_without_a_scheduler_gives_up_naming_its_address(job, processes):
    start = job(HOLD, 1, MS_TOPO_TIMEOUT=2)
    began = time.monotonic()
    exits = processes.wait([start("worker", "MS_WORKER")], timeout=60)
    assert exits == {"worker": 1} and time.monotonic() - began < 2 + 20
    port = start.env["MS_SCHED_PORT"]
    assert ("RuntimeError: For 'init', worker pid" in processes.log("worker")
            and f"could not reach the scheduler at MS_SCHED_HOST:MS_SCHED_PORT=127.0.0.1:"
                f"{port} within MS_TOPO_TIMEOUT=2 s" in processes.log("worker")), \
        processes.log("worker")


@pytest.mark.parametrize("failure", ["kill the worker", "kill its launcher", "raise"])
def test_a_worker_failing_mid_training_ends_every_process(job, processes, failure):
    start = job(LOOP, 3, RAISE_ON_RANK_1="1" if failure == "raise" else "")
    procs = [start("scheduler", "MS_SCHED")] + [start(f"worker_{i}", "MS_WORKER", MS_NODE_ID=i)
                                                for i in range(3)]
    wait_for(lambda: "at step 3" in processes.log("worker_1"), 120, "rank 1 reaching step 3")
    worker_pid = int(processes.log("worker_1").split("rank 1 pid ")[1].split()[0])
    began = time.monotonic()
    if failure == "kill the worker":
        os.kill(worker_pid, signal.SIGKILL)          # as the OOM killer would
    elif failure == "kill its launcher":
        procs[2].send_signal(signal.SIGKILL)         # the pid that was started: now its launcher
    exits = processes.wait(procs, timeout=60)
    elapsed = time.monotonic() - began
    assert elapsed < 15, f"the job took {elapsed:.1f} s to end"
    assert exits["scheduler"] == 1 and exits["worker_0"] == 1 and exits["worker_2"] == 1, exits
    assert exits["worker_1"] != 0, exits
    if failure == "raise":
        reason = "rank 1 failed: ValueError: boom on rank one"
        assert "Traceback (most recent call last)" in processes.log("worker_1")
        assert "ValueError: boom on rank one" in processes.log("worker_1")
    else:
        reason = (f"worker (rank 1, node id 1, host {socket.gethostname()}, pid {worker_pid}) "
                  f"exited before finishing its script")
    assert f"Job failed: {reason}" in processes.log("scheduler"), processes.log("scheduler")
    for name in ("worker_0", "worker_2"):
        log = processes.log(name)
        assert f"the job is aborting: {reason}" in log and "done" not in log, log
    if failure == "kill its launcher":
        # The training process under the killed launcher does not linger as an orphan.
        wait_for(lambda: not _alive(worker_pid), 15, f"rank 1's process {worker_pid} exiting")


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def _say(port, data):
    """What the scheduler answers a connection that sends `data`."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        return json.loads(s.makefile().readline())


def test_strangers_and_wrong_tokens_are_refused_and_logged(job, processes):
    start = job(HOLD, 1, MS_CLUSTER_TOKEN="the-right-token")
    scheduler = start("scheduler", "MS_SCHED")
    port = int(start.env["MS_SCHED_PORT"])
    wait_for(lambda: "listening on" in processes.log("scheduler"), 60, "the scheduler starting")
    assert _say(port, b"GET / HTTP/1.0\r\n\r\n") == {
        "kind": "refused", "reason": "not a minispore worker (not a JSON line: b'GET / "
                                     "HTTP/1.0\\r')"}
    hello = {"kind": "hello", "protocol": "minispore-cluster/1", "token": "the-right-token",
             "role": "MS_WORKER", "node_id": 5, "worker_num": 1, "host": "h", "pid": 1}
    assert _say(port, json.dumps(hello).encode() + b"\n") == {
        "kind": "refused", "reason": "not a minispore worker (malformed hello)"}
    impostor = start("impostor", "MS_WORKER", MS_CLUSTER_TOKEN="a-guess")
    assert processes.wait([impostor], timeout=60) == {"impostor": 1}
    assert (f"RuntimeError: For 'init', the process at MS_SCHED_HOST:MS_SCHED_PORT=127.0.0.1:"
            f"{port} did not prove that it holds this job's cluster token, so worker pid"
            in processes.log("impostor")), processes.log("impostor")
    worker = start("worker", "MS_WORKER")
    assert processes.wait([worker, scheduler], timeout=60) == {"worker": 0, "scheduler": 0}
    log = processes.log("scheduler")
    assert "WARNING Refused the connection from 127.0.0.1:" in log
    assert log.count("hung up after the scheduler's challenge: a worker whose cluster token "
                     "differs from the scheduler's") == 1
    assert log.count("not a minispore worker") == 2
    assert "the-right-token" not in log and "a-guess" not in log


def test_a_worker_beyond_worker_num_is_refused_and_the_token_file_is_private(job, processes,
                                                                             tmp_path):
    release = tmp_path / "release"
    # No MS_CLUSTER_TOKEN: the scheduler writes the token file.
    start = job(HOLD, 1, RELEASE=release)
    token_file = tmp_path / "job.token"
    scheduler = start("scheduler", "MS_SCHED")
    wait_for(token_file.exists, 60, "the token file appearing")
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    first = start("worker_a", "MS_WORKER")
    wait_for(lambda: "Cluster is successfully initialized" in processes.log("scheduler"), 60,
             "the one-worker job forming")
    extra = start("worker_b", "MS_WORKER")
    assert processes.wait([extra], timeout=60) == {"worker_b": 1}
    release.touch()
    exits = processes.wait([first, scheduler], timeout=60)
    assert exits == {"worker_a": 0, "scheduler": 0}, exits
    assert "refused worker pid" in processes.log("worker_b")
    assert "the job has already formed with MS_WORKER_NUM=1 workers." in processes.log("worker_b")
    assert not token_file.exists()   # removed when the job ended


def test_a_port_already_in_use_is_a_clear_error(job, processes, tmp_path):
    start = job(HOLD, 1)
    port = int(start.env["MS_SCHED_PORT"])
    with socket.create_server(("127.0.0.1", port)):
        exits = processes.wait([start("scheduler", "MS_SCHED")], timeout=60)
    assert exits == {"scheduler": 1}
    assert (f"RuntimeError: The scheduler cannot listen on MS_SCHED_HOST:MS_SCHED_PORT="
            f"127.0.0.1:{port}: the port is already in use (another job's scheduler, or another "
            f"program). Choose a free MS_SCHED_PORT (msrun --master_port)."
            in processes.log("scheduler")), processes.log("scheduler")
    assert not (tmp_path / "job.token").exists()   # the running job's token is left alone


@pytest.mark.parametrize("line", [b"[" * 50_000, b"9" * 5_000, b'{"kind": "hello", "pid": '
                                  + b"1" * 5_000 + b"}", bytes(range(256)) * 8],
                         ids=["50KB of [", "5000-digit integer", "5000-digit pid", "garbage"])
def test_a_strangers_line_is_refused_and_the_running_job_goes_on(job, processes, tmp_path,
                                                                 line):
    release = tmp_path / "release"
    start = job(HOLD, 2, MS_CLUSTER_TOKEN="the-right-token", RELEASE=release)
    procs = [start("scheduler", "MS_SCHED")] + [start(f"worker_{i}", "MS_WORKER")
                                                for i in range(2)]
    wait_for(lambda: "Cluster is successfully initialized" in processes.log("scheduler"), 120,
             "the job forming")
    port = int(start.env["MS_SCHED_PORT"])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(line.replace(b"\n", b" ") + b"\n")
        answer = json.loads(s.makefile().readline())
        assert s.recv(1) == b""                      # and that connection is closed
    assert answer["kind"] == "refused" and \
        answer["reason"].startswith("not a minispore worker ("), answer
    release.touch()
    exits = processes.wait(procs, timeout=60)
    assert exits == {"scheduler": 0, "worker_0": 0, "worker_1": 0}, exits
    log = processes.log("scheduler")
    assert "WARNING Refused the connection from 127.0.0.1:" in log and "Traceback" not in log
    assert "Job finished: all 2 workers finished their script." in log, log


def test_a_squatter_on_the_schedulers_port_learns_nothing_from_a_worker(job, processes):
    start = job(HOLD, 1, MS_CLUSTER_TOKEN="the-secret-token")
    port = int(start.env["MS_SCHED_PORT"])
    with socket.create_server(("127.0.0.1", port)) as squatter:   # up before any scheduler
        squatter.settimeout(120)
        worker = start("worker", "MS_WORKER")
        conn, _ = squatter.accept()
        with conn:
            conn.settimeout(30)
            received = conn.makefile("rb").readline()
            hello = json.loads(received)
            # What an impostor can send: a nonce, and a proof it cannot compute.
            conn.sendall(cluster_wire.encode("challenge", nonce="ab" * 32, proof="00" * 32))
            while chunk := conn.recv(4096):
                received += chunk
    assert processes.wait([worker], timeout=60) == {"worker": 1}
    assert b"the-secret-token" not in received
    assert received.count(b"\n") == 1                 # the hello, and no answer to a fake proof
    assert sorted(hello) == ["host", "kind", "node_id", "nonce", "pid", "protocol", "role",
                             "server_num", "worker_num"], hello
    assert (f"the process at MS_SCHED_HOST:MS_SCHED_PORT=127.0.0.1:{port} did not prove that "
            f"it holds this job's cluster token, so worker pid" in processes.log("worker")), \
        processes.log("worker")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_the_token_file_goes_with_a_stopped_scheduler(job, processes, tmp_path, signum):
    # The default path under a temporary HOME (no MS_CLUSTER_TOKEN_FILE).
    start = job(HOLD, 2, HOME=tmp_path / "home", MS_CLUSTER_TOKEN_FILE="")
    token_file = tmp_path / "home" / ".minispore" / "cluster" / \
        f"{start.env['MS_SCHED_PORT']}.token"
    scheduler = start("scheduler", "MS_SCHED")
    wait_for(lambda: "listening on" in processes.log("scheduler"), 60, "the scheduler starting")
    assert token_file.exists()
    scheduler.send_signal(signum)
    assert processes.wait([scheduler], timeout=30) == {"scheduler": 128 + signum}
    assert not token_file.exists()
    assert f"Scheduler stopped by {signal.Signals(signum).name}" in processes.log("scheduler")


def test_a_stale_token_file_is_replaced_and_the_job_runs(job, processes, tmp_path):
    start = job(HOLD, 1, HOME=tmp_path / "home", MS_CLUSTER_TOKEN_FILE="")
    token_file = tmp_path / "home" / ".minispore" / "cluster" / \
        f"{start.env['MS_SCHED_PORT']}.token"
    token_file.parent.mkdir(mode=0o700, parents=True)
    token_file.write_text("left by a killed scheduler")
    token_file.chmod(0o600)
    procs = [start("scheduler", "MS_SCHED"), start("worker", "MS_WORKER")]
    assert processes.wait(procs, timeout=60) == {"scheduler": 0, "worker": 0}
    assert f"WARNING Replacing the stale cluster token file {token_file} (left by a scheduler " \
           f"of port {start.env['MS_SCHED_PORT']} that was killed" in processes.log("scheduler")
    assert not token_file.exists()
