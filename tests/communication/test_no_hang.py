"""No hang, ever: every fault of issue 17's table, run as a real 2- or 4-rank job
(tests/communication/fault_jobs.py) under a hard timeout, ends the job non-zero within its
MS_COMM_TIMEOUT plus a few seconds, with a message naming the rank and the call; a rank killed
with SIGKILL still ends the job at once; a long but legitimate wait only warns; SIGTERM to the
launcher leaves no process behind.

Single process (each test launches its own job): skipped under mpirun.
"""
import os
import re
import signal
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path

import pytest

from tests.communication.conftest import ROOT, alive, job_environment

pytestmark = pytest.mark.skipif("PMI_RANK" in os.environ,
                                reason="launches its own jobs; runs in the single-process suite")

JOB = Path(__file__).with_name("fault_jobs.py")
DEADLINE_S = 20           # the jobs' MS_COMM_TIMEOUT: stall warnings every 5 s
PROMPT_S = 8              # a fault the watchdog can see ends the job this soon after it
                          # (measured 1.0-1.6 s; the margin is for a busy machine)
HARD_TIMEOUT_S = 120      # the test's own limit on a job (start-up included)

Job = namedtuple("Job", "returncode output after_fault")


def run_job(case, ranks=2, deadline=DEADLINE_S):
    """Run fault_jobs.py CASE under `python -m minispore.run -n ranks`: (exit status, output,
    seconds from the job's FAULT_AT line to its end, None without one)."""
    done = subprocess.run(
        [sys.executable, "-m", "minispore.run", "-n", str(ranks), str(JOB), case],
        capture_output=True, text=True, timeout=HARD_TIMEOUT_S, cwd=ROOT,
        env=job_environment(MS_COMM_TIMEOUT=str(deadline)))
    ended = time.time()
    output = done.stdout + done.stderr
    fault = re.search(r"FAULT_AT ([\d.]+)", output)
    return Job(done.returncode, output, ended - float(fault.group(1)) if fault else None)


def assert_aborted_promptly(job, *messages):
    assert job.returncode != 0, job.output
    assert job.after_fault is not None and job.after_fault < PROMPT_S, \
        f"ended {job.after_fault} s after the fault\n{job.output}"
    for message in messages:
        assert re.search(message, job.output), f"{message!r} not in:\n{job.output}"


SITE = re.escape(JOB.name) + r":\d+"


# Of two ranks whose calls differ, the one that arrives second refuses its call (the default
# mismatch check) and prints the report; the others only say where they are, when their
# watchdog sees the abort in time. So each pattern allows either rank to be the reporter.
REFUSED = r"\[rank {0}\] minispore watchdog: {1} on the world \(call #{2} there\) at [^\n]*: " \
          r"rank {3} made call #{2} on the world with another collective, element count, " \
          r"dtype, reduce op or shape .*\n\[rank {0}\]   this rank: {4}[^\n]*\n" \
          r"\[rank {0}\]   rank {3}: waits in {5} on the world \(call #{2} there"


def either_reporter(call, kind_0, mine_0, kind_1, mine_1):
    return "|".join([REFUSED.format(0, kind_0, call, 1, re.escape(mine_0), kind_1),
                     REFUSED.format(1, kind_1, call, 0, re.escape(mine_1), kind_0)])


def test_exception_caught_by_a_finally_that_enters_a_collective_aborts():
    job = run_job("finally")
    assert_aborted_promptly(
        job, either_reporter(2, "AllReduce", "AllReduce(op=sum) float32, 4 elements", "Barrier",
                             "Barrier, while handling ValueError: boom on rank 1"),
        r"ValueError: boom on rank 1 \(raised at .*" + SITE)
    assert "rank 0 finished" not in job.output


def test_data_parallel_training_in_try_finally_aborts_on_4_ranks():
    job = run_job("data_parallel_finally", ranks=4)
    # Rank 3 enters the Barrier while its neighbours 0 and 2 (the mismatch check compares
    # neighbours) enter the gradients' all-reduce.
    assert_aborted_promptly(
        job, r"minispore watchdog: (AllReduce|iallreduce|Barrier) on the world \(call #(\d+) "
             r"there\) at [^\n]*: rank \d made call #\2 on the world with another collective",
        r"(Barrier on the world \(call #\d+ there\)[^\n]*|this rank: Barrier), while handling "
        r"ValueError: boom in the training loop \(raised at .*" + SITE)


def test_mismatched_collectives_are_reported_with_both_calls():
    job = run_job("mismatch")
    assert_aborted_promptly(
        job, either_reporter(2, "AllReduce", "AllReduce(op=sum) float32, 4 elements",
                             "AllGather", "AllGather() float32, 4 elements"))


# Each rank's AllReduce in the "mismatched <respect>" jobs: rank 0's, rank 1's.
MISMATCHED = {
    "elements": ("AllReduce(op=sum) float32, 4 elements, shape (4,)", 16,
                 "AllReduce(op=sum) float32, 2 elements, shape (2,)", 8),
    "dtype": ("AllReduce(op=sum) float32, 4 elements, shape (4,)", 16,
              "AllReduce(op=sum) int32, 4 elements, shape (4,)", 16),
    "op": ("AllReduce(op=sum) float32, 4 elements, shape (4,)", 16,
           "AllReduce(op=max) float32, 4 elements, shape (4,)", 16),
    "shape": ("AllReduce(op=sum) float32, 6 elements, shape (2, 3)", 24,
              "AllReduce(op=sum) float32, 6 elements, shape (3, 2)", 24),
    "width": ("AllReduce(op=sum) float32, 4 elements, shape (4,)", 16,
              "AllReduce(op=sum) float64, 4 elements, shape (4,)", 32),
}


