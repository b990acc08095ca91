"""MindSpore's nine beginner tutorials (r2.4.1, English; their code extracted verbatim into
r2_4_1/ by tools/tutorials/extract.py) run unchanged under ``python -m minispore``, MNIST
coming from a synthetic stand-in of the real file sizes (offline/download.py); the quick-start
tutorial prints what the tutorial shows MindSpore 2.4.1 printing, character for character,
except the numbers that come from random initial weights and the data (losses, accuracy, the
predicted digits), which are masked on both sides."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from minispore.dataset.synth_mnist import synth_mnist
from tests.launch.harness import clean_env

HERE = Path(__file__).resolve().parent
TUTORIALS = HERE / "r2_4_1"
TIMEOUT_S = 600
# (tutorial, MNIST train/test sizes): mixed_precision trains ten float16 epochs through Model,
# slow on a CPU, so it gets a smaller set; the others the real file sizes.
CASES = [("quick_start", "full"), ("tensor", None), ("dataset", "full"), ("model", None),
         ("autograd", None), ("train", "full"), ("save_load", None),
         ("accelerate_with_static_graph", None), ("mixed_precision", "small")]
SIZES = {"full": (60000, 10000), "small": (1920, 640)}
# Lines whose numbers come from the random initial weights and the data: (line pattern, what
# in it is masked).
RANDOM_VALUES = [(r"^loss: ", r"\d+\.\d+"), (r"Accuracy: .*Avg loss: ", r"\d+\.\d+"),
                 (r"^Predicted: ", r"\d")]


@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    folders = {}
    for size, (train, test) in SIZES.items():
        folders[size] = tmp_path_factory.mktemp(f"mnist_{size}")
        synth_mnist(str(folders[size] / "MNIST_Data"), train, test, seed=0)
    return folders


def run_tutorial(name, data, folder):
    shutil.copy(TUTORIALS / f"{name}.py", folder)
    env = clean_env(MPLBACKEND="Agg")
    env["PYTHONPATH"] = str(HERE / "offline") + ":" + env["PYTHONPATH"]
    if data is not None:
        env["TUTORIAL_DATA"] = str(data)
    done = subprocess.run([sys.executable, "-m", "minispore", f"{name}.py"], cwd=folder,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=TIMEOUT_S)
    return done.returncode, done.stdout, done.stderr


def comparable(text):
    """The printed lines without trailing blanks and empty lines (the tutorial's text drops
    both), random values masked."""
    lines = []
    for line in text.splitlines():
        line = line.rstrip()
        for pattern, masked in RANDOM_VALUES:
            if re.search(pattern, line):
                line = re.sub(masked, "#", line)
        if line:
            lines.append(line)
    return lines


@pytest.mark.parametrize("name,size", CASES, ids=[name for name, _ in CASES])
def test_a_beginner_tutorial_runs_verbatim(name, size, mnist, tmp_path):
    status, out, err = run_tutorial(name, mnist[size] if size else None, tmp_path)
    assert status == 0, f"{out[-3000:]}\n{err[-5000:]}"
    assert "Traceback" not in err, err
    if name == "quick_start":
        expected = (TUTORIALS / "quick_start.expected.txt").read_text()
        assert comparable(out) == comparable(expected)
        assert len(comparable(expected)) == 61
