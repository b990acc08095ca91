"""examples/data_parallel: run.sh trains LeNet on 2 ranks of a small synthetic MNIST; only rank
0 prints MindSpore-style loss lines, and the job exits 0."""
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_sh_trains_lenet_on_two_ranks():
    done = subprocess.run(
        ["bash", str(ROOT / "examples" / "data_parallel" / "run.sh"), "2", "--train_size",
         "640", "--test_size", "64", "--per_print_times", "2"],
        capture_output=True, text=True, timeout=300, env=dict(os.environ), cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Start training: 2 ranks, 10 steps per epoch, global batch 64" in out
    steps = re.findall(r"^epoch: 1 step: (\d+), loss is (\d+\.\d+)$", out, re.M)
    assert [int(s) for s, _ in steps] == [2, 4, 6, 8, 10], out    # printed by rank 0 only
    assert all(0.0 < float(loss) < 5.0 for _, loss in steps)
    assert re.search(r"^Accuracy is: \{'Accuracy': [0-9.]+\}$", out, re.M), out
