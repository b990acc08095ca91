"""Parameter-server training on real processes: one scheduler, MS_SERVER_NUM servers and
MS_WORKER_NUM workers of tests/launch/ps_job.py, launched as MindSpore's run.sh does (each with
its MS_ROLE, no mpirun), against the same script run alone on the global batch.

What is checked: synchronous PS equals single-process training (losses every step, the
parameters the workers pulled at the end); the parameters are really on the servers (each
server's log lists the ones it owns, the placement rule's, and one push per worker per step);
parameters without set_param_ps train on the workers beside them; asynchronous mode applies
every push exactly once and the loss falls; a worker or a server killed mid-training ends the
whole job in seconds with a non-zero exit that names it; a job started again after a crash
with MS_ENABLE_RECOVERY=1 resumes at the servers' step and ends equal to an uninterrupted run.
"""
import os
import re
import signal
import time

import numpy as np
import pytest

from tests.launch.harness import PYTHON, Processes, cluster_env, free_port, needs_own_launch

JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ps_job.py")

pytestmark = needs_own_launch


def _start(tmp_path, workers, servers, **job_env):
    """The scheduler, servers and workers of one job: (Processes, [scheduler, *servers,
    *workers])."""
    procs = Processes(tmp_path / "logs")
    env = cluster_env(free_port(), workers, tmp_path, MS_SERVER_NUM=servers, MS_TOPO_TIMEOUT=60,
                      **job_env)
    argv = [PYTHON, "-m", "minispore", JOB, tmp_path]
    started = [procs.start("sched", argv, dict(env, MS_ROLE="MS_SCHED"))]
    started += [procs.start(f"server_{i}", argv, dict(env, MS_ROLE="MS_PSERVER"))
                for i in range(servers)]
    started += [procs.start(f"worker_{i}", argv, dict(env, MS_ROLE="MS_WORKER"))
                for i in range(workers)]
    return procs, started


def _run_job(tmp_path, workers, servers, **job_env):
    procs, started = _start(tmp_path, workers, servers, **job_env)
    try:
        status = procs.wait(started, 240)
        logs = {p.name: procs.log(p.name) for p in started}
    finally:
        procs.close()
    assert set(status.values()) == {0}, {k: logs[k][-1500:] for k, v in status.items() if v}
    results = [dict(np.load(tmp_path / f"rank_{r}.npz")) for r in range(workers)]
    return results, logs


def _single(tmp_path, workers, **job_env):
    out = tmp_path / "single"
    out.mkdir()
    procs = Processes(tmp_path / "single_logs")
    env = {k: v for k, v in cluster_env(0, 1, tmp_path).items() if not k.startswith("MS_")}
    env.update(PS_JOB_MODE="single", PS_JOB_WORKERS=str(workers),
               **{k: str(v) for k, v in job_env.items()})
    proc = procs.start("single", [PYTHON, "-m", "minispore", JOB, out], env)
    try:
        assert procs.wait([proc], 120) == {"single": 0}, procs.log("single")[-2000:]
    finally:
        procs.close()
    return dict(np.load(out / "rank_0.npz"))


def _served(logs):
    """{parameter name: server index} from the servers' "Serving ..." lines."""
    owners = {}
    for name, log in logs.items():
        for server, names in re.findall(r"\[MS_PSERVER (\d+)\].*Serving \d+ parameter\(s\) "
                                        r"\(([^;]*);", log):
            owners.update({n: int(server) for n in names.split(", ") if n != "none"})
    return owners


@pytest.mark.parametrize("params, style, chunk", [("all", "jit", None), ("first", "jit", 64),
                                                  ("all", "model", None)],
                         ids=["all-jit", "first-jit-chunked", "all-model"])
