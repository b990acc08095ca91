"""Which public MindSpore names that have no conformance case minispore defines at all, so the
report can count them as present-but-unchecked or absent instead of leaving them out."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.conformance.driver import _env

# Where each area's names live, as a MindSpore user spells the module.
MODULES = {
    "ops": "mindspore.ops", "primitive": "mindspore.ops", "nn": "mindspore.nn",
    "nn_loss": "mindspore.nn", "nn_metric": "mindspore.nn", "nn_optim": "mindspore.nn",
    "tensor": "mindspore.Tensor", "vision": "mindspore.dataset.vision",
    "transforms": "mindspore.dataset.transforms", "dataset": "mindspore.dataset",
    "amp": "mindspore.amp",
}

_PROBE = """
import importlib, json, sys
import mindspore
ids, modules = json.load(sys.stdin)
found = []
for cid in ids:
    area, name = cid.split("/", 1)
    path = modules.get(area)
    if path is None:
        continue
    if path == "mindspore.Tensor":
        owner = mindspore.Tensor
    else:
        owner = importlib.import_module(path)
    if hasattr(owner, name):
        found.append(cid)
print(json.dumps(found))
"""


def present(ids):
    """The subset of case ids ("<area>/<name>") whose name minispore defines, looked up through
    `python -m minispore`'s `mindspore` alias exactly as a user's script would."""
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        script = Path(tmp) / "probe.py"
        script.write_text(_PROBE)
        proc = subprocess.run([sys.executable, "-m", "minispore", str(script)],
                              input=json.dumps([sorted(ids), MODULES]), capture_output=True,
                              text=True, env=_env(), check=True, cwd=tmp)
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))
