"""minispore's one-host launcher (communication/cluster/forker.py) on real processes whose ranks
speak PMI-1 by hand (no MPI, so each job takes a second): how a job ends when a rank fails, what it
refuses, and that no rank outlives it. The MPI jobs of the suite (``make test``'s mpi runs,
tests/communication/test_no_hang.py, tests/launch) run under it too.
"""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from minispore.communication.cluster.listen import launcher_command
from tests.communication.conftest import alive

pytestmark = pytest.mark.skipif("PMI_RANK" in os.environ,
                                reason="launches its own jobs; runs in the single-process suite")

HARD_TIMEOUT_S = 60
# Rank 0 joins PMI, says so and waits (for the launcher to end it); rank 1 does argv[1].
RANK = r"""
import os, socket, sys, time
pmi = socket.socket(fileno=int(os.environ["PMI_FD"]))
def ask(line):
    pmi.sendall(line.encode() + b"\n")
    return pmi.recv(4096).decode()
rank = int(os.environ["PMI_RANK"])
if rank == 0 or sys.argv[1] != "exit before init":
    assert "rc=0" in ask("cmd=init pmi_version=1 pmi_subversion=1")
    assert "kvsname=minispore_" in ask("cmd=get_my_kvsname")
print(f"rank {rank} pid {os.getpid()} in", flush=True)
if rank == 0:
    time.sleep(HOLD)
    sys.exit(0)
time.sleep(0.5)
how = sys.argv[1]
if how == "sigkill":
    os.kill(os.getpid(), 9)
elif how == "exit 3 without finalize":
    os._exit(3)
elif how == "abort":
    pmi.sendall(b"cmd=abort exitcode=7\n")
    time.sleep(HOLD)
elif how == "hold":
    time.sleep(HOLD)
elif how == "spawn":
    pmi.sendall(b"mcmd=spawn\nnprocs=1\nexecname=x\nendcmd\n")
    time.sleep(HOLD)
os._exit(0)
""".replace("HOLD", "30")


def run(how):
    """(exit status, output, pids of the ranks) of a 2-rank job whose rank 1 does `how`."""
    done = subprocess.run(launcher_command(2) + [sys.executable, "-c", RANK, how],
                          capture_output=True, text=True, timeout=HARD_TIMEOUT_S)
    output = done.stdout + done.stderr
    return done.returncode, output, [int(p) for p in re.findall(r"pid (\d+) in", output)]


def _gone(pids, within=5):
    give_up = time.monotonic() + within
    while any(map(alive, pids)):
        if time.monotonic() > give_up:
            return False
        time.sleep(0.1)
    return True


FAILURES = [   # (what rank 1 does, the job's exit status, the launcher's message)
    ("sigkill", 128 + 9, r"rank 1 \(pid \d+\) was killed by signal 9 \(SIGKILL\)"),
    ("exit 3 without finalize", 3, r"rank 1 \(pid \d+\) exited with status 3 without "
                                   r"finalizing MPI"),
    ("exit before init", 1, r"rank 1 \(pid \d+\) exited with status 0 without starting MPI, "
                            r"which the other ranks did"),
    ("abort", 7, r"rank 1 \(pid \d+\) called MPI_Abort \(exit code 7\)"),
    ("spawn", 1, r"rank 1 \(pid \d+\) asked for PMI command 'mcmd=spawn', which this launcher "
                 r"does not serve"),
]


@pytest.mark.parametrize("how, status, message", [pytest.param(*f, id=f[0]) for f in FAILURES])
def test_a_failing_rank_ends_the_job_at_once_naming_it(how, status, message):
    began = time.monotonic()
    got, output, pids = run(how)
    assert time.monotonic() - began < 20, output      # rank 0 would wait 30 s
    assert got == status, output
    assert re.search(message + r".*; ending the other ranks", output), output
    assert _gone(pids), output


def test_the_ranks_die_with_the_launcher(tmp_path):
    launcher = subprocess.Popen(launcher_command(2) + [sys.executable, "-c", RANK, "hold"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        seen = ""
        give_up = time.monotonic() + HARD_TIMEOUT_S
        while seen.count(" in\n") < 2 and time.monotonic() < give_up:
            seen += launcher.stdout.readline()
        pids = [int(p) for p in re.findall(r"pid (\d+) in", seen)]
        assert len(pids) == 2, seen
        launcher.send_signal(signal.SIGKILL)
        launcher.wait(timeout=10)
        assert _gone(pids), "a rank outlived its launcher"
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()


def test_a_command_that_cannot_start_fails_with_127():
    done = subprocess.run(launcher_command(1) + ["/nonexistent/python"], capture_output=True,
                          text=True, timeout=HARD_TIMEOUT_S)
    assert done.returncode == 127 and "cannot start '/nonexistent/python'" in done.stderr


def test_bad_arguments_say_how_to_call_it():
    done = subprocess.run(launcher_command(0) + ["true"], capture_output=True, text=True,
                          timeout=HARD_TIMEOUT_S)
    assert done.returncode != 0 and "-n must be a positive number of ranks" in done.stderr


def _mpich_segments():
    return {n for n in os.listdir("/dev/shm") if n.startswith("mpich_")} \
        if os.path.isdir("/dev/shm") else set()


# Two MPI ranks meet in a barrier (so MPICH has set up its node-local shared memory), then rank
# 1 is killed: neither rank reaches MPI_Finalize, which is where MPICH unlinks the segment.
KILLED_MPI_JOB = """
import os, signal
from mpi4py import MPI
MPI.COMM_WORLD.Barrier()
if MPI.COMM_WORLD.Get_rank() == 1:
    os.kill(os.getpid(), signal.SIGKILL)
MPI.COMM_WORLD.Barrier()
"""


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="needs /dev/shm (Linux)")
def test_a_killed_job_leaves_no_shared_memory_behind():
    """MPICH names each job's node-local segment after the job id the launcher gives it
    (/dev/shm/mpich_shm_<FNV-1a of the kvsname>_0) and unlinks it at MPI_Finalize; a job
    whose ranks were killed would leave it there for good (thousands, gigabytes, on a machine
    that runs many), so the launcher unlinks it when the job has ended."""
    before = _mpich_segments()
    done = subprocess.run(launcher_command(2) + [sys.executable, "-c", KILLED_MPI_JOB],
                          capture_output=True, text=True, timeout=HARD_TIMEOUT_S)
    assert done.returncode == 128 + 9, done.stdout + done.stderr
    assert _mpich_segments() - before == set()
