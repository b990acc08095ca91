"""`msrun` (python -m minispore.msrun, and the `msrun` console script): MindSpore's flags and
defaults, per-worker log files, one node or two invocations as two nodes, each equal to the
same job under mpirun."""
import configparser
import os
import re
import signal
import time
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from minispore import msrun
from tests.launch.harness import JOB, PYTHON, ROOT, assert_same_training, clean_env, free_port, \
    needs_own_launch, results, run_script


def args_of(*flags):
    return msrun.parser().parse_args(list(flags) + ["train.py", "--lr", "0.1"])


def test_flags_and_defaults_are_mindspores():
    args = args_of()
    assert (args.worker_num, args.local_worker_num, args.master_addr, args.master_port,
            args.node_rank, args.log_dir, args.join, args.cluster_time_out) == \
        (8, 8, "127.0.0.1", 8118, -1, "", False, 600)
    assert (args.task_script, args.task_script_args) == ("train.py", ["--lr", "0.1"])
    assert args_of("--join=True").join is True


@pytest.mark.parametrize("flags, message", [
    (["--worker_num=0"], "--worker_num must be greater than 0"),
    (["--worker_num=4", "--local_worker_num=5"], r"--local_worker_num must be in \[1, "
                                                 r"--worker_num=4\], but got 5"),
    (["--master_port=80"], r"--master_port must be in \[1024, 65535\], but got 80"),
    (["--cluster_time_out=0"], "--cluster_time_out must be a number of seconds"),
    (["--node_rank=-3"], "--node_rank must be >= 0"),
])
def test_out_of_range_flags_are_refused(flags, message):
    with pytest.raises(ValueError, match=message):
        msrun.check(args_of(*flags))


def test_join_takes_only_true_or_false(capsys):
    with pytest.raises(SystemExit):
        args_of("--join=yes")
    assert "--join" in capsys.readouterr().err


def test_node_ids_and_log_names_follow_node_rank():
    logs = Path("d")
    # One node: local index = rank, --node_rank ignored.
    assert msrun.workers_of_this_node(2, 2, 5, "d") == [(0, logs / "worker_0.log"),
                                                         (1, logs / "worker_1.log")]
    # Node 1 of two with 2 workers each: ranks 2 and 3.
    assert msrun.workers_of_this_node(4, 2, 1, "d") == [(2, logs / "worker_2.log"),
                                                         (3, logs / "worker_3.log")]
    # No --node_rank on several nodes: ranks by arrival, logs by local index.
    assert msrun.workers_of_this_node(4, 2, -1, "d") == [(None, logs / "worker_0.log"),
                                                          (None, logs / "worker_1.log")]


def test_only_node_zero_on_the_master_address_starts_the_scheduler():
    assert msrun.is_local_address("127.0.0.1") and not msrun.is_local_address("192.0.2.7")
    assert msrun.starts_scheduler(args_of("--worker_num=4", "--local_worker_num=2",
                                          "--node_rank=0"))
    assert not msrun.starts_scheduler(args_of("--worker_num=4", "--local_worker_num=2",
                                              "--node_rank=1"))
    assert not msrun.starts_scheduler(args_of("--master_addr=192.0.2.7"))


def test_scripts_run_under_the_mindspore_alias():
    assert msrun.command("train.py", ["--x"]) == [PYTHON, "-m", "minispore", "train.py", "--x"]
    assert msrun.command("python", ["train.py"]) == [PYTHON, "-m", "minispore", "train.py"]
    assert msrun.command("python3", ["-m", "pkg"]) == [PYTHON, "-m", "pkg"]
    assert msrun.command("pytest", ["-x"]) == [PYTHON, "-m", "pytest", "-x"]


