"""examples/quickstart/train_mlp.py runs end to end and prints MindSpore-style loss lines."""
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "quickstart" / "train_mlp.py"


def test_quickstart_trains_and_reports():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--epochs", "2", "--steps", "20"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    losses = [float(v) for v in re.findall(r"^epoch: \d+ step: \d+, loss is ([\d.]+)$",
                                           proc.stdout, re.M)]
    assert len(losses) == 4, proc.stdout
    assert losses[-1] < losses[0], proc.stdout
    assert re.search(r"^Accuracy: 0\.\d{4}", proc.stdout, re.M), proc.stdout
