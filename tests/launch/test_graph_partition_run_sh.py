"""MindSpore's distributed_graph_partition/run.sh, unchanged, on this machine: it starts one
MS_SCHED and eight MS_WORKER processes of the sample's train.py (``python`` on PATH is
``python -m minispore``) with no mpirun; they form one 8-worker job, the placed cells train on
their workers, rank 0 prints the accuracy, and the scheduler only schedules.

run.sh reaches the sample as ``$(dirname $0)/../train.py``, so it runs from a folder of
links: scripts/run.sh, train.py and lenet.py point at the sample's own files (never copied).
(tests/parallel/test_place_partition_mpi.py checks place against the single-process run.)
"""
import os
import re
import time
from pathlib import Path

import pytest

from minispore.dataset.synth_mnist import synth_mnist
from tests.launch.harness import PYTHON, clean_env, needs_own_launch, run_script

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "samples" / "distributed_graph_partition"

pytestmark = [needs_own_launch,
              pytest.mark.skipif(not SAMPLE.is_dir(), reason="MindSpore's samples "
                                 "(../shared/samples) are not beside this checkout")]


def _layout(tmp_path):
    """(folder run.sh runs in, the run.sh link, PATH with a `python` that is minispore's)."""
    links = tmp_path / "sample"
    (links / "scripts").mkdir(parents=True)
    for name in ("train.py", "lenet.py"):
        os.symlink(SAMPLE / name, links / name)
    os.symlink(SAMPLE / "run.sh", links / "scripts" / "run.sh")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python"
    python.write_text(f"#!/bin/sh\nexec {PYTHON} -m minispore \"$@\"\n")
    python.chmod(0o755)
    work = tmp_path / "work"
    synth_mnist(str(work / "MNIST_Data"), 512, 32, seed=0)
    return work, links / "scripts" / "run.sh", f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def _wait_for_job(work, timeout):
    """Wait until the scheduler says the job ended; its log."""
    log = work / "sched" / "sched.log"
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        text = log.read_text() if log.exists() else ""
        if "Job finished" in text or "Job failed" in text or "rror" in text:
            time.sleep(1)           # the workers' last lines
            return log.read_text()
        time.sleep(1)
    logs = "\n".join(f"--- {p}\n{p.read_text()[-1500:]}" for p in work.glob("*/*.log"))
    pytest.fail(f"run.sh's job did not end within {timeout} s:\n{logs}")


def test_run_sh_trains_the_placed_lenet_as_one_job(tmp_path):
    work, run_sh, path = _layout(tmp_path)
    env = clean_env(PATH=path, MS_CLUSTER_TOKEN_FILE=tmp_path / "job.token",
                    MS_TOPO_TIMEOUT=120)
    status, out = run_script(["bash", str(run_sh)], env, work, 60)
    assert status == 0 and "Start training" in out, out
    sched = _wait_for_job(work, 400)
    assert "Job finished: all 8 workers finished their script." in sched, sched
    assert "loss" not in sched and "Accuracy" not in sched, sched
    logs = [(work / f"worker_{i}" / f"worker_{i}.log").read_text() for i in range(8)]
    losses = [re.findall(r"loss is ([-\d.e]+)", log) for log in logs]
    assert losses[0] and all(v == losses[0] for v in losses), [v[:3] for v in losses]
    accuracy = [i for i, log in enumerate(logs) if "Accuracy is" in log]
    ranks = [int(re.search(r"Global rank id (\d+)", log).group(1)) for log in logs]
    assert sorted(ranks) == list(range(8))
    assert [ranks[i] for i in accuracy] == [0], (accuracy, ranks)