def test_environment_of_workers_and_scheduler(monkeypatch):
    monkeypatch.setattr(msrun, "host_cores", lambda: 8)
    for var in msrun.THREAD_VARS + ("MS_NODE_ID",):
        monkeypatch.delenv(var, raising=False)
    args = args_of("--worker_num=4", "--local_worker_num=2", "--master_port=9000",
                   "--cluster_time_out=-1")
    worker = msrun.environment(args, "MS_WORKER", 3)
    assert {k: worker[k] for k in ("MS_ROLE", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM",
                                   "MS_TOPO_TIMEOUT", "MS_NODE_ID", "RANK_ID", "RANK_SIZE",
                                   "NUMBA_NUM_THREADS", "OMP_NUM_THREADS")} == \
        {"MS_ROLE": "MS_WORKER", "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": "9000",
         "MS_WORKER_NUM": "4", "MS_TOPO_TIMEOUT": "-1", "MS_NODE_ID": "3", "RANK_ID": "3",
         "RANK_SIZE": "4", "NUMBA_NUM_THREADS": "4", "OMP_NUM_THREADS": "4"}
    assert "MS_NODE_ID" not in msrun.environment(args, "MS_WORKER", None)
    scheduler = msrun.environment(args, "MS_SCHED")
    assert (scheduler["MS_ROLE"], scheduler["RANK_ID"], scheduler["NUMBA_NUM_THREADS"]) == \
        ("MS_SCHED", "0", "1")


def test_msrun_is_a_console_script_of_the_package():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    scripts = [s.strip() for s in cfg["options.entry_points"]["console_scripts"].split("\n")]
    assert "msrun = minispore.msrun:main" in scripts
    assert EntryPoint("msrun", "minispore.msrun:main", "console_scripts").load() is msrun.main


def msrun_env(tmp_path):
    """The job's token file in tmp_path (one path for every invocation, as nodes sharing a
    file system would see it), not in the user's home."""
    return clean_env(MS_CLUSTER_TOKEN_FILE=tmp_path / "job.token")


def msrun_job(tmp_path, log_dir, *flags, port):
    return [PYTHON, "-m", "minispore.msrun", f"--master_port={port}", f"--log_dir={log_dir}",
            "--join=True", "--cluster_time_out=120", *flags, JOB, tmp_path / "out"]


@needs_own_launch
def test_msrun_on_one_node_trains_as_mpirun_does(tmp_path, mpirun_training):
    (tmp_path / "out").mkdir()
    status, output = run_script(msrun_job(tmp_path, "logs", "--worker_num=2",
                                          "--local_worker_num=2", port=free_port()),
                                msrun_env(tmp_path), tmp_path, 300)
    assert status == 0, output
    assert "msrun: all processes exited normally." in output
    assert_same_training(results(tmp_path / "out", 2), mpirun_training(2))
    logs = tmp_path / "logs"
    assert sorted(p.name for p in logs.iterdir()) == ["scheduler.log", "worker_0.log",
                                                      "worker_1.log"]
    for rank in (0, 1):
        assert re.search(rf"rank {rank} epoch 1 step 7 loss",
                         (logs / f"worker_{rank}.log").read_text())
    scheduler = (logs / "scheduler.log").read_text()
    assert "Cluster is successfully initialized" in scheduler and "loss" not in scheduler


@needs_own_launch
def test_two_msrun_invocations_form_one_job_across_two_nodes(tmp_path, mpirun_training):
    """Node 0 and node 1 (here both on this machine, with their own log folders): 2 workers
    each, one 4-rank job, equal to mpirun -n 4; only node 0 runs the scheduler."""
    (tmp_path / "out").mkdir()
    port = free_port()
    both = ["bash", "-c", " ".join(f"'{a}'" for a in msrun_job(
        tmp_path, "node0", "--worker_num=4", "--local_worker_num=2", "--node_rank=0",
        port=port)) + " & first=$!; " + " ".join(f"'{a}'" for a in msrun_job(
        tmp_path, "node1", "--worker_num=4", "--local_worker_num=2", "--node_rank=1",
        port=port)) + "; second=$?; wait $first; echo \"node 0 exit $? node 1 exit $second\""]
    status, output = run_script(both, msrun_env(tmp_path), tmp_path, 300)
    assert "node 0 exit 0 node 1 exit 0" in output, output
    assert_same_training(results(tmp_path / "out", 4), mpirun_training(4))
    assert sorted(p.name for p in (tmp_path / "node0").iterdir()) == \
        ["scheduler.log", "worker_0.log", "worker_1.log"]
    assert sorted(p.name for p in (tmp_path / "node1").iterdir()) == \
        ["worker_2.log", "worker_3.log"]
    assert "Global rank id 3." in (tmp_path / "node1" / "worker_3.log").read_text()


RAISES_ON_RANK_1 = """
from mindspore.communication import init, get_rank
init()
if get_rank() == 1:
    raise ValueError("boom on rank one")
import time; time.sleep(60)
"""


