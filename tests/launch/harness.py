"""Starting jobs for the launch tests: a clean environment, free ports, processes with hard
timeouts, and the results data_parallel_job.py writes.

Every process a test starts is killed (by its pid) when the test ends or times out; a worker
relaunched under its launcher (forker.py) dies with it when that is killed, so no
process outlives its test.
"""
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
JOB = HERE / "data_parallel_job.py"
MPIRUN = Path(sys.executable).parent / "mpirun"
PYTHON = sys.executable

needs_own_launch = pytest.mark.skipif("PMI_RANK" in os.environ,
                                      reason="starts its own processes; runs in the "
                                             "single-process suite")
_DROP = ("PMI_", "PMIX_", "MPI_", "MPICH_", "HYDRA_", "MPIR_", "OMPI_", "MS_", "RANK_",
         "MINISPORE_CLUSTER_")


def clean_env(**extra):
    """This process's environment without any launcher's or cluster's variables, one thread
    per pool (the machine is shared), the repo on PYTHONPATH, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROP)}
    env.update(OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    env.update({k: str(v) for k, v in extra.items()})
    return env


def cluster_env(port, workers, tmp_path, **extra):
    """clean_env with the dynamic-cluster variables every process of one job shares (a
    120 s MS_TOPO_TIMEOUT unless `extra` says), the token file in tmp_path, not the user's
    home."""
    return clean_env(**{"MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": port,
                        "MS_WORKER_NUM": workers, "MS_TOPO_TIMEOUT": 120,
                        "MS_CLUSTER_TOKEN_FILE": tmp_path / "job.token", **extra})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Processes:
    """Processes started with their output in log files, all killed at close()."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.started = []

    def start(self, name, argv, env):
        log = open(self.folder / f"{name}.log", "w")
        proc = subprocess.Popen([str(a) for a in argv], env=env, cwd=self.folder, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        proc.name = name
        self.started.append(proc)
        return proc

    def log(self, name):
        return (self.folder / f"{name}.log").read_text()

    def wait(self, procs, timeout):
        """{name: exit status}, failing the test when any is still running after `timeout`."""
        give_up = time.monotonic() + timeout
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, give_up - time.monotonic()))
            except subprocess.TimeoutExpired:
                pytest.fail(f"{proc.name} still running after {timeout} s:\n"
                            + "\n".join(f"--- {p.name}\n{self.log(p.name)[-1500:]}"
                                        for p in procs))
        return {p.name: p.returncode for p in procs}

    def close(self):
        for proc in self.started:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()


def run_script(argv, env, cwd, timeout):
    """Run a launcher (bash, mpirun, msrun) in its own session to completion: (status, output);
    on timeout its whole session is killed and the test fails."""
    proc = subprocess.Popen([str(a) for a in argv], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"{argv[0]} did not finish within {timeout} s:\n{out[-3000:]}")
    return proc.returncode, out


def results(folder, ranks):
    """[{losses, size, parameters...}] of ranks 0..ranks-1 (exactly those files exist)."""
    found = sorted(p.name for p in Path(folder).glob("rank_*.npz"))
    assert found == sorted(f"rank_{r}.npz" for r in range(ranks)), found
    return [dict(np.load(Path(folder) / f"rank_{r}.npz")) for r in range(ranks)]


def assert_same_training(got, want):
    """Every rank's losses and parameters equal, bit for bit: the same job, launched
    differently."""
    assert len(got) == len(want)
    for rank, (g, w) in enumerate(zip(got, want)):
        assert g.keys() == w.keys()
        for key in w:
            np.testing.assert_array_equal(g[key], w[key], err_msg=f"rank {rank}: {key}")
