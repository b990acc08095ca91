"""examples/parallel_support_dynamic_shape: run.sh trains the tutorial's sharded network on 8
ranks of a small synthetic MNIST; every rank logs MindSpore-style loss lines to the tutorial's
log_output/1/rank.N/stdout, all ranks the same decreasing loss; with Symbol() instead of
Symbol(divisor=8) the job fails at compile time, naming the divisor the split needs."""
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN_SH = ROOT / "examples" / "parallel_support_dynamic_shape" / "run.sh"
RANKS = 8
# 176 images in batches of 32: five full steps and a last batch of 16 per rank, so the one
# graph compiled for Symbol(divisor=8) also serves a second batch size.
TRAIN_SIZE, STEPS_PER_EPOCH, EPOCHS = 176, 6, 2
LOSS_LINE = re.compile(r"^epoch: (\d+) step: (\d+), loss is (\d+\.\d+)$", re.M)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder for run.sh (it writes MNIST_Data and log_output there), shared by both runs so
    the synthetic MNIST is written once."""
    return tmp_path_factory.mktemp("psds")


def run_example(cwd, **env):
    return subprocess.run(["bash", str(RUN_SH), str(RANKS)], cwd=cwd, capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, SYNTH_TRAIN=str(TRAIN_SIZE), **env))


def rank_logs(cwd):
    logs = [cwd / "log_output" / "1" / f"rank.{r}" / "stdout" for r in range(RANKS)]
    missing = [str(p) for p in logs if not p.is_file()]
    assert not missing, f"no log at {missing}"
    return [p.read_text() for p in logs]


def test_run_sh_logs_the_same_decreasing_loss_on_every_rank(workdir):
    done = run_example(workdir, EPOCHS=str(EPOCHS))
    logs = rank_logs(workdir)
    assert done.returncode == 0, done.stdout + done.stderr + logs[0]
    losses = []
    for log in logs:
        lines = LOSS_LINE.findall(log)
        assert [(int(e), int(s)) for e, s, _ in lines] == [
            (e, s) for e in range(1, EPOCHS + 1) for s in range(1, STEPS_PER_EPOCH + 1)], log
        losses.append([float(v) for _, _, v in lines])
    assert all(rank == losses[0] for rank in losses[1:]), losses
    first, last = losses[0][:STEPS_PER_EPOCH], losses[0][-STEPS_PER_EPOCH:]
    assert 2.0 < first[0] < 2.5, first
    assert sum(last) / len(last) < sum(first) / len(first) - 0.01, losses[0]
    assert last[-1] < first[0], losses[0]


def test_symbol_without_divisor_fails_at_compile_time(workdir):
    done = run_example(workdir, EPOCHS="1", SYMBOL_DIVISOR="1")
    assert done.returncode != 0, done.stdout + done.stderr
    log = "".join(rank_logs(workdir))
    assert not LOSS_LINE.search(log), log                   # no step ran
    assert "SymbolDivisorError" in log, log
    assert re.search(r"Symbol\(divisor=8\) for s0 \(now divisor=1\)", log), log