def test_synchronous_ps_equals_single_process_training(tmp_path, params, style, chunk):
    job_env = dict(PS_JOB_MODE="sync", PS_JOB_PARAMS=params, PS_JOB_STYLE=style, PS_JOB_STEPS=5)
    if chunk:
        job_env["PS_JOB_CHUNK"] = chunk     # 768-byte weight -> 12 messages per transfer
    results, logs = _run_job(tmp_path, 2, 2, **job_env)
    want = _single(tmp_path, 2, PS_JOB_PARAMS=params, PS_JOB_STYLE=style, PS_JOB_STEPS=5)
    if style == "jit":
        got = np.mean([r["losses"] for r in results], axis=0)    # equal local batches
        np.testing.assert_allclose(got, want["losses"], rtol=1e-5)
    for r in results:
        for name in ("0.weight", "0.bias", "2.weight", "2.bias"):
            np.testing.assert_allclose(r[name], want[name], rtol=1e-5, atol=1e-7,
                                       err_msg=name)
    # The placement rule: by bytes, largest-first in the optimizer's order (768, 64, 256, 16).
    expected = {"0.weight": 0, "0.bias": 1, "2.weight": 1, "2.bias": 1}
    if params == "first":
        expected = {"0.weight": 0, "0.bias": 1}
    assert _served(logs) == expected
    for server in (0, 1):
        log = next(v for v in logs.values() if f"[MS_PSERVER {server}]" in v)
        assert len(re.findall(r"step \d+: 2 pushes in, update applied, 2 pulls out", log)) == 5
        assert "pushes applied per worker: worker 0: 5, worker 1: 5." in log
    assert "loss" not in logs["sched"]
    assert not any("Resuming at step" in log for log in logs.values())     # a fresh start
    assert "Job finished: all 2 workers and 2 parameter servers finished" in logs["sched"]


def test_asynchronous_ps_applies_every_push_once_and_converges(tmp_path):
    results, logs = _run_job(tmp_path, 2, 1, PS_JOB_MODE="async", PS_JOB_STEPS=24)
    server = logs["server_0"]
    assert "asynchronous" in server
    assert "pushes applied per worker: worker 0: 24, worker 1: 24." in server
    assert len(re.findall(r"push \d+ of worker \d applied", server)) == 48
    for r in results:
        assert np.all(np.isfinite(r["losses"]))
        assert r["losses"][-6:].mean() < r["losses"][:6].mean()
    # Every worker pulled the server's values after its last push; the last pull of the
    # first worker to finish may precede the other's last push, so they need not be equal.
    assert results[0]["0.weight"].shape == (16, 12)


def _wait_for(procs, name, pattern, timeout):
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if re.search(pattern, procs.log(name)):
            return
        time.sleep(0.2)
    pytest.fail(f"{name} never printed {pattern!r}:\n{procs.log(name)[-2000:]}")


@pytest.mark.parametrize("victim, named", [("worker_1", r"worker \(rank \d"),
                                           ("server_0", r"server \(rank [23]")])
def test_a_killed_process_ends_the_job_naming_it(tmp_path, victim, named):
    procs, started = _start(tmp_path, 2, 2, PS_JOB_MODE="sync", PS_JOB_STEPS=100000,
                            PS_JOB_SLEEP=0.05)
    try:
        _wait_for(procs, "worker_0", r"step 3 loss", 120)
        by_name = {p.name: p for p in started}
        os.kill(by_name[victim].pid, signal.SIGKILL)
        killed_at = time.monotonic()
        status = procs.wait(started, 60)
        took = time.monotonic() - killed_at
        sched = procs.log("sched")
    finally:
        procs.close()
    assert took < 30, took
    assert status["sched"] != 0 and all(v != 0 for k, v in status.items()), status
    assert re.search(r"Job failed: " + named + r".* exited before finishing its script", sched), \
        sched[-2000:]


