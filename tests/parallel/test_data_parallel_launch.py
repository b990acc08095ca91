"""Single process: the `python -m minispore.run` launcher (threads per rank, the command it
builds, the launcher's exit code passed through)."""
import subprocess
import sys

import pytest

from minispore import run


def test_threads_per_rank_split_the_cores():
    env = run.rank_environment(4, environ={}, cores=16)
    assert all(env[v] == "4" for v in run.THREAD_VARS)
    assert run.rank_environment(8, environ={}, cores=2)["NUMBA_NUM_THREADS"] == "1"
    # A count the user chose wins.
    assert run.rank_environment(2, environ={"OMP_NUM_THREADS": "3"}, cores=2)[
        "OMP_NUM_THREADS"] == "3"


def test_command_uses_minispores_launcher_unless_mpirun_is_named():
    cmd = run.build_command(8, ["-m", "pytest"], ["-x"])
    assert cmd == run.launcher_command(8) + [sys.executable, "-m", "pytest", "-x"]
    # --mpirun PATH: that launcher; Open MPI is told to oversubscribe, MPICH's Hydra is not.
    cmd = run.build_command(8, ["-m", "pytest"], ["-x"], "mpirun", False, 2)
    assert cmd == ["mpirun", "-n", "8", sys.executable, "-m", "pytest", "-x"]
    assert "--oversubscribe" in run.build_command(8, ["t.py"], [], "mpirun", True, 2)


def test_script_options_pass_through():
    assert run.parse_args(["-n", "2", "t.py", "-n", "5", "--x"]) == (2, None, False, ["t.py"],
                                                                     ["-n", "5", "--x"])
    ranks, _, _, target, args = run.parse_args(["--worker_num=3", "-m", "pytest", "-m", "mpi"])
    assert (ranks, target, args) == (3, ["-m", "pytest"], ["-m", "mpi"])


@pytest.mark.parametrize("argv, message", [
    (["-n", "0", "t.py"], "-n must be a positive number"),
    (["-n", "2"], "a script .* is required"),
    (["--bogus", "t.py"], "unknown option '--bogus'"),
])
def test_bad_arguments_exit_with_usage(argv, message):
    with pytest.raises(SystemExit, match=message):
        run.parse_args(argv)


def test_exit_code_of_any_rank_is_returned(tmp_path):
    script = tmp_path / "fail_on_rank_1.py"
    script.write_text("import os, sys\n"
                      "sys.exit(3 if os.environ.get('PMI_RANK') == '1' else 0)\n")
    done = subprocess.run([sys.executable, "-m", "minispore.run", "-n", "2", str(script)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr


def test_rank_environment_raises_malloc_thresholds_unless_set():
    env = run.rank_environment(2, environ={}, cores=2)
    assert env["MALLOC_MMAP_THRESHOLD_"] == "1073741824"
    assert run.rank_environment(2, environ={"MALLOC_MMAP_THRESHOLD_": "4096"},
                                cores=2)["MALLOC_MMAP_THRESHOLD_"] == "4096"


def test_single_host_rank_environment_keeps_the_netmods_on_loopback_unless_set():
    env = run.rank_environment(2, environ={}, cores=2, single_host=True)
    assert {v: env[v] for v in run.LOOPBACK_VARS} == run.LOOPBACK_VARS
    assert run.rank_environment(2, environ={"UCX_NET_DEVICES": "eth0"}, cores=2,
                                single_host=True)["UCX_NET_DEVICES"] == "eth0"
    # msrun's workers may talk to other nodes
    assert "UCX_NET_DEVICES" not in run.rank_environment(2, environ={}, cores=2)
