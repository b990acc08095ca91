"""MindSpore's parameter_server/run.sh, unchanged, on this machine: one MS_SCHED, eight
MS_PSERVER and eight MS_WORKER processes of the sample's train.py (``python`` on PATH is
``python -m minispore``), no mpirun. They form one job; the servers own the network's four
parameters (one each: the placement rule spreads them by size) and apply every step's mean
gradient; the workers print falling losses; the scheduler only schedules.

run.sh runs ``python train.py`` in its working directory, so that directory holds links to the
sample's run.sh and train.py (never copies) and a generated MNIST_Data.
"""
import os
import re
import time
from pathlib import Path

import pytest

from minispore.dataset.synth_mnist import synth_mnist
from tests.launch.harness import PYTHON, clean_env, needs_own_launch, run_script

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "samples" / "parameter_server"

pytestmark = [needs_own_launch,
              pytest.mark.skipif(not SAMPLE.is_dir(), reason="MindSpore's samples "
                                 "(../shared/samples) are not beside this checkout")]


def _layout(tmp_path):
    work = tmp_path / "sample"
    work.mkdir()
    for name in ("run.sh", "train.py"):
        os.symlink(SAMPLE / name, work / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python"
    python.write_text(f"#!/bin/sh\nexec {PYTHON} -m minispore \"$@\"\n")
    python.chmod(0o755)
    synth_mnist(str(work / "MNIST_Data"), 256, 32, seed=0)
    return work, f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def _wait_for_job(output, timeout):
    log = output / "scheduler.log"
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        text = log.read_text() if log.exists() else ""
        if "Job finished" in text or "Job failed" in text:
            time.sleep(1)
            return text
        time.sleep(1)
    logs = "\n".join(f"--- {p}\n{p.read_text()[-1500:]}" for p in output.glob("*.log"))
    pytest.fail(f"run.sh's job did not end within {timeout} s:\n{logs}")


def test_run_sh_trains_with_eight_servers_and_eight_workers(tmp_path):
    work, path = _layout(tmp_path)
    env = clean_env(PATH=path, MS_CLUSTER_TOKEN_FILE=tmp_path / "job.token",
                    MS_TOPO_TIMEOUT=120)
    status, out = run_script(["bash", "run.sh"], env, work, 60)
    assert status == 0, out
    sched = _wait_for_job(work / "output", 400)
    assert "Job finished: all 8 workers and 8 parameter servers finished their script." in \
        sched, sched[-3000:]
    assert "loss" not in sched
    servers = [(work / "output" / f"server_{i}.log").read_text() for i in range(8)]
    owned = {}
    for log in servers:
        for server, names in re.findall(r"\[MS_PSERVER (\d+)\].*Serving \d+ parameter\(s\) "
                                        r"\(([^;]*);", log):
            if names != "none":
                owned[names] = int(server)
                # 256 samples / batch 32 = 8 steps an epoch, 10 epochs, every worker pushing
                assert len(re.findall(r"step \d+: 8 pushes in, update applied", log)) == 80
    assert owned == {"fc1.weight": 0, "fc1.bias": 1, "fc2.weight": 2, "fc2.bias": 3}
    for i in range(8):
        log = (work / "output" / f"worker_{i}.log").read_text()
        losses = [float(v) for v in re.findall(r"loss is ([-\d.e+]+)", log)]
        assert len(losses) == 10 and all(v == v for v in losses), log[-2000:]
        assert sum(losses[-3:]) < sum(losses[:3]), losses