@needs_own_launch
def test_msrun_join_reports_a_failed_worker_and_exits_non_zero(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text(RAISES_ON_RANK_1)
    status, output = run_script([PYTHON, "-m", "minispore.msrun", "--worker_num=2",
                                 "--local_worker_num=2", f"--master_port={free_port()}",
                                 "--log_dir=logs", "--join=True", script], msrun_env(tmp_path),
                                tmp_path, 120)
    assert status == 1, output
    assert "worker_1.log: [rank 1] ValueError: boom on rank one" in output
    assert re.search(r"worker process \d+ \(logs/worker_0.log\) exited with status 1", output)
    assert f"the distributed job exited with an error; see the logs in {tmp_path / 'logs'}." \
        in output
    assert "rank 1 failed: ValueError: boom on rank one" in \
        (tmp_path / "logs" / "scheduler.log").read_text()


@needs_own_launch
def test_msrun_without_join_returns_at_once_and_the_job_runs_on(tmp_path):
    release = tmp_path / "release"
    script = tmp_path / "held.py"
    # The job cannot end before the test releases it, so msrun returning proves it did not
    # wait for the job.
    script.write_text(f"import os, time\n"
                      f"from mindspore.communication import init, get_rank\n"
                      f"init()\n"
                      f"while not os.path.exists({str(release)!r}): time.sleep(0.1)\n"
                      f"print('rank', get_rank(), 'trained', flush=True)\n")
    status, output = run_script([PYTHON, "-m", "minispore.msrun", "--worker_num=1",
                                 "--local_worker_num=1", f"--master_port={free_port()}",
                                 "--log_dir=logs", script], msrun_env(tmp_path), tmp_path, 120)
    assert status == 0 and not release.exists(), output
    release.touch()
    pid = int(re.search(r"started worker pid (\d+)", output).group(1))
    scheduler = tmp_path / "logs" / "scheduler.log"
    give_up = time.monotonic() + 120
    while "Job finished" not in scheduler.read_text():
        if time.monotonic() > give_up:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the job did not finish:\n{scheduler.read_text()}")
        time.sleep(0.2)
    assert "rank 0 trained" in (tmp_path / "logs" / "worker_0.log").read_text()


def test_sigterm_to_a_joined_msrun_stops_every_process_it_started(tmp_path):
    """msrun --join=True owns its job: a SIGTERM to it ends the scheduler and the workers
    (nothing orphaned, the token file removed) and msrun exits 128 + SIGTERM."""
    import subprocess
    script = tmp_path / "forever.py"
    script.write_text("import time\nfrom mindspore.communication import init\ninit()\n"
                      "time.sleep(600)\n")
    port = free_port()
    # The token file at its default place, under a temporary HOME.
    env = clean_env(HOME=tmp_path / "home")
    token_file = tmp_path / "home" / ".minispore" / "cluster" / f"{port}.token"
    proc = subprocess.Popen([PYTHON, "-m", "minispore.msrun", "--worker_num=2",
                             "--local_worker_num=2", f"--master_port={port}",
                             "--join=True", "--log_dir=logs", str(script)],
                            env=env, cwd=tmp_path, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    logs = tmp_path / "logs"
    give_up = time.monotonic() + 120
    while not all((logs / f"worker_{r}.log").exists() and "Global rank id" in
                  (logs / f"worker_{r}.log").read_text() for r in range(2)):
        if time.monotonic() > give_up or proc.poll() is not None:
            proc.kill()
            pytest.fail("the job did not start")
        time.sleep(0.2)
    pids = [int(p) for p in re.findall(r"started worker pid (\d+)", proc.stderr.readline()
                                       + proc.stderr.readline())]
    assert token_file.exists()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    assert not token_file.exists()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pids and not any(_alive(pid) for pid in pids), pids


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("value", ["True)", "(", "yes", "1" * 5000])
def test_a_malformed_join_is_a_usage_error(tmp_path, value):
    status, output = run_script([PYTHON, "-m", "minispore.msrun", f"--join={value}", "train.py"],
                                clean_env(), tmp_path, 60)
    assert status == 2, output
    assert output.startswith("usage: msrun ") and "Traceback" not in output, output
    assert f"msrun: error: argument --join: must be True or False, but got {value!r}" in output