def mismatch_refused(reporter, mine, other, their_bytes):
    return (rf"\[rank {reporter}\] minispore watchdog: AllReduce on the world \(call #2 there\) "
            rf"at .*{SITE} in case: rank {other} made call #2 on the world with another "
            rf"collective, element count, dtype, reduce op or shape .*\n"
            rf"\[rank {reporter}\]   this rank: {re.escape(mine)}\n"
            rf"\[rank {reporter}\]   rank {other}: waits in AllReduce on the world \(call #2 "
            rf"there, {their_bytes} bytes\)")


@pytest.mark.parametrize("respect", MISMATCHED)
def test_a_mismatched_all_reduce_is_refused_at_once_naming_both_calls(respect):
    # The default MS_COMM_TIMEOUT: the deadline cannot be what ends the job.
    job = run_job(f"mismatched {respect}", deadline=600)
    mine_0, bytes_0, mine_1, bytes_1 = MISMATCHED[respect]
    # Whichever rank arrives second refuses the call.
    assert_aborted_promptly(job, "|".join([mismatch_refused(0, mine_0, 1, bytes_1),
                                           mismatch_refused(1, mine_1, 0, bytes_0)]))
    assert "finished" not in job.output and "truncated" not in job.output, job.output


@pytest.mark.parametrize("how, ranks, note", [
    ("sys.exit(0) before training", 4, r"sys\.exit\(0\) at .*" + SITE + r"\), exit code 0"),
    ("sys.exit(3)", 2, r"sys\.exit\(3\) at .*" + SITE + r"\), exit code 3"),
    ("os._exit(0)", 2, r"os\._exit\(0\) at .*" + SITE + r"\), exit code 0"),
    ("end of script", 2, r"reached the end of its script\), exit code 0"),
], ids=["sys.exit(0)-before-4-ranks", "sys.exit(3)", "os._exit(0)", "end-of-script"])
def test_rank_leaving_while_others_train_ends_the_job_naming_it(how, ranks, note):
    job = run_job(how, ranks)
    assert_aborted_promptly(
        job, r"\[rank [023]\] minispore watchdog: AllReduce on the world \(call #\d+ there, "
             r"16 bytes, shape \(4,\)\) at .*" + SITE + r".*: rank\(s\) 1 left the script",
        r"rank 1: has left its script \(" + note)


def test_stalled_rank_is_reported_at_the_deadline():
    job = run_job("stall", deadline=4)
    assert job.returncode != 0, job.output
    assert 4 <= job.after_fault < 4 + PROMPT_S, f"{job.after_fault} s\n{job.output}"
    for message in (r"minispore watchdog warning: AllReduce .* has waited \d+\.\d s",
                    r"past MS_COMM_TIMEOUT=4; not arrived: rank\(s\) 1",
                    r"rank 1: is not in a collective \(running Python\)"):
        assert re.search(message, job.output), f"{message!r} not in:\n{job.output}"


def test_long_legitimate_computation_completes_with_a_warning_only():
    # rank 1 computes 3.5 s: past the stall warning (2 s), well within the deadline (8 s)
    job = run_job("long", deadline=8)
    assert job.returncode == 0, job.output
    assert "minispore watchdog warning" in job.output
    assert "rank 0 finished" in job.output and "rank 1 finished" in job.output


def test_a_collective_in_an_except_block_after_a_long_computation_completes():
    # Both ranks enter the AllReduce while handling an exception, rank 1 3.5 s late: past the
    # stall interval (2 s), where a call entered while handling an exception used to end the
    # job, and well within the deadline (8 s).
    job = run_job("except", deadline=8)
    assert job.returncode == 0, job.output
    for rank in (0, 1):
        assert f"rank {rank} reduced [3.0, 3.0, 3.0, 3.0]" in job.output, job.output
        assert f"rank {rank} finished" in job.output, job.output


def test_ranks_compiling_different_strategies_are_reported():
    # Compiling takes seconds on a busy machine: a long deadline, so the desync check (not
    # the deadline) must be what ends the job.
    job = run_job("strategies", deadline=60)
    assert job.returncode != 0, job.output
    assert re.search(r"the ranks (called different collectives|have made a different number)|"
                     r"made call #\d+ on the world with another collective", job.output), \
        job.output
    assert job.after_fault < 60, job.output


def test_rank_killed_with_sigkill_ends_the_job():
    assert_aborted_promptly(run_job("sigkill"), r"KILLED BY SIGNAL: 9|signal 9")


def _children(pid):
    """The pids whose parent is `pid` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def test_sigterm_to_the_launcher_ends_mpirun_and_every_rank():
    launcher = subprocess.Popen(
        [sys.executable, "-m", "minispore.run", "-n", "2", str(JOB), "sigterm"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
        env=job_environment())
    try:
        seen, ranks = "", []
        deadline = time.monotonic() + HARD_TIMEOUT_S
        while len(ranks) < 2 and time.monotonic() < deadline:
            # The launcher interleaves the ranks' lines: search what has come so far.
            seen += launcher.stdout.readline()
            ranks = [int(pid) for pid in re.findall(r"READY (\d+)", seen)]
        assert len(ranks) == 2, "the ranks did not start"
        mpirun = _children(launcher.pid)
        launcher.send_signal(signal.SIGTERM)
        status = launcher.wait(timeout=15)
        assert status != 0
        gone_by = time.monotonic() + 5
        while any(map(alive, ranks + mpirun)) and time.monotonic() < gone_by:
            time.sleep(0.1)
        assert not [p for p in ranks + mpirun if alive(p)], "left behind"
    finally:
        if launcher.poll() is None:
            launcher.kill()