@pytest.mark.parametrize("style, epochs", [("jit", 1), ("model", 3)])
def test_a_job_started_again_resumes_at_the_servers_step_and_equals_an_uninterrupted_run(
        tmp_path, style, epochs):
    """A server killed mid-job; the same script with the same total steps started again: the
    servers restore their newest common checkpoint, the workers learn its step from them and
    feed only the batches after it (a hand-written loop from minispore.ps.resume_step(),
    Model.train by skipping), so the job ends at the same step with the same parameters as a
    run never interrupted. Model.train runs 3 epochs of 5 batches, so it skips whole epochs,
    then batches within one (resumed at 6: 1 epoch and 1 batch)."""
    total = 15
    recovery = dict(MS_ENABLE_RECOVERY=1, MS_RECOVERY_PATH=tmp_path / "recovery",
                    MS_RECOVERY_INTERVAL=2, PS_JOB_MODE="sync", PS_JOB_STYLE=style,
                    PS_JOB_STEPS=total, PS_JOB_EPOCHS=epochs)
    first = tmp_path / "first"
    first.mkdir()
    procs, started = _start(first, 2, 2, PS_JOB_SLEEP=0.1, **recovery)
    try:
        _wait_for(procs, "worker_0", r"step 6 loss", 120)
        os.kill(next(p for p in started if p.name == "server_1").pid, signal.SIGKILL)
        status = procs.wait(started, 60)
    finally:
        procs.close()
    assert status["sched"] != 0
    # Whole names only: the job's teardown can kill a server mid-save, leaving
    # ".ps_server_0_step_8.ckpt.<host>.<pid>.<x>.tmp", which is no checkpoint (the restarted
    # server says so and restores the newest complete one).
    names = os.listdir(tmp_path / "recovery")
    saved = [sorted(int(m.group(1)) for m in
                    (re.fullmatch(rf"ps_server_{s}_step_(\d+)\.ckpt", n) for n in names) if m)
             for s in (0, 1)]
    # The last two are kept: each save prunes the older ones after it, so a server the job's
    # teardown kills between its save and its prune may hold one more (seen: [4, 6, 8]).
    assert all(2 <= len(steps) <= 3 for steps in saved), saved
    resumed_at = min(steps[-1] for steps in saved)
    assert 6 <= resumed_at < total and resumed_at % 2 == 0, saved

    results, logs = _run_job(tmp_path, 2, 2, **recovery)
    for server in (0, 1):
        log = next(v for v in logs.values() if f"[MS_PSERVER {server}]" in v)
        assert f"Restored from step {resumed_at}" in log, log[-1500:]
        # Every server ends at the total: the restored steps plus one per batch fed now.
        assert re.findall(r"step (\d+): 2 pushes in", log)[-1] == str(total), log[-1500:]
    workers = logs["worker_0"] + logs["worker_1"]     # job ranks go by arrival, not by name
    for rank in (0, 1):
        assert re.search(rf"\[MS_WORKER {rank}\] .* Resuming at step {resumed_at} ", workers), \
            workers[-3000:]
        np.testing.assert_array_equal(results[rank]["steps"], np.arange(resumed_at, total))
    want = _single(tmp_path, 2, PS_JOB_STEPS=total, PS_JOB_STYLE=style, PS_JOB_EPOCHS=epochs)
    np.testing.assert_array_equal(want["steps"], np.arange(total))
    if style == "jit":      # equal local batches: the mean of the workers' is the global loss
        np.testing.assert_allclose(np.mean([r["losses"] for r in results], axis=0),
                                   want["losses"][resumed_at:], rtol=1e-5)
    for r in results:
        for name in ("0.weight", "0.bias", "2.weight", "2.bias"):
            np.testing.assert_allclose(r[name], want[name], rtol=1e-5, atol=1e-7,
                                       err_msg=name)


def test_asynchronous_training_goes_on_without_a_worker_that_died(tmp_path):
    procs, started = _start(tmp_path, 3, 1, PS_JOB_MODE="async", PS_JOB_STEPS=40,
                            PS_JOB_SLEEP=0.05)
    try:
        _wait_for(procs, "worker_1", r"step 3 loss", 120)
        os.kill(next(p for p in started if p.name == "worker_1").pid, signal.SIGKILL)
        status = procs.wait(started, 120)
        logs = {p.name: procs.log(p.name) for p in started}
    finally:
        procs.close()
    assert status["worker_1"] != 0
    assert {k: v for k, v in status.items() if k != "worker_1"} == \
        {"sched": 0, "server_0": 0, "worker_0": 0, "worker_2": 0}, \
        {k: logs[k][-1500:] for k in logs}
    sched = logs["sched"]
    lost = int(re.search(r"The worker \(rank (\d)[^)]*\) exited before finishing its script; "
                         r"the asynchronous parameter server drops it", sched).group(1))
    assert f"Job finished: 2 of 3 workers (rank(s) {lost} lost) and 1 parameter servers " \
           f"finished their script." in sched
    server = logs["server_0"]
    assert f"Worker {lost} was lost (the scheduler dropped it); serving the other 2." in server
    counts = dict(re.findall(r"worker (\d): (\d+)", server.split("pushes applied per worker:")[1]))
    survivors = [w for w in "012" if int(w) != lost]
    assert all(counts[w] == "40" for w in survivors), counts
    assert 3 <= int(counts[str(lost)]) < 40, counts
    for rank in survivors:
        losses = np.load(tmp_path / f"rank_{rank}.npz")["losses"]
        assert losses[-6:].mean() < losses[:6].mean()
